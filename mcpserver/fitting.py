"""The size cut (contract §12): the text a model reads at most MCP_MAX_RESULT_CHARS characters,
with a note saying what was left out and exactly which call reads it (issue 29, point 3).

The budget is the text's (contract §12: "the size budget applies to what the model reads, with
passage bodies opt-in"): the structured content is lean (mcpserver/content.py: ids, positions,
quote windows, never a passage body) and holds exactly the items the text holds. An answer too
long is cut to fewer items (hits; edges; for get_entity relations; for get_passage
characters), always one, the rest reachable through `nextCursor` or the call the note names.
"""

from __future__ import annotations

from collections.abc import Callable

from mcpserver.answering import Json, ToolAnswer
from mcpserver.rendering import render

NOTE_ROOM = 600  # kept free for the note, which the text ends with
ITEMS = {
    "search_entities": "hits",
    "search_passages": "hits",
    "walk": "edges",
    "walk_between": "edges",
    "get_entity": "relations",
    "get_entities": "entities",
    "get_evidence": "passages",
    "get_passage": "characters",
    "entity_labels": "labels",
    "describe_graph": "labels and relation types",
}


def _text(tool: str, content: Json, answer: ToolAnswer) -> str:
    return render(tool, content, answer.texts, answer.about, answer.advice)


def _most_that_fit(low: int, high: int, fits: Callable[[int], bool]) -> int:
    """The largest n in [low, high] with fits(n), given fits(low) or nothing better exists."""
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def fit(tool: str, answer: ToolAnswer, max_chars: int) -> tuple[Json, str]:
    """The structured content and its text, the text at most `max_chars` characters (or one
    item, when even one is longer)."""
    content: Json = answer.build(answer.items)
    text = _text(tool, content, answer)
    if len(text) <= max_chars or answer.items <= 1:
        return content, text
    budget = max_chars - NOTE_ROOM
    count = _most_that_fit(
        1, answer.items, lambda n: len(_text(tool, answer.build(n), answer)) <= budget
    )
    content = answer.build(count)
    position = answer.start + count if answer.resume is None else answer.resume(content)
    note = (
        f"Cut to fit {max_chars} characters (MCP_MAX_RESULT_CHARS): left out "
        f"{answer.items - count} of {answer.items} {ITEMS[tool]}. To read the rest, "
        f"{answer.continuation(position)}."
    )
    if answer.cursor is not None:
        content["nextCursor"] = answer.cursor(position)
    content["cut"] = note
    return content, _text(tool, content, answer) + "\n" + note
