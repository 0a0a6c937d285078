"""Each tool answered by the layer the GraphQL resolvers call (answers/, loaders/), its records
turned into the structured content of mcpserver/content.py. No search or walk logic lives here.

An answer is built lazily, as `ToolAnswer.build(count)`: the structured content holding `count`
items (hits, edges, characters of a passage) from the call's start, so that the size cut
(mcpserver/fitting.py) can send fewer and say exactly which call continues (issue 29, point 3).
A search or walk that continues with a cursor runs again with the same arguments, so its pages
are slices of one answer. Each build cites its passages afresh (mcpserver/evidence.py), so a
page quotes each of its passages once, around the names of what it cites them for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from answers import entity_search, passage_search
from answers import walk as answers_walk
from answers.context import AnswerContext
from answers.entity_labels import entity_labels as read_entity_labels
from answers.graph_shape import describe_graph as read_graph_shape
from answers.readable_scope import readable_scope
from contract.arguments import (
    EVIDENCE_PAGE_SIZE,
    SEARCH_LIMIT,
    SUPPORT_LIMIT,
    WALK_DEPTH,
    WALK_MAX_CANDIDATES,
    check_id,
    check_range,
)
from contract.errors import IndexNotReady, Malformed, Unavailable
from contract.scope import Grant, effective_scope
from graph import walk as graph_walk
from graph.passage_pages import EdgePageRequest, PageRequest
from graph.records import PassageRecord
from loaders import Loaders, create_loaders
from mcpserver.advice import (
    WalkCall,
    connection_advice,
    missing_types,
    unknown_types_advice,
    walk_advice,
)
from mcpserver.arguments import Arguments, lower_uuid
from mcpserver.content import (
    ConnectionJson,
    DescribeGraphJson,
    EdgeJson,
    EntityHitJson,
    EntityLabelsJson,
    EvidencePageJson,
    FoundEntityJson,
    FoundEntryJson,
    GetEntitiesJson,
    GetEntityJson,
    GetPassageJson,
    MissingEntryJson,
    NoEntityJson,
    RelationsJson,
    SearchEntitiesJson,
    SearchPassagesJson,
    WalkBoundName,
    WalkJson,
    document_json,
    edge_json,
    entity_json,
)
from mcpserver.evidence import (
    EVIDENCE_COUNT_CAP,
    EVIDENCE_MODES,
    Citations,
    Total,
    add_evidence,
    edge_totals,
    entity_totals,
)
from mcpserver.evidence_cursor import EdgeOwner, EntityOwner, EvidencePosition
from mcpserver.evidence_cursor import decode as decode_evidence_cursor
from mcpserver.evidence_cursor import encode as encode_evidence_cursor
from mcpserver.known_names import check_labels, checked_scope
from mcpserver.tools import (
    BETWEEN_DEPTH,
    BETWEEN_EDGES,
    BETWEEN_NODES,
    ENTITIES_SUPPORT,
    ENTITY_RELATIONS,
    ENTITY_SUPPORT,
    MAX_ENTITY_IDS,
    PASSAGE_LENGTH,
    PASSAGE_OFFSET,
    WALK_EDGES,
    WALK_NODES,
)
from retrieval.walk_bookkeeping import Bound

Json = dict[str, Any]
PASSAGE_QUOTE_CHARS = 400  # a search_passages hit: the passage is the answer, quoted wider
WALK_QUOTE_CHARS = 200  # a walk's passage: one window for the many edges it supports
DESCRIBED_DOCUMENTS = 50  # describe_graph names this many documents; it counts the rest
EDGE_EVIDENCE = graph_walk.EVIDENCE_LIMIT  # an edge lists up to three passages (contract §5)


@dataclass
class ToolAnswer:
    """A tool's answer before the size cut.

    `build(count)` is the structured content with `count` of the `items` from the call's start;
    `continuation(position)` is the sentence saying which call sends the items from `position`
    on, and `cursor(position)` the `nextCursor` for it (searches and walks only). `texts` are
    the whole texts of the passages it may cite (its quotes are windows of them), `about` what
    the text says besides the content (the query, the mode), `advice` the lines it ends with."""

    build: Callable[[int], Any]
    items: int = 0
    start: int = 0
    continuation: Callable[[int], str] = lambda _: ""
    cursor: Callable[[int], str] | None = None
    texts: Mapping[str, str] = field(default_factory=dict)
    about: Mapping[str, Any] = field(default_factory=dict)
    advice: Sequence[str] = field(default_factory=list)
    # Where the next call starts, when a part ends short of `start + count` (get_passage ends
    # at a word's end).
    resume: Callable[[Any], int] | None = None


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


def _evidence_mode(args: Arguments, modes: tuple[str, ...] = EVIDENCE_MODES) -> str:
    return args.choice("evidence", modes, "QUOTES")


def _texts(passages: Sequence[PassageRecord]) -> dict[str, str]:
    return {passage.id: passage.text for passage in passages}


def _bounds(bounds: Sequence[Bound]) -> list[WalkBoundName]:
    return [bound.value for bound in bounds]


def _status(supported: bool) -> Any:
    return "SUPPORTED" if supported else "UNSUPPORTED"


async def search_entities(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    query = args.text("query")
    labels = args.names("labels")
    mode = args.choice("mode", entity_search.SEARCH_MODES, "HYBRID")
    limit = args.integer("limit", SEARCH_LIMIT.default)
    support_limit = check_range(
        "supportLimit", args.integer("supportLimit", SUPPORT_LIMIT.default), SUPPORT_LIMIT
    )
    evidence = _evidence_mode(args)
    shown = 0 if evidence == "NONE" else support_limit
    request = entity_search.entity_search_request(query, labels, mode, limit, shown, with_text=True)
    asked = args.scope()
    start = args.position("search_entities")
    args.done()
    effective = await checked_scope(context, grant, asked)
    try:
        records = await entity_search.search_entities(context, effective, request)
    except IndexNotReady:
        if labels:  # a label with no index at all may be no label of this scope
            await check_labels(context, effective, labels)
        raise
    if labels and not records:
        await check_labels(context, effective, labels)
    totals: dict[str, Total] = {}
    if evidence != "NONE":
        totals = await entity_totals(
            create_loaders(context.graph, effective),
            {record.entity.id: record.passages for record in records},
            shown,
            {record.entity.id for record in records if record.supported},
        )

    def build(count: int) -> SearchEntitiesJson:
        page = records[start : start + count]
        cited = Citations(evidence)
        hits: list[EntityHitJson] = []
        for record in page:
            cited.cite(record.passages, [record.entity.name, query])
            hit: EntityHitJson = {
                "entity": entity_json(record.entity, listed=True),
                "status": _status(record.supported),
                "score": record.score,
                "lexicalRank": record.lexical_rank,
                "semanticRank": record.semantic_rank,
                "evidenceIds": [],
            }
            total = totals.get(record.entity.id, Total(0, False))
            add_evidence(hit, evidence, record.passages, total, EntityOwner(record.entity.id))
            hits.append(hit)
        passages = cited.json()
        return {
            "hits": hits,
            "limitReached": len(records) >= limit,
            "matchedByName": any(record.lexical_rank is not None for record in records),
            "passages": passages["passages"],
            "documents": passages["documents"],
        }

    return ToolAnswer(
        build,
        texts=_texts([p for record in records for p in record.passages]),
        about={"query": query, "mode": mode, "limit": limit, "evidence": evidence},
        **_paged("search_entities", args, len(records), start),
    )


async def search_passages(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    query = args.text("query")
    mode = args.choice("mode", entity_search.SEARCH_MODES, "HYBRID")
    limit = args.integer("limit", SEARCH_LIMIT.default)
    request = passage_search.passage_search_request(query, mode, limit)
    asked = args.scope()
    start = args.position("search_passages")
    args.done()
    effective = await checked_scope(context, grant, asked)
    records = await passage_search.search_passages(context, effective, request)

    def build(count: int) -> SearchPassagesJson:
        page = records[start : start + count]
        cited = Citations("QUOTES", PASSAGE_QUOTE_CHARS)
        for record in page:
            cited.cite([record.passage], [query])
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
            "limitReached": len(records) >= limit,
            "matchedByWords": any(record.lexical_rank is not None for record in records),
            "passages": cited.json()["passages"],
            "documents": cited.json()["documents"],
        }

    return ToolAnswer(
        build,
        texts=_texts([record.passage for record in records]),
        about={"query": query, "mode": mode, "limit": limit},
        **_paged("search_passages", args, len(records), start),
    )


def _walk_bounds(args: Arguments, nodes: Any, edges: Any) -> tuple[int, int, int]:
    return (
        args.integer("maxNodes", nodes.default),
        args.integer("maxEdges", edges.default),
        args.integer("maxCandidates", WALK_MAX_CANDIDATES.default),
    )


def _edges_json(
    edges: Sequence[tuple[graph_walk.WalkEdgeRecord, int]],
    names: Mapping[str, str],
    passages: Mapping[str, PassageRecord],
    totals: Mapping[str, Total],
    cited: Citations,
    *,
    described: bool,
) -> list[EdgeJson]:
    """The edges as JSON, each citing its passages for both ends' names."""
    found = []
    for edge, depth in edges:
        shown = [passages[pid] for pid in edge.evidence_ids if pid in passages]
        cited.cite(shown, [names.get(edge.source_id, ""), names.get(edge.target_id, "")])
        owner = EdgeOwner(edge.id, edge.source_id, edge.target_id, edge.type)
        total = totals.get(edge.id, Total(len(shown), False))
        listed = edge_json(edge, depth, described)
        add_evidence(listed, cited.mode, shown, total, owner)
        found.append(listed)
    return found


