"""Each tool answered by the layer the GraphQL resolvers call (answers/, loaders/), its records
turned into plain JSON with the GraphQL fields' names. No search or walk logic lives here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from answers import entity_search, passage_search
from answers import walk as answers_walk
from answers.context import AnswerContext
from answers.entity_labels import entity_labels as read_entity_labels
from contract.arguments import SUPPORT_LIMIT, check_id, check_range
from contract.errors import Unavailable
from contract.scope import Grant
from graph import walk as graph_walk
from graph.records import DocumentRecord, EntityRecord, PassageRecord
from loaders import create_loaders
from mcpserver.arguments import Arguments
from mcpserver.tools import ENTITY_RELATIONS

Json = dict[str, Any]


@dataclass
class ToolAnswer:
    """A tool's structured content, and the list in it that a size cut shortens from its end."""

    content: Json
    cuttable: tuple[str, ...] = ()  # paths of lists, cut in this order: ("edges",), ...


def document_json(document: DocumentRecord) -> Json:
    return {
        "id": document.id,
        "workspace": document.workspace,
        "title": document.title,
        "uri": document.uri,
        "currentVersion": document.current_version,
    }


def passage_json(passage: PassageRecord) -> Json:
    return {
        "id": passage.id,
        "text": passage.text,
        "position": passage.position,
        "version": passage.version,
        "document": document_json(passage.document),
    }


def entity_json(entity: EntityRecord) -> Json:
    return {
        "id": entity.id,
        "name": entity.name,
        "labels": list(entity.labels),
        "description": entity.description,
    }


def walk_json(record: graph_walk.WalkRecord) -> Json:
    passages = {passage.id: passage for passage in record.passages}
    return {
        "start": entity_json(record.start),
        "nodes": [entity_json(node) for node in record.nodes],
        "edges": [
            {
                "id": edge.id,
                "type": edge.type,
                "kind": edge.kind,
                "depth": depth,
                "sourceId": edge.source_id,
                "targetId": edge.target_id,
                "evidenceIds": list(edge.evidence_ids),
                "evidence": [passage_json(passages[pid]) for pid in edge.evidence_ids],
            }
            for edge, depth in record.edges
        ],
        "truncatedBy": [bound.value for bound in record.truncated_by],
    }


async def search_entities(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    request = entity_search.entity_search_request(
        args.text("query"),
        args.names("labels"),
        args.choice("mode", entity_search.SEARCH_MODES, "HYBRID"),
        args.integer("limit", 10),
        args.integer("supportLimit", 3),
        with_text=True,
    )
    effective = args.scope(grant)
    args.done()
    records = await entity_search.search_entities(context, effective, request)
    return ToolAnswer(
        {
            "hits": [
                {
                    "entity": entity_json(record.entity),
                    "status": "SUPPORTED" if record.supported else "UNSUPPORTED",
                    "score": record.score,
                    "lexicalRank": record.lexical_rank,
                    "semanticRank": record.semantic_rank,
                    "evidenceIds": list(record.evidence_ids),
                    "evidence": [passage_json(passage) for passage in record.passages],
                }
                for record in records
            ]
        },
        ("hits",),
    )


async def search_passages(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    request = passage_search.passage_search_request(
        args.text("query"),
        args.choice("mode", entity_search.SEARCH_MODES, "HYBRID"),
        args.integer("limit", 10),
    )
    effective = args.scope(grant)
    args.done()
    records = await passage_search.search_passages(context, effective, request)
    return ToolAnswer(
        {
            "hits": [
                {
                    "passage": passage_json(record.passage),
                    "score": record.score,
                    "lexicalRank": record.lexical_rank,
                    "semanticRank": record.semantic_rank,
                }
                for record in records
            ]
        },
        ("hits",),
    )


async def walk(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    request = answers_walk.walk_request(
        context,
        args.text("entityId"),
        args.integer("depth", 1),
        args.names("relationTypes"),
        (
            args.integer("maxNodes", 50),
            args.integer("maxEdges", 100),
            args.integer("maxCandidates", 500),
        ),
        with_evidence=True,
    )
    effective = args.scope(grant)
    args.done()
    record = await answers_walk.walk(context, effective, request)
    return ToolAnswer(walk_json(record), ("edges", "nodes"))


async def get_entity(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    """`entity(id) { … evidence(limit) }` followed by a depth-1 walk from it."""
    entity_id = check_id("id", args.text("id"))
    support_limit = check_range("supportLimit", args.integer("supportLimit", 3), SUPPORT_LIMIT)
    max_edges = check_range(
        "maxEdges", args.integer("maxEdges", ENTITY_RELATIONS.default), ENTITY_RELATIONS
    )
    request = answers_walk.walk_request(
        context, entity_id, 1, None, (max_edges + 1, max_edges, 500), with_evidence=True
    )
    effective = args.scope(grant)
    args.done()
    loaders = create_loaders(context.graph, effective)
    entity = await loaders.entities_by_id.load(entity_id)
    if entity is None:
        return ToolAnswer({"entity": None})
    # At least one id, even for supportLimit 0: the status needs to know whether there is one.
    visible = await loaders.evidence_by_entity_id.load((entity_id, max(support_limit, 1)))
    passages = visible[:support_limit]
    try:
        relations = walk_json(await answers_walk.walk(context, effective, request))
    except Unavailable:
        # An UNSUPPORTED entity has no visible passage, so no walk starts from it (contract §5).
        relations = {"start": entity_json(entity), "nodes": [], "edges": [], "truncatedBy": []}
    return ToolAnswer(
        {
            "entity": entity_json(entity),
            # Returnable, and SUPPORTED when a visible passage mentions it (contract §3).
            "status": "SUPPORTED" if visible else "UNSUPPORTED",
            "evidenceIds": [p.id for p in passages],
            "evidence": [passage_json(p) for p in passages],
            "relations": relations,
        },
        ("relations.edges", "relations.nodes", "evidence"),
    )


async def get_passage(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    passage_id = check_id("id", args.text("id"))
    effective = args.scope(grant)
    args.done()
    record = await create_loaders(context.graph, effective).passages_by_id.load(passage_id)
    return ToolAnswer({"passage": passage_json(record) if record else None})


async def entity_labels(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    args.done()
    labels = await read_entity_labels(context)
    return ToolAnswer(
        {
            "labels": [
                {
                    "label": record.label,
                    "fulltextIndex": record.fulltext_state,
                    "vectorIndex": record.vector_state,
                }
                for record in labels
            ]
        },
        ("labels",),
    )


Answerer = Callable[[AnswerContext, Grant, Arguments], Awaitable[ToolAnswer]]

ANSWERERS: dict[str, Answerer] = {
    "search_entities": search_entities,
    "search_passages": search_passages,
    "walk": walk,
    "get_entity": get_entity,
    "get_passage": get_passage,
    "entity_labels": entity_labels,
}
