"""The tools as a model sees them: names, descriptions and JSON Schemas (contract §12).

Arguments have the GraphQL fields' names (contract §6, contract/arguments.py), so one vocabulary
serves both doors; `maxCandidates` too, as contract §12 asks, its description saying it is an
internal read bound to leave alone. Every tool is read-only. Beside the six of contract §12:
`describe_graph` (what the caller may read), `get_entities` (get_entity for several ids, without
relations), `get_evidence` (an entity's or an edge's passages past those an answer showed) and
`walk_between` (the edges between two entities).

Defaults are MCP's own where an agent needs it (contract §12: "defaults sized so a default call
of every tool fits uncut on long GraphRAG text units, stated in each tool's schema"): a walk
reaches 200 entities and 200 edges, listed one line each; get_passage reads 8,000 characters,
more than a GraphRAG text unit (4,600–5,900 in the demo data and A Christmas Carol).

Said once (issue 39, point 6): the words every answer uses (visible, SUPPORTED, UNSUPPORTED,
ASSERTION, PATH, each mode's `score`) in describe_graph's description (`VOCABULARY`); what to
do after each error code in the server's instructions (mcpserver/server.py), and again in each
error result. The other descriptions stay short.
"""

from __future__ import annotations

from typing import Any

from mcp import types

from contract.arguments import (
    EVIDENCE_PAGE_SIZE,
    SEARCH_LIMIT,
    SUPPORT_LIMIT,
    WALK_DEPTH,
    WALK_MAX_CANDIDATES,
    Bound,
)
from mcpserver.content import output_schema
from mcpserver.evidence import EVIDENCE_MODES

# A walk as MCP answers it: one line per edge, so 200 fit the text's budget (issue 39, point 1).
WALK_NODES = Bound(1, 500, 200, "At most this many entities, the start included")
WALK_EDGES = Bound(1, 1000, 200, "At most this many edges")
# walk_between reads a depth-1 walk around each end, with the walk's bounds.
BETWEEN_DEPTH = Bound(1, 2, 2, "1: direct relations only; 2: also two-step paths")
BETWEEN_NODES = Bound(1, 500, 200, "At most this many entities in each end's walk")
BETWEEN_EDGES = Bound(1, 1000, 200, "At most this many edges in each end's walk")
# get_entity's relations: a depth-1 walk, bounded so the answer stays readable.
ENTITY_RELATIONS = Bound(1, 100, 20, "At most this many relations")
ENTITY_SUPPORT = Bound(0, 10, 3, "Evidence passages of the entity")
ENTITIES_SUPPORT = Bound(0, 10, 3, "Evidence passages per entity")
# get_entities: ids per call, so that one answer stays readable (the size cut does the rest).
MAX_ENTITY_IDS = 50
# get_passage reads a passage in parts: `length` characters from `offset` (issue 29, point 3).
PASSAGE_OFFSET = Bound(0, 10_000_000, 0, "Where to start reading, in characters from the start")
PASSAGE_LENGTH = Bound(1, 20_000, 8_000, "At most this many characters")

UUID = {"type": "string", "format": "uuid"}
SCOPE: dict[str, Any] = {
    "type": "object",
    "description": "Narrows what the call reads (describe_graph names what you may read).",
    "properties": {
        "workspaces": {"type": "array", "items": {"type": "string"}},
        "documentIds": {"type": "array", "items": UUID},
    },
    "additionalProperties": False,
}
QUERY = {
    "type": "string",
    "minLength": 1,
    "maxLength": 1000,
    "description": "A name or a description; only its plain words are matched.",
}
MODE = {
    "type": "string",
    "enum": ["HYBRID", "LEXICAL", "SEMANTIC"],
    "default": "HYBRID",
    "description": "HYBRID: names and meaning; LEXICAL: the query's words only; SEMANTIC: meaning.",
}
EVIDENCE = {
    "type": "string",
    "enum": list(EVIDENCE_MODES),
    "default": "QUOTES",
    "description": (
        "QUOTES: each cited passage quoted once, around the mention; IDS: passage ids only; "
        "NONE: neither. get_passage reads a passage whole."
    ),
}
CURSOR = {
    "type": "string",
    "description": "`nextCursor` of the previous answer, with exactly the same other arguments.",
}


