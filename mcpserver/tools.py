"""The six tools as a model sees them: names, descriptions and JSON Schemas (contract §12).

Arguments, defaults and ranges are the GraphQL fields' (contract §6, contract/arguments.py), under
the same names, so one vocabulary serves both doors. Every tool is read-only.
"""

from __future__ import annotations

from typing import Any

from mcp import types

from contract.arguments import (
    SEARCH_LIMIT,
    SUPPORT_LIMIT,
    WALK_DEPTH,
    WALK_MAX_CANDIDATES,
    WALK_MAX_EDGES,
    WALK_MAX_NODES,
    Bound,
)
from mcpserver.content import output_schema

# get_entity's relations: a depth-1 walk, bounded so the answer stays readable.
ENTITY_RELATIONS = Bound(1, 100, 20, "At most this many relations")
# get_passage reads a passage in parts: `length` characters from `offset` (issue 29, point 3).
PASSAGE_OFFSET = Bound(0, 10_000_000, 0, "Where to start reading, in characters from the start")
PASSAGE_LENGTH = Bound(
    1,
    20_000,
    4_000,
    "At most this many characters",
    "`nextOffset` in the answer is the offset that reads on.",
)

UUID = {
    "type": "string",
    "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
}
SCOPE: dict[str, Any] = {
    "type": "object",
    "description": (
        "Narrows what the call may read; omit it to read everything you are granted. Naming a "
        "workspace you are not granted is FORBIDDEN."
    ),
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
    "description": (
        "A name or a description. Only its plain words (letters and digits) reach the lexical "
        "search, so search syntax has no effect; it needs at least one letter or digit."
    ),
}
MODE = {
    "type": "string",
    "enum": ["HYBRID", "LEXICAL", "SEMANTIC"],
    "default": "HYBRID",
    "description": (
        "HYBRID (default) fuses name matching and meaning; LEXICAL matches words only; "
        "SEMANTIC matches meaning only."
    ),
}


CURSOR = {
    "type": "string",
    "description": (
        "The `nextCursor` of this call's previous answer, to read what its size cut left out; "
        "pass it with exactly the same other arguments."
    ),
}


def _integer(bound: Bound) -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": bound.low,
        "maximum": bound.high,
        "default": bound.default,
        "description": bound.description,
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

EVIDENCE_NOTE = (
    "Every entity is a claim extraction made; read its evidence passages (quoted with their "
    "document titles) before trusting it. Status SUPPORTED: a visible passage mentions it. "
    "Status UNSUPPORTED: passages in scope mention it but none is current (superseded or "
    "still being written), so it has no evidence: do not state it as fact."
)
EDGE_NOTE = (
    "Each edge has a kind: ASSERTION means a visible passage states the relation (its evidence "
    "is quoted); PATH means the graph links the two entities with no supporting passage "
    "(co-occurrence or inference): treat it as a lead, not a fact. `truncatedBy` DEPTH says "
    "there is more beyond the last depth (not a cut: walk from a neighbour's id to follow it); "
    "NODES, EDGES and CANDIDATES say a bound cut the walk (the text says which to raise)."
)
SIZE_NOTE = (
    "An answer larger than the server's size limit is cut: `cut` says what was left out and "
    "`nextCursor` continues it (call again with the same arguments and `cursor`)."
)
ERRORS_NOTE = (
    "Errors carry a code: MALFORMED (an argument is invalid; the message names it), "
    "UNAVAILABLE, INDEX_NOT_READY, UNAUTHENTICATED, FORBIDDEN, BACKEND_UNAVAILABLE, INTERNAL."
)

