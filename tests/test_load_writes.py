"""How the loader writes a line (ingest.loader, ingest.job_writer) on the real Neo4j: batched
statements, embeddings computed where the line has none, a job failed midway cleaned up."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, LiteralString

import anyio.to_thread
import pytest
from neo4j.exceptions import ClientError

from embedding.hashing import HashEmbedder
from embedding.query_cache import QueryEmbedder
from graph import graph_schema, jobs
from graph.driver import Graph
from ingest import job_writer
from ingest.loader import Loader
from tests.conftest import TEST_DIMENSION
from tests.support.load_helpers import (
    bundle_line,
    entity,
    graph_counts,
    loader,
    relation,
    uid,
    version_of,
)


async def test_a_long_line_is_written_in_batches_of_bounded_size(
    graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(job_writer, "PASSAGE_BATCH", 100)
    monkeypatch.setattr(job_writer, "ENTITY_BATCH", 100)
    monkeypatch.setattr(job_writer, "RELATION_BATCH", 200)
    line = bundle_line(
        1,
        [(n, f"passage {n}") for n in range(250)],
        entities=[entity(n, f"E{n}", [n]) for n in range(150)],
        relations=[relation(n, n % 150, (n + 1) % 150, [n % 250]) for n in range(450)],
    )
    sizes: dict[str, list[int]] = {}

    def observe(query: str, parameters: Mapping[str, Any]) -> None:
        if "jobId" not in parameters:  # a read (the line's stored references), not a write
            return
        for key in ("passages", "entities", "relations"):
            if key in parameters:
                sizes.setdefault(key, []).append(len(parameters[key]))

    graph.observers.append(observe)
    assert await loader(graph).load_line(version_of(line)) is None
    assert sizes == {
        "passages": [100, 100, 50],
        "entities": [100, 50],
        "relations": [200, 200, 50],
    }
    counts = await graph_counts(graph)
    assert (counts[":Chunk"], counts[":Entity"], counts["-KNOWS-"]) == (250, 150, 450)


async def test_missing_embeddings_are_computed_from_the_text_and_given_ones_kept(
    graph: Graph,
) -> None:
    given = [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    described = {**entity(1, "Ada", [1]), "description": "a mathematician"}
    line = bundle_line(
        1,
        [(1, "Ada wrote notes."), (2, "More notes.")],
        entities=[
            described,
            entity(2, "Grace", [2]),
            {**entity(3, "Linus", [2]), "embedding": given},
        ],
    )
    line["passages"][1]["embedding"] = given
    assert await loader(graph).load_line(version_of(line)) is None
    expected = HashEmbedder(TEST_DIMENSION).embed(
        ["Ada wrote notes.", "Ada: a mathematician", "Grace"]
    )
    rows = await graph.read(
        "MATCH (n) WHERE n:Chunk OR n:Entity RETURN n.id AS id, n.embedding AS embedding", {}
    )
    stored = {row["id"]: row["embedding"] for row in rows}
    assert stored[uid("p", 1)] == pytest.approx(expected[0])
    assert stored[uid("e", 1)] == pytest.approx(expected[1])
    assert stored[uid("e", 2)] == pytest.approx(expected[2])
    assert stored[uid("p", 2)] == given and stored[uid("e", 3)] == given


class FailingGraph(Graph):
    """Fails the first relations statement with a real error from Neo4j (division by zero),
    after the job's passages and entities were written: a write that fails midway."""

    async def write(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[Any]:
        if query == jobs.WRITE_RELATIONS:
            await super().write("RETURN 1 / $zero AS boom", {"zero": 0})
        return await super().write(query, parameters)


async def test_a_job_that_fails_midway_is_failed_and_removed_and_the_next_line_loads(
    graph: Graph,
) -> None:
    kept = bundle_line(1, [(1, "Ada met Grace.")], entities=[entity(1, "Ada", [1])])
    assert await loader(graph).load_line(version_of(kept)) is None
    before = await graph_counts(graph)
    doomed = bundle_line(
        2,
        [(2, "Grace met Linus."), (3, "Linus wrote a kernel.")],
        entities=[entity(1, "Ada", [2]), entity(2, "Grace", [2]), entity(3, "Linus", [3])],
        relations=[relation(1, 2, 3, [2])],
    )
    fine = bundle_line(3, [(4, "Alan met Ada.")], entities=[entity(4, "Alan", [4])])
    failing = FailingGraph(graph.driver, graph.database)
    result = await loader(failing).load([(2, version_of(doomed)), (3, version_of(fine))])

    [rejection] = result.rejections
    assert rejection.number == 2
    assert "Neo4j refused the write (Neo.ClientError.Statement.ArithmeticError)" in (
        rejection.reason
    )
    statuses = await graph.read(
        "MATCH (j:Job) RETURN j.documentId AS document, j.status AS status ORDER BY document", {}
    )
    assert [(r["document"], r["status"]) for r in statuses] == [
        (uid("d", 1), "COMMITTED"),
        (uid("d", 2), "FAILED"),
        (uid("d", 3), "COMMITTED"),
    ]
    after = await graph_counts(graph)
    # What the failed job wrote is gone: its passages, the entities it created, its mentions
    # (Ada's mention of its passage too); what the other lines wrote stays.
    assert after[":Chunk"] == before[":Chunk"] + 1
    assert after[":Entity"] == before[":Entity"] + 1
    assert after["-MENTIONED_IN-"] == before["-MENTIONED_IN-"] + 1
    names = await graph.read("MATCH (e:Entity) RETURN e.name AS name ORDER BY name", {})
    assert [row["name"] for row in names] == ["Ada", "Alan"]


class RecordingEmbedder(HashEmbedder):
    """Notes the texts of each call (called from the loader's worker thread)."""

    def __init__(self) -> None:
        super().__init__(TEST_DIMENSION)
        self.second_batch_started = threading.Event()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if "passage 15" in texts:  # passages 10-19 are the second batch
            self.second_batch_started.set()
        return super().embed(texts)


class WaitingGraph(Graph):
    """Holds the first passages statement until the second batch's embedding has started:
    a loader that embedded only after writing would never get past it."""

    embedder: RecordingEmbedder

    async def write(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[Any]:
        if query == jobs.WRITE_PASSAGES and parameters["passages"][0]["text"] == "passage 0":
            started = await anyio.to_thread.run_sync(self.embedder.second_batch_started.wait, 60)
            assert started, "the next batch was not embedded while this one was being written"
        return await super().write(query, parameters)


async def test_the_next_batch_is_embedded_while_the_current_one_is_written(
    graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(job_writer, "PASSAGE_BATCH", 10)
    line = bundle_line(
        1,
        [(n, f"passage {n}") for n in range(20)],
        entities=[entity(n, f"E{n}", [n]) for n in range(3)],
    )
    embedder = RecordingEmbedder()
    waiting = WaitingGraph(graph.driver, graph.database)
    waiting.embedder = embedder
    loader = Loader(waiting, QueryEmbedder(embedder, size=0))
    assert await loader.load_line(version_of(line)) is None
    counts = await graph_counts(graph)
    assert (counts[":Chunk"], counts[":Entity"]) == (20, 3)


class FirstCallEmbedder(HashEmbedder):
    """Notes when its first call starts (from the loader's worker thread)."""

    def __init__(self) -> None:
        super().__init__(TEST_DIMENSION)
        self.first_call_started = threading.Event()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.first_call_started.set()
        return super().embed(texts)


class SlowToBeginGraph(Graph):
    """Holds the job's first statement until the embedding has started: a loader that
    embedded only once the job had begun would never get past it."""

    embedder: FirstCallEmbedder

    async def write(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[Any]:
        if query == jobs.BEGIN_JOB:
            started = await anyio.to_thread.run_sync(self.embedder.first_call_started.wait, 60)
            assert started, "the first batch was not embedded while the job was beginning"
        return await super().write(query, parameters)


async def test_the_first_batch_is_embedded_while_the_job_begins(graph: Graph) -> None:
    line = bundle_line(1, [(1, "Ada met Grace.")], entities=[entity(1, "Ada", [1])])
    embedder = FirstCallEmbedder()
    slow = SlowToBeginGraph(graph.driver, graph.database)
    slow.embedder = embedder
    assert await Loader(slow, QueryEmbedder(embedder, size=0)).load_line(version_of(line)) is None
    counts = await graph_counts(graph)
    assert (counts[":Chunk"], counts[":Entity"]) == (1, 1)


class RefusingConstraintsGraph(Graph):
    """Neo4j refuses the first of the graph's constraint statements."""

    async def write(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[Any]:
        if query == graph_schema.CONSTRAINTS[0]:
            await super().write("RETURN 1 / $zero AS boom", {"zero": 0})
        return await super().write(query, parameters)


async def test_a_refused_graph_preparation_stops_the_load_instead_of_rejecting_the_line(
    graph: Graph,
) -> None:
    # The embedding began beside the preparation; the refusal still ends the load (it is
    # the graph's, not the line's) and nothing of the line is written.
    line = bundle_line(1, [(1, "Ada met Grace.")], entities=[entity(1, "Ada", [1])])
    refusing = RefusingConstraintsGraph(graph.driver, graph.database)
    with pytest.raises(ClientError) as refused:
        await loader(refusing).load([(1, version_of(line))])
    assert refused.value.code == "Neo.ClientError.Statement.ArithmeticError"
    counts = await graph_counts(graph)
    assert [counts.get(label, 0) for label in (":Chunk", ":Entity", ":Job")] == [0, 0, 0]
