"""`evidencegraph reembed`: every stored vector made again with the configured embedder.

contract §9: "The embedder's dimension must match the vector indexes". When the embedder changes
(another model, another dimension), the stored vectors must all be made again before a search
can compare a query with them. The run is a job (`graph.reembed` says what it writes):

    1. embed    batches of passages, then entities, without a new vector get one, beside the
                served one; a killed run resumes here, with what is done kept
    2. switch   the new vectors replace the old, the vector indexes are made again at the new
                dimension, and only then the embedder record names the new embedder

Texts are those `load` embeds (contract §10): a passage's `text`; an entity's `name`, or
`name: description`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from embedding.query_cache import QueryEmbedder
from graph import reembed as next_vectors
from graph.driver import Graph
from graph.embedder_record import read_recorded_embedder
from graph.lexical_index import LexicalIndexSpec
from ingest.document_version import EntityInput
from ingest.job_writer import entity_text
from ingest.load_report import LoadObserver, LoadTotals, SilentObserver

# Nodes read, embedded and written per step: small enough that a killed run loses little and
# the progress moves every few seconds with MiniLM, large enough that a write is worth it.
BATCH = 256


@dataclass
class ReembedTotals(LoadTotals):
    """The progress of a reembed in the load display's terms: `loaded` counts vectors made
    (this run and the runs it resumes), `documents_total` the vectors to make."""

    resumed: int = 0  # vectors an earlier, killed run had made

    def progress_line(self) -> str:
        of = f"/{self.documents_total}" if self.documents_total is not None else ""
        return (
            f"vectors {self.documents_done}{of} (passages {self.passages}, entities "
            f"{self.entities}, {self.resumed} from an earlier run); {self.elapsed:.1f} s, "
            f"{self.per_second(self.embeddings, self.embedding_seconds):.0f} embeddings/s"
        )

    def summary_lines(self) -> list[str]:
        return [
            f"vectors: {self.documents_done} ({self.passages} passages and {self.entities}"
            f" entities made now, {self.resumed} by an earlier run)",
            f"elapsed: {self.elapsed:.1f} s",
        ]


@dataclass(frozen=True, slots=True)
class ReembedResult:
    totals: ReembedTotals
    switched: bool  # False: the graph's vectors were already this embedder's


async def reembed(
    graph: Graph,
    embedder: QueryEmbedder,
    lexical: LexicalIndexSpec,
    observer: LoadObserver | None = None,
    batch: int = BATCH,
) -> ReembedResult:
    """Make every vector again with `embedder`, resuming a killed run towards the same one."""
    observer = observer or SilentObserver()
    target = embedder.identity
    job = await next_vectors.read_job(graph)
    if job is None or job.target != target:
        recorded = await read_recorded_embedder(graph)
        if job is None and recorded is not None and recorded.matches(target):
            return ReembedResult(ReembedTotals(documents_total=0), switched=False)
        await next_vectors.start_job(graph, target)
    work = await next_vectors.count_work(graph)
    totals = ReembedTotals(documents_total=work.total, resumed=work.done, loaded=work.done)
    observer.progress(totals)
    if job is None or job.status != "SWITCHING":
        await _embed_passages(graph, embedder, totals, observer, batch)
        await _embed_entities(graph, embedder, totals, observer, batch)
    await next_vectors.switch(graph, target, lexical)
    return ReembedResult(totals, switched=True)


async def _embed_passages(
    graph: Graph,
    embedder: QueryEmbedder,
    totals: ReembedTotals,
    observer: LoadObserver,
    batch: int,
) -> None:
    while rows := await next_vectors.passages_to_embed(graph, batch):
        vectors = await _vectors(embedder, [text for _, text in rows], totals)
        await next_vectors.write_vectors(graph, "passage", [i for i, _ in rows], vectors)
        totals.passages += len(rows)
        totals.loaded += len(rows)
        observer.progress(totals)


async def _embed_entities(
    graph: Graph,
    embedder: QueryEmbedder,
    totals: ReembedTotals,
    observer: LoadObserver,
    batch: int,
) -> None:
    while rows := await next_vectors.entities_to_embed(graph, batch):
        texts = [
            entity_text(EntityInput(i, (), name, description)) for i, name, description in rows
        ]
        vectors = await _vectors(embedder, texts, totals)
        await next_vectors.write_vectors(graph, "entity", [i for i, _, _ in rows], vectors)
        totals.entities += len(rows)
        totals.loaded += len(rows)
        observer.progress(totals)


async def _vectors(
    embedder: QueryEmbedder, texts: list[str], totals: LoadTotals
) -> list[list[float]]:
    # One call: MiniLM runs its batches EMBEDDER_THREADS at a time.
    started = time.monotonic()
    vectors = await embedder.embed_many(texts)
    totals.embedding_seconds += time.monotonic() - started
    totals.embeddings += len(texts)
    return vectors
