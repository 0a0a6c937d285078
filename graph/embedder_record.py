"""The graph's record of the embedder that made its vectors (contract §9).

    (:EmbeddingModel {id: 'current', kind, model, dimension, recordedAt})

One node the service owns, written by the first `load` that writes anything and read by every
later `load` and by `serve` at start (`embedding.mismatch` says what a mismatch means). It is
not an entity: it has no `Entity` label and no vector index, so it is never an entity label
(contract §1) and no search reads it. Graphs written by other pipelines have no record; for them
the vector indexes' dimension is the only check (`api.embedder_setup.check_dimension`).
"""

from __future__ import annotations

from typing import Any, LiteralString

from embedding.base import EmbedderIdentity
from embedding.mismatch import RecordedEmbedder
from graph.driver import Graph
from graph.served_statements import served

READ_RECORD: LiteralString = served("""
MATCH (m:EmbeddingModel {id: 'current'})
RETURN m.kind AS kind, m.model AS model, m.dimension AS dimension
LIMIT 1
""")

# ON CREATE only: an existing record is never overwritten; the caller compares what it returns.
WRITE_RECORD: LiteralString = """
MERGE (m:EmbeddingModel {id: 'current'})
  ON CREATE SET m.kind = $kind, m.model = $model, m.dimension = $dimension,
                m.recordedAt = datetime()
RETURN m.kind AS kind, m.model AS model, m.dimension AS dimension
"""


def _recorded(row: Any) -> RecordedEmbedder:
    return RecordedEmbedder(str(row["kind"]), str(row["model"]), int(row["dimension"]))


async def read_recorded_embedder(graph: Graph) -> RecordedEmbedder | None:
    """The record, or None for a graph no `load` has written to. Read-only."""
    rows = await graph.read(READ_RECORD, {})
    return _recorded(rows[0]) if rows else None


async def record_embedder(graph: Graph, identity: EmbedderIdentity) -> RecordedEmbedder:
    """Record `identity` unless a record exists; return the record the graph now holds."""
    rows = await graph.write(
        WRITE_RECORD,
        {"kind": identity.kind, "model": identity.model, "dimension": identity.dimension},
    )
    return _recorded(rows[0])
