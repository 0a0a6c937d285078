"""Shared fixtures: a real Neo4j 5.26 Community server for the whole session, a clean graph per
test, and the app served in-process.

The server is the project's own (`localneo4j`, fetched from Maven Central and started in a
private home on a free port), or the one `NEO4J_URI` names. If it cannot start, every test that
needs it fails with the server's log; nothing is skipped.

`graph` wipes the database before each test (`wipe`): every node and relationship goes, and
every index or constraint a test created; the service's own (graph/graph_schema.py CONSTRAINTS,
`STANDARD_SCHEMA`) stay, and one a test dropped is created again. A wipe is a few statements,
not a schema transaction per standard index: the ~850 tests each pay it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, LiteralString

import httpx
import neo4j
import pytest
from hypothesis import settings as hypothesis_settings

from api.app import create_app
from api.settings import Settings
from graph.catalog_cache import catalog_cache
from graph.driver import Graph
from graph.graph_schema import CONSTRAINTS
from tests.support.graph_builder import GraphBuilder
from tests.support.manual_clock import ManualClock
from tests.support.scripted_embedder import ScriptedQueryEmbedder

if TYPE_CHECKING:
    from localneo4j.server import LocalServer
    from tests.support.load_helpers import Cli

TEST_DIMENSION = 8

# neo4j.conf lines of the session's own server. Every test wipes the graph, so each label's
# node count swings between 0 and a few hundred from one test to the next: by default Neo4j
# re-plans a cached statement whose statistics moved that much once 10 s have passed, and the
# service's statements take 20-300 ms each to plan. An hour is longer than the whole suite:
# a statement is planned again only when the plan cache is flushed (every index a test
# creates or the wipe drops flushes it), never for statistics. Measured against a cold server
# on test_entity_search, test_lookups_visibility, test_query_cost, test_statement_plans and
# test_passage_pages (docs/benchmarks.md, "The test server"): 460 JVM CPU-s before, 366 after.
TEST_SERVER_SETTINGS = {"dbms.cypher.min_replan_interval": "1h"}

# Every property test runs untimed: an example's time says how busy the machine is, not whether
# a rule holds (hypothesis's default 200 ms deadline failed test_query_cost's rules at load 9).
# A test's own @settings keeps every other choice; speed is shown by benchmarks, not by tests.
hypothesis_settings.register_profile("evidencegraph", deadline=None)
hypothesis_settings.load_profile("evidencegraph")


@pytest.fixture(scope="session")
def session_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer | None]:
    """The session's own server, or None when `NEO4J_URI` names the one to use. Tests of
    `localneo4j` itself read this one rather than start another JVM (tests/test_localneo4j.py)."""
    if os.environ.get("NEO4J_URI"):
        yield None
        return
    from localneo4j.pytest_server import private_server
    from localneo4j.server import stop

    server = private_server(Path(tmp_path_factory.mktemp("neo4j")), settings=TEST_SERVER_SETTINGS)
    try:
        yield server
    finally:
        stop(server.home)


@pytest.fixture(scope="session")
def source_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Bolt URI of a second server, for the graphs `load --from` reads
    (tests/support/source_server.py says why not a database of the first); started the first
    time a test asks for it, stopped with the session. Tests use it through `source`."""
    from localneo4j.pytest_server import private_server
    from localneo4j.server import stop

    server = private_server(
        Path(tmp_path_factory.mktemp("neo4j-source")), settings=TEST_SERVER_SETTINGS
    )
    try:
        yield server.bolt_uri
    finally:
        stop(server.home)


@pytest.fixture(scope="session")
async def source_driver(source_server: str) -> AsyncIterator[neo4j.AsyncDriver]:
    async with neo4j.AsyncGraphDatabase.driver(
        source_server, auth=None, notifications_min_severity="OFF"
    ) as session_driver:
        yield session_driver


@pytest.fixture
async def source(source_server: str, source_driver: neo4j.AsyncDriver) -> AsyncIterator[str]:
    """The source server's URI, its database empty; emptied again when the test ends, so no
    module leaves anything in it (tests/support/source_server.py)."""
    from tests.support.source_server import wipe_source

    await wipe_source(source_driver)
    yield source_server
    await wipe_source(source_driver)


@pytest.fixture(scope="session")
def neo4j_uri(session_server: LocalServer | None) -> str:
    return os.environ["NEO4J_URI"] if session_server is None else session_server.bolt_uri


@pytest.fixture(scope="session")
async def driver(neo4j_uri: str) -> AsyncIterator[neo4j.AsyncDriver]:
    async with neo4j.AsyncGraphDatabase.driver(
        neo4j_uri, auth=None, notifications_min_severity="OFF"
    ) as session_driver:
        yield session_driver


def schema_name(statement: str) -> str:
    """The name a `CREATE CONSTRAINT|INDEX <name> IF NOT EXISTS …` statement gives."""
    return statement.split()[2]


# Every constraint and index `apply_constraints` creates (graph/graph_schema.py CONSTRAINTS):
# the wipe keeps them, so no test pays for creating them again.
STANDARD_SCHEMA = frozenset(schema_name(statement) for statement in CONSTRAINTS)

SHOW_CONSTRAINTS: LiteralString = "SHOW CONSTRAINTS YIELD name RETURN name"
SHOW_INDEXES: LiteralString = (
    "SHOW INDEXES YIELD name, type, owningConstraint"
    " WHERE type <> 'LOOKUP' AND owningConstraint IS NULL RETURN name"
)


