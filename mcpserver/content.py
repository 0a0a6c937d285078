"""The structured content of each tool's answer: its types, the builders that turn records into
it, and the `outputSchema` each tool declares, generated from those same types (issue 29,
point 6). mypy holds the builders to the types, and the schemas are the types' JSON Schema, so
what a tool declares and what it sends cannot drift apart.

An answer sends each passage once, in `passages` (by id), with its document once in `documents`
(by id); hits and edges hold the passages' ids (issue 29, point 2). Field names are the GraphQL
fields' names.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, NotRequired

from pydantic import TypeAdapter
from typing_extensions import TypedDict

from graph.records import DocumentRecord, EntityRecord, PassageRecord
from graph.walk import WalkEdgeRecord

Status = Literal["SUPPORTED", "UNSUPPORTED"]
Kind = Literal["ASSERTION", "PATH"]
WalkBoundName = Literal["NODES", "EDGES", "DEPTH", "CANDIDATES"]


class DocumentJson(TypedDict):
    id: str
    workspace: str
    title: str | None
    uri: str | None
    currentVersion: int


class PassageJson(TypedDict):
    id: str
    documentId: str
    position: int
    version: int
    length: int  # characters in the whole text
    text: str  # the whole text, or the excerpt that starts at `textStart`
    textStart: NotRequired[int]  # only when `text` is an excerpt cut to fit the answer


class EntityJson(TypedDict):
    id: str
    name: str
    labels: list[str]
    description: str | None


class EntityHitJson(TypedDict):
    entity: EntityJson
    status: Status
    score: float
    lexicalRank: int | None
    semanticRank: int | None
    evidenceIds: list[str]


class PassageHitJson(TypedDict):
    passageId: str
    score: float
    lexicalRank: int | None
    semanticRank: int | None


class EdgeJson(TypedDict):
    id: str
    type: str
    kind: Kind
    depth: int
    sourceId: str
    targetId: str
    evidenceIds: list[str]
    description: str | None  # what the source says about it: a claim, not evidence
    weight: float | None


class EvidenceJson(TypedDict):
    """The passages an answer cites, each once, and their documents, each once."""

    passages: dict[str, PassageJson]
    documents: dict[str, DocumentJson]


class PagedJson(EvidenceJson):
    nextCursor: NotRequired[str]  # present when the size cut left items out: pass it to continue
    cut: NotRequired[str]  # what the size cut left out and which call continues


class SearchEntitiesJson(PagedJson):
    hits: list[EntityHitJson]


class SearchPassagesJson(PagedJson):
    hits: list[PassageHitJson]


class RelationsJson(TypedDict):
    nodes: list[EntityJson]  # the entities the edges reach, the start left out
    edges: list[EdgeJson]
    truncatedBy: list[WalkBoundName]


class WalkJson(PagedJson, RelationsJson):
    start: EntityJson


class GetEntityJson(TypedDict):
    entity: EntityJson | None  # None: missing or outside the caller's scope
    status: NotRequired[Status]
    evidenceIds: NotRequired[list[str]]
    relations: NotRequired[RelationsJson]
    passages: NotRequired[dict[str, PassageJson]]
    documents: NotRequired[dict[str, DocumentJson]]
    cut: NotRequired[str]


class PassagePartJson(TypedDict):
    id: str
    position: int
    version: int
    length: int  # characters in the whole text
    offset: int  # where `text` starts in the whole text
    text: str
    nextOffset: int | None  # the `offset` that reads on; None at the end of the text
    document: DocumentJson


class GetPassageJson(TypedDict):
    passage: PassagePartJson | None  # None: missing, superseded or outside the caller's scope
    cut: NotRequired[str]


class LabelJson(TypedDict):
    label: str
    fulltextIndex: str
    vectorIndex: str


class EntityLabelsJson(TypedDict):
    labels: list[LabelJson]
    cut: NotRequired[str]


class CountJson(TypedDict):
    name: str
    count: int  # a lower bound when the answer's `countsAtLeast` says so


class ScopeJson(TypedDict):
    workspaces: list[str] | None  # None: every workspace
    documentIds: list[str] | None  # None: every document of those workspaces


class DescribeGraphJson(TypedDict):
    grantedWorkspaces: list[str] | None  # None: every workspace (no authentication)
    scope: ScopeJson  # what this call read: the grant narrowed by its `scope` argument
    labels: list[CountJson]  # entity labels with entities a visible passage in scope mentions
    relationTypes: list[CountJson]  # relation types a walk in scope can follow, with relations
    labelsAtLeast: bool  # the counts are lower bounds: the read reached its cap
    relationTypesAtLeast: bool
    cut: NotRequired[str]


class EntityEntryJson(TypedDict):
    id: str  # the id asked for
    entity: EntityJson | None  # None: missing or outside the caller's scope
    status: NotRequired[Status]
    evidenceIds: NotRequired[list[str]]


class GetEntitiesJson(EvidenceJson):
    entities: list[EntityEntryJson]  # one per id asked for, in the order asked, repeats dropped
    cut: NotRequired[str]


CONTENT_TYPES: dict[str, Any] = {
    "search_entities": SearchEntitiesJson,
    "search_passages": SearchPassagesJson,
    "walk": WalkJson,
    "get_entity": GetEntityJson,
    "get_passage": GetPassageJson,
    "entity_labels": EntityLabelsJson,
    "describe_graph": DescribeGraphJson,
    "get_entities": GetEntitiesJson,
}


def output_schema(tool: str) -> dict[str, Any]:
    """The JSON Schema of a tool's structured content, from its type."""
    schema: dict[str, Any] = TypeAdapter(CONTENT_TYPES[tool]).json_schema()
    return schema


def document_json(document: DocumentRecord) -> DocumentJson:
    return {
        "id": document.id,
        "workspace": document.workspace,
        "title": document.title,
        "uri": document.uri,
        "currentVersion": document.current_version,
    }


def passage_json(passage: PassageRecord) -> PassageJson:
    return {
        "id": passage.id,
        "documentId": passage.document.id,
        "position": passage.position,
        "version": passage.version,
        "length": len(passage.text),
        "text": passage.text,
    }


def evidence_json(passages: Iterable[PassageRecord]) -> EvidenceJson:
    """Each passage once, in first-cited order, and each of their documents once."""
    evidence: EvidenceJson = {"passages": {}, "documents": {}}
    for passage in passages:
        evidence["passages"].setdefault(passage.id, passage_json(passage))
        evidence["documents"].setdefault(passage.document.id, document_json(passage.document))
    return evidence


def entity_json(entity: EntityRecord) -> EntityJson:
    return {
        "id": entity.id,
        "name": entity.name,
        "labels": list(entity.labels),
        "description": entity.description,
    }


def edge_json(edge: WalkEdgeRecord, depth: int) -> EdgeJson:
    kind: Kind = "ASSERTION" if edge.kind == "ASSERTION" else "PATH"
    return {
        "id": edge.id,
        "type": edge.type,
        "kind": kind,
        "depth": depth,
        "sourceId": edge.source_id,
        "targetId": edge.target_id,
        "evidenceIds": list(edge.evidence_ids),
        "description": edge.description,
        "weight": edge.weight,
    }
