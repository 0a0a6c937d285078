"""The contract's enums (contract §6)."""

from __future__ import annotations

from enum import Enum

import strawberry


@strawberry.enum(description="How a search ranks its candidates.")
class SearchMode(Enum):
    HYBRID = strawberry.enum_value(
        "HYBRID",
        description="Lexical and semantic lists fused by reciprocal rank fusion (the default).",
    )
    LEXICAL = strawberry.enum_value(
        "LEXICAL", description="Only the full-text search of the query's words, by its score."
    )
    SEMANTIC = strawberry.enum_value(
        "SEMANTIC",
        description="Only the vector search of the embedded query, by cosine similarity.",
    )


@strawberry.enum(description="Whether a visible passage supports an entity.")
class EntityStatus(Enum):
    SUPPORTED = strawberry.enum_value(
        "SUPPORTED", description="At least one visible passage mentions the entity."
    )
    UNSUPPORTED = strawberry.enum_value(
        "UNSUPPORTED",
        description=(
            "Passages in scope mention the entity, but none of them is current (superseded "
            "or still being written); it comes back with no evidence."
        ),
    )


@strawberry.enum(description="What the graph knows about an edge.")
class EdgeKind(Enum):
    ASSERTION = strawberry.enum_value(
        "ASSERTION", description="A visible passage states this relation; see `evidence`."
    )
    PATH = strawberry.enum_value(
        "PATH",
        description="The relation has no supporting passage (co-occurrence or inference).",
    )


@strawberry.enum(description="A bound that cut a relationship walk short.")
class WalkBound(Enum):
    NODES = strawberry.enum_value("NODES", description="`maxNodes` was reached.")
    EDGES = strawberry.enum_value("EDGES", description="`maxEdges` was reached.")
    DEPTH = strawberry.enum_value(
        "DEPTH", description="A node at the last depth has edges to entities not in the result."
    )
    CANDIDATES = strawberry.enum_value(
        "CANDIDATES", description="A step read `maxCandidates` relationships and more remained."
    )


@strawberry.enum(description="The state of an index.")
class IndexState(Enum):
    ONLINE = strawberry.enum_value("ONLINE", description="Ready to answer searches.")
    POPULATING = strawberry.enum_value("POPULATING", description="Being built; not ready yet.")
    FAILED = strawberry.enum_value("FAILED", description="Failed to build; drop and re-create it.")
    MISSING = strawberry.enum_value(
        "MISSING", description="Does not exist; run `evidencegraph schema apply`."
    )
