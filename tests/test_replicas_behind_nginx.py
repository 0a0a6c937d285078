"""The scale-out run for real (docs/operations.md, "Replicas behind nginx, without Docker";
contract §7): three `evidencegraph serve` processes behind Debian's nginx with
docker/nginx.conf's rules, the session's Neo4j, and a Redis 7 they share as FRONT_DOOR_STORE
(tests/support/replicas.py).

- A key's budget holds across the replicas: requests spread over the three spend one budget,
  and refusals start within 10% of it.
- A persisted query registered through one replica is a hit through the others.
- A replica killed under load: nginx sends its requests to the others, clients see no error,
  its `/readyz` is gone, and once restarted and ready it answers through nginx again.
- Redis stopped under load, then started again: the front door fails open to each process,
  which then runs exactly the code of an unset FRONT_DOOR_STORE: every request is answered,
  a key's refusals start near 3 times its budget (each replica its own), a query registered
  through one replica is unknown to another; once Redis is back every replica uses it again
  (the seconds it took are noted) and the budget is one again.

The limits are small so the module stays fast: a budget of `BUDGET_REQUESTS` costly searches a
minute, spent by a few clients at once (a budget's 10% comes back in 6 s), and the load is cheap
searches that such a budget does not limit. The figures of a run land in
test-output/scale-out.json.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphql import parse

from api.front_door.persisted_queries import sha256_hex
from api.front_door.query_cost import operation_cost
from api.schema import create_schema
from graph.driver import Graph
from tests.conftest import TEST_DIMENSION
from tests.support.graph_builder import GraphBuilder
from tests.support.node_tools import REPOSITORY
from tests.support.operations_app import three_people
from tests.support.replicas import Replica, ScaleOut, replicas_behind_nginx
from tests.support.serving import PROCESS_WAIT

BUDGET_SEARCH = """
query Budget($query: String!) {
  searchEntities(query: $query, limit: 100, supportLimit: 10) { entity { id name } evidence { id } }
}
"""
LOAD_SEARCH = """
query Load($query: String!) { searchEntities(query: $query, limit: 5) { entity { id name } } }
"""
VARIABLES = {"query": "ada lovelace"}
LABELS = "query Labels { entityLabels { label } }"
BUDGET_REQUESTS = 30  # costly searches a key may send a minute
_SCHEMA = create_schema([])._schema
BUDGET_COST = operation_cost(_SCHEMA, parse(BUDGET_SEARCH), None, VARIABLES)
LOAD_COST = operation_cost(_SCHEMA, parse(LOAD_SEARCH), None, VARIABLES)
KEYS = {
    name: f"replicas-{name}-key-0123456789abcdef"
    for name in ("warm", "budget", "apart", "persisted", "killed", "outage", "after")
}
CLIENTS = 4  # concurrent clients of the load
# Each waits this long between its answer and its next request: a load the replicas feel, that
# leaves a restarted replica the CPU to start on a busy 2-core machine.
LOAD_PAUSE_SECONDS = 0.02
SPENDERS = 3  # clients spending a budget at once
REQUESTS = "evidencegraph_requests_total"
STORE_UP = "evidencegraph_front_door_store_up"
STORE_LOCAL = "evidencegraph_front_door_store_local_total"
OUTPUT = REPOSITORY / "test-output" / "scale-out.json"
FIGURES: dict[str, object] = {}


def settings(keys_file: Path) -> dict[str, str]:
    return {
        "AUTH_MODE": "apikeys",
        "AUTH_API_KEYS_FILE": str(keys_file),
        "GRAPHQL_MAX_COST": str(BUDGET_COST),
        "GRAPHQL_RATE_LIMIT_PER_MINUTE": str(BUDGET_REQUESTS * BUDGET_COST),
        # The first statements are planned at their first run on a busy machine; these tests
        # are not about those limits.
        "NEO4J_QUERY_TIMEOUT_SECONDS": "120",
        "REQUEST_TIMEOUT_SECONDS": "150",
        # A store that answers late is tested apart (tests/test_front_door_store.py, with a
        # frozen Redis); here a busy machine must not pass for an outage.
        "FRONT_DOOR_STORE_TIMEOUT_SECONDS": "2",
    }


def headers(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {KEYS[key]}", "accept": "application/json"}


async def ask(
    http: httpx.AsyncClient, url: str, key: str, body: dict[str, Any]
) -> tuple[int, dict[str, Any]]:
    answer = await http.post(url + "/graphql", json=body, headers=headers(key))
    try:
        return answer.status_code, answer.json()
    except ValueError:  # not the service's answer: nginx's own error page, say
        return answer.status_code, {"unreadable": answer.text[:300]}


def codes(body: dict[str, Any]) -> list[str]:
    return [error.get("extensions", {}).get("code") for error in body.get("errors") or []]


def answered(status: int, body: dict[str, Any]) -> bool:
    """A search answered with its hits: 200, data, no error."""
    return status == 200 and not body.get("errors") and bool(body["data"]["searchEntities"])


async def spend_budget(url: str, key: str) -> int:
    """Costly searches sent through `url` by `SPENDERS` clients, each its next when the last is
    answered, until the first is refused: how many were answered in all. Anything but an answer
    or RATE_LIMITED fails the test. (Several at once spend the budget sooner, so fewer of its
    points come back meanwhile.)"""
    body = {"query": BUDGET_SEARCH, "variables": VARIABLES}
    refused = asyncio.Event()
    taken = 0

    async def spender(http: httpx.AsyncClient) -> None:
        nonlocal taken
        while not refused.is_set() and taken < 5 * BUDGET_REQUESTS:
            status, answer = await ask(http, url, key, body)
            if codes(answer) == ["RATE_LIMITED"]:
                refused.set()
                return
            assert answered(status, answer), (status, answer)
            taken += 1

    async with httpx.AsyncClient(timeout=PROCESS_WAIT) as http:
        await asyncio.gather(*(spender(http) for _ in range(SPENDERS)))
    assert refused.is_set(), f"no refusal within {5 * BUDGET_REQUESTS} requests"
    return taken


async def metric(replica: Replica, name: str) -> float:
    return await asyncio.to_thread(replica.metric, name)


async def wait_until(condition: Callable[[], Awaitable[bool]], what: str) -> float:
    """Poll `condition` until it holds; the seconds it took. Fails after PROCESS_WAIT."""
    started = time.monotonic()
    while not await condition():
        if time.monotonic() - started > PROCESS_WAIT:
            pytest.fail(f"no {what} within {PROCESS_WAIT:g} s")
        await asyncio.sleep(0.05)
    return time.monotonic() - started


class Load:
    """`CLIENTS` clients sending cheap searches through nginx, each its next when the last is
    answered, until the block ends; every answer that is not a search's hits is kept."""

    def __init__(self, url: str, key: str) -> None:
        self.url = url
        self.key = key
        self.count = 0
        self.failures: list[tuple[int, object]] = []
        self.stopping = asyncio.Event()

    async def client(self, http: httpx.AsyncClient) -> None:
        body = {"query": LOAD_SEARCH, "variables": VARIABLES}
        while not self.stopping.is_set():
            try:
                status, answer = await ask(http, self.url, self.key, body)
            except httpx.HTTPError as error:
                self.failures.append((0, repr(error)))
                continue
            if not answered(status, answer):
                self.failures.append((status, answer))
            self.count += 1
            await asyncio.sleep(LOAD_PAUSE_SECONDS)

    async def reaches(self, count: int) -> None:
        """Return once `count` answers in all have come back."""

        async def enough() -> bool:
            return self.count >= count

        await wait_until(enough, f"{count} answers of the load")

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, url: str, key: str) -> AsyncIterator[Load]:
        load = cls(url, key)
        limits = httpx.Limits(max_connections=CLIENTS)
        async with httpx.AsyncClient(timeout=PROCESS_WAIT, limits=limits) as http:
            tasks = [asyncio.create_task(load.client(http)) for _ in range(CLIENTS)]
            try:
                yield load
            finally:
                load.stopping.set()
                await asyncio.gather(*tasks)


