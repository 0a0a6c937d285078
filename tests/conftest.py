"""Shared fixtures: a real Neo4j 5.26 Community server for the whole session, a clean graph per
test, and the app served in-process.

The server is the project's own (`localneo4j`, fetched from Maven Central and started in a
private home on a free port), or the one `NEO4J_URI` names. If it cannot start, every test that
needs it fails with the server's log; nothing is skipped.

Every module that reaches the server starts from the known graph, whatever ran before it on
its worker, and fails by name at its end if it left anything behind
(`module_starts_from_known_graph`, tests/support/known_graph.py): no nodes, only the service's
own constraints and indexes (graph/graph_schema.py CONSTRAINTS), no open transaction, the
server's settings unchanged. `graph` gives a test the known graph and wipes what it wrote when it
ends; `module_graph` does the same for a module whose fixture builds one graph for all its tests.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import neo4j
import pytest
from hypothesis import settings as hypothesis_settings

from api.app import create_app
from api.settings import Settings
from graph.catalog_cache import catalog_cache
from graph.driver import Graph
from tests.support import known_graph
from tests.support.graph_builder import GraphBuilder
from tests.support.manual_clock import ManualClock
from tests.support.scripted_embedder import ScriptedQueryEmbedder

if TYPE_CHECKING:
    from localneo4j.server import LocalServer
    from tests.support.load_helpers import Cli

TEST_DIMENSION = 8

# Fixtures some modules share beyond these: the fuzz tests' graph and service; a private Redis
# for the front door's shared store (`local_redis`).
pytest_plugins = ["tests.support.fuzzing", "tests.support.redis_server"]

# Planning every statement at each app's start (api/plan_readiness.py) would cost each test
# seconds against a server whose plans every wipe throws away. Off for the apps tests build
# (`settings_for_tests`) and for the processes they start (which inherit this environment);
# tests/test_plan_warming.py and tests/test_backend_recovery.py turn it on.
os.environ.setdefault("PLAN_WARMING", "false")

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


@pytest.fixture(scope="session")
def known_graph_driver(neo4j_uri: str) -> Iterator[neo4j.Driver]:
    """A synchronous driver of its own for resetting and checking the database
    (tests/support/known_graph.py), usable inside and outside the event loop."""
    with neo4j.GraphDatabase.driver(
        neo4j_uri, auth=None, notifications_min_severity="OFF"
    ) as checking_driver:
        yield checking_driver


@pytest.fixture(scope="session")
def server_settings_at_start(known_graph_driver: neo4j.Driver) -> dict[str, str]:
    """The server's settings as this worker first saw them: a module must leave them so."""
    return known_graph.settings(known_graph_driver)


# The fixtures through which a test reaches the session's Neo4j server.
_REACHES_NEO4J = frozenset({"neo4j_uri", "session_server"})


@pytest.fixture(scope="module", autouse=True)
def module_starts_from_known_graph(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every module that reaches Neo4j starts from the known graph (tests/support/known_graph.py),
    whatever ran before it on this worker, and fails by name at its end if it left anything
    behind: nodes, relationships, an index or constraint, an open transaction, a setting
    changed. What it left is then tidied away, so the next module is not the one to fail."""
    module = request.node
    items = [item for item in request.session.items if item.getparent(pytest.Module) is module]
    if not any(_REACHES_NEO4J & set(getattr(item, "fixturenames", ())) for item in items):
        yield
        return
    checking_driver: neo4j.Driver = request.getfixturevalue("known_graph_driver")
    known_graph.reset(checking_driver)
    started_with: dict[str, str] = request.getfixturevalue("server_settings_at_start")
    yield
    left = known_graph.leftovers(checking_driver, started_with)
    if left:
        known_graph.reset(checking_driver)
        pytest.fail(f"{module.nodeid} left behind: {left}", pytrace=False)


@pytest.fixture
async def graph(
    driver: neo4j.AsyncDriver, known_graph_driver: neo4j.Driver
) -> AsyncIterator[Graph]:
    """The known graph (tests/support/known_graph.py); the test owns it until it ends, and what
    it wrote is wiped then, so a module's last test leaves nothing behind either."""
    known_graph.reset(known_graph_driver)
    clean = Graph(driver)
    yield clean
    clean.observers.clear()
    known_graph.reset(known_graph_driver)


@pytest.fixture(scope="module")
async def module_graph(
    driver: neo4j.AsyncDriver, known_graph_driver: neo4j.Driver
) -> AsyncIterator[Graph]:
    """The known graph for a module whose fixture builds one graph that all its tests read;
    wiped when the module ends, so the module leaves nothing behind."""
    known_graph.reset(known_graph_driver)
    yield Graph(driver)
    known_graph.reset(known_graph_driver)


@pytest.fixture
def reset_graph(known_graph_driver: neo4j.Driver) -> Callable[[], None]:
    """Makes the database the known graph again, for a test that builds several worlds in turn."""
    return lambda: known_graph.reset(known_graph_driver)


@pytest.fixture
def builder(graph: Graph) -> GraphBuilder:
    return GraphBuilder(graph, dimension=TEST_DIMENSION)


# What the tests check is what an answer says, not how soon it comes: a 2-core machine running
# two workers (and whatever else shares it) once took more than the default 30 s for a scope
# property's many-aliased request. A test of the time limits sets its own.
PATIENT_TIMEOUTS = {
    "NEO4J_QUERY_TIMEOUT_SECONDS": "300",
    "NEO4J_PLAN_TIMEOUT_SECONDS": "300",
    "REQUEST_TIMEOUT_SECONDS": "330",
}


def settings_for_tests(neo4j_uri: str, **overrides: str) -> Settings:
    environ = {
        "NEO4J_URI": neo4j_uri,
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
        "AUTH_MODE": "none",
        **PATIENT_TIMEOUTS,
        "PLAN_WARMING": os.environ["PLAN_WARMING"],  # off: see above
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
