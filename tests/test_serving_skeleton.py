"""The serving skeleton (contract §9, §11): settings, health, schema apply, jobs recover."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from datetime import timedelta

import httpx
import pytest

from api.app import create_app
from api.settings import Settings, SettingsError
from commands.jobs_command import parse_duration
from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.index_catalog import read_index_catalog
from tests.conftest import TEST_DIMENSION, Client, settings_for_tests
from tests.support.graph_builder import GraphBuilder


def test_a_bad_setting_stops_start_up_naming_the_variable() -> None:
    for environ, named in (
        ({"RETRIEVAL_RRF_K": "sixty"}, "RETRIEVAL_RRF_K"),
        ({"EMBEDDER": "word2vec"}, "EMBEDDER"),
        ({"AUTH_MODE": "maybe"}, "AUTH_MODE"),
        ({"EMBEDDER_DIM": "0", "EMBEDDER": "hash"}, "EMBEDDER_DIM"),
    ):
        with pytest.raises(SettingsError, match=named):
            Settings.from_environ(environ)


def test_secrets_stay_out_of_the_settings_repr() -> None:
    settings = Settings.from_environ({"NEO4J_PASSWORD": "hunter2", "AUTH_JWT_SECRET": "s3cret"})
    assert "hunter2" not in repr(settings) and "s3cret" not in repr(settings)
    assert "hunter2" not in str(settings.public_summary())


async def test_healthz_answers_while_the_process_lives(client: Client) -> None:
    response = await client.http.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


async def test_readyz_is_ready_when_neo4j_answers_and_the_embedder_is_loaded(
    client: Client,
) -> None:
    response = await client.http.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"] == {"neo4j": "ok", "embedder": "ok", "graph": "ok"}


async def test_readyz_is_not_ready_while_neo4j_is_unreachable() -> None:
    settings = Settings.from_environ(
        {
            "NEO4J_URI": "bolt://127.0.0.1:9",
            "EMBEDDER": "hash",
            "EMBEDDER_DIM": "8",
            "AUTH_MODE": "none",
        }
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):  # starts: a graph that is down is tolerated
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            response = await http.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["neo4j"] == "unreachable"
    assert response.json()["checks"]["graph"] == "not checked"  # api/graph_checks.py


async def test_the_service_refuses_to_start_when_vector_indexes_have_another_dimension(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder
) -> None:
    await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    app = create_app(settings_for_tests(neo4j_uri, EMBEDDER_DIM="16"))
    with pytest.raises(SettingsError, match="8-dimensional"):
        async with app.router.lifespan_context(app):
            pass


async def test_schema_apply_creates_both_indexes_of_every_entity_label_and_is_idempotent(
    graph: Graph, builder: GraphBuilder
) -> None:
    await builder.version(
        "acme",
        ["Ada at Acme."],
        mentions={"Ada": [0], "Acme": [0]},
        labels={"Ada": ["Person"], "Acme": ["Organization", "Company"]},
    )
    first = await apply_schema(graph, TEST_DIMENSION)
    assert first.labels == ["Company", "Organization", "Person"]
    assert len(first.created) == 2 + 2 * 3  # passage indexes, then two per label
    catalog = await read_index_catalog(graph)
    assert catalog.entity_labels() == ["Company", "Organization", "Person"]
    assert all(
        catalog.label_indexes(label).fulltext_state.value == "ONLINE"
        and catalog.label_indexes(label).vector_state.value == "ONLINE"
        for label in catalog.entity_labels()
    )
    second = await apply_schema(graph, TEST_DIMENSION)
    assert second.created == []
    assert len((await read_index_catalog(graph)).indexes) == len(catalog.indexes)


def test_jobs_recover_reads_durations_like_1h_30m_90s() -> None:
    assert parse_duration("1h") == timedelta(hours=1)
    assert parse_duration("1h30m") == timedelta(minutes=90)
    assert parse_duration("90s") == timedelta(seconds=90)
    assert parse_duration("2d") == timedelta(days=2)
    for bad in ("", "1x", "h1", "1h 30m"):
        with pytest.raises(Exception, match="duration"):
            parse_duration(bad)


async def test_jobs_recover_command_fails_stale_running_jobs(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder
) -> None:
    running = await builder.version("acme", ["half written"], commit=False)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "commands.main",
        "jobs",
        "recover",
        "--older-than",
        "0s",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={"NEO4J_URI": neo4j_uri, "PATH": "/usr/bin:/bin"},
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, stderr.decode()
    assert f"failed and cleaned up job {running.job.id}" in stdout.decode()
    rows = await graph.read("MATCH (j:Job {id: $id}) RETURN j.status AS s", {"id": running.job.id})
    assert rows[0]["s"] == "FAILED"


def test_every_command_loads_without_the_optional_extras() -> None:
    """`pip install evidencegraph` without `[qdrant]`, `[peer]` or `[test]` still gives a
    working command line: those packages are imported only by the commands that use them."""
    blocked = ["qdrant_client", "neo4j_graphrag", "pytest", "hypothesis", "schemathesis"]
    script = (
        "import sys\n"
        f"for name in {blocked!r}: sys.modules[name] = None  # importing it fails\n"
        "from commands.main import build_parser\n"
        "parser = build_parser()\n"
        "for command in ('demo', 'serve', 'neo4j', 'schema', 'load', 'eval', 'jobs', 'vectors',"
        " 'export-schema'):\n"
        "    assert command in parser.format_help(), command\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