def _integer(bound: Bound) -> dict[str, Any]:
    """The range and the default are the schema's own keys; the description says the rest."""
    return {
        "type": "integer",
        "minimum": bound.low,
        "maximum": bound.high,
        "default": bound.default,
        "description": f"{bound.what}. {bound.note}" if bound.note else f"{bound.what}.",
    }


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


READ_ONLY = types.ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)

VOCABULARY = (
    "Terms every tool uses. Visible: a passage in your scope, of its document's current "
    "version; nothing else is shown. SUPPORTED: a visible passage mentions the entity (its "
    "evidence). UNSUPPORTED: only superseded passages mention it: no evidence, do not state "
    "it as fact. ASSERTION: a visible passage states the edge. PATH: the graph links the two "
    "with no passage: a lead, not a fact. A `description` (and an edge's `weight`) is what "
    "extraction said: a claim, not evidence. `score` by `mode`: HYBRID, reciprocal rank fusion "
    "Σ 1/(60 + rank) over the lexical and semantic lists (at most about 0.033); LEXICAL, the "
    "full-text BM25 score; SEMANTIC, the cosine similarity. Compare scores within one answer "
    "only. A lexical rank says the name (or passage) holds the query's words; without one a "
    "hit was found by meaning only."
)
MAX_CANDIDATES = {
    **_integer(WALK_MAX_CANDIDATES),
    "description": "An internal read bound; leave it out unless `truncatedBy` holds CANDIDATES.",
}
RELATION_TYPES = {
    "type": "array",
    "items": {"type": "string", "minLength": 1, "maxLength": 100},
    "description": "Follow only these types, as describe_graph lists them; omit for all.",
}


def _walk_bounds(nodes: Bound, edges: Bound) -> dict[str, Any]:
    return {
        "relationTypes": RELATION_TYPES,
        "maxNodes": _integer(nodes),
        "maxEdges": _integer(edges),
        "maxCandidates": MAX_CANDIDATES,
    }


def _tool(name: str, title: str, description: str, schema: dict[str, Any]) -> types.Tool:
    return types.Tool(
        name=name,
        title=title,
        description=description,
        inputSchema=schema,
        outputSchema=output_schema(name),
        annotations=READ_ONLY,
    )


