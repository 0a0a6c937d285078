"""The edges that connect two entities, picked from the walks around each (issue 39, point 4:
"the edges between two given entities (depth ≤ 2) with evidence, under the same walk rules").

No rule of its own decides which edges exist: each side is a depth-1 walk (graph/walk.py, the
seed's walk steps 1–4), and an edge qualifies in a walk from either end alike, both ends
returnable in scope and the edge an ASSERTION or a PATH. What this module decides, without
I/O, is which of those edges lie on a path of at most `depth` steps from `one` to `other`:

- step 1: an edge of `one`'s walk whose far end is `other` (a direct relation);
- step 2 (depth 2): for each entity `via` both walks reach (not `one`, not `other`), the edges
  `one`–`via` from `one`'s walk and `via`–`other` from `other`'s walk: every two-step path is
  such a pair, since its middle entity is a neighbour of both ends.

Order: the direct edges in the walk's order, then each `via` by id, its edges from `one` before
its edges to `other`; each edge once.

>>> from retrieval.walk_bookkeeping import EdgeKey
>>> around_a = [EdgeKey("r1", "KNOWS", "a", "b"), EdgeKey("r2", "KNOWS", "a", "x")]
>>> around_b = [EdgeKey("r1", "KNOWS", "a", "b"), EdgeKey("r3", "KNOWS", "x", "b")]
>>> [(edge.id, step) for edge, step in connections("a", "b", around_a, around_b, 2)]
[('r1', 1), ('r2', 1), ('r3', 2)]
>>> [(edge.id, step) for edge, step in connections("a", "b", around_a, around_b, 1)]
[('r1', 1)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from retrieval.walk_bookkeeping import Candidate

C = TypeVar("C", bound=Candidate)


def far_end(edge: Candidate, near: str) -> str:
    """The end of `edge` that is not `near` (`near` itself for a loop)."""
    return edge.target_id if edge.source_id == near else edge.source_id


def connections(
    one: str, other: str, around_one: Sequence[C], around_other: Sequence[C], depth: int
) -> list[tuple[C, int]]:
    """The edges on a path of at most `depth` (1 or 2) steps from `one` to `other`, each with
    its step on the path: 1 from `one`, 2 into `other` through a shared neighbour."""
    chosen: dict[str, tuple[C, int]] = {}
    for edge in around_one:
        if far_end(edge, one) == other and one != other:
            chosen.setdefault(edge.id, (edge, 1))
    if depth < 2:
        return list(chosen.values())
    reached_by_one = {far_end(edge, one) for edge in around_one}
    reached_by_other = {far_end(edge, other) for edge in around_other}
    shared = sorted((reached_by_one & reached_by_other) - {one, other})
    for via in shared:
        for edge in around_one:
            if far_end(edge, one) == via:
                chosen.setdefault(edge.id, (edge, 1))
        for edge in around_other:
            if far_end(edge, other) == via:
                chosen.setdefault(edge.id, (edge, 2))
    return list(chosen.values())
