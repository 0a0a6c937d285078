"""The relationship walk's bookkeeping: which read edges enter the result, and which bound cut it.

Seed, "Relationship walk", step 4: "The walk stops at the first bound it reaches in each step,
and truncated_by lists every bound that cut the walk." (The walk as a whole, and the seed's
other steps, are in `graph/walk.py`; this module holds only the decisions, without I/O.)

Decisions (docs/walk.md):
- A step's qualifying candidates are taken in the order (type, source id, target id,
  relationship id). An edge already in the result is skipped. Adding an edge needs
  `edges < maxEdges` and, when it brings a new node, `nodes < maxNodes` (the start counts).
- The first candidate a bound refuses cuts the walk: every bound that refused it is recorded,
  the step stops and no further step runs.
- A step that read more than `maxCandidates` relationships records CANDIDATES but goes on
  (with what it read), and so does the walk.
- DEPTH is decided outside (a probe of the final result); `record_depth_probe` records it.
- `truncated_by` lists the recorded bounds in the fixed order NODES, EDGES, DEPTH, CANDIDATES.
  Nodes come start first, then by (depth reached, id); edges by (depth, candidate order).

>>> walk = WalkBookkeeping("a", WalkBounds(max_nodes=2, max_edges=10, max_candidates=5))
>>> walk.take_step(1, [EdgeKey("r2", "KNOWS", "a", "c"), EdgeKey("r1", "KNOWS", "a", "b")])
['b']
>>> walk.node_ids(), [edge.id for edge, _ in walk.ordered_edges()], walk.truncated_by()
(['a', 'b'], ['r1'], [<Bound.NODES: 'NODES'>])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Generic, Protocol, TypeVar


class Bound(Enum):
    """A bound that can cut a walk; the GraphQL `WalkBound` has the same names."""

    NODES = "NODES"
    EDGES = "EDGES"
    DEPTH = "DEPTH"
    CANDIDATES = "CANDIDATES"


# The order `truncatedBy` lists the bounds in, whatever order they were reached in.
REPORT_ORDER: tuple[Bound, ...] = (Bound.NODES, Bound.EDGES, Bound.DEPTH, Bound.CANDIDATES)


@dataclass(frozen=True, slots=True)
class WalkBounds:
    max_nodes: int
    max_edges: int
    max_candidates: int


class Candidate(Protocol):
    """What the bookkeeping needs to know of a read relationship."""

    @property
    def id(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def source_id(self) -> str: ...
    @property
    def target_id(self) -> str: ...


@dataclass(frozen=True, slots=True)
class EdgeKey:
    """The smallest `Candidate`: enough for the bookkeeping and its tests."""

    id: str
    type: str
    source_id: str
    target_id: str


def candidate_order(candidate: Candidate) -> tuple[str, str, str, str]:
    """The order a step considers its candidates in: (type, source id, target id, id)."""
    return (candidate.type, candidate.source_id, candidate.target_id, candidate.id)


C = TypeVar("C", bound=Candidate)


@dataclass
class WalkBookkeeping(Generic[C]):
    """The result of one walk as it grows, step by step."""

    start_id: str
    bounds: WalkBounds
    # entity id -> the depth it was first reached at (0 for the start)
    depths: dict[str, int] = field(default_factory=dict)
    # relationship id -> (the edge, the depth of the step that found it)
    edges: dict[str, tuple[C, int]] = field(default_factory=dict)
    cut: set[Bound] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.depths.setdefault(self.start_id, 0)

    @property
    def ended(self) -> bool:
        """A bound refused an edge (NODES or EDGES cut the walk): no further step may run.
        CANDIDATES and DEPTH are recorded without ending it."""
        return Bound.NODES in self.cut or Bound.EDGES in self.cut

    def take_step(
        self, depth: int, candidates: Iterable[C], more_remained: bool = False
    ) -> list[str]:
        """Add what a step found; return the next frontier (entities first reached now, by id).

        `candidates` are the step's qualifying edges, in any order; `more_remained` says the
        step's read stopped at `maxCandidates` with relationships left unread.
        """
        if self.ended:
            raise RuntimeError("the walk ended; no further step may run")
        if more_remained:
            self.cut.add(Bound.CANDIDATES)
        for candidate in sorted(candidates, key=candidate_order):
            if candidate.id in self.edges:
                continue
            new_nodes = [
                node
                for node in dict.fromkeys((candidate.source_id, candidate.target_id))
                if node not in self.depths
            ]
            refused = self._refusing_bounds(len(new_nodes))
            if refused:
                self.cut.update(refused)
                break
            self.edges[candidate.id] = (candidate, depth)
            for node in new_nodes:
                self.depths[node] = depth
        return self.reached_at(depth)

    def _refusing_bounds(self, new_nodes: int) -> list[Bound]:
        refused = []
        if new_nodes and len(self.depths) + new_nodes > self.bounds.max_nodes:
            refused.append(Bound.NODES)
        if len(self.edges) >= self.bounds.max_edges:
            refused.append(Bound.EDGES)
        return refused

    def reached_at(self, depth: int) -> list[str]:
        """Entities first reached at `depth`, by id (a step's frontier; the DEPTH probe's nodes)."""
        return sorted(node for node, reached in self.depths.items() if reached == depth)

    def record_depth_probe(self, found_edge_beyond: bool) -> None:
        """The DEPTH probe's answer: a node at the last depth has a qualifying edge outward."""
        if found_edge_beyond:
            self.cut.add(Bound.DEPTH)

    def node_ids(self) -> list[str]:
        """Start first, then by (depth reached, id)."""
        return sorted(self.depths, key=lambda node: (self.depths[node], node))

    def ordered_edges(self) -> list[tuple[C, int]]:
        """(edge, depth) by (depth, type, source id, target id, id)."""
        return sorted(self.edges.values(), key=lambda item: (item[1], *candidate_order(item[0])))

    def truncated_by(self) -> list[Bound]:
        return [bound for bound in REPORT_ORDER if bound in self.cut]
