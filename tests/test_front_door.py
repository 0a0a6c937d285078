"""The front door on the real service (api/front_door/door.py, issue 27): cost limits refused before
any statement, admission refusing only when the queue is full, rate limits per caller,
persisted operations (APQ and trusted documents), the cost in every answer, and hostile
documents refused with a code, never a 5xx."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.app import create_app
from api.front_door.persisted_queries import sha256_hex
from api.front_door.trusted_documents import MANIFEST_NAME, manifest_of
from api.settings import Settings, SettingsError
from graph.driver import Graph
from tests.conftest import Client, serving
from tests.conftest import settings_for_tests as settings_for
from tests.support.graph_builder import GraphBuilder, new_id

ACME_KEY = "front-door-acme-4f3e2d1c0b9a8f7e"
OTHER_KEY = "front-door-other-0a1b2c3d4e5f6a7b"
GRAPHQL_RESPONSE = {"accept": "application/graphql-response+json"}
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def max_walk(entity_id: str) -> str:
    """A walk at every bound's maximum, selecting only ids."""
    return (
        f'walk(entityId: "{entity_id}", depth: 2, maxNodes: 500, maxEdges: 1000,'
        " maxCandidates: 5000) { nodes { id } edges { id } }"
    )


def cost_bomb() -> str:
    """The issue's cost bomb: 30 aliases of maximum-bound walks."""
    return "{ " + " ".join(f"w{i}: " + max_walk(new_id()) for i in range(30)) + " }"


def bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}", **GRAPHQL_RESPONSE}


@pytest.fixture
def keys_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({ACME_KEY: ["acme"], OTHER_KEY: ["acme"]}))
    return path


def code(body: Mapping[str, Any]) -> str:
    return str(body["errors"][0]["extensions"]["code"])


async def test_a_cost_bomb_is_refused_before_any_statement_and_others_keep_working(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, keys_file: Path
) -> None:
    ada = await builder.version("acme", ["Ada wrote notes."], mentions={"Ada": [0]})
    del ada
    bomb = cost_bomb()
    settings_ = {"AUTH_MODE": "apikeys", "AUTH_API_KEYS_FILE": str(keys_file)}
    async with serving(neo4j_uri, graph, **settings_) as client:
        client.statements.clear()
        refused = await client.http.post("/graphql", json={"query": bomb}, headers=bearer(ACME_KEY))
        assert client.statements == []  # no Bolt statement reached Neo4j
        body = refused.json()
        assert refused.status_code == 400
        assert code(body) == "COST_LIMIT_EXCEEDED"
        limit = client.app.state.front_door.max_cost
        cost = body["errors"][0]["extensions"]["cost"]
        assert cost > limit
        assert f"is {cost}" in body["errors"][0]["message"]
        assert str(limit) in body["errors"][0]["message"]
        assert body["extensions"]["cost"]["requestedQueryCost"] == cost
        normal = await client.execute(
            f'{{ entity(id: "{builder.entity_id("Ada")}") {{ name }} }}',
            headers=bearer(OTHER_KEY),
        )
        assert normal["data"] == {"entity": {"name": "Ada"}}
        assert client.statements != []


async def test_a_cost_bomb_sent_again_at_once_is_refused_after_a_pause_holding_nothing(
    client: Client, builder: GraphBuilder
) -> None:
    await builder.version("acme", ["Ada wrote notes."], mentions={"Ada": [0]})
    admission = client.app.state.front_door.admission
    pauses: list[float] = []

    async def recorded(seconds: float) -> None:
        pauses.append(seconds)
        assert admission.executing == 0  # the pause holds no slot
        client.clock.advance(seconds)  # as a real pause would

    admission.sleep, admission.clock = recorded, client.clock
    bomb = cost_bomb()
    for _ in range(3):  # the test's client is one connection
        assert code(await client.execute(bomb)) == "COST_LIMIT_EXCEEDED"
    pause = admission.refusal_pause
    assert pauses == [pause, 2 * pause]  # the first at once, each return after it, longer
    answer = await client.execute(f'{{ entity(id: "{builder.entity_id("Ada")}") {{ name }} }}')
    assert answer["data"] == {"entity": {"name": "Ada"}}
    assert len(pauses) == 2  # an answer is never paused


