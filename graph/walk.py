"""The relationship walk (contract §5): its Cypher, and the loop that runs one walk.

Seed, "Relationship walk":
  1. "The call checks that entity_id is a canonical lowercase UUID string and that the entity
     has at least one visible passage in scope. Otherwise the result is malformed or
     unavailable."
  2. "The walk follows relations that join two entities. With relation_types, only those types
     are followed. Without it, every stored relation type is followed except the graph-owned
     types such as HAS_PART and MENTIONED_IN. An edge must also join two entities that have a
     passage in scope."
  3. "Each step reads the edges around the entities found so far. An edge with a visible
     passage in scope is an assertion, and the edge lists up to three of those passages. An
     edge with no passage is a path. An edge whose passages are all superseded or out of scope
     is dropped."
  4. "The walk stops at the first bound it reaches in each step, and truncated_by lists every
     bound that cut the walk."

Step 1's id check is the resolver's (before any I/O); step 4's decisions are
`retrieval.walk_bookkeeping`. Here: one statement per step, and one DEPTH probe.

- `FIRST_STEP` checks the start (a visible passage in scope), settles the followed types and
  reads step 1; no row means the start is missing or hidden.
- `NEXT_STEP` reads step 2 around the entities step 1 reached first.
- `DEPTH_PROBE` asks whether an entity reached at the last depth has a qualifying edge to an
  entity outside the result. It reads at most `maxCandidates` relationships in all, so a hub
  stays cheap; a qualifying edge beyond that read is not seen (docs/walk.md).

A step reads at most `maxCandidates + 1` relationships of the followed types: the LIMIT sits
directly on the typed expansion, before any check, and the extra one only tells that more
remained. The frontier is read in id order, each entity's relationships in store order, so the
same graph gives the same reads. The followed types are the stored types (`relationTypes`, when
given, keeps those it names; an entry no stored type equals follows nothing) minus the
graph-owned ones. Plain stored names are written into the pattern (`[r:`KNOWS`|`LIKES`]`,
graph/cypher_names.py): Neo4j 5.26 expands only those types then. Any other stored name (`works
for`, or one holding a backslash) never becomes Cypher text; it is matched as a parameter by a
second expansion, `[r:$any($oddTypes)]`, which Neo4j plans as `Expand(All)` plus a filter: it
also reads an entity's other relationships (its MENTIONED_IN ones too), so walks along odd types
cost more around a dense entity (docs/walk.md). The stored types are cached per graph and
checked by the first step statement against `db.relationshipTypes()`, which sends the step
again in the rare case the stored types changed, so the cache never changes an answer.

Statements: depth 1 costs at most 2 (first step, probe), depth 2 at most 3; a step or probe
with nothing to read is not sent. Passage text rides along only when `with_evidence`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, LiteralString
from weakref import WeakKeyDictionary

from contract.relation_claims import served_description, served_weight
from contract.scope import Scope
from graph.cypher_names import relationship_types_pattern, split_plain
from graph.driver import Graph
from graph.lookups import ENTITY_MAP, scoped
from graph.mention_reads import SHAPES, ScopeShape, scope_shape
from graph.records import EntityRecord, PassageRecord
from graph.served_statements import ServingGraph, served_variants
from graph.statement_names import builds_statement
from graph.visibility import entity_supported
from graph.walk_support import EDGE_SUPPORT, considered, far_returnable
from retrieval.walk_bookkeeping import Bound, WalkBookkeeping, WalkBounds

EVIDENCE_LIMIT = 3  # seed step 3: "the edge lists up to three of those passages"


def expand_relations(imports: str, near_ids: str, far: str, types: Sequence[str]) -> str:
    """Clauses binding `r` and `far` for every relationship of `types` around `near_ids`.

    Plain names are written into a typed pattern; the others are matched as `$oddTypes`
    (graph/cypher_names.py). With both, the two expansions are joined by UNION ALL, plain types
    first, so the reads stay deterministic.
    """
    plain, odd = split_plain(types)
    patterns = [relationship_types_pattern("r", plain)] if plain else []
    if odd:
        patterns.append("[r:$any($oddTypes)]")
    matches = [
        f"UNWIND {near_ids} AS nearId MATCH (near:Entity {{id: nearId}})-{pattern}-({far}:Entity)"
        for pattern in patterns
    ]
    if len(matches) == 1:
        return matches[0]
    returned = f" RETURN r, {far}"
    return f"CALL ({imports}) {{ " + (returned + " UNION ALL ").join(matches) + returned + " }"


def _step(carried: LiteralString, types: Sequence[str], shape: ScopeShape) -> str:
    """Read one step around `frontierIds` along `types`; keep the qualifying candidates.

    Expects `frontierIds` and the variables `carried` names to be bound; binds `more` (the
    read stopped with relationships left), `versions` and `candidates`. The far end is named `e` so
    `ENTITY_MAP` projects it.
    """
    if types:
        read = (
            "CALL (frontierIds) { "
            + expand_relations("frontierIds", "frontierIds", "far", types)
            + " WITH r, far LIMIT $readLimit"
            " RETURN collect({r: r, far: far}) AS read"
            " }"
        )
    else:
        read = "CALL (frontierIds) { RETURN [] AS read }"
    return (
        read + " WITH " + carried + ", read[..$maxCandidates] AS used,"
        " size(read) > $maxCandidates AS more"
        # Candidate order (the bookkeeping's), without the edges already in the result.
        " CALL (used) {"
        " UNWIND used AS row"
        " WITH row WHERE NOT coalesce(row.r.id, elementId(row.r)) IN $knownEdgeIds"
        " WITH row ORDER BY type(row.r), startNode(row.r).id, endNode(row.r).id,"
        " coalesce(row.r.id, elementId(row.r))"
        " RETURN collect(row) AS ordered"
        " } "
        + considered("ordered", "$edgeBudget", shape)
        + " CALL (considered, versions, changed) {"
        " UNWIND considered AS row"
        " WITH row, row.r AS r, row.far AS e, versions, changed"
        " WHERE "
        + far_returnable("e", shape)
        + " "
        + EDGE_SUPPORT
        + " WITH * WHERE kind IS NOT NULL"
        " RETURN collect({id: coalesce(r.id, elementId(r)), type: type(r),"
        " sourceId: startNode(r).id, targetId: endNode(r).id, kind: kind,"
        " description: r.description, weight: r.weight,"
        " evidenceIds: evidenceIds, evidence: evidence, far: " + ENTITY_MAP + "}) AS candidates"
        " }"
    )


@builds_statement
def first_step(types: Sequence[str], shape: ScopeShape) -> str:
    """Check the start (a visible passage in scope), read step 1, and report the stored types."""
    return (
        "MATCH (e:Entity {id: $startId})"
        " WHERE " + entity_supported("e", shape) + " CALL () {"
        " CALL db.relationshipTypes() YIELD relationshipType"
        " RETURN collect(relationshipType) AS storedTypes"
        " }"
        " WITH "
        + ENTITY_MAP
        + " AS start, [e.id] AS frontierIds, storedTypes "
        + _step("start, storedTypes", types, shape)
        + " RETURN start, storedTypes, more, candidates, versions"
    )


@builds_statement
def next_step(types: Sequence[str], shape: ScopeShape) -> str:
    return (
        "WITH $frontier AS frontierIds "
        + _step("frontierIds", types, shape)
        + " RETURN more, candidates, versions"
    )


@builds_statement
def depth_probe(types: Sequence[str], shape: ScopeShape) -> str:
    return (
        "CALL () { "
        + expand_relations("", "$lastDepthIds", "e", types)
        + " WITH r, e LIMIT $readLimit"
        " WITH r, e WHERE NOT e.id IN $resultIds"
        " RETURN collect({r: r, far: e}) AS probed"
        " } "
        + considered("probed", "1", shape)
        + " UNWIND considered AS row WITH row, row.r AS r, row.far AS e, versions, changed"
        " WHERE "
        + far_returnable("e", shape)
        + " "
        + EDGE_SUPPORT
        + " WITH kind WHERE kind IS NOT NULL"
        " WITH kind LIMIT 1"
        " RETURN count(kind) > 0 AS found"
    )


@served_variants
def _served(serving: ServingGraph) -> list[str]:
    """A walk that names no types, of each depth, in each scope shape; and the first step of
    one that follows nothing (its types name none stored: `walk` sends no other statement
    then). A walk that names some types makes statements of its own, planned on first use."""
    walked = serving.walked_types()
    return [
        *(
            build(walked, shape)
            for shape in SHAPES
            for build in ((first_step, next_step, depth_probe) if walked else (first_step,))
        ),
        *(first_step([], shape) for shape in SHAPES),
    ]


# The stored relationship types each graph was last seen to hold (see the module docstring).
_stored_types: WeakKeyDictionary[Graph, tuple[str, ...]] = WeakKeyDictionary()


@dataclass(frozen=True, slots=True)
class WalkRequest:
    """A checked walk: the resolver validated every value (contract §5, §7)."""

    start_id: str
    depth: int
    relation_types: tuple[str, ...] | None
    bounds: WalkBounds
    graph_owned_types: tuple[str, ...]
    with_evidence: bool = False
    # Whether to ask if more lies beyond the last depth (DEPTH); a caller that only picks edges
    # out of the walk (answers/walk.py `walk_between`) has no use for the answer.
    probe_depth: bool = True


@dataclass(frozen=True, slots=True)
class WalkEdgeRecord:
    id: str
    type: str
    kind: str  # ASSERTION | PATH
    source_id: str
    target_id: str
    evidence_ids: tuple[str, ...]
    # What the source says about the relation (contract/relation_claims.py): a claim, made
    # safe here whoever wrote the property.
    description: str | None = None
    weight: float | None = None

    @classmethod
    def from_map(cls, value: dict[str, Any]) -> WalkEdgeRecord:
        return cls(
            id=value["id"],
            type=value["type"],
            kind=value["kind"],
            source_id=value["sourceId"],
            target_id=value["targetId"],
            evidence_ids=tuple(value["evidenceIds"]),
            description=served_description(value.get("description")),
            weight=served_weight(value.get("weight")),
        )


@dataclass(frozen=True, slots=True)
class WalkRecord:
    """One walk's answer, in its final order."""

    start: EntityRecord
    nodes: list[EntityRecord]
    edges: list[tuple[WalkEdgeRecord, int]]  # (edge, depth)
    truncated_by: list[Bound]
    passages: list[PassageRecord]  # the edges' evidence, when the request asked for it