TOOLS: tuple[types.Tool, ...] = (
    types.Tool(
        name="search_entities",
        title="Search entities",
        description=(
            "Find entities (people, organisations, places, things) by name or by description. "
            "Start here when the question is about who or what. Returns the best hits first, "
            "each with its status and up to `supportLimit` evidence passages. "
            + EVIDENCE_NOTE
            + " Each passage is sent once, in `passages` by id (its document in `documents`); "
            "hits hold `evidenceIds`. Use get_entity for one hit's details and relations, walk "
            "to explore further. " + SIZE_NOTE + " " + ERRORS_NOTE
        ),
        inputSchema=_schema(
            {
                "query": QUERY,
                "scope": SCOPE,
                "labels": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "description": "Only these entity labels (see entity_labels); omit for all.",
                },
                "mode": MODE,
                "limit": _integer(SEARCH_LIMIT),
                "supportLimit": _integer(SUPPORT_LIMIT),
                "cursor": CURSOR,
            },
            ["query"],
        ),
        outputSchema=output_schema("search_entities"),
        annotations=READ_ONLY,
    ),
    types.Tool(
        name="search_passages",
        title="Search passages",
        description=(
            "Find source passages by their words or meaning, each with its document. Use it "
            "when the question is about what a text says rather than about an entity, or to "
            "find wording to quote. Hits hold `passageId`; each passage is in `passages` by id. "
            + SIZE_NOTE
            + " "
            + ERRORS_NOTE
        ),
        inputSchema=_schema(
            {
                "query": QUERY,
                "scope": SCOPE,
                "mode": MODE,
                "limit": _integer(SEARCH_LIMIT),
                "cursor": CURSOR,
            },
            ["query"],
        ),
        outputSchema=output_schema("search_passages"),
        annotations=READ_ONLY,
    ),
    types.Tool(
        name="walk",
        title="Walk relations",
        description=(
            "Follow the stored relations around one entity (an id from search_entities), out to "
            "depth 1 or 2, in both directions. " + EDGE_NOTE + " Edges hold `evidenceIds`; each "
            "passage is in `passages` by id. `nodes` are the entities the edges reach. "
            + SIZE_NOTE
            + " UNAVAILABLE: the entity is missing or has no visible passage in your scope. "
            + ERRORS_NOTE
        ),
        inputSchema=_schema(
            {
                "entityId": {**UUID, "description": "The start entity's id."},
                "scope": SCOPE,
                "depth": _integer(WALK_DEPTH),
                "relationTypes": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1, "maxLength": 100},
                    "description": (
                        "Follow only these relation types, as the edges' `type` names them (a "
                        "type the graph does not hold walks nothing); omit for every type. "
                        "Graph-owned types (HAS_PART, MENTIONED_IN, ...) are never walked."
                    ),
                },
                "maxNodes": _integer(WALK_MAX_NODES),
                "maxEdges": _integer(WALK_MAX_EDGES),
                "maxCandidates": _integer(WALK_MAX_CANDIDATES),
                "cursor": CURSOR,
            },
            ["entityId"],
        ),
        outputSchema=output_schema("walk"),
        annotations=READ_ONLY,
    ),
    types.Tool(
        name="get_entity",
        title="Get an entity",
        description=(
            "One entity by id, with its evidence passages and its immediate relations (a "
            "depth-1 walk, at most `maxEdges` edges). "
            + EVIDENCE_NOTE
            + " "
            + EDGE_NOTE
            + " Passages are in `passages` by id. An entity that is missing or outside your scope "
            "comes back as `entity: null`. " + ERRORS_NOTE
        ),
        inputSchema=_schema(
            {
                "id": {**UUID, "description": "The entity's id."},
                "scope": SCOPE,
                "supportLimit": _integer(SUPPORT_LIMIT),
                "maxEdges": _integer(ENTITY_RELATIONS),
            },
            ["id"],
        ),
        outputSchema=output_schema("get_entity"),
        annotations=READ_ONLY,
    ),
    types.Tool(
        name="get_passage",
        title="Get a passage",
        description=(
            "One passage by id (an evidence id from another tool) and its document (title, "
            "workspace, uri), its text read in parts: `length` characters from `offset`; "
            "`nextOffset` reads on (null at the end). A passage that is missing, superseded or "
            "outside your scope comes back as `passage: null`. " + ERRORS_NOTE
        ),
        inputSchema=_schema(
            {
                "id": {**UUID, "description": "The passage's id."},
                "scope": SCOPE,
                "offset": _integer(PASSAGE_OFFSET),
                "length": _integer(PASSAGE_LENGTH),
            },
            ["id"],
        ),
        outputSchema=output_schema("get_passage"),
        annotations=READ_ONLY,
    ),
    types.Tool(
        name="entity_labels",
        title="List entity labels",
        description=(
            "Every entity label (Person, Organization, ...) with the state of its two indexes; "
            "search_entities can filter on labels whose indexes are both ONLINE. " + ERRORS_NOTE
        ),
        inputSchema=_schema({}, []),
        outputSchema=output_schema("entity_labels"),
        annotations=READ_ONLY,
    ),
)