TOOLS: tuple[types.Tool, ...] = (
    _tool(
        "search_entities",
        "Search entities",
        "Find entities (people, places, things) by name or description: who or what. Each hit "
        "has its status, score and ranks, and evidence passages quoted where they mention it "
        '("3 of 14 passages"; get_evidence reads the rest). The text says when no name held '
        "the query's words (found by meaning only) and when the hits reached `limit`.",
        _schema(
            {
                "query": QUERY,
                "scope": SCOPE,
                "labels": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "description": "Only these entity labels (describe_graph lists them).",
                },
                "mode": MODE,
                "limit": _integer(SEARCH_LIMIT),
                "supportLimit": _integer(SUPPORT_LIMIT),
                "evidence": EVIDENCE,
                "cursor": CURSOR,
            },
            ["query"],
        ),
    ),
    _tool(
        "search_passages",
        "Search passages",
        "Find source passages by their words or meaning: what a text says. Each hit is quoted "
        "around the query's words, with its score, ranks and document; get_passage reads one "
        "whole.",
        _schema(
            {
                "query": QUERY,
                "scope": SCOPE,
                "mode": MODE,
                "limit": _integer(SEARCH_LIMIT),
                "cursor": CURSOR,
            },
            ["query"],
        ),
    ),
    _tool(
        "walk",
        "Walk relations",
        "The relations around one entity, depth 1 or 2, one line per edge: its type, kind "
        "(ASSERTION or PATH), the other end with its id and its evidence. `truncatedBy` DEPTH "
        "is not a cut (more lies beyond); NODES, EDGES and CANDIDATES are (the text says what "
        "to raise). For how two entities connect, use walk_between.",
        _schema(
            {
                "entityId": {**UUID, "description": "The start entity's id."},
                "scope": SCOPE,
                "depth": _integer(WALK_DEPTH),
                **_walk_bounds(WALK_NODES, WALK_EDGES),
                "evidence": EVIDENCE,
                "cursor": CURSOR,
            },
            ["entityId"],
        ),
    ),
    _tool(
        "walk_between",
        "Relations between two entities",
        "How two entities are connected: the edges between them, direct and through one "
        "entity in between (two steps), each with its evidence, under the walk's rules (a "
        "depth-1 walk from each end).",
        _schema(
            {
                "entityId": {**UUID, "description": "One entity's id."},
                "otherEntityId": {**UUID, "description": "The other entity's id."},
                "scope": SCOPE,
                "depth": _integer(BETWEEN_DEPTH),
                **_walk_bounds(BETWEEN_NODES, BETWEEN_EDGES),
                "evidence": EVIDENCE,
                "cursor": CURSOR,
            },
            ["entityId", "otherEntityId"],
        ),
    ),
    _tool(
        "get_entity",
        "Get an entity",
        "One entity by id: its description, status, evidence (with the total) and its "
        "relations (a depth-1 walk of at most `maxEdges`, with what the source says of each). "
        "Missing or outside your scope: `entity` null.",
        _schema(
            {
                "id": {**UUID, "description": "The entity's id."},
                "scope": SCOPE,
                "supportLimit": _integer(ENTITY_SUPPORT),
                "maxEdges": _integer(ENTITY_RELATIONS),
                "evidence": EVIDENCE,
            },
            ["id"],
        ),
    ),
    _tool(
        "get_entities",
        "Get entities",
        f"Several entities by id (at most {MAX_ENTITY_IDS}), each with its status and "
        "evidence, without relations; one entry per id, in order, `entity` null for one "
        "missing or outside your scope.",
        _schema(
            {
                "ids": {
                    "type": "array",
                    "items": UUID,
                    "minItems": 1,
                    "maxItems": MAX_ENTITY_IDS,
                    "description": "The entities' ids.",
                },
                "scope": SCOPE,
                "supportLimit": _integer(ENTITIES_SUPPORT),
                "evidence": EVIDENCE,
            },
            ["ids"],
        ),
    ),
    _tool(
        "get_evidence",
        "Get evidence",
        "An entity's evidence passages a page at a time, in evidence order: with `entityId` "
        "from the first, with an answer's `evidenceCursor` (an entity's or an edge's) after "
        "those it showed.",
        _schema(
            {
                "entityId": {**UUID, "description": "The entity's id (for the first page)."},
                "cursor": {
                    "type": "string",
                    "description": "An `evidenceCursor` from an answer, to read on.",
                },
                "scope": SCOPE,
                "limit": _integer(EVIDENCE_PAGE_SIZE),
                "evidence": {**EVIDENCE, "enum": ["QUOTES", "IDS"]},
            },
            [],
        ),
    ),
    _tool(
        "get_passage",
        "Get a passage",
        "One passage by id and its document, `length` characters of its text from `offset`; "
        "the text ends with the offset to read on from. Missing, superseded or outside your "
        "scope: `passage` null.",
        _schema(
            {
                "id": {**UUID, "description": "The passage's id."},
                "scope": SCOPE,
                "offset": _integer(PASSAGE_OFFSET),
                "length": _integer(PASSAGE_LENGTH),
            },
            ["id"],
        ),
    ),
    _tool(
        "entity_labels",
        "List entity labels",
        "Every entity label under which your workspaces hold an entity, with the state of its "
        "two indexes (search_entities' `labels` needs both ONLINE); describe_graph counts the "
        "entities of each.",
        _schema({}, []),
    ),
    _tool(
        "describe_graph",
        "Describe the graph",
        "What you may read: your workspaces and documents with counts, each entity label with "
        "how many entities your scope holds, each relation type with how many relations (the "
        "names `relationTypes` takes). Counts past a cap are lower bounds (`…AtLeast`). Call it "
        "first. " + VOCABULARY,
        _schema({"scope": SCOPE}, []),
    ),
)

# Each tool's arguments, in its schema's order: an unknown one is refused naming them.
TOOL_ARGUMENTS: dict[str, tuple[str, ...]] = {
    tool.name: tuple(tool.inputSchema["properties"]) for tool in TOOLS
}
