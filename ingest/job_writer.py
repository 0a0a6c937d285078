"""Writing one checked document version as one job (contract §2), in bounded batches, with the
embeddings the line lacks computed on the way.

contract §10: a missing `embedding` is computed by the configured embedder, from `name` (or
`name: description` when there is a description) for an entity and from `text` for a passage.

Each statement carries at most one batch (`UNWIND` of up to PASSAGE_BATCH passages, ENTITY_BATCH
entities, RELATION_BATCH relations), and a batch's vectors are computed just before it is
written and dropped after, so memory stays bounded however long a line is. Until the commit
none of it is current; if anything fails on the way, `fail_job` removes what the job wrote.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

from embedding.query_cache import QueryEmbedder
from graph import jobs
from graph.driver import Graph
from ingest.document_version import DocumentVersion, EntityInput, PassageInput, RelationInput
from ingest.load_report import LoadTotals

# Rows per statement. Measured with bench/load_throughput.py: above ~1,000 passages of 384
# floats a statement gains nothing, and a transaction's memory grows with it.
PASSAGE_BATCH = 1000
ENTITY_BATCH = 1000
RELATION_BATCH = 2000
# Texts embedded per step, split between EMBED_WORKERS threads. MiniLM runs one BLAS thread per
# call (commands/main.py), so two calls at once use both cores: 64 passages embedded in 12.3 s
# as one call, 7.4 s as two. The totals are updated after each step, so a progress display
# moves every few seconds even while a batch of a thousand passages is being embedded.
EMBED_STEP = 128
EMBED_WORKERS = 2

Item = TypeVar("Item")


class _Embeddable(Protocol):
    """A passage or an entity of a line: its embedding, if the line gave one."""

    @property
    def id(self) -> str: ...
    @property
    def embedding(self) -> tuple[float, ...] | None: ...


Embeddable = TypeVar("Embeddable", bound=_Embeddable)


def batches(items: Sequence[Item], size: int) -> Iterator[Sequence[Item]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def entity_text(entity: EntityInput) -> str:
    """What a computed entity embedding embeds (contract §10).

    >>> entity_text(EntityInput("id", ("Person",), "Ada", "a mathematician"))
    'Ada: a mathematician'
    """
    return f"{entity.name}: {entity.description}" if entity.description else entity.name


class JobWriter:
    def __init__(
        self,
        graph: Graph,
        embedder: QueryEmbedder,
        totals: LoadTotals,
        on_progress: Callable[[], None],
    ) -> None:
        self._graph = graph
        self._embedder = embedder
        self._totals = totals
        self._on_progress = on_progress

    async def write(self, version: DocumentVersion, content_hash: str) -> None:
        """Write `version` as a new job and commit it; on any failure, fail it and re-raise."""
        document = version.document
        job = await jobs.begin_job(
            self._graph, document.id, document.workspace, document.title, document.uri
        )
        try:
            totals = self._totals
            for passages in batches(version.passages, PASSAGE_BATCH):
                await jobs.write_passages(self._graph, job, await self._passage_rows(passages))
                totals.passages += len(passages)
                self._on_progress()
            for entities in batches(version.entities, ENTITY_BATCH):
                await jobs.write_entities(self._graph, job, await self._entity_rows(entities))
                totals.entities += len(entities)
                self._on_progress()
            for relations in batches(version.relations, RELATION_BATCH):
                await jobs.write_relations(self._graph, job, _relation_rows(relations))
                totals.relations += len(relations)
                self._on_progress()
            await jobs.commit_job(self._graph, job, content_hash)
        except BaseException:
            # Also on Ctrl-C (cancellation): the job must not stay RUNNING, half-written.
            # If even this fails (Neo4j gone), `evidencegraph jobs recover` cleans it later.
            with contextlib.suppress(Exception):
                await jobs.fail_job(self._graph, job.id)
            raise

    async def _vectors(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for step in batches(texts, EMBED_STEP):
            share = -(-len(step) // EMBED_WORKERS)  # ceiling: every text has a worker
            started = time.monotonic()
            parts = await asyncio.gather(
                *(self._embedder.embed_many(part) for part in batches(step, share))
            )
            self._totals.embedding_seconds += time.monotonic() - started
            self._totals.embeddings += len(step)
            vectors.extend(vector for part in parts for vector in part)
            self._on_progress()
        return vectors

    async def _embeddings(
        self, items: Sequence[Embeddable], text: Callable[[Embeddable], str]
    ) -> list[list[float]]:
        """Each item's embedding, in order: its own, else computed from `text(item)`."""
        missing = [item for item in items if item.embedding is None]
        computed = dict(
            zip(
                (item.id for item in missing),
                await self._vectors([text(item) for item in missing]),
                strict=True,
            )
        )
        return [
            list(item.embedding) if item.embedding is not None else computed[item.id]
            for item in items
        ]

    async def _passage_rows(self, passages: Sequence[PassageInput]) -> list[dict[str, Any]]:
        embeddings = await self._embeddings(passages, lambda p: p.text)
        return [
            {"id": p.id, "position": p.position, "text": p.text, "embedding": embedding}
            for p, embedding in zip(passages, embeddings, strict=True)
        ]

    async def _entity_rows(self, entities: Sequence[EntityInput]) -> list[dict[str, Any]]:
        embeddings = await self._embeddings(entities, entity_text)
        return [
            {
                "id": e.id,
                "labels": list(e.labels),
                "name": e.name,
                "description": e.description,
                "mentions": list(e.mentions),
                "embedding": embedding,
            }
            for e, embedding in zip(entities, embeddings, strict=True)
        ]


def _relation_rows(relations: Sequence[RelationInput]) -> list[dict[str, Any]]:
    return [
        {
            "id": r.id,
            "type": r.type,
            "source": r.source,
            "target": r.target,
            "passageIds": list(r.passage_ids),
            "properties": dict(r.properties),
        }
        for r in relations
    ]
