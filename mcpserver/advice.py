"""What a walk's `truncatedBy` means for the model, as advice it can follow (issue 29, point 4).

DEPTH is not a cut: it says there is more beyond the last depth, which is nearly always so at
depth 1. The way on is another walk from a neighbour (or depth 2, from a walk at depth 1), never
"raise the bound" at the maximum depth. NODES, EDGES and CANDIDATES are cuts the caller can lift
by raising that bound while it is below its maximum, else by narrowing the relation types.
Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from contract.arguments import WALK_DEPTH, WALK_MAX_CANDIDATES, WALK_MAX_EDGES, WALK_MAX_NODES
from graph.records import EntityRecord
from retrieval.walk_bookkeeping import Bound

# The argument that lifts each bound of walk_between's two walks.
_RAISE = {Bound.NODES: "maxNodes", Bound.EDGES: "maxEdges", Bound.CANDIDATES: "maxCandidates"}


@dataclass(frozen=True, slots=True)
class WalkCall:
    """The walk as the caller asked for it; `tool` is walk, or get_entity whose walk has fixed
    depth and candidates and whose edges the caller bounds with `maxEdges`."""

    tool: str
    entity_id: str
    depth: int
    max_nodes: int
    max_edges: int
    max_candidates: int
    max_edges_limit: int  # the highest maxEdges this tool takes
    typed: bool  # relationTypes given


def _raise(argument: str, now: int, highest: int, narrow: str) -> str:
    if now < highest:
        return f"raise `{argument}` (now {now}, at most {highest}){narrow}"
    return f"`{argument}` is at its maximum ({highest}){narrow or ''}"


def walk_advice(call: WalkCall, truncated_by: Sequence[str]) -> list[str]:
    """One line per bound in `truncated_by`, each naming a call that gets further."""
    narrow = "" if call.typed else ", or narrow with `relationTypes`"
    if call.tool == "get_entity":
        walk_on = f"walk with entityId {call.entity_id}"
        lines = {
            "NODES": f"Cut at {call.max_nodes} entities: {walk_on} for all of them.",
            "EDGES": "Cut at "
            + f"{call.max_edges} relations: "
            + (
                f"raise `maxEdges` (at most {call.max_edges_limit}), or {walk_on}."
                if call.max_edges < call.max_edges_limit
                else f"{walk_on}, which pages them with a cursor."
            ),
            "CANDIDATES": f"This entity is a hub; {walk_on} and `relationTypes` to read past "
            f"the first {call.max_candidates} relationships.",
            "DEPTH": "More relations lie beyond these neighbours (not a cut): get_entity or "
            "walk from a neighbour's id to follow them.",
        }
    else:
        further = (
            "walk again with `depth` 2, or walk from a neighbour's id"
            if call.depth < WALK_DEPTH.high
            else f"walk from a neighbour's id (`depth` is at most {WALK_DEPTH.high})"
        )
        lines = {
            "NODES": f"Cut at {call.max_nodes} entities: "
            + _raise("maxNodes", call.max_nodes, WALK_MAX_NODES.high, narrow)
            + ".",
            "EDGES": f"Cut at {call.max_edges} edges: "
            + _raise("maxEdges", call.max_edges, WALK_MAX_EDGES.high, narrow)
            + ".",
            "CANDIDATES": f"A hub: only its first {call.max_candidates} relationships were read: "
            + _raise("maxCandidates", call.max_candidates, WALK_MAX_CANDIDATES.high, narrow)
            + ".",
            "DEPTH": f"More relations lie beyond depth {call.depth} (not a cut): {further}.",
        }
    return [lines[bound] for bound in truncated_by]


def missing_types(requested: Sequence[str] | None, walked: Sequence[str]) -> list[str]:
    """The relation types the caller named that no edge of the answer has, in its order: a
    walk names no type it cannot find, so these need `unknown_types_advice` to say why."""
    if requested is None:
        return []
    found = set(walked)
    return [name for name in dict.fromkeys(requested) if name not in found]


def unknown_types_advice(
    missing: Sequence[str], in_scope: Sequence[tuple[str, int]], at_least: bool
) -> list[str]:
    """One line when some of `missing` is a type no relation in the scope has (`in_scope`:
    describe_graph's types with their counts, lower bounds when `at_least`); none when each
    exists and this entity just has no such relation.

    >>> unknown_types_advice(["KNOWS"], [("RELATED_TO", 105)], False)[0][:58]
    'No relation in scope has type KNOWS; its types: RELATED_TO'
    """
    known = {name for name, _ in in_scope}
    unknown = [name for name in missing if name not in known]
    if not unknown:
        return []
    plural = "s" if len(unknown) > 1 else ""
    named = ", ".join(unknown)
    if not in_scope:
        return [f"No relation in scope has type{plural} {named}: the scope holds no relation."]
    more = "at least " if at_least else ""
    listed = ", ".join(f"{name} ({more}{count})" for name, count in in_scope)
    return [
        f"No relation in scope has type{plural} {named}; its types: {listed}. Name one of those"
        " in `relationTypes`, or omit it to follow every type."
    ]


def connection_advice(
    one: EntityRecord, one_cut: Sequence[Bound], other: EntityRecord, other_cut: Sequence[Bound]
) -> list[str]:
    """One line per end whose walk a bound cut: walk_between's edges through what that walk
    left out are missing, and which argument reads further."""
    lines = []
    for end, cut in ((one, one_cut), (other, other_cut)):
        if cut:
            raised = " or ".join(f"`{_RAISE[bound]}`" for bound in cut)
            named = ", ".join(bound.value for bound in cut)
            lines.append(
                f"The walk around {end.name} was cut ({named}): connections through what it "
                f"left out are missing; raise {raised}, or narrow with `relationTypes`."
            )
    return lines
