"""The structured content of each tool's answer: its types, the builders that turn records into
it, and the `outputSchema` each tool declares, generated from those same types (issue 29,
point 6). mypy holds the builders to the types, and the schemas are the types' JSON Schema, so
what a tool declares and what it sends cannot drift apart.

Lean (issue 39, point 1): ids, positions and the window the text quotes, never a passage's
body, which get_passage reads. An answer names each passage it cites once, in `passages` (by
id), with its document once in `documents` (by id); hits and edges hold the passages' ids.
Field names are the GraphQL fields' names.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import TypeAdapter
from typing_extensions import TypedDict

from graph.records import DocumentRecord, EntityRecord
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
    length: int  # characters in its text (get_passage reads it)
    quoteStart: NotRequired[int]  # the window the text quotes: text[quoteStart:quoteEnd]
    quoteEnd: NotRequired[int]


class EntityJson(TypedDict):
    id: str
    name: str
    labels: list[str]
    # Left out where many entities are listed (a walk); in a list of hits, clipped to 200
    # characters as the text shows it (get_entity sends it whole).
    description: NotRequired[str | None]


class EvidenceTotalJson(TypedDict):
    evidenceIds: list[str]  # the passages shown, in evidence order
    evidenceTotal: NotRequired[int]  # visible passages in all, when more than those shown
    evidenceTotalAtLeast: NotRequired[bool]  # the count stopped at its cap: a lower bound
    evidenceCursor: NotRequired[str]  # get_evidence's `cursor` for the passages not shown


class EntityEvidenceJson(EvidenceTotalJson):
    entity: EntityJson
    status: Status


class EntityHitJson(EntityEvidenceJson):
    score: float
    lexicalRank: int | None  # null: the name does not hold the query's words
    semanticRank: int | None


class PassageHitJson(TypedDict):
    passageId: str
    score: float
    lexicalRank: int | None
    semanticRank: int | None


class EdgeJson(EvidenceTotalJson):
    id: str
    type: str
    kind: Kind
    depth: int  # the walk's step that found it; in walk_between, its step from the first end
    sourceId: str
    targetId: str
    weight: float | None
    # What the source says: a claim (get_entity, walk_between), clipped to 200 characters.
    description: NotRequired[str | None]


class EvidenceJson(TypedDict):
    """The passages an answer cites, each once, and their documents, each once."""

    passages: dict[str, PassageJson]
    documents: dict[str, DocumentJson]


class PagedJson(EvidenceJson):
    nextCursor: NotRequired[str]  # present when the size cut left items out: pass it to continue
    cut: NotRequired[str]  # what the size cut left out and which call continues


class SearchEntitiesJson(PagedJson):
    hits: list[EntityHitJson]
    limitReached: bool  # as many hits as `limit`: more may match
    matchedByName: bool  # a hit's name holds the query's words (false: found by meaning only)


class SearchPassagesJson(PagedJson):
    hits: list[PassageHitJson]
    limitReached: bool
    matchedByWords: bool  # a hit holds the query's words (false: found by meaning only)


class RelationsJson(TypedDict):
    nodes: list[EntityJson]  # the entities the edges reach, the start left out
    edges: list[EdgeJson]
    truncatedBy: list[WalkBoundName]


class WalkJson(PagedJson, RelationsJson):
    start: EntityJson


class ConnectionJson(PagedJson):
    entity: EntityJson
    other: EntityJson
    via: list[EntityJson]  # the entities two-step paths pass through
    edges: list[EdgeJson]  # depth: 1 from `entity`, 2 into `other`
    truncatedBy: list[WalkBoundName]  # bounds that cut either end's walk: edges may be missing


class FoundEntityJson(EntityEvidenceJson):
    relations: RelationsJson
    passages: dict[str, PassageJson]
    documents: dict[str, DocumentJson]
    cut: NotRequired[str]


class NoEntityJson(TypedDict):
    entity: None  # missing or outside the caller's scope
    cut: NotRequired[str]


GetEntityJson = FoundEntityJson | NoEntityJson


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


class EvidencePageJson(EvidenceJson):
    entity: EntityJson | None  # whose evidence (an edge's source); None: not visible
    other: NotRequired[EntityJson | None]  # an edge's target
    edgeId: NotRequired[str]
    evidenceIds: list[str]  # this page's passages, in evidence order
    first: int  # how many passages came before this page
    evidenceTotal: NotRequired[int]
    evidenceTotalAtLeast: NotRequired[bool]
    evidenceCursor: NotRequired[str]  # the next page's `cursor`
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
    count: int  # a lower bound when the answer's `…AtLeast` says so


class ScopeJson(TypedDict):
    workspaces: list[str] | None  # None: every workspace
    documentIds: list[str] | None  # None: every document of those workspaces


class WorkspaceJson(TypedDict):
    name: str
    documents: int  # visible documents


class ListedDocumentJson(TypedDict):
    id: str
    workspace: str
    title: str | None
    passages: int  # of its current version


class DescribeGraphJson(TypedDict):
    grantedWorkspaces: list[str] | None  # None: every workspace (no authentication)
    scope: ScopeJson  # what this call read: the grant narrowed by its `scope` argument
    workspaces: list[WorkspaceJson]  # those of the scope that hold a visible document
    documents: list[ListedDocumentJson]  # the first of them, by workspace then id
    moreDocuments: int  # documents of the scope not listed
    labels: list[CountJson]  # entity labels with entities a visible passage in scope mentions
    relationTypes: list[CountJson]  # relation types a walk in scope can follow, with relations
    labelsAtLeast: bool  # the counts are lower bounds: the read reached its cap
    relationTypesAtLeast: bool
    cut: NotRequired[str]


class FoundEntryJson(EntityEvidenceJson):
    id: str  # the id asked for


class MissingEntryJson(TypedDict):
    id: str  # the id asked for
    entity: None  # missing or outside the caller's scope


class GetEntitiesJson(EvidenceJson):
    entities: list[
        FoundEntryJson | MissingEntryJson
    ]  # one per id asked for, in the order asked, repeats dropped
    cut: NotRequired[str]


CONTENT_TYPES: dict[str, Any] = {
    "search_entities": SearchEntitiesJson,
    "search_passages": SearchPassagesJson,
    "walk": WalkJson,
    "walk_between": ConnectionJson,
    "get_entity": GetEntityJson,
    "get_entities": GetEntitiesJson,
    "get_evidence": EvidencePageJson,
    "get_passage": GetPassageJson,
    "entity_labels": EntityLabelsJson,
    "describe_graph": DescribeGraphJson,
}


def _plain(schema: Any) -> Any:
    """The schema as a model reads it, shorter and the same: without pydantic's `title` on
    every object and property (they only repeat the names), and `{"type": ["string", "null"]}`
    for an `anyOf` of plain types."""
    if isinstance(schema, list):
        return [_plain(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    plain = {
        key: _plain(value)
        for key, value in schema.items()
        if not (key == "title" and isinstance(value, str))
    }
    options = plain.get("anyOf")
    if isinstance(options, list) and all(set(o) == {"type"} for o in options):
        del plain["anyOf"]
        plain["type"] = [option["type"] for option in options]
    return plain


def output_schema(tool: str) -> dict[str, Any]:
    """The JSON Schema of a tool's structured content, from its type."""
    schema: dict[str, Any] = _plain(TypeAdapter(CONTENT_TYPES[tool]).json_schema())
    # MCP asks that a tool's output schema be an object's (the Inspector refuses the tool list
    # otherwise): a union of objects (get_entity's found or not) says so above its `anyOf`.
    return schema if schema.get("type") == "object" else {"type": "object", **schema}