def _names(record: graph_walk.WalkRecord) -> dict[str, str]:
    names = {node.id: node.name for node in record.nodes}
    names[record.start.id] = record.start.name
    return names


def _relations(
    record: graph_walk.WalkRecord,
    count: int,
    start: int,
    totals: Mapping[str, Total],
    cited: Citations,
    *,
    described: bool,
) -> RelationsJson:
    """`count` edges from `start`, the entities they reach (the start left out), citing their
    passages in `cited`."""
    edges = record.edges[start : start + count]
    reached = {end for edge, _ in edges for end in (edge.source_id, edge.target_id)}
    reached.discard(record.start.id)
    passages = {passage.id: passage for passage in record.passages}
    return {
        "nodes": [
            entity_json(node, described=False) for node in record.nodes if node.id in reached
        ],
        "edges": _edges_json(edges, _names(record), passages, totals, cited, described=described),
        "truncatedBy": _bounds(record.truncated_by),
    }


async def _edge_totals(
    loaders: Loaders, edges: Sequence[graph_walk.WalkEdgeRecord], evidence: str
) -> dict[str, Total]:
    if evidence == "NONE":
        return {}
    return await edge_totals(loaders, edges, EDGE_EVIDENCE)


async def walk(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    entity_id = args.identifier("entityId")
    depth = args.integer("depth", WALK_DEPTH.default)
    relation_types = args.names("relationTypes")
    bounds = _walk_bounds(args, WALK_NODES, WALK_EDGES)
    evidence = _evidence_mode(args)
    request = answers_walk.walk_request(
        context, entity_id, depth, relation_types, bounds, with_evidence=evidence != "NONE"
    )
    asked = args.scope()
    start = args.position("walk")
    args.done()
    effective = await checked_scope(context, grant, asked)
    record = await answers_walk.walk(context, effective, request)
    loaders = create_loaders(context.graph, effective)
    totals = await _edge_totals(loaders, [edge for edge, _ in record.edges], evidence)

    def build(count: int) -> WalkJson:
        cited = Citations(evidence, WALK_QUOTE_CHARS)
        relations = _relations(record, count, start, totals, cited, described=False)
        passages = cited.json()
        return {
            "start": entity_json(record.start, described=False),
            "nodes": relations["nodes"],
            "edges": relations["edges"],
            "truncatedBy": relations["truncatedBy"],
            "passages": passages["passages"],
            "documents": passages["documents"],
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
    return ToolAnswer(
        build,
        texts=_texts(record.passages),
        about={"evidence": evidence, "depth": depth},
        advice=advice,
        **_paged("walk", args, len(record.edges), start),
    )


async def walk_between(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    """The edges between two entities (answers/walk.py `walk_between`), their passages read
    by id through the loaders (the two walks carry only their ids)."""
    entity_id = args.identifier("entityId")
    other_id = args.identifier("otherEntityId")
    depth = check_range("depth", args.integer("depth", BETWEEN_DEPTH.default), BETWEEN_DEPTH)
    relation_types = args.names("relationTypes")
    bounds = _walk_bounds(args, BETWEEN_NODES, BETWEEN_EDGES)
    evidence = _evidence_mode(args)
    request = answers_walk.walk_request(
        context, entity_id, depth, relation_types, bounds, with_evidence=False
    )
    check_id("otherEntityId", other_id)
    asked = args.scope()
    start = args.position("walk_between")
    args.done()
    effective = await checked_scope(context, grant, asked)
    record = await answers_walk.walk_between(context, effective, request, other_id)
    loaders = create_loaders(context.graph, effective)
    edges = [edge for edge, _ in record.edges]
    wanted = list(dict.fromkeys(pid for edge in edges for pid in edge.evidence_ids))
    read = [] if evidence == "NONE" else await loaders.passages_by_id.load_many(wanted)
    passages = {passage.id: passage for passage in read if passage is not None}
    totals = await _edge_totals(loaders, edges, evidence)
    names = {node.id: node.name for node in [record.one, record.other, *record.via]}
    cut = _bounds(sorted(set(record.one_cut + record.other_cut), key=list(Bound).index))

    def build(count: int) -> ConnectionJson:
        cited = Citations(evidence)
        page = record.edges[start : start + count]
        reached = {end for edge, _ in page for end in (edge.source_id, edge.target_id)}
        edges = _edges_json(page, names, passages, totals, cited, described=True)
        evidence_json = cited.json()
        return {
            "entity": entity_json(record.one),
            "other": entity_json(record.other),
            "via": [
                entity_json(node, described=False) for node in record.via if node.id in reached
            ],
            "edges": edges,
            "truncatedBy": cut,
            "passages": evidence_json["passages"],
            "documents": evidence_json["documents"],
        }

    return ToolAnswer(
        build,
        texts=_texts(list(passages.values())),
        about={"evidence": evidence, "depth": depth},
        advice=connection_advice(record.one, record.one_cut, record.other, record.other_cut),
        **_paged("walk_between", args, len(record.edges), start),
    )


async def get_entity(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    """`entity(id) { … evidence(limit) }` followed by a depth-1 walk from it."""
    entity_id = check_id("id", args.identifier("id"))
    support_limit = check_range(
        "supportLimit", args.integer("supportLimit", ENTITY_SUPPORT.default), ENTITY_SUPPORT
    )
    max_edges = check_range(
        "maxEdges", args.integer("maxEdges", ENTITY_RELATIONS.default), ENTITY_RELATIONS
    )
    evidence = _evidence_mode(args)
    bounds = (max_edges + 1, max_edges, WALK_MAX_CANDIDATES.default)
    request = answers_walk.walk_request(
        context, entity_id, 1, None, bounds, with_evidence=evidence != "NONE"
    )
    asked = args.scope()
    args.done()
    effective = await checked_scope(context, grant, asked)
    loaders = create_loaders(context.graph, effective)
    entity = await loaders.entities_by_id.load(entity_id)
    if entity is None:
        return ToolAnswer(lambda _: NoEntityJson(entity=None))
    # At least one id, even for supportLimit 0: the status needs to know whether there is one.
    visible = await loaders.evidence_by_entity_id.load((entity_id, max(support_limit, 1)))
    passages = [] if evidence == "NONE" else visible[:support_limit]
    try:
        record = await answers_walk.walk(context, effective, request)
    except Unavailable:
        # An UNSUPPORTED entity has no visible passage, so no walk starts from it (contract §5).
        record = graph_walk.WalkRecord(entity, [], [], [], [])
    totals: dict[str, Total] = {}
    edges: dict[str, Total] = {}
    if evidence != "NONE":
        totals = await entity_totals(
            loaders, {entity_id: passages}, support_limit, {entity_id} if visible else set()
        )
        edges = await _edge_totals(loaders, [edge for edge, _ in record.edges], evidence)

    def build(count: int) -> GetEntityJson:
        cited = Citations(evidence)
        cited.cite(passages, [entity.name])
        relations = _relations(record, count, 0, edges, cited, described=True)
        evidence_json = cited.json()
        found: FoundEntityJson = {
            "entity": entity_json(entity),
            # Returnable, and SUPPORTED when a visible passage mentions it (contract §3).
            "status": _status(bool(visible)),
            "evidenceIds": [],
            "relations": relations,
            "passages": evidence_json["passages"],
            "documents": evidence_json["documents"],
        }
        total = totals.get(entity_id, Total(len(passages), False))
        add_evidence(found, evidence, passages, total, EntityOwner(entity_id))
        return found

    call = WalkCall("get_entity", entity_id, 1, *bounds, ENTITY_RELATIONS.high, False)
    return ToolAnswer(
        build,
        items=len(record.edges),
        texts=_texts([*passages, *record.passages]),
        about={"evidence": evidence},
        continuation=lambda _: f"walk with entityId {entity_id} reads every relation, in pages",
        advice=walk_advice(call, [bound.value for bound in record.truncated_by]),
    )


async def get_entities(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    """`entity(id) { … evidence(limit) }` for several ids: two statements, whatever their
    number (the loaders batch them), as GraphQL's aliased `entity` fields cost, and one more
    for the totals of those showing as many passages as they may."""
    ids = args.identifiers("ids")
    if not ids or len(ids) > MAX_ENTITY_IDS:
        raise Malformed("ids", f"a list of 1 to {MAX_ENTITY_IDS} entity ids")
    ids = list(dict.fromkeys(check_id("ids", entity_id) for entity_id in ids))
    support_limit = check_range(
        "supportLimit", args.integer("supportLimit", ENTITIES_SUPPORT.default), ENTITIES_SUPPORT
    )
    evidence = _evidence_mode(args)
    asked = args.scope()
    args.done()
    effective = await checked_scope(context, grant, asked)
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
    shown = {
        entity_id: ([] if evidence == "NONE" else passages[:support_limit])
        for entity_id, passages in visible.items()
    }
    totals: dict[str, Total] = {}
    if evidence != "NONE":
        supported = {entity_id for entity_id, passages in visible.items() if passages}
        totals = await entity_totals(loaders, shown, support_limit, supported)

    def build(count: int) -> GetEntitiesJson:
        entries: list[FoundEntryJson | MissingEntryJson] = []
        cited = Citations(evidence)
        for entity_id, entity in zip(ids[:count], entities[:count], strict=True):
            if entity is None:
                entries.append({"id": entity_id, "entity": None})
                continue
            cited.cite(shown[entity_id], [entity.name])
            entry: FoundEntryJson = {
                "id": entity_id,
                "entity": entity_json(entity, listed=True),
                "status": _status(bool(visible[entity_id])),
                "evidenceIds": [],
            }
            total = totals.get(entity_id, Total(len(shown[entity_id]), False))
            add_evidence(entry, evidence, shown[entity_id], total, EntityOwner(entity_id))
            entries.append(entry)
        evidence_json = cited.json()
        return {
            "entities": entries,
            "passages": evidence_json["passages"],
            "documents": evidence_json["documents"],
        }

    return ToolAnswer(
        build,
        items=len(ids),
        texts=_texts([p for passages in shown.values() for p in passages]),
        about={"evidence": evidence},
        continuation=lambda position: (
            f"call get_entities again with the ids from {ids[position]} on"
        ),
    )


async def get_evidence(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    """A page of an entity's or an edge's visible passages, in evidence order, through the
    paged loaders of `Entity.evidencePage` and `Edge.evidencePage`, with the total."""
    position: EvidencePosition | None = None
    owner: EntityOwner | EdgeOwner
    cursor, entity_id = args.optional_text("cursor"), args.optional_text("entityId")
    if cursor is not None and entity_id is not None:
        raise Malformed("entityId", "give `entityId` or `cursor`, not both")
    if cursor is not None:
        position = decode_evidence_cursor(cursor)
        owner = position.owner
    elif entity_id is not None:
        owner = EntityOwner(check_id("entityId", lower_uuid(entity_id)))
    else:
        raise Malformed("entityId", "give `entityId` (the first page) or `cursor` (the next)")
    limit = check_range(
        "limit", args.integer("limit", EVIDENCE_PAGE_SIZE.default), EVIDENCE_PAGE_SIZE
    )
    evidence = _evidence_mode(args, ("QUOTES", "IDS"))
    asked = args.scope()
    args.done()
    effective = await checked_scope(context, grant, asked)
    loaders = create_loaders(context.graph, effective)
    after = None if position is None else position.after
    before = 0 if position is None else position.before
    page = PageRequest(
        owner.entity_id if isinstance(owner, EntityOwner) else owner.edge_id, limit, after
    )
    if isinstance(owner, EntityOwner):
        ends = await loaders.entities_by_id.load_many([owner.entity_id])
        read = await loaders.evidence_pages_by_entity_id.load(page)
        counted = await loaders.evidence_counts_by_entity_id.load(
            PageRequest(page.owner, EVIDENCE_COUNT_CAP, None)
        )
    else:
        edge = EdgePageRequest(page, owner.source_id, owner.target_id, owner.type)
        ends = await loaders.entities_by_id.load_many([owner.source_id, owner.target_id])
        read = await loaders.evidence_pages_by_edge.load(edge)
        counted = await loaders.evidence_counts_by_edge.load(
            EdgePageRequest(PageRequest(page.owner, EVIDENCE_COUNT_CAP, None), *_ends(owner))
        )
    known = [end for end in ends if end is not None]
    if len(known) < len(ends):  # an end missing or outside the scope: nothing to show
        return ToolAnswer(
            lambda _: EvidencePageJson(
                entity=None, evidenceIds=[], first=0, passages={}, documents={}
            )
        )
    passages = read[:limit]
    more = len(read) > limit
    names = [end.name for end in known]
    total = Total(min(counted, EVIDENCE_COUNT_CAP), counted > EVIDENCE_COUNT_CAP)

    def build(count: int) -> EvidencePageJson:
        shown = passages[:count]
        cited = Citations(evidence)
        cited.cite(shown, names)
        evidence_json = cited.json()
        found: EvidencePageJson = {
            "entity": entity_json(known[0], described=False),
            "evidenceIds": [p.id for p in shown],
            "first": before,
            "evidenceTotal": total.count,
            "passages": evidence_json["passages"],
            "documents": evidence_json["documents"],
        }
        if isinstance(owner, EdgeOwner):
            found["other"] = entity_json(known[1], described=False)
            found["edgeId"] = owner.edge_id
        if total.at_least:
            found["evidenceTotalAtLeast"] = True
        if shown and (more or count < len(passages)):
            last = shown[-1]
            found["evidenceCursor"] = encode_evidence_cursor(
                EvidencePosition(
                    owner, (last.document.id, last.position, last.id), before + len(shown)
                )
            )
        return found

    return ToolAnswer(
        build,
        items=len(passages),
        texts=_texts(passages),
        about={"evidence": evidence},
        continuation=lambda _: "call get_evidence with the answer's `evidenceCursor`",
    )


def _ends(owner: EdgeOwner) -> tuple[str, str, str]:
    return owner.source_id, owner.target_id, owner.type


async def get_passage(context: AnswerContext, grant: Grant, args: Arguments) -> ToolAnswer:
    """One passage's text from `offset`, at most `length` characters of it (and fewer when the
    size cut needs it), ending at a word's end, so that a long passage is read in parts."""
    passage_id = check_id("id", args.identifier("id"))
    offset = check_range("offset", args.integer("offset", PASSAGE_OFFSET.default), PASSAGE_OFFSET)
    length = check_range("length", args.integer("length", PASSAGE_LENGTH.default), PASSAGE_LENGTH)
    asked = args.scope()
    args.done()
    effective = await checked_scope(context, grant, asked)
    record = await create_loaders(context.graph, effective).passages_by_id.load(passage_id)
    if record is None:
        return ToolAnswer(lambda _: GetPassageJson(passage=None))
    text = record.text
    begin = min(offset, len(text))

    def build(count: int) -> GetPassageJson:
        end = part_end(text, begin, count)
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
        resume=lambda content: int(content["passage"]["nextOffset"]),
    )


WORD_END_ROOM = 80  # how far back a part may end to end at a word's end


def part_end(text: str, begin: int, count: int) -> int:
    """Where a part of `count` characters from `begin` ends: after the last white space of its
    last WORD_END_ROOM characters when it stops inside the text, so no word is split.

    >>> part_end("one two three", 0, 6), part_end("one two three", 0, 13)
    (4, 13)
    """
    end = begin + count
    if end >= len(text):
        return len(text)
    if not (text[end - 1].isspace() or text[end].isspace()):
        space = max(text.rfind(" ", begin, end), text.rfind("\n", begin, end))
        if space >= max(begin + 1, end - WORD_END_ROOM):
            return space + 1
    return end


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
    """The granted workspaces, the workspaces and documents the scope holds, and its labels and
    relation types, counted."""
    asked = args.scope()
    args.done()
    effective = await checked_scope(context, grant, asked)
    shape = await read_graph_shape(context, effective)
    workspaces, documents = await readable_scope(context, grant, DESCRIBED_DOCUMENTS, effective)
    granted = grant.listed()
    total_documents = sum(workspace.documents for workspace in workspaces)

    def build(_: int) -> DescribeGraphJson:
        return {
            "grantedWorkspaces": granted,
            "scope": {
                "workspaces": None if effective.workspaces is None else list(effective.workspaces),
                "documentIds": (
                    None if effective.document_ids is None else list(effective.document_ids)
                ),
            },
            "workspaces": [{"name": w.name, "documents": w.documents} for w in workspaces],
            "documents": [
                {"id": d.id, "workspace": d.workspace, "title": d.title, "passages": d.passages}
                for d in documents
            ],
            "moreDocuments": max(total_documents - len(documents), 0),
            "labels": [{"name": c.name, "count": c.count} for c in shape.labels],
            "relationTypes": [{"name": c.name, "count": c.count} for c in shape.relation_types],
            "labelsAtLeast": shape.labels_at_least,
            "relationTypesAtLeast": shape.relations_at_least,
        }

    return ToolAnswer(build, items=1)


Answerer = Callable[[AnswerContext, Grant, Arguments], Awaitable[ToolAnswer]]

ANSWERERS: dict[str, Answerer] = {
    "search_entities": search_entities,
    "search_passages": search_passages,
    "walk": walk,
    "walk_between": walk_between,
    "get_entity": get_entity,
    "get_entities": get_entities,
    "get_evidence": get_evidence,
    "get_passage": get_passage,
    "entity_labels": entity_labels,
    "describe_graph": describe_graph,
}