# The scale-outs ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def known_people(module_graph: Graph) -> Graph:
    await three_people(GraphBuilder(module_graph, dimension=TEST_DIMENSION), module_graph)
    return module_graph


@pytest.fixture(scope="module")
def keys_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replica-keys") / "keys.json"
    path.write_text(json.dumps({key: ["acme"] for key in KEYS.values()}))
    return path


@contextlib.contextmanager
def scale_out(neo4j_uri: str, folder: Path, keys_file: Path, *, store: bool) -> Iterator[ScaleOut]:
    """Three replicas behind nginx, each asked once (its statements planned) before a test."""
    with replicas_behind_nginx(neo4j_uri, folder, settings(keys_file), store=store) as scale:
        first = scale.replicas[0]
        with httpx.Client(timeout=PROCESS_WAIT) as http:
            # Neo4j plans a statement once for every replica: each search through one, then a
            # search through each (its connections to Neo4j opened).
            asked = [(first, BUDGET_SEARCH)] + [(each, LOAD_SEARCH) for each in scale.replicas]
            for replica, search in asked:
                body = {"query": search, "variables": VARIABLES}
                answer = http.post(replica.url + "/graphql", json=body, headers=headers("warm"))
                assert answered(answer.status_code, answer.json()), answer.text
        yield scale


