"""Limits below GraphQL: request body size (413 before the body is read whole), the per-request
time limit (a coded error, not a hung connection) and Neo4j's per-statement time limit (a
coded error with nothing of the driver's message)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import neo4j
import pytest

from contract.errors import BackendUnavailable
from graph import lookups
from graph.driver import Graph
from tests.conftest import serving, without_request_ids
from tests.support.graph_builder import GraphBuilder, new_id

GRAPHQL_RESPONSE = "application/graphql-response+json"
PASSAGE = f'{{ passage(id: "{new_id()}") {{ text }} }}'
SLOW_STATEMENT = "UNWIND range(1, 2000000000) AS x WITH count(x) AS n RETURN n"


class Chunks:
    """A request body sent in `size`-byte chunks, counting how many the server pulled."""

    def __init__(self, total: int, size: int) -> None:
        self.total, self.size, self.pulled = total, size, 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        sent = 0
        while sent < self.total:
            self.pulled += 1
            sent += self.size
            yield b" " * self.size


async def test_a_body_over_the_limit_is_413_before_it_is_read(neo4j_uri: str, graph: Graph) -> None:
    async with serving(neo4j_uri, graph, HTTP_MAX_BODY_BYTES="4096") as client:
        fits = json.dumps({"query": "{ __typename }" + " " * 3000})
        response = await client.http.post(
            "/graphql", content=fits, headers={"content-type": "application/json"}
        )
        assert response.json()["data"] == {"__typename": "Query"}

        # Declared too large: refused on the header, without pulling a single chunk.
        declared = Chunks(total=1_000_000, size=1024)
        response = await client.http.post(
            "/graphql",
            content=declared,
            headers={"content-type": "application/json", "content-length": "1000000"},
        )
        assert (response.status_code, response.text) == (413, "Content Too Large")
        assert declared.pulled <= 1

        # Streamed without a length: refused as soon as the limit is passed.
        streamed = Chunks(total=1_000_000, size=1024)
        response = await client.http.post(
            "/graphql", content=streamed, headers={"content-type": "application/json"}
        )
        assert response.status_code == 413
        assert streamed.pulled <= 5 + 1, streamed.pulled


async def test_a_request_over_its_time_limit_ends_with_a_coded_error(
    neo4j_uri: str, graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    cancelled: list[str] = []

    async def hanging_read(query: str, parameters: Mapping[str, Any]) -> list[Any]:
        try:
            await asyncio.sleep(3)  # longer than the limit; short enough to end with the test
        except asyncio.CancelledError:
            cancelled.append(query)
            raise
        return []

    async with serving(neo4j_uri, graph, REQUEST_TIMEOUT_SECONDS="0.3") as client:
        monkeypatch.setattr(client.services.graph, "read", hanging_read)
        # A read in the resolver itself, and one through a DataLoader (whose batch runs in a
        # task of its own; it ends at NEO4J_QUERY_TIMEOUT_SECONDS, see api/request_timeout.py).
        for query in ("{ entityLabels { label } }", PASSAGE):
            for accept, status in ((GRAPHQL_RESPONSE, 503), ("application/json", 200)):
                started = time.monotonic()
                response = await client.post(query, headers={"accept": accept})
                assert time.monotonic() - started < 5
                assert response.status_code == status
                assert response.headers["content-type"] == f"{accept}; charset=utf-8"
                (error,) = response.json()["errors"]
                assert without_request_ids(error["extensions"]) == {"code": "BACKEND_UNAVAILABLE"}
                assert "REQUEST_TIMEOUT_SECONDS" in error["message"]
        # The resolver's own read was cancelled with the request, not left running.
        assert len(cancelled) >= 2
        # Fast requests are unaffected.
        response = await client.post("{ __typename }")
        assert response.json()["data"] == {"__typename": "Query"}


async def test_neo4j_stops_a_statement_at_its_time_limit(driver: neo4j.AsyncDriver) -> None:
    graph = Graph(driver, query_timeout=0.2)
    started = time.monotonic()
    with pytest.raises(BackendUnavailable, match="NEO4J_QUERY_TIMEOUT_SECONDS"):
        await graph.read(SLOW_STATEMENT, {})
    assert time.monotonic() - started < 10


async def test_a_statement_stopped_by_neo4j_reaches_the_client_as_a_clean_coded_error(
    neo4j_uri: str,
    driver: neo4j.AsyncDriver,
    graph: Graph,
    builder: GraphBuilder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    version = await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    # The passage lookup made slow on the server: the service's own statement and path.
    slow = "CALL () { " + SLOW_STATEMENT + " } " + lookups.PASSAGES_BY_ID
    monkeypatch.setattr(lookups, "PASSAGES_BY_ID", slow)
    async with serving(neo4j_uri, graph, NEO4J_QUERY_TIMEOUT_SECONDS="0.2") as client:
        client.services.graph = Graph(driver, query_timeout=0.2)
        body = await client.execute(f'{{ passage(id: "{version.passage_ids[0]}") {{ text }} }}')
    assert body["data"] == {"passage": None}
    (error,) = body["errors"]
    assert without_request_ids(error["extensions"]) == {"code": "BACKEND_UNAVAILABLE"}
    assert "did not answer within 0.2 s" in error["message"]
    for leak in ("Neo.ClientError", "TransactionTimedOut", "UNWIND", "terminated"):
        assert leak not in json.dumps(body)
