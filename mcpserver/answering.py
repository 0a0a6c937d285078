"""Each tool answered by the layer the GraphQL resolvers call (answers/, loaders/), its records
turned into the structured content of mcpserver/content.py. No search or walk logic lives here.

An answer is built lazily, as `ToolAnswer.build(count)`: the structured content holding `count`
items (hits, edges, characters of a passage) from the call's start, so that the size cut
(mcpserver/rendering.py) can send fewer and say exactly which call continues (issue 29, point 3).
A search or walk that continues with a cursor runs again with the same arguments, so its pages
are slices of one answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from answers import entity_search, passage_search
from answers import walk as answers_walk
from answers.context import AnswerContext
from answers.entity_labels import entity_labels as read_entity_labels
from answers.graph_shape import describe_graph as read_graph_shape
from contract.arguments import (
    SUPPORT_LIMIT,
    WALK_MAX_CANDIDATES,
    WALK_MAX_EDGES,
    WALK_MAX_NODES,
    check_id,
    check_range,
)
from contract.errors import Malformed, Unavailable
from contract.scope import Grant, effective_scope
from graph import walk as graph_walk
from graph.records import PassageRecord
from loaders import create_loaders
from mcpserver.advice import WalkCall, missing_types, unknown_types_advice, walk_advice
from mcpserver.arguments import Arguments
from mcpserver.content import (
    DescribeGraphJson,
    EntityEntryJson,
    EntityLabelsJson,
    GetEntitiesJson,
    GetEntityJson,
    GetPassageJson,
    RelationsJson,
    SearchEntitiesJson,
    SearchPassagesJson,
    WalkJson,
    document_json,
    edge_json,
    entity_json,
    evidence_json,
)
from mcpserver.tools import ENTITY_RELATIONS, MAX_ENTITY_IDS, PASSAGE_LENGTH, PASSAGE_OFFSET
from retrieval.lexical_rule import content_words

Json = dict[str, Any]


@dataclass
class ToolAnswer:
    """A tool's answer before the size cut.

    `build(count)` is the structured content with `count` of the `items` from the call's start;
    `continuation(position)` is the sentence saying which call sends the items from `position`
    on, and `cursor(position)` the `nextCursor` for it (searches and walks only). `focus` is
    what the text's quotes centre on beside the entities' names (the query's words), and
    `advice` the lines the text ends with (what a walk's bounds mean)."""

    build: Callable[[int], Any]
    items: int = 0
    start: int = 0
    continuation: Callable[[int], str] = lambda _: ""
    cursor: Callable[[int], str] | None = None
    focus: Sequence[str] = ()
    advice: Sequence[str] = field(default_factory=list)


def _paged(tool: str, args: Arguments, total: int, start: int) -> dict[str, Any]:
    """The ToolAnswer fields of a search or walk page: items from the cursor's position on."""

    def cursor(position: int) -> str:
        return args.cursor_at(tool, position)

    return {
        "items": max(total - start, 0),
        "start": start,
        "cursor": cursor,
        "continuation": lambda position: (
            f'call {tool} again with the same arguments and cursor "{cursor(position)}"'
        ),
    }


def _relations(
    record: graph_walk.WalkRecord, count: int, start: int = 0
) -> tuple[RelationsJson, list[PassageRecord]]:
    """`count` edges from `start`, the entities they reach (the start left out) and the
    passages they cite."""
    edges = record.edges[start : start + count]
    reached = {end for edge, _ in edges for end in (edge.source_id, edge.target_id)}
    passages = {passage.id: passage for passage in record.passages}
    cited = [passages[pid] for edge, _ in edges for pid in edge.evidence_ids]
    relations: RelationsJson = {
        "nodes": [entity_json(node) for node in record.nodes if node.id in reached],
        "edges": [edge_json(edge, depth) for edge, depth in edges],
        "truncatedBy": [bound.value for bound in record.truncated_by],
    }
    # The start is named in `start` (walk) or `entity` (get_entity), not again in `nodes`.
    relations["nodes"] = [node for node in relations["nodes"] if node["id"] != record.start.id]
    return relations, cited


async def search_entities(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    query = args.text("query")
    request = entity_search.entity_search_request(
        query,
        args.names("labels"),
        args.choice("mode", entity_search.SEARCH_MODES, "HYBRID"),
        args.integer("limit", 10),
        args.integer("supportLimit", 3),
        with_text=True,
    )
    effective = args.scope(grant)
    start = args.position("search_entities")
    args.done()
    records = await entity_search.search_entities(context, effective, request)

    def build(count: int) -> SearchEntitiesJson:
        page = records[start : start + count]
        evidence = evidence_json(p for record in page for p in record.passages)
        return {
            "hits": [
                {
                    "entity": entity_json(record.entity),
                    "status": "SUPPORTED" if record.supported else "UNSUPPORTED",
                    "score": record.score,
                    "lexicalRank": record.lexical_rank,
                    "semanticRank": record.semantic_rank,
                    "evidenceIds": list(record.evidence_ids),
                }
                for record in page
            ],
            "passages": evidence["passages"],
            "documents": evidence["documents"],
        }

    return ToolAnswer(
        build,
        focus=content_words(query),
        **_paged("search_entities", args, len(records), start),
    )


async def search_passages(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    query = args.text("query")
    request = passage_search.passage_search_request(
        query,
        args.choice("mode", entity_search.SEARCH_MODES, "HYBRID"),
        args.integer("limit", 10),
    )
    effective = args.scope(grant)
    start = args.position("search_passages")
    args.done()
    records = await passage_search.search_passages(context, effective, request)

    def build(count: int) -> SearchPassagesJson:
        page = records[start : start + count]
        evidence = evidence_json(record.passage for record in page)
        return {
            "hits": [
                {
                    "passageId": record.passage.id,
                    "score": record.score,
                    "lexicalRank": record.lexical_rank,
                    "semanticRank": record.semantic_rank,
                }
                for record in page
            ],
            "passages": evidence["passages"],
            "documents": evidence["documents"],
        }

    return ToolAnswer(
        build,
        focus=content_words(query),
        **_paged("search_passages", args, len(records), start),
    )


async def walk(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    entity_id = args.text("entityId")
    depth = args.integer("depth", 1)
    relation_types = args.names("relationTypes")
    bounds = (
        args.integer("maxNodes", WALK_MAX_NODES.default),
        args.integer("maxEdges", WALK_MAX_EDGES.default),
        args.integer("maxCandidates", WALK_MAX_CANDIDATES.default),
    )
    request = answers_walk.walk_request(
        context, entity_id, depth, relation_types, bounds, with_evidence=True
    )
    effective = args.scope(grant)
    start = args.position("walk")
    args.done()
    record = await answers_walk.walk(context, effective, request)

    def build(count: int) -> WalkJson:
        relations, cited = _relations(record, count, start)
        evidence = evidence_json(cited)
        return {
            "start": entity_json(record.start),
            "nodes": relations["nodes"],
            "edges": relations["edges"],
            "truncatedBy": relations["truncatedBy"],
            "passages": evidence["passages"],
            "documents": evidence["documents"],
        }

    call = WalkCall("walk", entity_id, depth, *bounds, bounds[1], relation_types is not None)
    advice = walk_advice(call, [bound.value for bound in record.truncated_by])
    missing = missing_types(relation_types, [edge.type for edge, _ in record.edges])
    if missing:
        # A type no relation has finds nothing, like a type this entity lacks: the scope's
        # types (describe_graph's, read only now) tell the two apart for the caller.
        shape = await read_graph_shape(context, effective)
        in_scope = [(count.name, count.count) for count in shape.relation_types]
        advice += unknown_types_advice(missing, in_scope, shape.relations_at_least)
    return ToolAnswer(build, advice=advice, **_paged("walk", args, len(record.edges), start))


async def get_entity(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    """`entity(id) { … evidence(limit) }` followed by a depth-1 walk from it."""
    entity_id = check_id("id", args.text("id"))
    support_limit = check_range("supportLimit", args.integer("supportLimit", 3), SUPPORT_LIMIT)
    max_edges = check_range(
        "maxEdges", args.integer("maxEdges", ENTITY_RELATIONS.default), ENTITY_RELATIONS
    )
    bounds = (max_edges + 1, max_edges, WALK_MAX_CANDIDATES.default)
    request = answers_walk.walk_request(context, entity_id, 1, None, bounds, with_evidence=True)
    effective = args.scope(grant)
    args.done()
    loaders = create_loaders(context.graph, effective)
    entity = await loaders.entities_by_id.load(entity_id)
    if entity is None:
        return ToolAnswer(lambda _: GetEntityJson(entity=None))
    # At least one id, even for supportLimit 0: the status needs to know whether there is one.
    visible = await loaders.evidence_by_entity_id.load((entity_id, max(support_limit, 1)))
    passages = visible[:support_limit]
    try:
        record = await answers_walk.walk(context, effective, request)
    except Unavailable:
        # An UNSUPPORTED entity has no visible passage, so no walk starts from it (contract §5).
        record = graph_walk.WalkRecord(entity, [], [], [], [])

    def build(count: int) -> GetEntityJson:
        relations, cited = _relations(record, count)
        evidence = evidence_json([*passages, *cited])
        return {
            "entity": entity_json(entity),
            # Returnable, and SUPPORTED when a visible passage mentions it (contract §3).
            "status": "SUPPORTED" if visible else "UNSUPPORTED",
            "evidenceIds": [p.id for p in passages],
            "relations": relations,
            "passages": evidence["passages"],
            "documents": evidence["documents"],
        }

    call = WalkCall("get_entity", entity_id, 1, *bounds, ENTITY_RELATIONS.high, False)
    return ToolAnswer(
        build,
        items=len(record.edges),
        continuation=lambda _: f"walk with entityId {entity_id} reads every relation, in pages",
        advice=walk_advice(call, [bound.value for bound in record.truncated_by]),
    )


async def get_passage(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    """One passage's text from `offset`, at most `length` characters of it (and fewer when the
    size cut needs it), so that a long passage is read in parts."""
    passage_id = check_id("id", args.text("id"))
    offset = check_range("offset", args.integer("offset", 0), PASSAGE_OFFSET)
    length = check_range("length", args.integer("length", PASSAGE_LENGTH.default), PASSAGE_LENGTH)
    effective = args.scope(grant)
    args.done()
    record = await create_loaders(context.graph, effective).passages_by_id.load(passage_id)
    if record is None:
        return ToolAnswer(lambda _: GetPassageJson(passage=None))
    text = record.text
    begin = min(offset, len(text))

    def build(count: int) -> GetPassageJson:
        end = begin + count
        return {
            "passage": {
                "id": record.id,
                "position": record.position,
                "version": record.version,
                "length": len(text),
                "offset": begin,
                "text": text[begin:end],
                "nextOffset": end if end < len(text) else None,
                "document": document_json(record.document),
            }
        }

    return ToolAnswer(
        build,
        items=min(length, len(text) - begin),
        start=begin,
        continuation=lambda at: f"call get_passage with id {passage_id} and offset {at}",
    )


async def entity_labels(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    args.done()
    labels = await read_entity_labels(context, effective_scope(grant))

    def build(count: int) -> EntityLabelsJson:
        return {
            "labels": [
                {
                    "label": record.label,
                    "fulltextIndex": record.fulltext_state,
                    "vectorIndex": record.vector_state,
                }
                for record in labels[:count]
            ]
        }

    return ToolAnswer(
        build,
        items=len(labels),
        continuation=lambda _: "search with `labels` you already know",
    )


async def describe_graph(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    """The granted workspaces and the labels and relation types the scope holds, counted."""
    effective = args.scope(grant)
    args.done()
    shape = await read_graph_shape(context, effective)
    granted = None if grant.workspaces is None else sorted(grant.workspaces)

    def build(_: int) -> DescribeGraphJson:
        return {
            "grantedWorkspaces": granted,
            "scope": {
                "workspaces": None if effective.workspaces is None else list(effective.workspaces),
                "documentIds": (
                    None if effective.document_ids is None else list(effective.document_ids)
                ),
            },
            "labels": [{"name": c.name, "count": c.count} for c in shape.labels],
            "relationTypes": [{"name": c.name, "count": c.count} for c in shape.relation_types],
            "labelsAtLeast": shape.labels_at_least,
            "relationTypesAtLeast": shape.relations_at_least,
        }

    return ToolAnswer(build, items=1)


async def get_entities(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    """`entity(id) { … evidence(limit) }` for several ids: two statements, whatever their
    number (the loaders batch them), as GraphQL's aliased `entity` fields cost."""
    ids = args.names("ids")
    if not ids or len(ids) > MAX_ENTITY_IDS:
        raise Malformed("ids", f"a list of 1 to {MAX_ENTITY_IDS} entity ids")
    ids = list(dict.fromkeys(check_id("ids", entity_id) for entity_id in ids))
    support_limit = check_range("supportLimit", args.integer("supportLimit", 3), SUPPORT_LIMIT)
    effective = args.scope(grant)
    args.done()
    loaders = create_loaders(context.graph, effective)
    entities = await loaders.entities_by_id.load_many(ids)
    found = [entity.id for entity in entities if entity is not None]
    # At least one passage each, even for supportLimit 0: the status needs to know.
    visible = dict(
        zip(
            found,
            await loaders.evidence_by_entity_id.load_many(
                [(entity_id, max(support_limit, 1)) for entity_id in found]
            ),
            strict=True,
        )
    )

    def build(count: int) -> GetEntitiesJson:
        entries: list[EntityEntryJson] = []
        cited: list[PassageRecord] = []
        for entity_id, entity in zip(ids[:count], entities[:count], strict=True):
            if entity is None:
                entries.append({"id": entity_id, "entity": None})
                continue
            passages = visible[entity_id][:support_limit]
            cited.extend(passages)
            entries.append(
                {
                    "id": entity_id,
                    "entity": entity_json(entity),
                    "status": "SUPPORTED" if visible[entity_id] else "UNSUPPORTED",
                    "evidenceIds": [p.id for p in passages],
                }
            )
        evidence = evidence_json(cited)
        return {
            "entities": entries,
            "passages": evidence["passages"],
            "documents": evidence["documents"],
        }

    return ToolAnswer(
        build,
        items=len(ids),
        continuation=lambda position: (
            f"call get_entities again with the ids from {ids[position]} on"
        ),
    )


Answerer = Callable[[AnswerContext, Grant, Arguments], Awaitable[ToolAnswer]]

ANSWERERS: dict[str, Answerer] = {
    "search_entities": search_entities,
    "search_passages": search_passages,
    "walk": walk,
    "get_entity": get_entity,
    "get_passage": get_passage,
    "entity_labels": entity_labels,
    "describe_graph": describe_graph,
    "get_entities": get_entities,
}