@pytest.fixture(scope="module")
def shared(
    known_people: Graph, neo4j_uri: str, keys_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ScaleOut]:
    """The replicas sharing a Redis (FRONT_DOOR_STORE)."""
    folder = tmp_path_factory.mktemp("scale-out-shared")
    with scale_out(neo4j_uri, folder, keys_file, store=True) as scale:
        yield scale


@pytest.fixture(scope="module", autouse=True)
def figures() -> Iterator[None]:
    yield
    if FIGURES:
        OUTPUT.parent.mkdir(exist_ok=True)
        OUTPUT.write_text(json.dumps(FIGURES, indent=2) + "\n")


# A key's budget --------------------------------------------------------------------------------


async def test_a_keys_budget_holds_across_three_replicas(shared: ScaleOut) -> None:
    before = [await metric(replica, REQUESTS) for replica in shared.replicas]
    taken = await spend_budget(shared.proxy.url, "budget")
    after = [await metric(replica, REQUESTS) for replica in shared.replicas]
    FIGURES["budget_shared"] = {"limit": BUDGET_REQUESTS, "answered_before_refusal": taken}
    assert abs(taken - BUDGET_REQUESTS) <= BUDGET_REQUESTS / 10, taken
    assert all(b > a for a, b in zip(before, after, strict=True)), (before, after)  # all three


# Persisted queries -----------------------------------------------------------------------------


def by_hash(query: str, with_text: bool) -> dict[str, Any]:
    extensions = {"persistedQuery": {"version": 1, "sha256Hash": sha256_hex(query)}}
    variables = VARIABLES if "$query" in query else {}
    body: dict[str, Any] = {"variables": variables, "extensions": extensions}
    if with_text:
        body["query"] = query
    return body


async def test_a_persisted_query_registered_through_one_replica_is_a_hit_through_the_others(
    shared: ScaleOut,
) -> None:
    first, *others = shared.replicas
    async with httpx.AsyncClient(timeout=PROCESS_WAIT) as http:
        registered = await ask(http, first.url, "persisted", by_hash(LOAD_SEARCH, True))
        hits = [
            await ask(http, url, "persisted", by_hash(LOAD_SEARCH, False))
            for url in [replica.url for replica in others] + [shared.proxy.url] * 3
        ]
    assert answered(*registered), registered
    for hit in hits:
        assert answered(*hit), hit


# Failures under load ----------------------------------------------------------------------------


