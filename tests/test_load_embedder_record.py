"""The graph records which embedder made its vectors (contract §9); `load` and `serve` refuse
another one, with the settings that would match."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from api.app import create_app
from api.settings import SettingsError
from commands.serve_command import serve
from embedding.hashing import HashEmbedder
from graph.driver import Graph
from graph.embedder_record import record_embedder
from tests.conftest import TEST_DIMENSION, serving, settings_for_tests
from tests.support.graph_builder import GraphBuilder
from tests.support.load_helpers import Cli, bundle_line, entity, graph_counts, write_bundle


def small_bundle(tmp_path: Path, document: int = 1) -> Path:
    line = bundle_line(document, [(document, "Ada met Grace.")], entities=[entity(1, "Ada", [1])])
    return write_bundle(tmp_path / f"small-{document}.jsonl", [line])


RECORD = (
    "MATCH (m:EmbeddingModel)"
    " RETURN m.id AS id, m.kind AS kind, m.model AS model, m.dimension AS dimension"
)


async def test_the_first_load_records_the_embedder_that_made_the_vectors(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    assert await graph.read(RECORD, {}) == []
    run = await cli.run("load", str(small_bundle(tmp_path)))
    assert run.code == 0, run.err
    [record] = await graph.read(RECORD, {})
    identity = HashEmbedder(TEST_DIMENSION).identity
    assert dict(record) == {
        "id": "current",
        "kind": "hash",
        "model": identity.model,
        "dimension": TEST_DIMENSION,
    }


async def test_a_load_with_another_embedder_is_refused_and_writes_nothing(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    first = await cli.run("load", str(small_bundle(tmp_path)))
    assert first.code == 0, first.err
    before = await graph_counts(graph)
    other = small_bundle(tmp_path, document=2)
    run = await cli.run("load", str(other), EMBEDDER_DIM="16")
    assert run.code == 2
    assert "were made by hash blake2b-words-trigrams-v1 (8 dimensions)" in run.err
    assert "Set EMBEDDER=hash EMBEDDER_DIM=8 to match" in run.err
    assert "load the data into a fresh database" in run.err
    assert await graph_counts(graph) == before


async def test_serve_refuses_to_start_with_another_embedder(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    await cli.run("load", str(small_bundle(tmp_path)))
    settings = settings_for_tests(cli.neo4j_uri, EMBEDDER_DIM="16")
    # `evidencegraph serve`: one line and exit code 2, before uvicorn starts.
    cli.capsys.readouterr()
    assert await asyncio.to_thread(serve, "127.0.0.1", 0, settings) == 2
    assert "Set EMBEDDER=hash EMBEDDER_DIM=8 to match" in cli.capsys.readouterr().err
    # The app's own start-up (`uvicorn --factory`) refuses too.
    app = create_app(settings)
    with pytest.raises(SettingsError, match="Set EMBEDDER=hash EMBEDDER_DIM=8 to match"):
        async with app.router.lifespan_context(app):
            pass


async def test_serve_refuses_another_model_even_of_the_same_dimension(
    graph: Graph, neo4j_uri: str
) -> None:
    await record_embedder(graph, HashEmbedder(384).identity)
    app = create_app(settings_for_tests(neo4j_uri, EMBEDDER="minilm", EMBEDDER_DIM=""))
    with pytest.raises(SettingsError, match=r"made by hash .* \(384 dimensions\), but .* minilm"):
        async with app.router.lifespan_context(app):
            pass


async def test_a_graph_without_a_record_still_serves_and_serving_writes_none(
    graph: Graph, builder: GraphBuilder, neo4j_uri: str
) -> None:
    await builder.version("acme", ["Ada met Grace."], mentions={"Ada": [0]})
    before = await graph_counts(graph)
    async with serving(neo4j_uri, graph) as client:
        body = await client.execute("{ entityLabels { label } }")
    assert "errors" not in body, body
    assert await graph_counts(graph) == before  # no record, nothing else: serve never writes
    assert ":EmbeddingModel" not in before
