"""Entity search in one statement (seed "entity search" steps 1–6, contract §3).

    3. "Each reads up to twice limit candidates for each label, up to 1000. [...] When the
       first semantic read fills up and fewer than limit of its entities are visible, the
       search reads again at that cap."
    4. "In hybrid mode the call fuses the two ranked lists with reciprocal rank fusion [...]
       The other modes use the order of their own search."
    5. "An entity is returned only when a passage in scope mentions it."
    6. "Each returned entity lists up to support_limit passages as evidence ids."

One statement reads both indexes of every searched label, keeps the returnable candidates
(an in-scope passage mentions them), ranks each list among those, fuses, and only for the
`limit` winners checks support and reads evidence (and, when the query selects it, the
evidence text). Labels and their index states are checked before (graph/index_catalog.py).

A lexical candidate counts only when the fields its label's index covers hold enough of the
query's content words (the coverage rule, retrieval/lexical_rule.py): each word is a regex
parameter, tested here against the lowercased fields of the few candidates Lucene returned.
A name the query equals always counts and comes first ("Names are found by their names",
retrieval/name_match.py, retrieval/lexical_order.py); the name rules read `name` only, also
when the index covers `description`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, LiteralString

from contract.scope import Scope
from graph.catalog_cache import SearchResult, marked, read_marked
from graph.driver import Graph
from graph.fulltext_query import fulltext_query, scope_keys
from graph.lookups import ENTITY_MAP, PASSAGE_MAP, scoped
from graph.mention_reads import ScopeShape, for_each_shape, scope_shape
from graph.name_key import NAME_KEYS_COMPLETE, name_key
from graph.records import EntityRecord, PassageRecord
from graph.search_ranking import RANK_AND_FUSE
from graph.served_statements import ServingGraph, served_variants
from graph.visibility import (
    entity_returnable,
    versions_of_mentions,
    visible_passages_of_entity,
)
from retrieval.lexical_rule import LexicalRequest

# The content words of a candidate's name (retrieval/lexical_rule.py `content_words`): runs of
# letters or of digits, lowercased, less function words and one-letter fragments (so a
# possessive's s); computed on the few candidates read, so no derived property is needed.
_NAME_WORDS: LiteralString = (
    "reduce(state = {words: [], word: '', kind: 0},"
    "  ch IN split(toLower(coalesce(toStringOrNull(node.name), '')), '') |"
    "  CASE WHEN ch =~ '\\\\p{L}' THEN CASE WHEN state.kind = 1"
    "    THEN {words: state.words, word: state.word + ch, kind: 1}"
    "    ELSE {words: state.words + state.word, word: ch, kind: 1} END"
    "   WHEN ch =~ '\\\\p{N}' THEN CASE WHEN state.kind = 2"
    "    THEN {words: state.words, word: state.word + ch, kind: 2}"
    "    ELSE {words: state.words + state.word, word: ch, kind: 2} END"
    "   ELSE {words: state.words + state.word, word: '', kind: 0} END)"
)

# Lexical candidates of every label that hold enough of the query's words (or whose name the
# query equals), returnable ones only, each entity once, in the lexical list's order
# (retrieval/lexical_order.py): exact name, completeness, best Lucene score, id. A query with
# no content word reads no FULLTEXT index: it looks for the names it equals, label by label,
# through the exact-name key's index (graph/name_key.py; by a scan while an entity has none).
#
# Which of the two sources a search reads is chosen here, in Python, not by a WHERE in Cypher:
# the planner places such a guard after the read it guards, so a UNION of both sources scanned
# every node of the database on every search with words (337,775 of its 342,000 database hits
# at scale S, docs/benchmarks.md). The exact-name scan reads the :Entity label only (a dynamic
# label, `MATCH (node:$(label))`, is planned as a scan of all nodes).
_FULLTEXT_CANDIDATES: LiteralString = (
    "  CALL db.index.fulltext.queryNodes(target.index, target.query, {limit: $lexicalK})"
    "  YIELD node, score"
    "  RETURN node, score"
)
_EXACT_NAME_CANDIDATES: LiteralString = (
    "  MATCH (node:Entity) WHERE target.label IN labels(node)"
    "  AND toStringOrNull(node.name) =~ $exactPattern"
    "  RETURN node, 0.0 AS score"
)
# The same entities through the exact-name key's index (graph/name_key.py), when every entity
# has its key: a seek, whatever the graph holds.
_NAME_KEY_CANDIDATES: LiteralString = (
    "  WITH target, " + name_key("$nameKeyOf") + " AS nameKey"
    "  MATCH (node:Entity) WHERE node.nameKey = nameKey AND target.label IN labels(node)"
    "  AND toStringOrNull(node.name) =~ $exactPattern"
    "  RETURN node, 0.0 AS score"
)
_CANDIDATES: dict[str, LiteralString] = {
    "fulltext": _FULLTEXT_CANDIDATES,
    "name_key": _NAME_KEY_CANDIDATES,
    "name_scan": _EXACT_NAME_CANDIDATES,
}


def _lexical_list(candidates: LiteralString, shape: ScopeShape) -> LiteralString:
    return (
        "CALL () {"
        " UNWIND $lexicalTargets AS target"
        " CALL (target) {" + candidates + " }"
        " WITH node, score, coalesce(toStringOrNull(node.name) =~ $exactPattern, false) AS exact,"
        "  CASE WHEN $coverageRequired = 0 THEN '' ELSE"
        "  toLower(reduce(text = '', field IN target.fields"
        "   | text + ' ' + coalesce(toStringOrNull(node[field]), ''))) END AS heldText"
        " WHERE exact OR $coverageRequired = 0"
        "  OR size([pattern IN $coveragePatterns WHERE heldText =~ pattern]) >= $coverageRequired"
        " WITH node, max(score) AS score, any(isExact IN collect(exact) WHERE isExact) AS exact"
        " WHERE "
        + entity_returnable("node", shape)
        + " WITH node, score, exact, "
        + _NAME_WORDS
        + " AS state"
        " WITH node, score, exact, reduce(distinct = [], word IN state.words + state.word"
        "  | CASE WHEN word = '' OR word IN $functionWords OR word IN distinct"
        "     OR ($dropOneLetter AND size(word) = 1 AND NOT word =~ '\\\\p{N}') THEN distinct"
        "    ELSE distinct + word END) AS nameWords"
        " WITH node, score, exact, size(nameWords) AS named,"
        "  size([word IN $queryWords WHERE word IN nameWords]) AS shared"
        " WITH node, score, exact, CASE WHEN size($queryWords) + named - shared = 0 THEN 0.0"
        "  ELSE toFloat(shared) / (size($queryWords) + named - shared) END AS completeness"
        " ORDER BY exact DESC, completeness DESC, score DESC, node.id"
        " RETURN collect({node: node, score: score, exact: exact}) AS lexical"
        " }"
    )


# The end of either semantic list: the chosen read (first, or at the cap) of every label,
# returnable entities only, best cosine per entity, best first (ties by id).
_KEEP_RETURNABLE_SEMANTIC: LiteralString = (
    " UNWIND CASE WHEN rereadAtCap THEN capRead ELSE firstRead END AS hit"
    " WITH hit WHERE hit.returnable"
    " WITH hit.node AS node, max(hit.score) AS score"
    " ORDER BY score DESC, node.id"
    " RETURN collect({node: node, score: score}) AS semantic"
    " }"
)


# Semantic candidates from the graph's vector indexes, with the re-read at the cap per label.
# Neo4j scores cosine indexes as (1 + cos) / 2; the contract reports cosine similarity.
def _semantic_list_from_index(shape: ScopeShape) -> LiteralString:
    return (
        "CALL () {"
        " UNWIND $semanticTargets AS target"
        " CALL (target) {"
        "  CALL db.index.vector.queryNodes(target.index, $semanticK, $vector) YIELD node, score"
        "  RETURN collect({node: node, score: 2 * score - 1,"
        "   returnable: " + entity_returnable("node", shape) + "}) AS firstRead"
        " }"
        " WITH target, firstRead,"
        "  size(firstRead) = $semanticK AND $capK > $semanticK"
        "  AND size([hit IN firstRead WHERE hit.returnable]) < $limit AS rereadAtCap"
        " CALL (target, rereadAtCap) {"
        "  WITH target WHERE rereadAtCap"
        "  CALL db.index.vector.queryNodes(target.index, $capK, $vector) YIELD node, score"
        "  RETURN collect({node: node, score: 2 * score - 1,"
        "   returnable: " + entity_returnable("node", shape) + "}) AS capRead"
        " }" + _KEEP_RETURNABLE_SEMANTIC
    )


# Semantic candidates read from an external vector store by the caller: per label, the first
# read and (when the store returned a full first read) the read at the cap.
def _semantic_list_from_store(shape: ScopeShape) -> LiteralString:
    return (
        "CALL () {"
        " UNWIND $externalReads AS read"
        " CALL (read) {"
        "  UNWIND read.first AS stored MATCH (node:Entity {id: stored.id})"
        "  RETURN collect({node: node, score: stored.score,"
        "   returnable: " + entity_returnable("node", shape) + "}) AS firstRead"
        " }"
        " WITH read, firstRead,"
        "  size(read.first) = $semanticK AND size(read.cap) > size(read.first)"
        "  AND size([hit IN firstRead WHERE hit.returnable]) < $limit AS rereadAtCap"
        " CALL (read, rereadAtCap) {"
        "  WITH read WHERE rereadAtCap"
        "  UNWIND read.cap AS stored MATCH (node:Entity {id: stored.id})"
        "  RETURN collect({node: node, score: stored.score,"
        "   returnable: " + entity_returnable("node", shape) + "}) AS capRead"
        " }" + _KEEP_RETURNABLE_SEMANTIC
    )


# Ranks among returnable entities, fusion, and the winners' support and evidence, decided by
# one read of each document's version for all winners (graph/visibility.py says why).
def _fuse_and_support(shape: ScopeShape) -> LiteralString:
    return (
        RANK_AND_FUSE + " WITH collect({node: node, score: score, lexicalRank: lexicalRank,"
        "  semanticRank: semanticRank, position: position}) AS winners"
        " CALL (winners) { "
        + versions_of_mentions("[winner IN winners | winner.node]", "versions", "$evidenceK", shape)
        + " }"
        " UNWIND winners AS winner"
        " WITH winner.node AS node, winner.score AS score, winner.lexicalRank AS lexicalRank,"
        "  winner.semanticRank AS semanticRank, winner.position AS position, versions,"
        "  versionsLooked"
        " CALL (node, versions, versionsLooked) { "
        + visible_passages_of_entity("node", "$evidenceK", "versions", "versionsLooked")
        + "  RETURN collect(c.id) AS evidenceIds,"
        "   collect(CASE WHEN $withText THEN " + PASSAGE_MAP + " END) AS passages"
        " }"
        " WITH node AS e, score, lexicalRank, semanticRank, evidenceIds, passages, position"
        " RETURN " + ENTITY_MAP + " AS entity, score, lexicalRank, semanticRank,"
        "  size(evidenceIds) > 0 AS supported,"
        "  evidenceIds[..$supportLimit] AS evidenceIds, passages[..$supportLimit] AS passages,"
        "  position"
        " ORDER BY position"
    )


# The search statement for each source of lexical candidates (FULLTEXT; for a query with no
# content word, exact names by their key, or by a scan while an entity has none) and of
# semantic ones (the graph's indexes, or an external store). Each also reads the index
# catalog's marker (graph/catalog_cache.py), in the same round trip. Each is built for each
# shape of scope (graph/mention_reads.py); the constants hold the one for a scope that filters
# nothing, and name all of them in traces.
def _search(source: str, external: bool) -> Callable[[ScopeShape], LiteralString]:
    def build(shape: ScopeShape) -> LiteralString:
        lexical = _lexical_list(_CANDIDATES[source], shape)
        semantic = (
            _semantic_list_from_store(shape) if external else _semantic_list_from_index(shape)
        )
        return marked(lexical + " " + semantic + _fuse_and_support(shape))

    return build


SEARCH_ENTITIES: LiteralString = _search("fulltext", False)("everywhere")
SEARCH_ENTITIES_BY_NAME_KEY: LiteralString = _search("name_key", False)("everywhere")
SEARCH_ENTITIES_BY_EXACT_NAME: LiteralString = _search("name_scan", False)("everywhere")
SEARCH_ENTITIES_EXTERNAL_VECTORS: LiteralString = _search("fulltext", True)("everywhere")
SEARCH_ENTITIES_EXTERNAL_VECTORS_BY_NAME_KEY: LiteralString = _search("name_key", True)(
    "everywhere"
)
SEARCH_ENTITIES_EXTERNAL_VECTORS_BY_EXACT_NAME: LiteralString = _search("name_scan", True)(
    "everywhere"
)
_STATEMENTS: dict[tuple[str, bool], Mapping[ScopeShape, str]] = {
    (source, external): for_each_shape(f"{__name__}.{name}", _search(source, external))
    for source, external, name in (
        ("fulltext", False, "SEARCH_ENTITIES"),
        ("name_key", False, "SEARCH_ENTITIES_BY_NAME_KEY"),
        ("name_scan", False, "SEARCH_ENTITIES_BY_EXACT_NAME"),
        ("fulltext", True, "SEARCH_ENTITIES_EXTERNAL_VECTORS"),
        ("name_key", True, "SEARCH_ENTITIES_EXTERNAL_VECTORS_BY_NAME_KEY"),
        ("name_scan", True, "SEARCH_ENTITIES_EXTERNAL_VECTORS_BY_EXACT_NAME"),
    )
}


@served_variants
def _served(serving: ServingGraph) -> list[str]:
    """Every source of lexical candidates, every scope shape, for the vector store in use."""
    return [
        statement
        for (_, external), by_shape in _STATEMENTS.items()
        if external == serving.external_vectors
        for statement in by_shape.values()
    ]


@dataclass(frozen=True, slots=True)
class EntityHitRecord:
    entity: EntityRecord
    score: float
    lexical_rank: int | None
    semantic_rank: int | None
    supported: bool
    evidence_ids: tuple[str, ...]
    passages: tuple[PassageRecord, ...]  # empty unless the text was asked for

    @classmethod
    def from_record(cls, row: Any) -> EntityHitRecord:
        return cls(
            entity=EntityRecord.from_map(row["entity"]),
            score=float(row["score"]),
            lexical_rank=row["lexicalRank"],
            semantic_rank=row["semanticRank"],
            supported=row["supported"],
            evidence_ids=tuple(row["evidenceIds"]),
            passages=tuple(PassageRecord.from_map(p) for p in row["passages"]),
        )


@dataclass(frozen=True, slots=True)
class SearchTarget:
    """A label to search, the names of its two indexes, the fields its FULLTEXT index
    covers that the lexical side reads, and whether it covers the owner key (then its
    candidates come from the caller's workspaces: graph/fulltext_query.py)."""

    label: str
    fulltext_index: str
    vector_index: str
    lexical_fields: tuple[str, ...] = ("name",)
    owner_keyed: bool = False


@dataclass(frozen=True, slots=True)
class ExternalRead:
    """One label's semantic candidates read from an external vector store."""

    label: str
    first: Sequence[tuple[str, float]]  # (entity id, cosine similarity), best first
    cap: Sequence[tuple[str, float]]  # the read at the cap; empty when not needed


async def search_entities(
    graph: Graph,
    scope: Scope,
    *,
    targets: Sequence[SearchTarget],
    mode: str,
    lexical: LexicalRequest | None,
    vector: Sequence[float] | None,
    limit: int,
    support_limit: int,
    rrf_k: int,
    lexical_k: int,
    semantic_k: int,
    cap_k: int,
    with_text: bool,
    external_reads: Sequence[ExternalRead] | None = None,
) -> SearchResult[EntityHitRecord]:
    """Run the search statement; `lexical`/`vector` are None for a side the search skips.
    `IndexGone` when a target's index no longer exists."""
    keys = scope_keys(scope)
    lexical_targets = (
        [
            {
                "label": t.label,
                "index": t.fulltext_index,
                "fields": list(t.lexical_fields),
                "query": fulltext_query(
                    lexical.text, t.lexical_fields, keys if t.owner_keyed else None
                )
                if lexical.text
                else "",
            }
            for t in targets
        ]
        if lexical is not None
        else []
    )
    parameters: dict[str, Any] = {
        "lexicalTargets": lexical_targets,
        "coveragePatterns": list(lexical.word_patterns) if lexical is not None else [],
        "coverageRequired": lexical.required if lexical is not None else 0,
        "queryWords": list(lexical.words) if lexical is not None else [],
        "exactPattern": lexical.exact_pattern if lexical is not None else "",
        "functionWords": list(lexical.function_words) if lexical is not None else [],
        "dropOneLetter": lexical.drop_one_letter if lexical is not None else True,
        "lexicalK": lexical_k,
        "semanticK": semantic_k,
        "capK": cap_k,
        "limit": limit,
        "supportLimit": support_limit,
        "evidenceK": max(support_limit, 1),  # one is enough to tell SUPPORTED
        "rrfK": rrf_k,
        "mode": mode,
        "withText": with_text,
    }
    # No lexical side (SEMANTIC mode) reads the FULLTEXT variant with no targets: nothing.
    source = "fulltext"
    if lexical is not None and lexical.text == "":
        keyed = await graph.read(NAME_KEYS_COMPLETE, {})
        source = "name_key" if keyed and keyed[0]["complete"] else "name_scan"
        parameters["nameKeyOf"] = lexical.name_key
    statement = _STATEMENTS[(source, external_reads is not None)][scope_shape(scope)]
    if external_reads is not None:
        parameters["externalReads"] = [
            {
                "first": [{"id": i, "score": s} for i, s in read.first],
                "cap": [{"id": i, "score": s} for i, s in read.cap],
            }
            for read in external_reads
        ]
    else:
        parameters["semanticTargets"] = (
            [{"index": t.vector_index} for t in targets] if vector is not None else []
        )
        parameters["vector"] = list(vector) if vector is not None else []
    found = await read_marked(graph, statement, scoped(scope, **parameters))
    return SearchResult([EntityHitRecord.from_record(row) for row in found.rows], found.generation)