async def test_a_replica_killed_under_load_costs_clients_nothing_and_comes_back_restarted(
    shared: ScaleOut,
) -> None:
    """Killed mid-request: frozen first, so that nginx has sent it requests it holds
    unanswered, then SIGKILL. nginx sends each of those to another replica (docker/nginx.conf:
    every request here is a read, so a POST is sent again), and the client sees its answer."""
    victim = shared.replicas[1]
    async with Load.running(shared.proxy.url, "killed") as load:
        await load.reaches(20)
        victim.freeze()

        async def holding() -> bool:
            return await asyncio.to_thread(victim.holds_a_request)

        await wait_until(holding, "request sent to the frozen replica")
        victim.kill()
        killed_at = load.count
        out_of_service = not await asyncio.to_thread(victim.ready)
        await load.reaches(killed_at + 60)  # answered by the others meanwhile
        victim.start()
        await asyncio.to_thread(victim.wait_ready)
        restarted_at = load.count

        async def answering() -> bool:
            return await metric(victim, REQUESTS) > 0  # a new process counts from zero

        back_after = await wait_until(answering, "request answered by the restarted replica")
    FIGURES["replica_killed"] = {
        "answers": load.count,
        "after_kill_before_restart": restarted_at - killed_at,
        "errors": len(load.failures),
        "seconds_until_the_restarted_replica_answers_through_nginx": round(back_after, 2),
    }
    assert out_of_service
    assert load.failures == [], load.failures[:5]


async def test_redis_stopped_under_load_each_replica_answers_on_its_own_until_it_returns(
    shared: ScaleOut,
) -> None:
    """The rule of contract §7: while the store cannot be reached, each replica answers from
    its own memory, exactly as without a store (FRONT_DOOR_STORE unset runs the same code):
    every request is answered, a key's budget is each replica's own (refusals start near 3
    times it), a query registered through one replica is unknown to another. Once Redis is
    back, every replica uses it again and the budget is one again."""
    redis = shared.redis
    assert redis is not None
    first, second, _ = shared.replicas

    async def every_replica(up: float) -> bool:
        return all([await metric(replica, STORE_UP) == up for replica in shared.replicas])

    async def lost() -> bool:
        return await every_replica(0)

    async def found() -> bool:
        return await every_replica(1)

    async with Load.running(shared.proxy.url, "outage") as load:
        await load.reaches(20)
        local_before = sum([await metric(replica, STORE_LOCAL) for replica in shared.replicas])
        redis.stop()
        await wait_until(lost, "replica without the store")
        stopped_at = load.count
        taken_apart = await spend_budget(shared.proxy.url, "apart")
        async with httpx.AsyncClient(timeout=PROCESS_WAIT) as http:
            registered = await ask(http, first.url, "persisted", by_hash(LABELS, True))
            missed = await ask(http, second.url, "persisted", by_hash(LABELS, False))
        local_during = sum([await metric(replica, STORE_LOCAL) for replica in shared.replicas])
        answered_during = load.count - stopped_at
        redis.start()  # on the same port, empty
        back_after = await wait_until(found, "replica using the store again")
    taken = await spend_budget(shared.proxy.url, "after")
    FIGURES["redis_outage"] = {
        "answers": load.count,
        "answers_while_redis_was_stopped": answered_during,
        "calls_answered_locally": local_during - local_before,
        "errors": len(load.failures),
        "budget_while_stopped": {"limit": BUDGET_REQUESTS, "answered_before_refusal": taken_apart},
        "seconds_until_every_replica_uses_redis_again": round(back_after, 2),
        "budget_after_return": {"limit": BUDGET_REQUESTS, "answered_before_refusal": taken},
    }
    assert load.failures == [], load.failures[:5]
    assert local_during > local_before
    assert 2.5 * BUDGET_REQUESTS <= taken_apart <= 3.5 * BUDGET_REQUESTS, taken_apart
    assert registered[0] == 200 and not registered[1].get("errors"), registered
    assert codes(missed[1]) == ["PERSISTED_QUERY_NOT_FOUND"], missed
    assert abs(taken - BUDGET_REQUESTS) <= BUDGET_REQUESTS / 10, taken
