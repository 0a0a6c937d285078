"""The app as `evidencegraph serve` builds it, in-process, with its own driver, graph and
embedder (`hash`), so what operations attach to them at start (tracing, metrics, the request
log) is what a test sees; and a small graph of three people to search and walk."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from starlette.applications import Starlette

from api.app import create_app
from api.telemetry import Tracing
from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION, settings_for_tests
from tests.support.graph_builder import GraphBuilder

SEARCH = """
query Search($query: String!) {
  searchEntities(query: $query, limit: 5) {
    entity { id name }
    evidence { id text document { title } }
  }
}
"""

WALK = """
query Walk($id: ID!) {
  walk(entityId: $id, depth: 2) {
    nodes { name }
    edges { type kind evidence { id } }
  }
}
"""


@asynccontextmanager
async def served(
    neo4j_uri: str,
    *,
    tracing: Tracing | None = None,
    client_host: str = "127.0.0.1",
    **settings: str,
) -> AsyncIterator[tuple[httpx.AsyncClient, Starlette]]:
    # The first plans of a statement on a busy shared machine may take longer than the default
    # limits; these tests are not about limits.
    limits = {"NEO4J_QUERY_TIMEOUT_SECONDS": "300", "REQUEST_TIMEOUT_SECONDS": "600"}
    app = create_app(settings_for_tests(neo4j_uri, **{**limits, **settings}), tracing=tracing)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=(client_host, 51000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            yield http, app


async def post(http: httpx.AsyncClient, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    response = await http.post("/graphql", json={"query": query, "variables": variables})
    body: dict[str, Any] = response.json()
    return body


async def three_people(builder: GraphBuilder, graph: Graph) -> None:
    await builder.version(
        "acme",
        ["Ada Lovelace wrote the notes.", "Charles Babbage built the engine."],
        mentions={"Ada Lovelace": [0], "Charles Babbage": [1], "Analytical Engine": [1]},
        relations=[
            ("Ada Lovelace", "WORKED_WITH", "Charles Babbage", [0]),
            ("Charles Babbage", "BUILT", "Analytical Engine", [1]),
        ],
    )
    await apply_schema(graph, TEST_DIMENSION)
