"""What `evidencegraph reembed` reads and writes: every passage's and entity's vector made again
by another embedder, beside the vectors the service serves, then swapped in.

    (:ReembedJob {id: 'current', kind, model, dimension, status: 'RUNNING'|'SWITCHING',
                  startedAt, labels?})
    (:Chunk|Entity {embeddingNext: LIST<FLOAT>})   the new vector, until the switch

Phase 1 (RUNNING): batches of nodes without `embeddingNext` get one. Nothing the service reads
changes (it reads `embedding` through the vector indexes), so a running `serve` answers from
the old vectors all along; a killed run resumes where it stopped, for whatever has
`embeddingNext` is done. Phase 2 (SWITCHING, recorded first so a killed switch is finished by
the next run): the vector indexes are dropped, `embeddingNext` is moved to `embedding` in
bounded transactions, the indexes are created at the new dimension and awaited, and only then
the embedder record (`graph.embedder_record`) names the new embedder and the job is removed.

The job node is not an entity (no `Entity` label, no vector index), like the embedder record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, LiteralString

from embedding.base import EmbedderIdentity
from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.index_catalog import read_index_catalog
from graph.lexical_index import LexicalIndexSpec

NEXT_PROPERTY = "embeddingNext"

READ_JOB: LiteralString = """
MATCH (r:ReembedJob {id: 'current'})
RETURN r.kind AS kind, r.model AS model, r.dimension AS dimension, r.status AS status
"""

START_JOB: LiteralString = """
MERGE (r:ReembedJob {id: 'current'})
SET r.kind = $kind, r.model = $model, r.dimension = $dimension, r.status = 'RUNNING',
    r.startedAt = datetime()
"""

# The entity labels are kept on the job before their indexes go: a switch killed after the
# drop is finished from them, since the catalog no longer names them.
MARK_SWITCHING: LiteralString = """
MATCH (r:ReembedJob {id: 'current'})
SET r.status = 'SWITCHING', r.labels = coalesce(r.labels, $labels)
RETURN r.labels AS labels
"""

# Vectors of an earlier run that aimed at another embedder; bounded transactions.
CLEAR_NEXT: LiteralString = """
MATCH (n) WHERE (n:Chunk OR n:Entity) AND n.embeddingNext IS NOT NULL
CALL (n) { REMOVE n.embeddingNext } IN TRANSACTIONS OF 5000 ROWS
"""

COUNT_WORK: LiteralString = """
CALL () { MATCH (c:Chunk) RETURN count(c) AS passages,
                                 count(c.embeddingNext) AS passagesDone }
CALL () { MATCH (e:Entity) RETURN count(e) AS entities,
                                  count(e.embeddingNext) AS entitiesDone }
RETURN passages, passagesDone, entities, entitiesDone
"""

PASSAGES_TO_EMBED: LiteralString = """
MATCH (c:Chunk) WHERE c.embeddingNext IS NULL
RETURN c.id AS id, coalesce(c.text, '') AS text
LIMIT $limit
"""

ENTITIES_TO_EMBED: LiteralString = """
MATCH (e:Entity) WHERE e.embeddingNext IS NULL
RETURN e.id AS id, coalesce(e.name, '') AS name, e.description AS description
LIMIT $limit
"""

WRITE_PASSAGE_VECTORS: LiteralString = """
UNWIND $rows AS row
MATCH (c:Chunk {id: row.id})
SET c.embeddingNext = row.vector
"""

WRITE_ENTITY_VECTORS: LiteralString = """
UNWIND $rows AS row
MATCH (e:Entity {id: row.id})
SET e.embeddingNext = row.vector
"""

MOVE_NEXT: LiteralString = """
MATCH (n) WHERE (n:Chunk OR n:Entity) AND n.embeddingNext IS NOT NULL
CALL (n) { SET n.embedding = n.embeddingNext REMOVE n.embeddingNext }
  IN TRANSACTIONS OF 5000 ROWS
"""

SWITCH_RECORD: LiteralString = """
MERGE (m:EmbeddingModel {id: 'current'})
SET m.kind = $kind, m.model = $model, m.dimension = $dimension, m.recordedAt = datetime()
WITH m
MATCH (r:ReembedJob {id: 'current'})
DELETE r
"""


@dataclass(frozen=True, slots=True)
class ReembedJob:
    target: EmbedderIdentity
    status: str  # RUNNING | SWITCHING


@dataclass(frozen=True, slots=True)
class Work:
    passages: int
    passages_done: int
    entities: int
    entities_done: int

    @property
    def total(self) -> int:
        return self.passages + self.entities

    @property
    def done(self) -> int:
        return self.passages_done + self.entities_done


async def read_job(graph: Graph) -> ReembedJob | None:
    rows = await graph.read(READ_JOB, {})
    if not rows:
        return None
    row = rows[0]
    identity = EmbedderIdentity(row["kind"], str(row["model"]), int(row["dimension"]))
    return ReembedJob(identity, str(row["status"]))


async def start_job(graph: Graph, target: EmbedderIdentity) -> None:
    """A new run towards `target`; vectors an earlier run made for another embedder go."""
    await graph.auto_commit(CLEAR_NEXT, {})
    await graph.write(
        START_JOB, {"kind": target.kind, "model": target.model, "dimension": target.dimension}
    )


async def count_work(graph: Graph) -> Work:
    row = (await graph.read(COUNT_WORK, {}))[0]
    return Work(row["passages"], row["passagesDone"], row["entities"], row["entitiesDone"])


async def passages_to_embed(graph: Graph, limit: int) -> list[tuple[str, str]]:
    rows = await graph.read(PASSAGES_TO_EMBED, {"limit": limit})
    return [(row["id"], row["text"]) for row in rows]


async def entities_to_embed(graph: Graph, limit: int) -> list[tuple[str, str, str | None]]:
    rows = await graph.read(ENTITIES_TO_EMBED, {"limit": limit})
    return [(row["id"], row["name"], row["description"]) for row in rows]


async def write_vectors(
    graph: Graph, kind: str, ids: Sequence[str], vectors: Sequence[list[float]]
) -> None:
    """`kind`: passage or entity; one statement, one transaction per batch."""
    rows: list[dict[str, Any]] = [
        {"id": node_id, "vector": vector} for node_id, vector in zip(ids, vectors, strict=True)
    ]
    statement = WRITE_PASSAGE_VECTORS if kind == "passage" else WRITE_ENTITY_VECTORS
    await graph.write(statement, {"rows": rows})


async def switch(graph: Graph, target: EmbedderIdentity, lexical: LexicalIndexSpec) -> None:
    """Phase 2: drop the vector indexes, move the new vectors in, create the indexes at the
    new dimension and wait for them, then switch the record. Idempotent, so a killed switch is
    finished by running it again."""
    catalog = await read_index_catalog(graph)
    rows = await graph.write(MARK_SWITCHING, {"labels": catalog.entity_labels()})
    labels = list(rows[0]["labels"])
    for index in catalog.indexes:
        if index.kind == "VECTOR" and index.properties == ("embedding",):
            await graph.write("DROP INDEX $name IF EXISTS", {"name": index.name})
    await graph.auto_commit(MOVE_NEXT, {})
    await apply_schema(graph, target.dimension, labels=labels, lexical=lexical)
    await graph.write(
        SWITCH_RECORD,
        {"kind": target.kind, "model": target.model, "dimension": target.dimension},
    )
