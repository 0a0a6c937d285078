"""The tools as a model sees them: names, descriptions and JSON Schemas (contract §12).

Arguments, defaults and ranges are the GraphQL fields' (contract §6, contract/arguments.py), under
the same names, so one vocabulary serves both doors; `maxCandidates` too, as contract §12 asks
("the same arguments"), its description saying that it is an internal read bound to leave
alone. Every tool is read-only. Beside the six of contract §12, `describe_graph` (the shape
of the graph in the caller's scope) and `get_entities` (a batch of get_entity without the
relations) serve an agent that must learn what it may follow (issue 29, point 7).

The words every answer uses (visible, SUPPORTED, UNSUPPORTED, ASSERTION, PATH, each mode's
`score`) are defined once, in `VOCABULARY`, which describe_graph's description carries; the
other descriptions use the words and point there. Each description ends with its error codes
and what to do about each (mcpserver/error_advice.py).
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
from mcpserver.error_advice import PASSAGE_INDEX_ADVICE, errors_note

# get_entity's relations: a depth-1 walk, bounded so the answer stays readable.
ENTITY_RELATIONS = Bound(1, 100, 20, "At most this many relations")
# get_entities: ids per call, so that one answer stays readable (the size cut does the rest).
MAX_ENTITY_IDS = 50
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

VOCABULARY = (
    "Terms every tool uses. In scope: a passage whose document is in the workspaces you are "
    "granted (narrowed by a call's `scope`). Visible: in scope and of its document's current, "
    "committed version; nothing else is ever shown. Status SUPPORTED: a visible passage "
    "mentions the entity (its evidence). Status UNSUPPORTED: passages in scope mention it but "
    "none is current (superseded, or still being written), so it has no evidence: do not "
    "state it as fact. Edge kind ASSERTION: a visible passage states the relation (its "
    "evidence is cited). Edge kind PATH: the graph links the two entities with no supporting "
    "passage (co-occurrence or inference): a lead, not a fact. An entity's or an edge's "
    "`description` (and an edge's `weight`) is what extraction said about it: a claim, not "
    "evidence. `score` depends on `mode`: "
    "HYBRID, reciprocal rank fusion, the sum of 1/(k + rank) over the lexical and semantic "
    "lists that hold the hit (k is 60 unless configured; at most about 0.033); LEXICAL, the "
    "full-text index's BM25 score (unbounded); SEMANTIC, the cosine similarity of the "
    "embeddings (-1 to 1, higher is closer). Compare scores only within one answer. "
    "`lexicalRank` and `semanticRank` are 1-based places in each list, null when the list did "
    "not hold the hit."
)
TERMS = "(Terms as describe_graph defines them.)"
EVIDENCE_NOTE = (
    "Each entity has a status, SUPPORTED or UNSUPPORTED; read its evidence passages (quoted "
    "with their document titles) before trusting it. " + TERMS
)
EDGE_NOTE = (
    "Each edge has a kind, ASSERTION or PATH " + TERMS + " `truncatedBy` DEPTH says "
    "there is more beyond the last depth (not a cut: walk from a neighbour's id to follow it); "
    "NODES, EDGES and CANDIDATES say a bound cut the walk (the text says which to raise)."
)
SIZE_NOTE = (
    "An answer larger than the server's size limit is cut: `cut` says what was left out and "
    "`nextCursor` continues it (call again with the same arguments and `cursor`)."
)
# maxCandidates: the GraphQL field's argument, kept for parity (contract §12), explained.
MAX_CANDIDATES = {
    **_integer(WALK_MAX_CANDIDATES),
    "description": (
        "An internal read bound; leave it out. How many stored relationships each step reads "
        f"before deciding which qualify: {WALK_MAX_CANDIDATES.low} to "
        f"{WALK_MAX_CANDIDATES.high} (default {WALK_MAX_CANDIDATES.default}). Raise it only "
        "when `truncatedBy` holds CANDIDATES (a hub whose first relationships were all that "
        "was read)."
    ),
}

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
            "to explore further. " + SIZE_NOTE + " " + errors_note("INDEX_NOT_READY")
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
            + errors_note("INDEX_NOT_READY", INDEX_NOT_READY=PASSAGE_INDEX_ADVICE)
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
            + " "
            + errors_note("UNAVAILABLE")
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
                        "Follow only these relation types, exactly as describe_graph lists them "
                        "(GraphRAG data holds only RELATED_TO); for a type no relation in your "
                        "scope has, the answer says so and lists the types there are. Omit it "
                        "to follow every type. Graph-owned types "
                        "(HAS_PART, MENTIONED_IN, ...) are never walked."
                    ),
                },
                "maxNodes": _integer(WALK_MAX_NODES),
                "maxEdges": _integer(WALK_MAX_EDGES),
                "maxCandidates": MAX_CANDIDATES,
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
            "comes back as `entity: null`; do not ask for it again. For several entities at "
            "once without their relations, use get_entities. " + errors_note()
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
            "outside your scope comes back as `passage: null`. " + errors_note()
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
            "Every entity label (Person, Organization, ...) under which your workspaces hold an "
            "entity, with the state of its two indexes; search_entities can filter on labels "
            "whose indexes are both ONLINE. For how many "
            "entities of each label your scope holds, use describe_graph. " + errors_note()
        ),
        inputSchema=_schema({}, []),
        outputSchema=output_schema("entity_labels"),
        annotations=READ_ONLY,
    ),
    types.Tool(
        name="describe_graph",
        title="Describe the graph",
        description=(
            "The shape of the graph you can read: the workspaces you are granted, each entity "
            "label with how many entities a visible passage in your scope mentions, and each "
            "relation type a walk in your scope can follow with how many such relations (the "
            "names walk's `relationTypes` takes). Counts stop at a cap on a large graph; "
            "`labelsAtLeast` / `relationTypesAtLeast` then say they are lower bounds. Call it "
            "first to learn what to search for and follow. " + VOCABULARY + " " + errors_note()
        ),
        inputSchema=_schema({"scope": SCOPE}, []),
        outputSchema=output_schema("describe_graph"),
        annotations=READ_ONLY,
    ),
    types.Tool(
        name="get_entities",
        title="Get entities",
        description=(
            f"Several entities by id at once (at most {MAX_ENTITY_IDS}), each with its status "
            "and evidence passages, without relations (get_entity or walk give those). "
            + EVIDENCE_NOTE
            + " `entities` holds one entry per id, in the order asked; an id that is missing or "
            "outside your scope has `entity: null`: do not ask for it again. Passages are in "
            "`passages` by id. " + errors_note()
        ),
        inputSchema=_schema(
            {
                "ids": {
                    "type": "array",
                    "items": UUID,
                    "minItems": 1,
                    "maxItems": MAX_ENTITY_IDS,
                    "description": "The entities' ids (from any other tool's answer).",
                },
                "scope": SCOPE,
                "supportLimit": _integer(SUPPORT_LIMIT),
            },
            ["ids"],
        ),
        outputSchema=output_schema("get_entities"),
        annotations=READ_ONLY,
    ),
)
