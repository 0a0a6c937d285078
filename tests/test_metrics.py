"""`GET /metrics` (docs/operations.md): off unless METRICS_ENABLED, readable on loopback or
with METRICS_TOKEN only, the figures of real requests against Neo4j, and one sum over several
worker processes (PROMETHEUS_MULTIPROC_DIR)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from api.settings import Settings, SettingsError
from graph.driver import Graph
from tests.support.graph_builder import GraphBuilder
from tests.support.operations_app import SEARCH, WALK, post, served, three_people


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def scrape(http: httpx.AsyncClient, **headers: str) -> httpx.Response:
    return await http.get("/metrics", headers=headers)


async def test_metrics_are_off_unless_metrics_enabled(neo4j_uri: str, graph: Graph) -> None:
    async with served(neo4j_uri) as (http, _):
        assert (await scrape(http)).status_code == 404


async def test_metrics_count_requests_errors_statements_embeddings_and_the_query_vector_cache(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph
) -> None:
    await three_people(builder, graph)
    async with served(neo4j_uri, METRICS_ENABLED="true") as (http, _):
        for _ in range(2):  # the second embeds nothing: its vector is cached
            assert "errors" not in await post(http, SEARCH, {"query": "ada lovelace"})
        assert "errors" not in await post(http, WALK, {"id": builder.entity_id("Ada Lovelace")})
        malformed = await post(http, WALK, {"id": "not-a-uuid"})
        assert malformed["errors"][0]["extensions"]["code"] == "MALFORMED"
        response = await scrape(http)

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    figures = samples(response.text)
    assert figures["evidencegraph_requests_total", (("operation_type", "query"),)] == 4
    assert (
        figures[
            "evidencegraph_request_duration_seconds_count",
            (("operation_type", "query"),),
        ]
        == 4
    )
    assert figures["evidencegraph_errors_total", (("code", "MALFORMED"),)] == 1
    assert figures["evidencegraph_statements_per_request_count", ()] == 4
    # Searches, walk steps and the catalog: at least one statement each but the malformed walk.
    assert figures["evidencegraph_statements_per_request_sum", ()] >= 3
    assert figures["evidencegraph_neo4j_connections_in_use", ()] == 0
    assert figures["evidencegraph_embedding_calls_total", (("embedder", "hash"),)] == 1
    assert figures["evidencegraph_query_vector_cache_total", (("result", "miss"),)] == 1
    assert figures["evidencegraph_query_vector_cache_total", (("result", "hit"),)] == 1


async def test_metrics_answer_a_client_off_loopback_only_with_the_metrics_token(
    neo4j_uri: str, graph: Graph
) -> None:
    async with served(neo4j_uri, METRICS_ENABLED="true", client_host="10.1.2.3") as (http, _):
        assert (await scrape(http)).status_code == 404
    token = "s3cret-metrics-token-of-32-chars"  # METRICS_TOKEN: at least 32 characters
    async with served(
        neo4j_uri, METRICS_ENABLED="true", METRICS_TOKEN=token, client_host="10.1.2.3"
    ) as (http, _):
        assert (await scrape(http)).status_code == 404
        assert (await scrape(http, authorization="Bearer wrong")).status_code == 404
        assert (await scrape(http, authorization=f"Bearer {token}")).status_code == 200
    # With a token, loopback is no longer enough either.
    async with served(neo4j_uri, METRICS_ENABLED="true", METRICS_TOKEN=token) as (http, _):
        assert (await scrape(http)).status_code == 404


WORKER = textwrap.dedent(
    """
    from api.metrics import Metrics
    from api.request_record import RequestRecord
    metrics = Metrics()
    metrics.request_finished(RequestRecord("r", statements=2), 0.01)
    metrics.load_finished(loaded=3, unchanged=1, rejected=0)
    """
)

SCRAPER = textwrap.dedent(
    """
    import asyncio
    from starlette.requests import Request
    from api.metrics import Metrics
    scope = {"type": "http", "method": "GET", "path": "/metrics", "headers": [],
             "client": ("127.0.0.1", 1)}
    response = asyncio.run(Metrics().endpoint(Request(scope)))
    print(response.body.decode())
    """
)


def test_with_a_multiprocess_directory_every_worker_reports_the_sum_of_all_workers(
    tmp_path: Path,
) -> None:
    environ = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    for _ in range(2):  # two workers (and loads), each its own process
        subprocess.run([sys.executable, "-c", WORKER], env=environ, check=True, timeout=120)
    scraped = subprocess.run(
        [sys.executable, "-c", SCRAPER],
        env=environ,
        check=True,
        timeout=120,
        capture_output=True,
        text=True,
    )
    figures = samples(scraped.stdout)
    assert figures["evidencegraph_requests_total", (("operation_type", "none"),)] == 2
    assert figures["evidencegraph_statements_per_request_sum", ()] == 4
    assert figures["evidencegraph_load_jobs_total", (("outcome", "loaded"),)] == 6


def test_a_metrics_token_shorter_than_the_other_tokens_stops_start_up() -> None:
    """METRICS_TOKEN has FEDERATION_GATEWAY_TOKEN's minimum: 32 characters."""
    with pytest.raises(SettingsError, match="METRICS_TOKEN must be at least 32 characters"):
        Settings.from_environ({"METRICS_ENABLED": "true", "METRICS_TOKEN": "m" * 31})
    assert Settings.from_environ({"METRICS_TOKEN": "m" * 32}).metrics_token == "m" * 32
