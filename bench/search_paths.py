"""The ways the benchmark runs one hybrid entity search, each timed on its own terms.

- `HttpService`: the real service, `evidencegraph serve` in a subprocess on loopback, asked
  over HTTP by an httpx client — what a caller sees.
- `InProcessService`: the same app in this process, the operation handed straight to the
  Strawberry schema (no HTTP, no JSON), with every statement it sends timed at `Graph.read`.
- `ServiceStatement`: only the service's search statement (graph/entity_search.py) for the
  catalog's targets, after embedding the query — the service's data layer without GraphQL.
- `handwritten_search.HandwrittenSearch`: the floor.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, LiteralString

import httpx
import neo4j
from starlette.routing import Route
from strawberry.schema.base import BaseSchema

from api.app import create_app
from api.graphql_view import GraphQLView
from api.services import Services
from api.settings import Settings
from contract.scope import Scope
from embedding.hashing import HashEmbedder
from graph import entity_search
from graph.driver import Graph
from graph.index_catalog import read_index_catalog
from localneo4j.server import free_port
from resolvers.context import RequestContext
from retrieval.lexical_rule import lexical_request

SEARCH_OPERATION = """
query Search($query: String!, $limit: Int! = 10, $supportLimit: Int! = 3, $scope: ScopeInput) {
  searchEntities(query: $query, limit: $limit, supportLimit: $supportLimit, scope: $scope) {
    entity { id name labels }
    status score lexicalRank semanticRank
    evidence { id text document { title } }
  }
}
"""

DIMENSION = 384


def service_environment(bolt_uri: str, embedder: str = "hash") -> dict[str, str]:
    """The settings the brief fixes: hash embedder at 384 dimensions, no authentication;
    `embedder="minilm"` for the default one (also 384 dimensions: the graph's vector indexes
    take it, though its query vectors do not match the graph's hash vectors in meaning)."""
    return {
        "NEO4J_URI": bolt_uri,
        "EMBEDDER": embedder,
        "EMBEDDER_DIM": str(DIMENSION),
        "AUTH_MODE": "none",
    }


def variables(query: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """GraphQL variables for `SEARCH_OPERATION` from the options HandwrittenSearch takes."""
    result: dict[str, Any] = {"query": query}
    if "limit" in options:
        result["limit"] = options["limit"]
    if "support_limit" in options:
        result["supportLimit"] = options["support_limit"]
    scope = {
        key: options[name]
        for key, name in (("workspaces", "workspaces"), ("documentIds", "document_ids"))
        if options.get(name) is not None
    }
    if scope:
        result["scope"] = scope
    return result


# --- the service over HTTP -----------------------------------------------------------------


@dataclass
class ServiceProcess:
    url: str  # http://127.0.0.1:PORT
    pid: int


@contextmanager
def service_in(
    bolt_uri: str,
    log_path: Path,
    embedder: str = "hash",
    tree: Path | None = None,
    ready_seconds: float = 60,
) -> Iterator[ServiceProcess]:
    """`evidencegraph serve` on a free loopback port, from `tree` (a checkout of this
    repository, its code first on the path; this one by default), stopped after."""
    port = free_port()
    command = [sys.executable, "-m", "commands.main", "serve", "--port", str(port)]
    environment = {**os.environ, **service_environment(bolt_uri, embedder)}
    if tree is not None:
        environment["PYTHONPATH"] = str(tree.resolve())
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=tree, env=environment, stdout=log, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + ready_seconds
        while True:
            if process.poll() is not None:
                raise SystemExit(f"the service exited; see {log_path}")
            try:
                if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(
                    f"the service did not get ready in {ready_seconds:g} s; see {log_path}"
                )
            time.sleep(0.2)
        yield ServiceProcess(base, process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def service_process(bolt_uri: str, log_path: Path, embedder: str = "hash") -> Iterator[str]:
    """`evidencegraph serve` on a free loopback port; yields its base URL, stops it after."""
    with service_in(bolt_uri, log_path, embedder) as served:
        yield served.url


class HttpService:
    """A blocking httpx client: of the clients at hand the lightest (a GET /healthz took
    1.3 ms here against 2.0 ms with `httpx.AsyncClient`), so the client's own cost is not
    charged to the service. It blocks the benchmark's event loop, on which nothing else
    runs while a request is timed."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    def search(self, query: str, **options: Any) -> list[dict[str, Any]]:
        response = self.client.post(
            "/graphql",
            json={"query": SEARCH_OPERATION, "variables": variables(query, options)},
            headers={"accept": "application/json"},
        )
        body = response.json()
        if "errors" in body:
            raise RuntimeError(f"the service answered {query!r} with {body['errors']}")
        hits: list[dict[str, Any]] = body["data"]["searchEntities"]
        return hits


# --- the service in this process -----------------------------------------------------------


class TimedGraph(Graph):
    """The service's Graph, recording when each statement was in flight."""

    def __init__(self, graph: Graph) -> None:
        super().__init__(graph.driver, graph.database, graph.query_timeout)
        self.spans: list[tuple[float, float]] = []

    async def read(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[neo4j.Record]:
        started = time.perf_counter()
        try:
            return await super().read(query, parameters)
        finally:
            self.spans.append((started, time.perf_counter()))


def busy_ms(spans: list[tuple[float, float]]) -> float:
    """Milliseconds during which at least one statement was in flight (overlaps count once)."""
    total, reach = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total * 1000


@dataclass
class InProcessSample:
    ms: float
    statements: int
    db_ms: float  # wall time with a statement in flight


@dataclass
class InProcessService:
    schema: BaseSchema
    services: Services
    graph: TimedGraph
    samples: list[InProcessSample] = field(default_factory=list)

    async def search(self, query: str, **options: Any) -> dict[str, Any]:
        self.graph.spans.clear()
        started = time.perf_counter()
        context = RequestContext(
            answers=self.services.answer_context(),
            grant=self.services.authenticator.authenticate(None),
        )
        result = await self.schema.execute(
            SEARCH_OPERATION, variable_values=variables(query, options), context_value=context
        )
        elapsed = (time.perf_counter() - started) * 1000
        if result.errors:
            raise RuntimeError(f"in-process search of {query!r} failed: {result.errors}")
        self.samples.append(
            InProcessSample(elapsed, len(self.graph.spans), busy_ms(self.graph.spans))
        )
        assert result.data is not None
        return result.data


def graphql_schema(app: Any) -> BaseSchema:
    for route in app.routes:
        if isinstance(route, Route) and isinstance(route.endpoint, GraphQLView):
            return route.endpoint.schema
    raise RuntimeError("the app has no GraphQL route")


@asynccontextmanager
async def in_process_service(bolt_uri: str) -> AsyncIterator[InProcessService]:
    app = create_app(Settings.from_environ(service_environment(bolt_uri)))
    async with app.router.lifespan_context(app):
        services: Services = app.state.services
        services.graph = graph = TimedGraph(services.graph)
        yield InProcessService(graphql_schema(app), services, graph)


# --- the service's search statement alone --------------------------------------------------


class ServerTimedGraph(Graph):
    """Runs reads like `Graph.read`, keeping what Neo4j reports about the last one."""

    def __init__(self, driver: neo4j.AsyncDriver) -> None:
        super().__init__(driver)
        self.server_ms = 0.0
        self.last: tuple[LiteralString, dict[str, Any]] | None = None

    async def read(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[neo4j.Record]:
        self.last = (query, dict(parameters))
        async with self.driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
            result = await session.run(query, dict(parameters))
            records = [record async for record in result]
            summary = await result.consume()
        self.server_ms = float(
            (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
        )
        return records


class ServiceStatement:
    """Embed, then graph/entity_search.py's statement with the catalog read once at start."""

    def __init__(self, graph: ServerTimedGraph, targets: list[entity_search.SearchTarget]):
        self.graph = graph
        self.targets = targets
        self.embedder = HashEmbedder(DIMENSION)

    @classmethod
    async def create(cls, driver: neo4j.AsyncDriver) -> ServiceStatement:
        graph = ServerTimedGraph(driver)
        catalog = await read_index_catalog(graph)
        targets = [
            entity_search.SearchTarget(t.label, t.fulltext.name, t.vector.name)
            for t in catalog.searchable(None)
            if t.fulltext is not None and t.vector is not None
        ]
        return cls(graph, targets)

    async def search(self, query: str) -> list[entity_search.EntityHitRecord]:
        [vector] = self.embedder.embed([query])
        searched = await entity_search.search_entities(
            self.graph,
            Scope(None),
            targets=self.targets,
            mode="HYBRID",
            lexical=lexical_request(query),
            vector=vector,
            limit=10,
            support_limit=3,
            rrf_k=60,
            lexical_k=20,
            semantic_k=20,
            cap_k=1000,
            with_text=True,
        )
        return searched.records
