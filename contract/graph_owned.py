"""Labels and relationship types the graph itself owns (contract §1, §2): never entity labels,
never walked, never written by a load. Here, below graph/, ingest/ and api/, so that each of
them takes them from this one list.

Two kinds of label are the graph's own:
- the contract's (§1): the model's nodes (`Entity`, `Chunk`, `Document`, `Job`) and the ones
  other pipelines write beside them (`Community`, `ResolvedEntity`);
- the ones the service keeps for itself: a job's staged writes (graph/jobs.py), the re-embed
  run and the recorded embedder (graph/reembed.py, graph/embedder_record.py), the index
  catalog's marker (graph/catalog_cache.py), the entities whose exact-name key the service
  wrote (graph/name_key.py). Each is matched by label alone, so an entity that
  carried one would be taken for the service's bookkeeping: `purge` deletes a `StagedEntity`
  whose job is over, and fails on one that still has mentions. Every reader refuses them as a
  load's entity labels (ingest/bundle_checks.py) or renames them (ingest/graphrag.py,
  ingest/langchain_graph.py), and tests/test_graph_owned_labels.py fails when graph/ matches a
  label missing here.
"""

from __future__ import annotations

CONTRACT_LABELS: tuple[str, ...] = (
    "Entity",
    "Chunk",
    "Document",
    "Job",
    "Community",
    "ResolvedEntity",
)
SERVICE_LABELS: tuple[str, ...] = (
    "StagedEntity",
    "StagedRelation",
    "ReembedJob",
    "EmbeddingModel",
    "IndexCatalogMarker",
    "NameKeyed",
)
GRAPH_OWNED_LABELS: tuple[str, ...] = CONTRACT_LABELS + SERVICE_LABELS
GRAPH_OWNED_RELATION_TYPES: tuple[str, ...] = (
    "HAS_PART",
    "MENTIONED_IN",
    "IN_COMMUNITY",
    "RESOLVED_AS",
)
