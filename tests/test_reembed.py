"""`evidencegraph reembed` on the real Neo4j: every vector made again by the configured embedder,
`serve` answering from the old vectors until the switch, and a killed run that resumes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from embedding.hashing import HashEmbedder
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from graph.embedder_record import read_recorded_embedder
from graph.index_catalog import IndexState, read_index_catalog
from graph.lexical_index import LexicalIndexSpec
from ingest.reembedding import reembed
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support.load_helpers import Cli, bundle_line, entity, relation, write_bundle
from tests.support.scripted_embedder import ScriptedQueryEmbedder

NEW_DIMENSION = 16
PASSAGES = [
    (1, "Ada Lovelace wrote the first program for the Analytical Engine."),
    (2, "Charles Babbage designed the Analytical Engine in London."),
    (3, "Grace Hopper wrote the first compiler for a computer language."),
    (4, "Alan Turing described a universal machine in a paper on computable numbers."),
    (5, "Hedy Lamarr co-invented frequency hopping for radio guidance."),
]
NAMES = ["Ada Lovelace", "Charles Babbage", "Grace Hopper", "Alan Turing", "Hedy Lamarr"]

ENTITY_SEARCH = """
query ($query: String!) {
  searchEntities(query: $query, mode: SEMANTIC, limit: 5) {
    entity { id name } score semanticRank evidenceIds
  }
}
"""
PASSAGE_SEARCH = """
query ($query: String!) {
  searchPassages(query: $query, mode: SEMANTIC, limit: 5) { passage { id } score semanticRank }
}
"""


async def load_people(cli: Cli, tmp_path: Path) -> None:
    line = bundle_line(
        1,
        PASSAGES,
        entities=[entity(n, name, [n]) for n, name in enumerate(NAMES, start=1)],
        relations=[relation(1, 1, 2, [1, 2])],
    )
    run = await cli.run("load", str(write_bundle(tmp_path / "people.jsonl", [line])))
    assert run.code == 0, run.err


async def stored_vectors(graph: Graph) -> dict[str, tuple[str, list[float]]]:
    """Each passage's and entity's text (as load embeds it) and served vector."""
    rows = await graph.read(
        "MATCH (c:Chunk) RETURN c.id AS id, c.text AS text, c.embedding AS vector"
        " UNION ALL MATCH (e:Entity) RETURN e.id AS id, e.name AS text, e.embedding AS vector",
        {},
    )
    return {row["id"]: (row["text"], list(row["vector"])) for row in rows}


async def answers(client: Client, queries: Sequence[str]) -> list[Any]:
    found = []
    for query in queries:
        for operation in (ENTITY_SEARCH, PASSAGE_SEARCH):
            body = await client.execute(operation, {"query": query})
            assert "errors" not in body, body
            found.append(body["data"])
    return found


def script(embedder: ScriptedQueryEmbedder, queries: Sequence[str], dimension: int) -> None:
    for query, vector in zip(queries, HashEmbedder(dimension).embed(list(queries)), strict=True):
        embedder.script(query, vector)


class ReadingEmbedder(QueryEmbedder):
    """The new embedder, which lets a test act before each batch it embeds (a reader's turn,
    or a kill), so the interleaving is exact rather than timed. With `batch=1` each node is
    one batch and one call."""

    def __init__(self, dimension: int, before_batch: Any) -> None:
        super().__init__(HashEmbedder(dimension), size=0)
        self.before_batch = before_batch
        self.batches = 0

    async def embed_many(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches += 1
        await self.before_batch(self.batches)
        return await super().embed_many(texts)


async def assert_switched_to(graph: Graph, dimension: int) -> None:
    vectors = await stored_vectors(graph)
    expected = HashEmbedder(dimension)
    for text, vector in vectors.values():
        assert vector == pytest.approx(expected.embed([text])[0], abs=1e-6)
    leftovers = await graph.read(
        "MATCH (n) WHERE n.embeddingNext IS NOT NULL OR n:ReembedJob RETURN count(n) AS n", {}
    )
    assert leftovers[0]["n"] == 0
    catalog = await read_index_catalog(graph)
    assert catalog.vector_dimensions() == {dimension}
    assert catalog.entity_labels() == ["Person"]
    indexes = [catalog.label_indexes("Person", ("name",)), catalog.passage_indexes()]
    assert {i.vector_state for i in indexes} == {IndexState.ONLINE}
    recorded = await read_recorded_embedder(graph)
    assert recorded is not None and recorded.dimension == dimension


async def test_reembed_makes_every_vector_again_rebuilds_the_indexes_and_switches_the_record(
    graph: Graph, cli: Cli, tmp_path: Path
) -> None:
    await load_people(cli, tmp_path)
    run = await cli.run("reembed", EMBEDDER_DIM=str(NEW_DIMENSION))
    assert run.code == 0, run.err
    assert "vectors: 10 (5 passages and 5 entities made now, 0 by an earlier run)" in run.out
    await assert_switched_to(graph, NEW_DIMENSION)
    again = await cli.run("reembed", EMBEDDER_DIM=str(NEW_DIMENSION))
    assert again.code == 0 and "nothing to do" in again.out
    # load and serve now take the new embedder, and refuse the old one.
    refused = await cli.run("load", str(tmp_path / "people.jsonl"))
    assert refused.code == 2 and "EMBEDDER=hash EMBEDDER_DIM=16" in refused.err


async def test_serve_answers_from_the_old_vectors_until_the_switch_then_from_the_new(
    graph: Graph, client: Client, cli: Cli, tmp_path: Path, neo4j_uri: str
) -> None:
    await load_people(cli, tmp_path)
    queries = ["first program", "universal machine", "radio"]
    script(client.embedder, queries, TEST_DIMENSION)
    before = await answers(client, queries)
    turns: list[int] = []

    async def read_while_reembedding(batch: int) -> None:
        turns.append(batch)
        assert await answers(client, queries) == before

    new = ReadingEmbedder(NEW_DIMENSION, read_while_reembedding)
    result = await reembed(graph, new, LexicalIndexSpec(), batch=1)
    assert result.switched and turns == list(range(1, 11))  # 5 passages, 5 entities
    await assert_switched_to(graph, NEW_DIMENSION)
    async with serving(neo4j_uri, graph, EMBEDDER_DIM=str(NEW_DIMENSION)) as restarted:
        restarted.services.query_embedder = ScriptedQueryEmbedder(NEW_DIMENSION)
        script(restarted.services.query_embedder, NAMES, NEW_DIMENSION)
        for name in NAMES:
            body = await restarted.execute(ENTITY_SEARCH, {"query": name})
            assert "errors" not in body, body
            top = body["data"]["searchEntities"][0]
            # Rank, not score: the vector index quantizes, so even an equal vector scores < 1.
            assert (top["entity"]["name"], top["semanticRank"]) == (name, 1)


class Killed(Exception):
    """Stands for the process being killed mid-run."""


async def test_a_killed_reembed_resumes_where_it_stopped_and_serve_keeps_the_old_vectors(
    graph: Graph, client: Client, cli: Cli, tmp_path: Path
) -> None:
    await load_people(cli, tmp_path)
    queries = ["first program", "radio"]
    script(client.embedder, queries, TEST_DIMENSION)
    before = await answers(client, queries)
    old = await stored_vectors(graph)

    async def kill_at_the_third_batch(batch: int) -> None:
        if batch == 3:
            raise Killed

    new = ReadingEmbedder(NEW_DIMENSION, kill_at_the_third_batch)
    with pytest.raises(Killed):
        await reembed(graph, new, LexicalIndexSpec(), batch=1)
    done = await graph.read("MATCH (n) WHERE n.embeddingNext IS NOT NULL RETURN count(n) AS n", {})
    assert done[0]["n"] == 2
    assert await stored_vectors(graph) == old
    assert await answers(client, queries) == before
    recorded = await read_recorded_embedder(graph)
    assert recorded is not None and recorded.dimension == TEST_DIMENSION
    run = await cli.run("reembed", EMBEDDER_DIM=str(NEW_DIMENSION))
    assert run.code == 0, run.err
    assert "vectors: 10 (3 passages and 5 entities made now, 2 by an earlier run)" in run.out
    await assert_switched_to(graph, NEW_DIMENSION)


async def test_a_reembed_killed_during_the_switch_is_finished_by_the_next_run(
    graph: Graph, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await load_people(cli, tmp_path)

    async def killed(*arguments: Any, **keywords: Any) -> None:
        raise Killed

    with monkeypatch.context() as patch:
        patch.setattr("graph.reembed.apply_schema", killed)
        with pytest.raises(Killed):
            new = QueryEmbedder(HashEmbedder(NEW_DIMENSION), size=0)
            await reembed(graph, new, LexicalIndexSpec())
    # The old indexes are gone and the record still names the old embedder.
    assert (await read_index_catalog(graph)).vector_dimensions() == set()
    recorded = await read_recorded_embedder(graph)
    assert recorded is not None and recorded.dimension == TEST_DIMENSION
    run = await cli.run("reembed", EMBEDDER_DIM=str(NEW_DIMENSION))
    assert run.code == 0, run.err
    await assert_switched_to(graph, NEW_DIMENSION)


async def test_a_reembed_towards_another_embedder_starts_over(
    graph: Graph, cli: Cli, tmp_path: Path
) -> None:
    await load_people(cli, tmp_path)

    async def kill_at_the_second_batch(batch: int) -> None:
        if batch == 2:
            raise Killed

    elsewhere = ReadingEmbedder(32, kill_at_the_second_batch)
    with pytest.raises(Killed):
        await reembed(graph, elsewhere, LexicalIndexSpec(), batch=1)
    run = await cli.run("reembed", EMBEDDER_DIM=str(NEW_DIMENSION))
    assert run.code == 0, run.err
    assert "0 by an earlier run" in run.out
    await assert_switched_to(graph, NEW_DIMENSION)


async def test_reembed_from_hash_to_minilm(graph: Graph, cli: Cli, tmp_path: Path) -> None:
    await load_people(cli, tmp_path)
    run = await cli.run("reembed", EMBEDDER="minilm", EMBEDDER_DIM="384")
    assert run.code == 0, run.err
    recorded = await read_recorded_embedder(graph)
    assert recorded is not None and (recorded.kind, recorded.dimension) == ("minilm", 384)
    catalog = await read_index_catalog(graph)
    assert catalog.vector_dimensions() == {384}
    lengths = await graph.read(
        "MATCH (n) WHERE n:Chunk OR n:Entity RETURN DISTINCT size(n.embedding) AS n", {}
    )
    assert [row["n"] for row in lengths] == [384]