async def wipe(graph: Graph) -> None:
    """An empty database with the service's constraints and indexes and no other index.

    The service's constraints and indexes stay in place between tests (dropping them would
    also throw away every cached query plan, and re-creating one is a schema transaction per
    test); one a test dropped is created again, and indexes a test created are dropped.
    """
    # Relationships first, in bounded transactions: deleting a dense hub's node with all its
    # relationships at once would exceed the server's transaction memory.
    await graph.auto_commit(
        "MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 20000 ROWS", {}
    )
    await graph.auto_commit("MATCH (n) CALL (n) { DELETE n } IN TRANSACTIONS OF 20000 ROWS", {})
    present: set[str] = set()
    for row in await graph.read(SHOW_CONSTRAINTS, {}):
        present.add(row["name"])
        if row["name"] not in STANDARD_SCHEMA:
            await graph.write("DROP CONSTRAINT $name", {"name": row["name"]})
    for row in await graph.read(SHOW_INDEXES, {}):
        present.add(row["name"])
        if row["name"] not in STANDARD_SCHEMA:
            await graph.write("DROP INDEX $name", {"name": row["name"]})
    for statement in CONSTRAINTS:
        if schema_name(statement) not in present:
            await graph.write(statement, {})


@pytest.fixture
async def graph(driver: neo4j.AsyncDriver) -> AsyncIterator[Graph]:
    """A wiped database; the test owns it until it ends."""
    clean = Graph(driver)
    await wipe(clean)
    yield clean
    clean.observers.clear()


@pytest.fixture
def builder(graph: Graph) -> GraphBuilder:
    return GraphBuilder(graph, dimension=TEST_DIMENSION)


def settings_for_tests(neo4j_uri: str, **overrides: str) -> Settings:
    environ = {
        "NEO4J_URI": neo4j_uri,
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
        "AUTH_MODE": "none",
        **overrides,
    }
    return Settings.from_environ(environ)


class Client:
    """Sends GraphQL operations to the app in-process and counts the statements they cost."""

    def __init__(
        self, http: httpx.AsyncClient, graph: Graph, embedder: ScriptedQueryEmbedder, services: Any
    ) -> None:
        self.http = http
        self.services = services
        self.graph = graph
        self.embedder = embedder
        self.app: Any = (
            None  # the ASGI app, for clients other than GraphQL's (tests/support/mcp_sessions.py)
        )
        self.statements: list[str] = []
        self.parameters: list[dict[str, Any]] = []
        graph.observers.append(self._observe)
        # The kept index catalog ages only when a test says so (contract §3's second): what a
        # test counts does not depend on how busy the machine is.
        self.clock = ManualClock()
        catalog_cache(graph).clock = self.clock

    def _observe(self, query: str, parameters: Any) -> None:
        self.statements.append(query)
        self.parameters.append(dict(parameters))

    @property
    def search_parameters(self) -> dict[str, Any]:
        """The parameters of the last search statement sent (an index catalog read, which may
        follow it, has none)."""
        return next(parameters for parameters in reversed(self.parameters) if parameters)

    async def post(
        self,
        query: str,
        variables: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        return await self.http.post(
            "/graphql", json={"query": query, "variables": variables or {}}, headers=headers
        )

    async def execute(
        self,
        query: str,
        variables: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """The response body; the statements it cost are in `self.statements` afterwards."""
        self.statements.clear()
        self.parameters.clear()
        response = await self.post(query, variables, headers)
        body: dict[str, Any] = response.json()
        return body


@asynccontextmanager
async def serving(neo4j_uri: str, graph: Graph, **settings: str) -> AsyncIterator[Client]:
    """The app in-process with test settings (plus `settings`), answering over `graph`."""
    app = create_app(settings_for_tests(neo4j_uri, **settings))
    async with app.router.lifespan_context(app):
        services = app.state.services
        services.graph = graph  # the test's graph, so its statements are counted
        services.query_embedder = embedder = ScriptedQueryEmbedder(TEST_DIMENSION)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            test_client = Client(http, graph, embedder, services)
            test_client.app = app
            yield test_client


@pytest.fixture
async def client(neo4j_uri: str, graph: Graph) -> AsyncIterator[Client]:
    async with serving(neo4j_uri, graph) as test_client:
        yield test_client


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], neo4j_uri: str) -> Cli:
    """Runs `evidencegraph` commands against the test server (`await cli.run("load", path)`)."""
    from tests.support.load_helpers import Cli  # it imports this module's TEST_DIMENSION

    return Cli(monkeypatch, capsys, neo4j_uri)


def without_cost(body: dict[str, Any]) -> dict[str, Any]:
    """A response body without the static cost every answer reports in `extensions.cost`
    (contract §7; docs/operations.md, "The front door"): for tests that compare whole answers."""
    extensions = {k: v for k, v in (body.get("extensions") or {}).items() if k != "cost"}
    rest = {k: v for k, v in body.items() if k != "extensions"}
    return {**rest, "extensions": extensions} if extensions else rest


def without_request_ids(body: Any) -> Any:
    """A response body as it reads without the request id every error carries in
    `extensions.requestId` (docs/operations.md), which differs per request: for tests that
    compare what an error says."""
    if isinstance(body, dict):
        return {
            key: without_request_ids(value)
            for key, value in body.items()
            if not (key == "requestId" and isinstance(value, str))
        }
    if isinstance(body, list):
        return [without_request_ids(item) for item in body]
    return body
