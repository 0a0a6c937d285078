"""Names a caller can find (issue 39, point 3; contract §12): over MCP, a workspace outside the
caller's grant or holding no document it may read, and an entity label its scope does not hold,
are MALFORMED, and the message names the ones there are. (GraphQL keeps contract §7: FORBIDDEN
for a workspace outside the grant, an empty answer for one with no documents, INDEX_NOT_READY
for a label without indexes.)

The names come from what the caller may read, never from the whole graph, so a refusal tells
nothing about another workspace: a workspace another caller holds and one that does not exist
are refused alike. The reads run only when a call names a workspace (one statement), or when a
search with `labels` finds nothing or meets a label without indexes (describe_graph's counts).
"""

from __future__ import annotations

from collections.abc import Sequence

from answers.context import AnswerContext
from answers.graph_shape import describe_graph
from answers.readable_scope import readable_scope
from contract.errors import Malformed
from contract.scope import Grant, Scope
from mcpserver.arguments import ScopeRequest

NAMES_LISTED = 20  # more than this are counted, not named (describe_graph names them all)


def _listed(named: Sequence[str]) -> str:
    shown = ", ".join(named[:NAMES_LISTED])
    more = len(named) - NAMES_LISTED
    return shown + (f" and {more} more (describe_graph lists them)" if more > 0 else "")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


async def checked_scope(context: AnswerContext, grant: Grant, asked: ScopeRequest) -> Scope:
    """The call's effective scope; MALFORMED, naming the readable workspaces, when its
    `scope.workspaces` names one the caller may not read or that holds no visible document."""
    named = asked.workspaces
    if named:
        workspaces, _ = await readable_scope(context, grant, 0)
        readable = {workspace.name for workspace in workspaces}
        wrong = [name for name in dict.fromkeys(named) if name not in readable]
        if wrong:
            there = (
                "the workspaces you may read: "
                + _listed([f"{w.name} ({_plural(w.documents, 'document')})" for w in workspaces])
                if workspaces
                else "no workspace you may read holds a document"
            )
            raise Malformed(
                "scope.workspaces",
                f"no document you may read is in {', '.join(repr(w) for w in wrong)}; {there}",
            )
    return asked.effective(grant)


async def check_labels(context: AnswerContext, effective: Scope, labels: Sequence[str]) -> None:
    """MALFORMED, naming the scope's labels, when one of `labels` labels no entity a visible
    passage in `effective` mentions. Nothing is said when the count stopped at its cap (the
    label may lie past it)."""
    shape = await describe_graph(context, effective)
    known = {count.name for count in shape.labels}
    wrong = [label for label in dict.fromkeys(labels) if label not in known]
    if not wrong or shape.labels_at_least:
        return
    there = (
        "the labels your scope holds: "
        + _listed([f"{count.name} ({count.count})" for count in shape.labels])
        if shape.labels
        else "your scope holds no entity"
    )
    raise Malformed("labels", f"no entity in your scope has the label {', '.join(wrong)}; {there}")