async def test_a_callers_cost_bombs_on_several_connections_take_turns(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, keys_file: Path
) -> None:
    settings_ = {"AUTH_MODE": "apikeys", "AUTH_API_KEYS_FILE": str(keys_file)}
    async with serving(neo4j_uri, graph, **settings_) as client:
        admission = client.app.state.front_door.admission
        pauses: list[float] = []

        async def recorded(seconds: float) -> None:
            pauses.append(seconds)

        admission.sleep, admission.clock = recorded, client.clock  # time stands still

        async def bomb_from(port: int, key: str) -> str:
            transport = httpx.ASGITransport(app=client.app, client=("127.0.0.1", port))
            async with httpx.AsyncClient(transport=transport, base_url="http://x") as http:
                answer = await http.post(
                    "/graphql", json={"query": cost_bomb()}, headers=bearer(key)
                )
            return code(answer.json())

        # Three connections of one key, each sending its first bomb: answered in turn.
        assert [await bomb_from(port, ACME_KEY) for port in (50001, 50002, 50003)] == [
            "COST_LIMIT_EXCEEDED"
        ] * 3
        pause = admission.refusal_pause
        assert pauses == [pause, 3 * pause]  # turns one pause apart, then two
        # Another key's first bomb, on its own connection, is not held up by those turns.
        assert await bomb_from(50004, OTHER_KEY) == "COST_LIMIT_EXCEEDED"
        assert pauses == [pause, 3 * pause]


async def test_every_answer_reports_its_cost(client: Client, builder: GraphBuilder) -> None:
    await builder.version("acme", ["Ada wrote notes."], mentions={"Ada": [0]})
    query = f'{{ entity(id: "{builder.entity_id("Ada")}") {{ name evidence(limit: 2) {{ id }} }} }}'
    body = await client.execute(query)
    # entity: 1 read + 1 object; evidence: 1 read + 2 passages
    assert body["extensions"]["cost"] == {"requestedQueryCost": 5, "maximumCost": 50_000}
    refused = await client.execute("{ nope }")
    assert refused["extensions"]["cost"]["requestedQueryCost"] == 0


async def test_every_example_document_fits_the_default_cost_limit_at_its_largest_bounds(
    client: Client,
) -> None:
    largest = {
        "limit": 100,
        "supportLimit": 10,
        "evidenceLimit": 10,
        "depth": 2,
        "maxNodes": 500,
        "maxEdges": 1000,
        "maxCandidates": 5000,
        "id": new_id(),
        "entityId": new_id(),
        "query": "ada",
    }
    for path in sorted(EXAMPLES.glob("*.graphql")):
        body = await client.execute(path.read_text(), largest)
        assert "COST_LIMIT_EXCEEDED" not in json.dumps(body), path.name


