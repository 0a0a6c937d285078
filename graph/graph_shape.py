"""The shape of the graph as one caller's scope holds it (issue 29, point 7): how many entities
of each label and relations of each type it can reach, for MCP's `describe_graph`.

What is counted, exactly (the visibility rule, contract §1, and the walk's, §5):
- an entity is counted when a visible passage (in scope and current) mentions it: the
  entities search finds SUPPORTED and a walk may start from;
- a relation is counted when one of its ends is a counted entity and a walk from that end
  would show it at its first step: its type is not graph-owned, its other end is returnable in
  the scope, and it is an ASSERTION (a visible passage of its `passageIds`) or a PATH (no
  `passageIds`). A PATH between two entities that are only UNSUPPORTED is left out.

Cost (docs/mcp.md, "describe_graph"): counting a whole scope reads every visible mention, and a
large graph holds millions. So the reads are capped, not the answer made up: at most
`MENTION_CAP` mentions are read (from the in-scope documents' current passages), and at most
`RELATION_CAP` relationships around the entities they name, each expansion typed (only the
walkable types are read, as the walk reads them, never an entity's MENTIONED_IN). A count from
a read that reached its cap is a lower bound, and the answer says so (`atLeast`). Each read's
work is bounded by its cap, not by the graph; the document scan before the first mention is
the scope's documents (an index seek per workspace or document id when the scope names them).

Two statements: the stored relationship types (the catalog, cheap), then the counts, the
walkable types written into the pattern as the walk writes them (graph/cypher_names.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from contract.scope import Scope
from graph.cypher_names import split_plain
from graph.driver import Graph
from graph.lookups import scoped
from graph.mention_reads import SHAPES, ScopeShape, scope_shape
from graph.served_statements import ServingGraph, served, served_variants
from graph.statement_names import builds_statement
from graph.visibility import (
    document_in_scope,
    document_visible,
    entity_returnable,
    passage_current,
)
from graph.walk import expand_relations

MENTION_CAP = 20_000  # mentions read to count entities (see the module docstring)
RELATION_CAP = 20_000  # relationships read around them to count relation types

STORED_RELATION_TYPES = served(
    "CALL db.relationshipTypes() YIELD relationshipType RETURN collect(relationshipType) AS types"
)

_COUNTED_ENTITIES = (
    "CALL () {"
    " MATCH (d:Document) WHERE " + document_visible("d") + " MATCH (d)-[:HAS_PART]->(c:Chunk)"
    " WHERE " + passage_current("c", "d.currentVersion") + " MATCH (e:Entity)-[:MENTIONED_IN]->(c)"
    " WITH e LIMIT $mentionReadLimit"
    " WITH collect(e) AS read"
    " UNWIND read[..$mentionCap] AS e WITH DISTINCT e, size(read) > $mentionCap AS mentionsCut"
    " RETURN collect(e) AS counted, coalesce(head(collect(mentionsCut)), false) AS mentionsCut"
    " }"
)

_LABEL_COUNTS = (
    " CALL (counted) {"
    " UNWIND counted AS e"
    " UNWIND [label IN labels(e) WHERE NOT label IN $graphOwnedLabels] AS label"
    " WITH label, count(*) AS entities ORDER BY label"
    " RETURN collect({name: label, count: entities}) AS labels"
    " }"
)

# A relation qualifies as the walk's EDGE_SUPPORT decides (graph/walk_support.py), without the
# evidence it shows: a PATH, or a passage it lists visible in the scope.
_QUALIFIES = (
    "(size(coalesce(r.passageIds, [])) = 0 OR EXISTS {"
    " MATCH (sd:Document)-[:HAS_PART]->(sc:Chunk)"
    " WHERE sc.id IN r.passageIds AND "
    + document_in_scope("sd")
    + " AND "
    + passage_current("sc", "sd.currentVersion")
    + " })"
)


@builds_statement
def shape_counts(types: Sequence[str], shape: ScopeShape) -> str:
    """The label counts and, when `types` (the walkable stored types) is not empty, the
    relation counts of one scope."""
    if not types:
        relations = " CALL () { RETURN [] AS relationTypes, false AS relationsCut }"
    else:
        relations = (
            " CALL (counted) {"
            " WITH [e IN counted | e.id] AS countedIds"
            " CALL (countedIds) { "
            + expand_relations("countedIds", "countedIds", "far", types)
            + " WITH r, far LIMIT $relationReadLimit"
            " RETURN collect({r: r, far: far}) AS read"
            " }"
            " WITH read[..$relationCap] AS used, size(read) > $relationCap AS relationsCut"
            " CALL (used) {"
            " UNWIND used AS row WITH row.r AS r, row.far AS far"
            " WHERE " + entity_returnable("far", shape) + " AND " + _QUALIFIES + " WITH DISTINCT r"
            " WITH type(r) AS type, count(*) AS relations ORDER BY type"
            " RETURN collect({name: type, count: relations}) AS relationTypes"
            " }"
            " RETURN relationTypes, relationsCut"
            " }"
        )
    return (
        _COUNTED_ENTITIES
        + _LABEL_COUNTS
        + relations
        + " RETURN labels, mentionsCut, relationTypes, relationsCut"
    )


@served_variants
def _served(serving: ServingGraph) -> list[str]:
    """The counts in each scope shape, for the types a walk follows."""
    return [shape_counts(serving.walked_types(), shape) for shape in SHAPES]


@dataclass(frozen=True, slots=True)
class Count:
    name: str
    count: int


@dataclass(frozen=True, slots=True)
class GraphShape:
    labels: list[Count]  # entity label → counted entities, by name
    relation_types: list[Count]  # relation type → counted relations, by name
    labels_at_least: bool  # the mention read reached MENTION_CAP: counts are lower bounds
    relations_at_least: bool  # either read reached its cap


async def graph_shape(graph: Graph, scope: Scope, graph_owned_types: Sequence[str]) -> GraphShape:
    rows = await graph.read(STORED_RELATION_TYPES, {})
    types = sorted(t for t in rows[0]["types"] if t not in set(graph_owned_types))
    parameters = scoped(
        scope,
        mentionCap=MENTION_CAP,
        mentionReadLimit=MENTION_CAP + 1,
        relationCap=RELATION_CAP,
        relationReadLimit=RELATION_CAP + 1,
        oddTypes=split_plain(types)[1],
    )
    row = (await graph.read(shape_counts(types, scope_shape(scope)), parameters))[0]
    return GraphShape(
        labels=[Count(item["name"], item["count"]) for item in row["labels"]],
        relation_types=[Count(item["name"], item["count"]) for item in row["relationTypes"]],
        labels_at_least=bool(row["mentionsCut"]),
        relations_at_least=bool(row["mentionsCut"] or row["relationsCut"]),
    )
