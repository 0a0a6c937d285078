"""Copy every entity label's vectors from the graph into an external store."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from graph.driver import Graph
from graph.entity_vectors import entity_vectors
from graph.index_catalog import read_index_catalog

if TYPE_CHECKING:  # qdrant-client is the optional extra `qdrant`: the CLI loads without it
    from vectorstores.qdrant import QdrantVectorStore


async def sync_entity_vectors(
    graph: Graph, store: QdrantVectorStore, report: Callable[[str], None] = print
) -> dict[str, int]:
    """Replace each entity label's collection with the vectors the graph holds now."""
    counts: dict[str, int] = {}
    for label in (await read_index_catalog(graph)).entity_labels():
        counts[label] = await store.replace_label(label, entity_vectors(graph, label))
        report(f"{label}: {counts[label]} vectors")
    return counts
