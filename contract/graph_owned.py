"""Labels and relationship types the graph itself owns (contract §1, §2): never entity labels,
never walked. Here, below graph/, ingest/ and api/, so that each of them can take them."""

from __future__ import annotations

GRAPH_OWNED_LABELS: tuple[str, ...] = (
    "Entity",
    "Chunk",
    "Document",
    "Job",
    "Community",
    "ResolvedEntity",
)
GRAPH_OWNED_RELATION_TYPES: tuple[str, ...] = (
    "HAS_PART",
    "MENTIONED_IN",
    "IN_COMMUNITY",
    "RESOLVED_AS",
)