class Gate:
    """Holds every statement until the test opens it: the slots stay taken while it waits."""

    def __init__(self, graph: Graph, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = asyncio.Event()
        self.opened = asyncio.Event()
        read = graph.read

        async def gated(query: Any, parameters: Any) -> Any:
            self.entered.set()
            await self.opened.wait()
            return await read(query, parameters)

        monkeypatch.setattr(graph, "read", gated)


class QueueWatch:
    """An admission observer: `queued` is set once an operation waits for a slot."""

    def __init__(self) -> None:
        self.queued = asyncio.Event()

    def changed(self, executing: int, waiting: int) -> None:
        if waiting:
            self.queued.set()

    def waited(self, seconds: float) -> None:
        pass

    def refused(self, reason: str) -> None:
        pass


async def test_overloaded_only_when_the_queue_is_full(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    await builder.version("acme", ["Ada wrote notes."], mentions={"Ada": [0]})
    query = f'{{ entity(id: "{builder.entity_id("Ada")}") {{ name }} }}'
    limits = {
        "GRAPHQL_MAX_CONCURRENT_OPERATIONS": "1",
        "GRAPHQL_QUEUE_LENGTH": "1",
        "GRAPHQL_QUEUE_WAIT_SECONDS": "3600",
    }
    async with serving(neo4j_uri, graph, **limits) as client:
        admission = client.app.state.front_door.admission
        admission.observer = watch = QueueWatch()
        gate = Gate(graph, monkeypatch)

        def send() -> asyncio.Task[Any]:
            return asyncio.create_task(
                client.http.post("/graphql", json={"query": query}, headers=GRAPHQL_RESPONSE)
            )

        executing = send()
        await gate.entered.wait()  # it holds the one slot
        queued = send()
        await watch.queued.wait()  # it has reached the queue
        refused = await client.http.post(
            "/graphql", json={"query": query}, headers=GRAPHQL_RESPONSE
        )
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "1"
        assert code(refused.json()) == "OVERLOADED"
        gate.opened.set()
        for task in (executing, queued):
            answer = await task
            assert answer.status_code == 200
            assert answer.json()["data"] == {"entity": {"name": "Ada"}}
        assert admission.executing == 0 and admission.waiting == 0


async def test_one_caller_over_its_rate_is_throttled_and_another_is_not(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, keys_file: Path
) -> None:
    await builder.version("acme", ["Ada wrote notes."], mentions={"Ada": [0]})
    query = '{ searchPassages(query: "ada", limit: 100, mode: LEXICAL) { score } }'  # costs 200
    settings_ = {
        "AUTH_MODE": "apikeys",
        "AUTH_API_KEYS_FILE": str(keys_file),
        "GRAPHQL_MAX_COST": "200",
        "GRAPHQL_RATE_LIMIT_PER_MINUTE": "600",
    }
    async with serving(neo4j_uri, graph, **settings_) as client:
        client.app.state.front_door.rate_limits.clock = client.clock
        for _ in range(3):  # 3 × 200: the minute's points
            spent = await client.http.post(
                "/graphql", json={"query": query}, headers=bearer(ACME_KEY)
            )
            assert spent.status_code == 200, spent.json()
        client.statements.clear()
        throttled = await client.http.post(
            "/graphql", json={"query": query}, headers=bearer(ACME_KEY)
        )
        assert throttled.status_code == 429
        assert code(throttled.json()) == "RATE_LIMITED"
        assert throttled.headers["retry-after"] == "20"  # 200 points at 10 a second
        assert client.statements == []
        other = await client.http.post("/graphql", json={"query": query}, headers=bearer(OTHER_KEY))
        assert other.status_code == 200
        assert other.json()["extensions"]["cost"]["throttleStatus"]["currentlyAvailable"] == 400
        client.clock.advance(20)
        again = await client.http.post("/graphql", json={"query": query}, headers=bearer(ACME_KEY))
        assert again.status_code == 200


async def test_an_automatic_persisted_query_misses_then_hits(
    client: Client, builder: GraphBuilder
) -> None:
    await builder.version("acme", ["Ada wrote notes."], mentions={"Ada": [0]})
    query = f'{{ entity(id: "{builder.entity_id("Ada")}") {{ name }} }}'
    persisted = {"persistedQuery": {"version": 1, "sha256Hash": sha256_hex(query)}}
    missed = await client.http.post("/graphql", json={"extensions": persisted})
    assert missed.json()["errors"][0]["message"] == "PersistedQueryNotFound"
    assert code(missed.json()) == "PERSISTED_QUERY_NOT_FOUND"
    registered = await client.http.post("/graphql", json={"query": query, "extensions": persisted})
    assert registered.json()["data"] == {"entity": {"name": "Ada"}}
    hit = await client.http.post("/graphql", json={"extensions": persisted})
    assert hit.json()["data"] == {"entity": {"name": "Ada"}}
    wrong = {"persistedQuery": {"version": 1, "sha256Hash": sha256_hex(query + " ")}}
    mismatch = await client.http.post("/graphql", json={"query": query, "extensions": wrong})
    assert code(mismatch.json()) == "MALFORMED"


async def test_a_persisted_query_over_get_may_be_kept_only_by_the_callers_own_cache(
    client: Client, builder: GraphBuilder
) -> None:
    await builder.version("acme", ["Ada wrote notes."], mentions={"Ada": [0]})
    query = f'{{ entity(id: "{builder.entity_id("Ada")}") {{ name }} }}'
    persisted = {"persistedQuery": {"version": 1, "sha256Hash": sha256_hex(query)}}
    await client.http.post("/graphql", json={"query": query, "extensions": persisted})
    answer = await client.http.get(
        "/graphql", params={"extensions": json.dumps(persisted)}, headers=GRAPHQL_RESPONSE
    )
    assert answer.status_code == 200
    assert answer.json()["data"] == {"entity": {"name": "Ada"}}
    assert answer.headers["cache-control"] == "private"
    assert answer.headers["vary"] == "Authorization"


async def test_trusted_documents_answer_the_manifest_and_refuse_anything_else(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, tmp_path: Path
) -> None:
    await builder.version("acme", ["Ada wrote notes."], mentions={"Ada": [0]})
    manifest = tmp_path / MANIFEST_NAME
    known = "query Labels { entityLabels { label } }"
    body = manifest_of([known])["operations"][0]["body"]  # type: ignore[index]
    manifest.write_text(json.dumps(manifest_of([known])))
    async with serving(neo4j_uri, graph, GRAPHQL_TRUSTED_DOCUMENTS=str(manifest)) as client:
        by_hash = {"persistedQuery": {"version": 1, "sha256Hash": sha256_hex(body)}}
        answered = await client.http.post("/graphql", json={"extensions": by_hash})
        assert "data" in answered.json()
        assert "data" in (await client.http.post("/graphql", json={"query": body})).json()
        client.statements.clear()
        unknown = await client.http.post(
            "/graphql",
            json={"query": "{ entityLabels { label fulltextIndex } }"},
            headers=GRAPHQL_RESPONSE,
        )
        assert unknown.status_code == 400
        assert code(unknown.json()) == "QUERY_NOT_IN_SAFELIST"
        other = {"persistedQuery": {"version": 1, "sha256Hash": sha256_hex("{ x }")}}
        missing = await client.http.post("/graphql", json={"extensions": other})
        assert code(missing.json()) == "PERSISTED_QUERY_NOT_FOUND"
        registering = await client.http.post(
            "/graphql", json={"query": "{ x }", "extensions": other}
        )
        assert code(registering.json()) == "QUERY_NOT_IN_SAFELIST"
        assert client.statements == []


async def test_trusted_documents_from_several_manifests_answer_every_ones_documents(
    neo4j_uri: str, graph: Graph, tmp_path: Path
) -> None:
    """GRAPHQL_TRUSTED_DOCUMENTS names several manifests, comma-separated: the examples' and
    the explorer's side by side (docs/operations.md), each one's documents answered."""
    labels, workspaces = "query Labels { entityLabels { label } }", "query W { grantedWorkspaces }"
    paths = []
    for name, text in (("one", labels), ("two", workspaces)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(manifest_of([text])))
        paths.append(str(path))
    async with serving(neo4j_uri, graph, GRAPHQL_TRUSTED_DOCUMENTS=" , ".join(paths)) as client:
        for text in (labels, workspaces):
            digest = sha256_hex(manifest_of([text])["operations"][0]["body"])  # type: ignore[index]
            by_hash = {"persistedQuery": {"version": 1, "sha256Hash": digest}}
            answered = (await client.http.post("/graphql", json={"extensions": by_hash})).json()
            assert "errors" not in answered and answered["data"], answered
        refused = await client.http.post("/graphql", json={"query": "{ entityLabels { label } }"})
        assert code(refused.json()) == "QUERY_NOT_IN_SAFELIST"


@pytest.mark.parametrize(
    "entry",
    [
        {"id": sha256_hex("{ x }"), "name": "X", "type": "query", "body": "{ y }"},
        {"id": sha256_hex("{ x }"), "name": "X", "type": "query"},
        "{ x }",
    ],
    ids=["id not the body's hash", "no body", "not an object"],
)
def test_a_bad_entry_in_any_trusted_manifest_stops_start_up_naming_the_file_and_entry(
    neo4j_uri: str, tmp_path: Path, entry: object
) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(manifest_of(["query Labels { entityLabels { label } }"])))
    body = "{ grantedWorkspaces }"
    first = {"id": sha256_hex(body), "name": None, "type": "query", "body": body}
    bad.write_text(json.dumps({**manifest_of([]), "operations": [first, entry]}))
    trusted = f"{good},{bad}"
    with pytest.raises(SettingsError, match=rf"{re.escape(str(bad))}: operation #2 needs"):
        create_app(settings_for(neo4j_uri, GRAPHQL_TRUSTED_DOCUMENTS=trusted))


def test_trusted_documents_set_to_no_file_stops_start_up() -> None:
    with pytest.raises(SettingsError, match="must name at least one file"):
        Settings.from_environ({"GRAPHQL_TRUSTED_DOCUMENTS": " , "})


def test_the_examples_ship_their_manifest() -> None:
    texts = [path.read_text() for path in sorted(EXAMPLES.glob("*.graphql"))]
    shipped = json.loads((EXAMPLES / MANIFEST_NAME).read_text())
    assert shipped == manifest_of(texts), (
        "run `python -m api.front_door.trusted_documents examples`"
    )


async def test_metrics_and_the_request_log_show_cost_queue_and_refusals(
    neo4j_uri: str, graph: Graph, caplog: pytest.LogCaptureFixture
) -> None:
    async with serving(neo4j_uri, graph, METRICS_ENABLED="true", GRAPHQL_MAX_COST="5") as client:
        with caplog.at_level(logging.INFO, logger="evidencegraph.request"):
            await client.execute("{ entityLabels { label } }")
            await client.execute('{ searchPassages(query: "x") { score } }')
        lines = [
            getattr(r, "fields", {}) for r in caplog.records if r.name == "evidencegraph.request"
        ]
        assert [(line["cost"], line["errorCode"]) for line in lines] == [
            (2, None),
            (20, "COST_LIMIT_EXCEEDED"),
        ]
        assert lines[0]["queueMs"] is not None
        metrics = (await client.http.get("/metrics")).text
        assert "evidencegraph_request_cost_count 2.0" in metrics
        assert "evidencegraph_operations_queued 0.0" in metrics
        assert "evidencegraph_queue_wait_seconds_count 2.0" in metrics
        assert 'evidencegraph_errors_total{code="COST_LIMIT_EXCEEDED"} 1.0' in metrics


async def test_a_null_variable_where_a_bound_is_expected_is_malformed(client: Client) -> None:
    # Validation allows a nullable variable where a non-null argument has a default; the
    # value null then fails at the field, during execution.
    document = (
        f'query Q($n: Int) {{ walk(entityId: "{new_id()}", maxNodes: $n) {{ truncatedBy }} }}'
    )
    body = await client.execute(document, {"n": None})
    assert [error["extensions"]["code"] for error in body["errors"]] == ["MALFORMED"]
    assert "maxNodes" in body["errors"][0]["message"]


HOSTILE = [
    # Deep nesting, far past GRAPHQL_MAX_DEPTH.
    '{ walk(entityId: "x") { ' + "edges { source { evidence { document { id } } } } " * 1 + "} }",
    "{ " + "a { " * 200 + "id" + " }" * 200 + " }",
    # Huge alias counts, of cheap fields and of the most expensive ones.
    "{ " + " ".join(f"a{i}: entityLabels {{ label }}" for i in range(500)) + " }",
    "{ " + " ".join(f"w{i}: " + max_walk("x") for i in range(30)) + " }",
    # Fragment cycles, direct and through another fragment.
    '{ entity(id: "x") { ...A } } fragment A on Entity { ...A }',
    '{ entity(id: "x") { ...A } } fragment A on Entity { ...B } fragment B on Entity { ...A }',
    "query { " + "__typename " * 5000 + "}",
]


@pytest.mark.parametrize("document", HOSTILE)
async def test_hostile_documents_are_refused_with_a_code_never_a_5xx(
    client: Client, document: str
) -> None:
    answer = await client.http.post("/graphql", json={"query": document}, headers=GRAPHQL_RESPONSE)
    assert answer.status_code < 500
    body = answer.json()
    assert all(error["extensions"]["code"] for error in body.get("errors", []))


def generated_documents() -> list[tuple[str, dict[str, object]]]:
    """Documents hypothesis builds: many aliases of walks, nested selections, fragments,
    variables of any value (drawn here, sent by the async test that calls this)."""
    documents: list[tuple[str, dict[str, object]]] = []

    @settings(max_examples=60, database=None, suppress_health_check=list(HealthCheck))
    @given(
        aliases=st.integers(1, 80),
        nesting=st.integers(0, 12),
        through_fragments=st.booleans(),
        limit=st.one_of(st.integers(-5, 10**12), st.text(max_size=3), st.none()),
    )
    def collect(aliases: int, nesting: int, through_fragments: bool, limit: object) -> None:
        selection = "id"
        for level in range(nesting):
            selection = f"id e{level}: evidence {{ id document {{ id }} }} x{level}: labels"
            selection = "nodes { " + selection + " } edges { source { " + selection + " } }"
            selection = selection if level == 0 else selection.replace("nodes", "nodes", 1)
        walk = f'walk(entityId: "x", maxNodes: $limit, depth: 2) {{ {selection} }}'
        fields = " ".join(f"a{i}: {walk}" for i in range(aliases))
        if through_fragments:
            document = f"query Q($limit: Int) {{ ...R }} fragment R on Query {{ {fields} }}"
        else:
            document = f"query Q($limit: Int) {{ {fields} }}"
        documents.append((document, {"limit": limit}))

    collect()
    return documents


async def test_generated_documents_are_answered_or_refused_with_a_code(client: Client) -> None:
    for document, variables in generated_documents():
        answer = await client.http.post(
            "/graphql",
            json={"query": document, "variables": variables},
            headers=GRAPHQL_RESPONSE,
        )
        assert answer.status_code < 500, document
        for error in answer.json().get("errors", []):
            assert error["extensions"]["code"] in {
                "MALFORMED",
                "COST_LIMIT_EXCEEDED",
                "UNAVAILABLE",
            }, (document, error)
