"""Writing one checked document version as one job (contract §2), in bounded batches, with the
embeddings the line lacks computed on the way.

contract §10: a missing `embedding` is computed by the configured embedder, from `name` (or
`name: description` when there is a description) for an entity and from `text` for a passage.

Each statement carries at most one batch (`UNWIND` of up to PASSAGE_BATCH passages, ENTITY_BATCH
entities, RELATION_BATCH relations). Embedding and writing overlap: while batch n is written
to Neo4j, the vectors of batch n+1 are computed in a worker thread, so the embedder's cores and
the database work at once; at most two batches' vectors are held, so memory stays bounded
however long a line is. The first batch's vectors are computed from the start, while the job
begins (and, before a load's first job, while the graph's constraints are made sure of).
Writes keep their order (entities after the passages they mention).
Until the commit none of it is current; if anything fails on the way, the embedding under way
is cancelled and `fail_job` removes what the job wrote. Before the commit, a new entity id that
another workspace's load took since the line was checked fails the job too
(graph/new_id_race.py), so a line never commits with parts of it dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, TypeVar

from embedding.query_cache import QueryEmbedder
from graph import jobs
from graph.driver import Graph
from graph.new_id_race import taken_meanwhile
from graph.ownership import SOURCE_ID
from ingest.document_version import DocumentVersion, EntityInput, PassageInput, RelationInput
from ingest.load_report import LoadTotals

# Rows per statement. Measured with bench/load_throughput.py: above ~1,000 passages of 384
# floats a statement gains nothing, and a transaction's memory grows with it.
PASSAGE_BATCH = 1000
ENTITY_BATCH = 1000
RELATION_BATCH = 2000
# Texts handed to the embedder per call. MiniLM batches one call by length inside and runs
# EMBEDDER_THREADS batches at once; the totals are updated after each call,
# so a progress display moves every few seconds while a thousand passages are embedded.
EMBED_STEP = 128

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

    async def write(
        self,
        version: DocumentVersion,
        content_hash: str,
        before_job: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """Write `version` as a new job and commit it; on any failure, fail it and re-raise.

        The first batch's embeddings are computed from the start, while `before_job` (the
        graph's constraints, say: statements of their own, no part of the job) and the job's
        beginning go to Neo4j. Should either fail, that embedding is cancelled.
        """
        document = version.document
        steps: list[_Step] = [
            *(
                _Step(
                    partial(self._passage_rows, passages),
                    jobs.write_passages,
                    "passages",
                    len(passages),
                )
                for passages in batches(version.passages, PASSAGE_BATCH)
            ),
            *(
                _Step(
                    partial(self._entity_rows, entities),
                    jobs.write_entities,
                    "entities",
                    len(entities),
                )
                for entities in batches(version.entities, ENTITY_BATCH)
            ),
        ]
        first: list[asyncio.Future[list[dict[str, Any]]]] = [
            asyncio.ensure_future(step.rows()) for step in steps[:1]
        ]
        try:
            if before_job is not None:
                await before_job()
            job = await jobs.begin_job(
                self._graph,
                document.id,
                document.workspace,
                document.title,
                document.uri,
                source_id=document.source_id,
            )
        except BaseException:
            await _cancel(first)
            raise
        try:
            totals = self._totals
            await self._embed_ahead_and_write(job, steps, first)
            for relations in batches(version.relations, RELATION_BATCH):
                await jobs.write_relations(self._graph, job, _relation_rows(relations))
                totals.relations += len(relations)
                self._on_progress()
            # The last moment the job can still be failed whole: a new entity id another
            # workspace's load took since the line was checked refuses it (NewIdTaken).
            await taken_meanwhile(self._graph, job)
            await jobs.commit_job(self._graph, job, content_hash)
        except BaseException:
            # Also on Ctrl-C (cancellation): the job must not stay RUNNING, half-written.
            # If even this fails (Neo4j gone), `evidencegraph jobs recover` cleans it later.
            with contextlib.suppress(Exception):
                await jobs.fail_job(self._graph, job.id)
            raise

    async def _embed_ahead_and_write(
        self, job: jobs.Job, steps: list[_Step], pending: list[asyncio.Future[list[dict[str, Any]]]]
    ) -> None:
        """Writes each step's rows in order, computing the next step's rows meanwhile;
        `pending` holds the first step's rows being computed."""
        try:
            for index, step in enumerate(steps):
                rows = await pending.pop()
                if index + 1 < len(steps):
                    pending.append(asyncio.ensure_future(steps[index + 1].rows()))
                await step.write(self._graph, job, rows)
                setattr(self._totals, step.counter, getattr(self._totals, step.counter) + step.size)
                self._on_progress()
        finally:
            await _cancel(pending)

    async def _vectors(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for step in batches(texts, EMBED_STEP):
            started = time.monotonic()
            vectors.extend(await self._embedder.embed_many(step))
            self._totals.embedding_seconds += time.monotonic() - started
            self._totals.embeddings += len(step)
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
            {
                "id": p.id,
                "position": p.position,
                "text": p.text,
                "embedding": embedding,
                "sourceId": p.source_id,
            }
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
                "sourceId": e.source_id,
            }
            for e, embedding in zip(entities, embeddings, strict=True)
        ]


@dataclass(frozen=True, slots=True)
class _Step:
    """One batch of a job: the coroutine that builds its rows (embedding what is missing),
    the statement that writes them, and the total it adds to."""

    rows: Callable[[], Awaitable[list[dict[str, Any]]]]
    write: Callable[[Graph, jobs.Job, list[dict[str, Any]]], Awaitable[None]]
    counter: str  # the LoadTotals field it counts in
    size: int


async def _cancel(pending: list[asyncio.Future[list[dict[str, Any]]]]) -> None:
    """A write failed (or the load was cancelled): stop the embedding under way. It ends with
    its current call to the embedder (a worker thread is not interrupted)."""
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


def _relation_rows(relations: Sequence[RelationInput]) -> list[dict[str, Any]]:
    return [
        {
            "id": r.id,
            "type": r.type,
            "source": r.source,
            "target": r.target,
            "passageIds": list(r.passage_ids),
            # A relation's `sourceId` goes with its properties: a bundle may not set one
            # (ingest/bundle_checks.RESERVED_RELATION_PROPERTIES), and bundles have none.
            "properties": dict(r.properties)
            | ({} if r.source_id is None else {SOURCE_ID: r.source_id}),
        }
        for r in relations
    ]
