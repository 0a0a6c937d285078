"""Faults are coded and survived (contract §7): Neo4j down at start, Neo4j stopped while requests
flow, an OpenAI-compatible embedder that refuses, times out or answers garbage. Every answer
is BACKEND_UNAVAILABLE or correct, `/readyz` is 503 meanwhile, and the same process answers
correctly again once the backend is back, without a restart. `/readyz` says ready, after start
and after Neo4j returns, only once every statement requests send is planned again
(api/plan_readiness.py). Recovery is polled for, with a deadline; nothing waits a fixed
time."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx
import neo4j
import pytest

from api.app import create_app
from api.plan_readiness import PlanReadiness
from contract.errors import BackendUnavailable
from embedding.openai_compatible import OpenAICompatibleEmbedder
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from graph.graph_schema import CONSTRAINTS, apply_schema
from localneo4j.server import free_port, start, stop
from tests.conftest import TEST_DIMENSION, serving, settings_for_tests, without_cost
from tests.support.failing_driver import deferred_graph_checks
from tests.support.graph_builder import GraphBuilder
from tests.support.planned import SEARCH_STATEMENTS, held_warming, plan_only, unplanned
from tests.test_embedding_openai import FakeEndpoint, Reply

RECOVERY_DEADLINE = 180.0  # seconds; a loaded 2-core machine restarts Neo4j in 20-90 s
ENTITY = "query($id: ID!) { entity(id: $id) { id name } }"
SEARCH = 'query { searchEntities(query: "ada", mode: SEMANTIC) { entity { name } } }'


def code_of(body: dict[str, Any]) -> str | None:
    errors = body.get("errors") or []
    return errors[0]["extensions"]["code"] if errors else None


async def eventually(check: Callable[[], Awaitable[bool]], what: str) -> float:
    """Poll `check` until it holds; the seconds it took. Fails after RECOVERY_DEADLINE."""
    started = time.monotonic()
    while not await check():
        assert time.monotonic() - started < RECOVERY_DEADLINE, f"never: {what}"
        await anyio.sleep(0.2)
    return time.monotonic() - started


async def test_neo4j_down_at_start_or_stopped_under_load_is_backend_unavailable_until_it_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan_only(monkeypatch, SEARCH_STATEMENTS)  # when warming happens is what is checked here
    warming = held_warming(monkeypatch)
    port = free_port()
    home = tmp_path / "neo4j"
    settings = settings_for_tests(f"bolt://127.0.0.1:{port}", PLAN_WARMING="true")
    app = create_app(settings)
    try:
        async with app.router.lifespan_context(app):  # Neo4j is not running yet
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:

                async def ask(query: str, **variables: Any) -> dict[str, Any]:
                    response = await http.post(
                        "/graphql", json={"query": query, "variables": variables}
                    )
                    body: dict[str, Any] = response.json()
                    return without_cost(body)

                async def ready() -> bool:
                    return (await http.get("/readyz")).status_code == 200

                # Down at start: coded, not ready, and the graph checks still to run.
                assert code_of(await ask("{ __typename }")) == "BACKEND_UNAVAILABLE"
                assert (await http.get("/readyz")).status_code == 503
                assert not app.state.services.graph_checks.passed

                await anyio.to_thread.run_sync(lambda: start(home, port=port, log=lambda _: None))
                started = await eventually(ready, "ready after Neo4j started")
                assert app.state.services.graph_checks.passed  # run when Neo4j came
                readiness = app.state.services.plan_readiness
                warmings_at_start = warming.warmings
                assert await unplanned(readiness.graph) == []
                ada = await write_ada(f"bolt://127.0.0.1:{port}")
                want = {"data": {"entity": {"id": ada, "name": "Ada"}}}
                assert await ask(ENTITY, id=ada) == want

                # Stopped while requests flow: every answer is correct or BACKEND_UNAVAILABLE.
                answers: dict[str, int] = {}
                unexpected: list[dict[str, Any]] = []
                flowing = True

                async def requests() -> None:
                    while flowing:
                        body = await ask(ENTITY, id=ada)
                        kind = "correct" if body == want else code_of(body) or "other"
                        answers[kind] = answers.get(kind, 0) + 1
                        if kind not in ("correct", "BACKEND_UNAVAILABLE"):
                            unexpected.append(body)
                        await anyio.sleep(0.05)

                async with anyio.create_task_group() as flow:
                    flow.start_soon(requests)
                    warming.clear()  # planning again after the restart waits for the test
                    await anyio.to_thread.run_sync(lambda: stop(home))
                    await eventually(lambda: not_ready(http), "/readyz 503 while Neo4j is stopped")
                    await eventually(
                        lambda: plans_not_ready(readiness), "plans not ready while it is stopped"
                    )
                    during = answers.get("BACKEND_UNAVAILABLE", 0)
                    await eventually(
                        lambda: more_than(answers, "BACKEND_UNAVAILABLE", during),
                        "BACKEND_UNAVAILABLE while Neo4j is stopped",
                    )
                    await anyio.to_thread.run_sync(
                        lambda: start(home, port=port, log=lambda _: None)
                    )
                    correct_before = answers.get("correct", 0)
                    recovered = await eventually(
                        lambda: more_than(answers, "correct", correct_before),
                        "correct answers after Neo4j returned",
                    )
                    flowing = False
                assert unexpected == [], unexpected
                # Neo4j answers, but /readyz waits until every statement is planned on it again.
                waiting = await http.get("/readyz")
                assert (waiting.status_code, waiting.json()["checks"]) == (
                    503,
                    {"neo4j": "ok", "embedder": "ok", "graph": "ok", "plans": "warming"},
                )
                warming.set()
                await eventually(ready, "ready after Neo4j returned")
                assert warming.warmings > warmings_at_start  # planned again on the new Neo4j
                assert await unplanned(readiness.graph) == []
                print(
                    f"ready {started:.1f} s after start; correct {recovered:.1f} s after restart;"
                    f" answers {answers}"
                )
    finally:
        await anyio.to_thread.run_sync(lambda: stop(home))


async def plans_not_ready(readiness: PlanReadiness) -> bool:
    return not readiness.ready


async def not_ready(http: httpx.AsyncClient) -> bool:
    return (await http.get("/readyz")).status_code == 503


async def more_than(answers: dict[str, int], kind: str, count: int) -> bool:
    return answers.get(kind, 0) > count


async def write_ada(uri: str) -> str:
    async with neo4j.AsyncGraphDatabase.driver(uri, auth=None) as driver:
        graph = Graph(driver)
        for statement in CONSTRAINTS:
            await graph.write(statement, {})
        builder = GraphBuilder(graph, dimension=TEST_DIMENSION)
        await builder.version("acme", ["Ada wrote."], mentions={"Ada": [0]})
        return builder.entity_id("Ada")


async def test_an_embedder_that_refuses_times_out_or_answers_garbage_is_backend_unavailable(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder
) -> None:
    await builder.version("acme", ["Ada wrote."], mentions={"Ada": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    endpoint = FakeEndpoint()
    endpoint.dimension = TEST_DIMENSION
    closed = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    try:
        async with serving(neo4j_uri, graph) as client:

            def use(url: str) -> None:
                remote = OpenAICompatibleEmbedder(
                    url=url, model="fake-embed", dimension=TEST_DIMENSION, timeout=0.5, attempts=1
                )
                client.services.query_embedder = QueryEmbedder(remote)

            use(closed)
            assert code_of(await client.execute(SEARCH)) == "BACKEND_UNAVAILABLE"  # refused
            use(endpoint.base + "/v1")
            for fault in (
                Reply(200, b"not json"),
                Reply(200, {"data": [{"index": 0, "embedding": ["x"] * TEST_DIMENSION}]}),
                Reply(200, {"data": [{"index": 0, "embedding": [0.1] * 3}]}),
                Reply(401, {"error": "bad key"}),
                Reply(503, {"error": "overloaded"}),
                Reply(200, {"data": []}, delay=2.0),  # longer than the client's timeout
            ):
                endpoint.script = [fault]
                body = await client.execute(SEARCH)
                assert code_of(body) == "BACKEND_UNAVAILABLE", (fault, body)
                assert "fake-embed" not in str(body) and "127.0.0.1" not in str(body)
            endpoint.script = []
            recovered = await client.execute(SEARCH)  # the same process, the same embedder
            assert without_cost(recovered) == {
                "data": {"searchEntities": [{"entity": {"name": "Ada"}}]}
            }
    finally:
        endpoint.close()


async def test_graph_checks_skipped_at_start_run_when_neo4j_answers_and_a_mismatch_is_coded(
    graph: Graph, builder: GraphBuilder
) -> None:
    """Neo4j down at start: the embedder check runs at the first request Neo4j answers; a
    mismatch it finds then is BACKEND_UNAVAILABLE for every request, never INTERNAL."""
    await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    await apply_schema(graph, TEST_DIMENSION)  # 8-dimensional vector indexes
    for dimension, fits in ((TEST_DIMENSION, True), (16, False)):
        checks = await deferred_graph_checks(dimension)
        with pytest.raises(BackendUnavailable):
            await checks.ensure()
        checks.graph = graph  # Neo4j answers now
        if fits:
            await checks.ensure()
            assert checks.passed
        else:
            for _ in range(2):  # found once, then answered without asking Neo4j again
                with pytest.raises(BackendUnavailable, match="does not fit"):
                    await checks.ensure()
            assert not checks.passed and "16-dimensional" in (checks.mismatch or "")
