"""Ready means ready (contract §7): `/readyz` says ready only once every statement requests send
is planned; a statement not yet planned is planned under its own limit before it runs; every
statement any door sends is one the service plans ahead; an index change has them planned again
while the service stays ready (api/plan_readiness.py, graph/planned_statements.py,
graph/served_statements.py). A Neo4j restart is tests/test_backend_recovery.py's.

Nothing here waits a fixed time: readiness and re-planning are polled for, with a deadline.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx
import neo4j
import pytest
from graphql import (
    GraphQLObjectType,
    GraphQLSchema,
    TypeInfo,
    TypeInfoVisitor,
    Visitor,
    build_schema,
    parse,
    visit,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.app import create_app
from api.schema import schema_sdl
from contract.graph_owned import GRAPH_OWNED_RELATION_TYPES
from contract.page_cursor import document_cursor, evidence_cursor
from contract.scope import Scope
from graph import lookups
from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.plan_key import sent_text
from graph.plan_warming import read_serving_graph, warm_plans
from graph.planned_statements import PlannedStatements
from graph.statement_names import statement_name
from mcpserver.tools import TOOLS
from tests.conftest import TEST_DIMENSION, Client, serving, settings_for_tests
from tests.support.graph_builder import GraphBuilder, Version, unit_vector
from tests.support.mcp_sessions import http_session
from tests.support.planned import (
    SEARCH_STATEMENTS,
    held_warming,
    plan_only,
    served_now,
    unplanned,
)

DEADLINE_SECONDS = 300.0  # a loaded 2-core machine plans the service's statements in 10-120 s
UNHURRIED = {
    "NEO4J_QUERY_TIMEOUT_SECONDS": "300",
    "NEO4J_PLAN_TIMEOUT_SECONDS": "300",
    "REQUEST_TIMEOUT_SECONDS": "600",
}


async def eventually(check: Callable[[], Awaitable[bool]], what: str) -> None:
    started = time.monotonic()
    while not await check():
        assert time.monotonic() - started < DEADLINE_SECONDS, f"never: {what}"
        await asyncio.sleep(0.1)


async def small_graph(builder: GraphBuilder, graph: Graph) -> Version:
    version = await builder.version(
        "acme",
        ["Ada Lovelace wrote notes.", "The Who played Acme Hall."],
        title="Notes",
        mentions={"Ada Lovelace": [0], "The Who": [1], "Acme Hall": [1]},
        labels={"Ada Lovelace": ["Person"], "The Who": ["Organization"], "Acme Hall": ["Geo"]},
        relations=[("Ada Lovelace", "KNOWS", "The Who", [0]), ("The Who", "AT", "Acme Hall", None)],
        passage_vectors={0: unit_vector(TEST_DIMENSION, 0), 1: unit_vector(TEST_DIMENSION, 1)},
    )
    await apply_schema(graph, TEST_DIMENSION)
    return version


class Explains:
    """Every statement a `Graph` plans (EXPLAIN)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.planned: list[str] = []
        explain = Graph.explain

        async def recorded(graph: Graph, query: Any) -> None:
            await explain(graph, query)
            self.planned.append(query)

        monkeypatch.setattr(Graph, "explain", recorded)


@asynccontextmanager
async def warming_app(
    neo4j_uri: str, **settings: str
) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    """The app with PLAN_WARMING on (the test settings turn it off), over the session server."""
    environment = {**UNHURRIED, "PLAN_WARMING": "true", **settings}
    app = create_app(settings_for_tests(neo4j_uri, **environment))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            yield http, app


