"""What a model should do after each error code (issue 29, point 8): said once, in the server's
instructions (issue 39, point 6: repeated in every tool's description it made the tool list
4,500 characters longer), and again in every error result, after the message, so an agent has a
way out at the point it needs one.

The codes and messages are the GraphQL API's (contract §7); only INDEX_NOT_READY's message is
worded for an agent here: the GraphQL message tells an operator to run `evidencegraph schema
apply`, which an agent cannot do, so the agent is told to search without `labels` instead.
Pure functions.
"""

from __future__ import annotations

from contract.errors import EvidenceGraphError

# One line per code: what to do, not what happened.
ADVICE: dict[str, str] = {
    "MALFORMED": "fix the argument the message names (it says what is allowed, and names the "
    "workspaces, labels or arguments there are) and call again; the same arguments fail the "
    "same way",
    "UNAVAILABLE": "the id is missing or outside your scope (the two look alike); never call "
    "again with the same id: search for the entity instead",
    "INDEX_NOT_READY": "a label you named cannot be searched yet and you cannot fix that: "
    "search again without `labels`",
    "FORBIDDEN": "you may not read what the call names: call again without it (describe_graph "
    "lists what you may read)",
    "UNAUTHENTICATED": "your credentials are missing or refused; retrying does not help: tell "
    "the user",
    "BACKEND_UNAVAILABLE": "the database or the embedder cannot be reached: retry once after "
    "a pause of a few seconds; if it fails again, tell the user",
    "INTERNAL": "an unexpected failure, logged on the server: retry at most once, then tell "
    "the user",
    # The front door's (api/front_door/door.py): nothing of the call was read.
    "COST_LIMIT_EXCEEDED": "this call may read more than one call is allowed: call again asking "
    "for less (a lower `limit` or `supportLimit`, a walk at `depth` 1 or with lower bounds, "
    "fewer ids); the same arguments fail the same way",
    "RATE_LIMITED": "your caller's cost points for this minute are spent: make no call for "
    "`retryAfter` seconds (a call sooner is refused again, after a longer wait each time), "
    "then ask for less in each call",
    "OVERLOADED": "the service is at capacity and nothing of this call ran: wait `retryAfter` "
    "seconds, then call again once; if it is refused again, tell the user",
}
# search_passages' INDEX_NOT_READY is about the passages' own indexes (label `Chunk`).
PASSAGE_INDEX_ADVICE = (
    "passage search is not ready yet and you cannot fix that: use search_entities and the "
    "evidence it cites instead"
)


def instructions_note() -> str:
    """What to do after each error code, for the server's instructions: once for all tools.

    >>> instructions_note().startswith("A refused call is an error result")
    True
    """
    return (
        "A refused call is an error result whose text starts with its code; what to do: "
        + "; ".join(f"{code}: {advice}" for code, advice in ADVICE.items())
        + f"; INDEX_NOT_READY of search_passages: {PASSAGE_INDEX_ADVICE}."
    )


def advice(error: EvidenceGraphError) -> str:
    if error.code == "INDEX_NOT_READY" and error.extensions.get("label") == "Chunk":
        return PASSAGE_INDEX_ADVICE
    return ADVICE.get(error.code, ADVICE["INTERNAL"])


def agent_message(error: EvidenceGraphError) -> str:
    """The error's message as an agent gets it: the contract's, but for INDEX_NOT_READY."""
    if error.code == "INDEX_NOT_READY":
        extensions = error.extensions
        return (
            f"Label `{extensions['label']}` cannot be searched: its {extensions['index']} "
            f"index is {extensions['state']}."
        )
    return error.message


def sentence(text: str) -> str:
    """`text` ending with a full stop (or the mark it ends with).

    >>> sentence("a string is required"), sentence("Is it?")
    ('a string is required.', 'Is it?')
    """
    text = text.rstrip()
    return text if text.endswith((".", "!", "?", ":")) else text + "."


def error_text(error: EvidenceGraphError) -> str:
    """The text of an error result: the code, the message and what to do."""
    return f"{error.code}: {sentence(agent_message(error))} What to do: {sentence(advice(error))}"