def document_json(document: DocumentRecord) -> DocumentJson:
    return {
        "id": document.id,
        "workspace": document.workspace,
        "title": document.title,
        "uri": document.uri,
        "currentVersion": document.current_version,
    }


DESCRIPTION_CHARS = 200  # an entity's description in a list, an edge's on its line
ELLIPSIS = "…"


def clipped(text: str | None, most: int) -> str:
    """`text` on one line, at most `most` characters, an ellipsis saying it was cut."""
    text = " ".join((text or "").split())
    return text if len(text) <= most else text[: most - 1] + ELLIPSIS


def entity_json(entity: EntityRecord, described: bool = True, listed: bool = False) -> EntityJson:
    """`described`: with its description; `listed`: clipped, as a list of hits shows it."""
    found: EntityJson = {"id": entity.id, "name": entity.name, "labels": list(entity.labels)}
    if described:
        description = entity.description
        if listed and description is not None:
            description = clipped(description, DESCRIPTION_CHARS)
        found["description"] = description
    return found


def edge_json(edge: WalkEdgeRecord, depth: int, described: bool = False) -> EdgeJson:
    kind: Kind = "ASSERTION" if edge.kind == "ASSERTION" else "PATH"
    found: EdgeJson = {
        "id": edge.id,
        "type": edge.type,
        "kind": kind,
        "depth": depth,
        "sourceId": edge.source_id,
        "targetId": edge.target_id,
        "evidenceIds": list(edge.evidence_ids),
        "weight": edge.weight,
    }
    if described:
        description = edge.description
        found["description"] = (
            None if description is None else clipped(description, DESCRIPTION_CHARS)
        )
    return found