async def test_readyz_is_not_ready_until_the_statements_requests_send_are_planned(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    await small_graph(builder, graph)
    explains = Explains(monkeypatch)
    plan_only(monkeypatch, SEARCH_STATEMENTS)  # all of them: tests/support/planned.py says why not
    gate = held_warming(monkeypatch)
    gate.clear()
    async with warming_app(neo4j_uri) as (http, app):
        readiness = app.state.services.plan_readiness
        waiting = await http.get("/readyz")
        assert waiting.status_code == 503, waiting.json()
        assert waiting.json()["checks"] == {
            "neo4j": "ok",
            "embedder": "ok",
            "graph": "ok",
            "plans": "warming",
        }
        gate.set()

        async def ready() -> bool:
            return (await http.get("/readyz")).status_code == 200

        await eventually(ready, "/readyz 200 once the statements are planned")
        plans = readiness.graph.plans
        assert await unplanned(readiness.graph) == []

        # The first request of a kind sends only what was planned: nothing is planned for it.
        assert app.state.services.graph.plans is plans
        before = len(explains.planned)
        response = await http.post(
            "/graphql",
            json={"query": '{ searchEntities(query: "ada lovelace") { entity { name } } }'},
        )
        assert response.json()["data"]["searchEntities"][0]["entity"]["name"] == "Ada Lovelace"
        assert [statement_name(s) for s in explains.planned[before:]] == []


# Parameter names, values of every kind a read sends, and text holding what a rewrite of `$name`
# could break: `$`, quotes, backslashes, backticks, the map's own name.
NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.text(st.characters(codec="utf-8"), max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=10,
)
TRICKY = st.lists(
    st.sampled_from(["$", "$a", "$params", ".", "'", '"', "\\", "`", "(", " ", "params"])
    | st.characters(codec="utf-8", exclude_characters="\x00"),
    max_size=10,
).map("".join)


def cypher_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(values=st.dictionaries(NAMES, VALUES, min_size=1, max_size=4), text=TRICKY)
async def test_a_read_answers_the_same_with_its_values_sent_in_one_map(
    graph: Graph, values: dict[str, Any], text: str
) -> None:
    """graph/plan_key.py: every `$name` read from the one map, nothing else touched."""
    returned = ", ".join(f"${name} AS v{i}" for i, name in enumerate(values))
    statement = f"RETURN {returned}, {cypher_string(text)} AS text"
    as_written, _, _ = await graph.driver.execute_query(statement, values)
    sent = await graph.read(statement, values)
    assert [row.data() for row in sent] == [row.data() for row in as_written]
    assert sent[0]["text"] == text
    # Each value read from the map once; a literal that happens to hold "$params." kept as is.
    literal = cypher_string(text)
    assert sent_text(statement).count("$params.") == len(values) + literal.count("$params.")


class Sent:
    """The parameters of each statement a read sends to the driver, and its time limit."""

    def __init__(self, driver: neo4j.AsyncDriver) -> None:
        self.driver = driver
        self.runs: list[tuple[str, Mapping[str, Any], float | None]] = []

    def session(self, **config: Any) -> Any:
        sent = self

        class Session:
            def __init__(self) -> None:
                self.inner = sent.driver.session(**config)

            async def __aenter__(self) -> Session:
                await self.inner.__aenter__()
                return self

            async def __aexit__(self, *exc: Any) -> None:
                await self.inner.close()

            async def run(self, query: neo4j.Query, parameters: dict[str, Any]) -> Any:
                sent.runs.append((str(query.text), parameters, query.timeout))
                return await self.inner.run(query, parameters)

        return Session()


async def test_a_statement_not_yet_planned_is_planned_under_its_own_limit_then_run_under_its_limit(
    driver: neo4j.AsyncDriver, graph: Graph, builder: GraphBuilder
) -> None:
    version = await small_graph(builder, graph)
    sent = Sent(driver)
    planned = Graph(sent, None, query_timeout=7.0, plans=PlannedStatements(42.0))  # type: ignore[arg-type]
    scope = Scope(workspaces=None)

    found = await lookups.passages_by_id(planned, scope, version.passage_ids[:1])
    assert found[0] is not None and found[0].id == version.passage_ids[0]
    [(explained, explain_values, plan_limit), (ran, values, run_limit)] = sent.runs
    assert explained.startswith("EXPLAIN ") and plan_limit == 42.0
    assert run_limit == 7.0 and explained == "EXPLAIN " + ran
    assert explain_values == {"params": {}}  # planned without its values: one plan for all
    assert list(values) == ["params"] and values["params"]["keys"] == version.passage_ids[:1]

    # Planned once: the next read of the statement, with other values, just runs.
    sent.runs.clear()
    await lookups.passages_by_id(planned, scope, version.passage_ids)
    assert [limit for _, _, limit in sent.runs] == [7.0]


def graphql_schema() -> GraphQLSchema:
    return build_schema(schema_sdl(), assume_valid_sdl=True)


def fields_selected(documents: list[str]) -> set[tuple[str, str]]:
    """(type, field) of every field the documents select."""
    schema = graphql_schema()
    seen: set[tuple[str, str]] = set()
    type_info = TypeInfo(schema)

    class Fields(Visitor):
        def enter_field(self, node: Any, *_: Any) -> None:
            parent = type_info.get_parent_type()
            if parent is not None:
                seen.add((parent.name, node.name.value))

    for document in documents:
        visit(parse(document), TypeInfoVisitor(type_info, Fields()))
    return seen


def every_field() -> set[tuple[str, str]]:
    return {
        (named.name, field)
        for named in graphql_schema().type_map.values()
        if isinstance(named, GraphQLObjectType) and not named.name.startswith("__")
        for field in named.fields
    }


PAGE = "nodes { id } pageInfo { endCursor hasNextPage }"
PASSAGE = f"""id text position version sourceId
  document {{ id workspace title uri currentVersion sourceId
             passages(first: 1, after: $documentAfter) {{ {PAGE} }} }}
  mentions(limit: 5) {{ id name }}"""
ENTITY = f"""id name labels description sourceId evidence(limit: 2) {{ {PASSAGE} }}
  evidencePage(first: 1, after: $after) {{ {PAGE} }}"""
SEARCH = "query: $query, scope: $scope"
SEARCHES = f"""
query($query: String!, $scope: ScopeInput, $labels: [String!], $after: String,
      $documentAfter: String) {{
  hybrid: searchEntities({SEARCH}, labels: $labels) {{
    entity {{ {ENTITY} }} status score lexicalRank semanticRank evidenceIds evidence {{ id }} }}
  lexical: searchEntities({SEARCH}, labels: $labels, mode: LEXICAL) {{ entity {{ id }} }}
  semantic: searchEntities({SEARCH}, labels: $labels, mode: SEMANTIC) {{ entity {{ id }} }}
  passages: searchPassages({SEARCH}) {{
    passage {{ {PASSAGE} }} score lexicalRank semanticRank }}
  lexicalPassages: searchPassages({SEARCH}, mode: LEXICAL) {{ passage {{ id }} }}
  semanticPassages: searchPassages({SEARCH}, mode: SEMANTIC) {{ passage {{ id }} }}
  suggestions: nameSuggestions(query: $query, scope: $scope, labels: $labels)
}}"""
WALKS = f"""
query($id: ID!, $scope: ScopeInput, $types: [String!], $after: String,
      $documentAfter: String) {{
  one: walk(entityId: $id, scope: $scope) {{ start {{ id }} nodes {{ id }} truncatedBy
    edges {{ id type kind depth source {{ id }} target {{ id }} evidenceIds description weight
             evidence {{ id }} evidencePage(first: 1, after: $after) {{ {PAGE} }} }} }}
  two: walk(entityId: $id, scope: $scope, depth: 2, relationTypes: $types) {{
    nodes {{ {ENTITY} }} edges {{ id }} }}
  nothing: walk(entityId: $id, scope: $scope, relationTypes: ["NONE_STORED"]) {{
    nodes {{ id }} }}
}}"""
LOOKUPS = f"""
query($id: ID!, $passage: ID!, $scope: ScopeInput, $after: String, $documentAfter: String,
      $representations: [_Any!]!) {{
  entity(id: $id, scope: $scope) {{ {ENTITY} }}
  passage(id: $passage, scope: $scope) {{ {PASSAGE} }}
  entityLabels {{ label fulltextIndex vectorIndex }}
  grantedWorkspaces
  _service {{ sdl }}
  _entities(representations: $representations) {{
    ... on Entity {{ id name }} ... on Passage {{ id text }} ... on Document {{ id title }} }}
}}"""


async def test_every_statement_a_request_sends_through_any_door_is_one_the_service_plans_ahead(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph
) -> None:
    """Every field of the schema and every MCP tool, in every scope shape and mode, first
    pages and pages after a cursor: each statement they send is declared served
    (graph/served_statements.py), and each served statement plans, so warming leaves no
    request a cold plan."""
    unselected = every_field() - fields_selected([SEARCHES, WALKS, LOOKUPS])
    assert unselected == set(), "fields this test does not ask for"
    version = await small_graph(builder, graph)
    # What is checked is which statements are sent, not how fast: each is planned cold here.
    async with serving(neo4j_uri, graph, **UNHURRIED) as client:
        await sweep(client, builder, version)


async def sweep(client: Client, builder: GraphBuilder, version: Version) -> None:
    graph = client.graph
    ada, who, passage, document = (
        builder.entity_id("Ada Lovelace"),
        builder.entity_id("The Who"),
        version.passage_ids[0],
        version.document_id,
    )
    client.embedder.script("ada lovelace", unit_vector(TEST_DIMENSION, 0))
    client.embedder.script("the who", unit_vector(TEST_DIMENSION, 1))
    walked = sorted({"KNOWS", "AT"})
    sent: set[str] = set()
    for scope in (None, {"workspaces": ["acme"]}, {"documentIds": [document]}):
        cursors: dict[str, Any] = {
            "after": evidence_cursor((document, 0, passage)),
            "documentAfter": document_cursor((0, passage)),
        }
        for after in ({"after": None, "documentAfter": None}, cursors):
            common = {"scope": scope, **after}
            for query in ("ada lovelace", "the who"):  # content words; function words only
                for labels in (None, ["Person"]):
                    body = await client.execute(
                        SEARCHES, {"query": query, "labels": labels, **common}
                    )
                    assert "errors" not in body, body
                    sent.update(client.statements)
            body = await client.execute(WALKS, {"id": ada, "types": walked, **common})
            assert "errors" not in body, body
            sent.update(client.statements)
            representations = [
                {"__typename": "Entity", "id": ada},
                {"__typename": "Passage", "id": passage},
                {"__typename": "Document", "id": document},
            ]
            body = await client.execute(
                LOOKUPS,
                {"id": ada, "passage": passage, "representations": representations, **common},
            )
            assert "errors" not in body, body
            sent.update(client.statements)

    called: set[str] = set()
    async with http_session(client) as session:
        client.statements.clear()
        for scope in (None, {"workspaces": ["acme"]}, {"documentIds": [document]}):
            scoped = {"scope": scope} if scope else {}
            calls: dict[str, dict[str, Any]] = {
                "search_entities": {"query": "ada lovelace", **scoped},
                "search_passages": {"query": "ada lovelace", **scoped},
                "walk": {"entityId": ada, "depth": 2, **scoped},
                "get_entity": {"id": ada, **scoped},
                "get_passage": {"id": passage, **scoped},
                "entity_labels": {},
                "describe_graph": scoped,
                "get_entities": {"ids": [ada], **scoped},
                "walk_between": {"entityId": ada, "otherEntityId": who, **scoped},
                "get_evidence": {"entityId": ada, **scoped},
            }
            for tool, arguments in calls.items():
                result = await session.call_tool(tool, arguments)
                assert not result.isError, (tool, result.content)
                called.add(tool)
        sent.update(client.statements)

    assert called == {tool.name for tool in TOOLS}, "a tool this test does not call"
    served = await served_now(graph)
    not_served = sorted({statement_name(s) for s in sent if s not in set(served)})
    assert not_served == [], "sent by a request, never planned ahead"

    # And every one of them plans (EXPLAIN), so warming leaves none to a request.
    serving = await read_serving_graph(graph, GRAPH_OWNED_RELATION_TYPES, external_vectors=False)
    warmed = await warm_plans(Graph(graph.driver, plans=PlannedStatements(300.0)), serving)
    assert warmed.failed == [] and warmed.planned == warmed.statements == len(served)


async def test_an_index_change_has_every_statement_planned_again_while_the_service_stays_ready(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    await small_graph(builder, graph)
    explains = Explains(monkeypatch)
    plan_only(monkeypatch, SEARCH_STATEMENTS)
    async with warming_app(neo4j_uri) as (http, app):
        readiness = app.state.services.plan_readiness
        plans = readiness.graph.plans

        async def ready() -> bool:
            return (await http.get("/readyz")).status_code == 200

        await eventually(ready, "planned at start")
        forgotten, planned_before = plans.epoch, len(explains.planned)
        answers: list[int] = []
        probing = True

        async def probe() -> None:
            while probing:
                answers.append((await http.get("/readyz")).status_code)
                await asyncio.sleep(0.05)

        async def planned_again() -> bool:
            indexes = {
                (row["name"], row["state"])
                for row in await graph.read("SHOW INDEXES YIELD name, state RETURN name, state", {})
            }
            warmed = readiness.warmed
            return (
                plans.epoch > forgotten
                and warmed is not None
                and warmed.indexes == indexes
                and await unplanned(readiness.graph) == []
            )

        prober = asyncio.create_task(probe())
        try:
            # A load adds a label, and its two indexes: Neo4j then plans every statement again.
            await builder.version(
                "acme",
                ["Acme Hall stands."],
                mentions={"Acme Hall": [0]},
                labels={"Acme Hall": ["Venue"]},
            )
            await apply_schema(graph, TEST_DIMENSION)
            await eventually(planned_again, "planned again after the new label's indexes")
        finally:
            probing = False
            await prober
        assert len(explains.planned) >= planned_before + len(await served_now(graph))
        assert answers and set(answers) == {200}, answers