@dataclass
class _Reads:
    """What the statements returned, by id, for building the final record."""

    entities: dict[str, EntityRecord]
    passages: dict[str, PassageRecord]

    def candidates(self, row: Any) -> list[WalkEdgeRecord]:
        found = []
        for value in row["candidates"]:
            far = EntityRecord.from_map(value["far"])
            self.entities.setdefault(far.id, far)
            for passage in value["evidence"]:
                self.passages.setdefault(passage["id"], PassageRecord.from_map(passage))
            found.append(WalkEdgeRecord.from_map(value))
        return found


async def walk(graph: Graph, scope: Scope, request: WalkRequest) -> WalkRecord | None:
    """Run one walk; None when the start is missing or has no visible passage in scope."""
    bounds = request.bounds
    common = scoped(
        scope,
        readLimit=bounds.max_candidates + 1,
        maxCandidates=bounds.max_candidates,
        withEvidence=request.with_evidence,
        evidenceLimit=EVIDENCE_LIMIT,
    )
    common["knownVersions"] = []
    # What a step may take (graph/walk_support.py): edges already taken are left out.
    common["knownEdgeIds"] = []
    common["edgeBudget"] = bounds.max_edges + 1
    shape = scope_shape(scope)
    owned = set(request.graph_owned_types)

    def followed(stored: Sequence[str]) -> list[str]:
        """contract §5: only stored types are followed; an entry equal to none follows nothing."""
        chosen = request.relation_types if request.relation_types is not None else stored
        return sorted(t for t in set(chosen).intersection(stored) if t not in owned)

    def typed(types: list[str]) -> dict[str, Any]:
        return {**common, "oddTypes": split_plain(types)[1]}

    stored_before = _stored_types.get(graph, ())
    types = followed(stored_before)
    rows = await graph.read(first_step(types, shape), {**typed(types), "startId": request.start_id})
    if not rows:
        return None
    stored_now = tuple(sorted(rows[0]["storedTypes"]))
    _stored_types[graph] = stored_now
    if followed(stored_now) != types:
        # The stored types changed since the cache was filled: read step 1 again with them.
        types = followed(stored_now)
        rows = await graph.read(
            first_step(types, shape), {**typed(types), "startId": request.start_id}
        )
        if not rows:
            return None
    start = EntityRecord.from_map(rows[0]["start"])
    reads = _Reads(entities={start.id: start}, passages={})
    bookkeeping: WalkBookkeeping[WalkEdgeRecord] = WalkBookkeeping(start.id, bounds)
    frontier = bookkeeping.take_step(1, reads.candidates(rows[0]), rows[0]["more"])
    # Later statements decide with the versions the earlier ones read (graph/walk_support.py).
    common["knownVersions"] = rows[0]["versions"]
    for depth in range(2, request.depth + 1):
        if bookkeeping.ended or not frontier:
            break
        common["knownEdgeIds"] = list(bookkeeping.edges)
        common["edgeBudget"] = bounds.max_edges - len(bookkeeping.edges) + 1
        rows = await graph.read(next_step(types, shape), {**typed(types), "frontier": frontier})
        frontier = bookkeeping.take_step(depth, reads.candidates(rows[0]), rows[0]["more"])
        common["knownVersions"] = rows[0]["versions"]
    last_depth_ids = bookkeeping.reached_at(request.depth)
    if request.probe_depth and last_depth_ids and types:
        rows = await graph.read(
            depth_probe(types, shape),
            {
                **typed(types),
                "lastDepthIds": last_depth_ids,
                "resultIds": list(bookkeeping.depths),
                "readLimit": bounds.max_candidates,
            },
        )
        bookkeeping.record_depth_probe(bool(rows[0]["found"]))
    return _record(bookkeeping, reads)


def _record(bookkeeping: WalkBookkeeping[WalkEdgeRecord], reads: _Reads) -> WalkRecord:
    edges = bookkeeping.ordered_edges()
    evidence_ids: Sequence[str] = [pid for edge, _ in edges for pid in edge.evidence_ids]
    return WalkRecord(
        start=reads.entities[bookkeeping.start_id],
        nodes=[reads.entities[node] for node in bookkeeping.node_ids()],
        edges=edges,
        truncated_by=bookkeeping.truncated_by(),
        passages=[
            reads.passages[pid] for pid in dict.fromkeys(evidence_ids) if pid in reads.passages
        ],
    )
