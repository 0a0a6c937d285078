"""What the shared store costs (issue 41; docs/benchmarks.md, "The shared store").

    .venv/bin/python -m bench.front_door_store [--seconds 10] [--charges 5000]

It starts a private Neo4j on 127.0.0.1 (localneo4j, a fresh home, stopped at the end), or uses
the one `NEO4J_URI` names (it wipes that database: give it one of its own), a Redis
(tests/support/redis_server.py) and the replicas and nginx of tests/support/replicas.py, all
on loopback; the graph is tests/support/operations_app.py's three people. One API key sends
every request, so every charge is of one bucket (the store's hottest key). Rate limits are on,
at a rate no request reaches, so every request is charged and none refused. Three measures:

1. **A charge** (`CallerBudgets.charge`, in this process): `--charges` charges one after
   another, then as many from 32 tasks at once, in the process's own buckets and in Redis: the
   process's CPU per charge (`time.process_time`), the wall time per charge, and Redis's own
   CPU per charge (its /proc figures).
2. **One replica** (`evidencegraph serve`, asked directly), its front door in the process and
   in Redis, with wrk (bench/wrk_graphql.lua) at 8 and 32 connections for `--seconds` each, in
   turns: requests/s, p50, p99, and the replica's and Redis's CPU per request.
3. **Behind nginx** (docker/nginx.conf's rules), 1 and 3 replicas sharing Redis, 32
   connections: requests/s, p50, p99.

The request is a search of 5 hits (`searchEntities(query: "ada lovelace", limit: 5)`). Figures
depend on the machine and what else runs on it: the run prints the load average before and
after, and docs/benchmarks.md gives one run with its own.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from api.front_door.rate_limit import CallerBudgets, RateLimits
from api.front_door.store import FrontDoorStore
from bench.load import run_wrk, write_bodies
from graph.driver import Graph
from tests.conftest import TEST_DIMENSION
from tests.support import known_graph
from tests.support.graph_builder import GraphBuilder
from tests.support.operations_app import three_people
from tests.support.redis_server import LocalRedis
from tests.support.replicas import Replica, replicas_behind_nginx

KEY = "bench-front-door-store-0123456789"
SEARCH = "query($q: String!) { searchEntities(query: $q, limit: 5) { entity { id name } } }"
BODY = {"query": SEARCH, "variables": {"q": "ada lovelace"}}
RATE = 1_000_000_000  # points a minute: every request charged, none refused
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU of process `pid` and of its children that have ended."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(fields[n]) for n in (11, 12, 13, 14)) / CLK_TCK


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# 1. A charge -------------------------------------------------------------------------------------


async def charges(budgets: CallerBudgets, count: int, tasks: int) -> None:
    async def one_task(share: int) -> None:
        for _ in range(share):
            await budgets.charge(KEY, 1)

    await asyncio.gather(*(one_task(count // tasks) for _ in range(tasks)))


async def measure_charges(redis: LocalRedis, count: int) -> dict[str, Any]:
    assert redis.process is not None
    figures: dict[str, Any] = {}
    # A limit no call reaches on a busy machine: a call answered locally would not be measured.
    store = FrontDoorStore.from_url(redis.url, 5.0)
    try:
        for where, budgets in (
            ("process", CallerBudgets(RateLimits(RATE))),
            ("redis", CallerBudgets(RateLimits(RATE), store)),
        ):
            for tasks in (1, 32):
                await charges(budgets, 200, tasks)  # connections open, script loaded
                cpu, wall = time.process_time(), time.perf_counter()
                redis_cpu = cpu_seconds(redis.process.pid)
                await charges(budgets, count, tasks)
                figures[f"{where}, {tasks} at once"] = {
                    "cpu_ms_per_charge": round((time.process_time() - cpu) / count * 1000, 4),
                    "wall_ms_per_charge": round((time.perf_counter() - wall) / count * 1000, 4),
                    "redis_cpu_ms_per_charge": round(
                        (cpu_seconds(redis.process.pid) - redis_cpu) / count * 1000, 4
                    ),
                }
    finally:
        await store.close()
    return figures


# 2. and 3. Replicas under wrk -----------------------------------------------------------------


def settings(keys_file: Path) -> dict[str, str]:
    return {
        "AUTH_MODE": "apikeys",
        "AUTH_API_KEYS_FILE": str(keys_file),
        "GRAPHQL_RATE_LIMIT_PER_MINUTE": str(RATE),
        # Readiness would wait for every statement to be planned: minutes on a busy machine.
        # Each replica's first request (`warmed`) plans what the measured one runs instead.
        "PLAN_WARMING": "false",
        "NEO4J_QUERY_TIMEOUT_SECONDS": "120",  # that first plan, on a busy machine
        "REQUEST_TIMEOUT_SECONDS": "150",
        "LOG_FORMAT": "json",
        # As in measure 1: what a call costs, not what a busy machine's late answer does.
        "FRONT_DOOR_STORE_TIMEOUT_SECONDS": "5",
    }


LOCAL = "evidencegraph_front_door_store_local_total"


def wrk_level(
    url: str, bodies: Path, clients: int, seconds: float, watched: list[int], replicas: list[Any]
) -> dict[str, Any]:
    """wrk's figures at `clients` connections, with the CPU per request of each of `watched`
    and the store calls `replicas` answered locally meanwhile (none, for a figure to count)."""
    before = [cpu_seconds(pid) for pid in watched]
    local = sum(replica.metric(LOCAL) for replica in replicas)
    figures = run_wrk(url, bodies, clients, seconds, authorization=f"Bearer {KEY}")
    requests = max(1, figures["requests"])
    spent = [cpu_seconds(pid) - start for pid, start in zip(watched, before, strict=True)]
    return {
        "store_calls_answered_locally": sum(replica.metric(LOCAL) for replica in replicas) - local,
        "requests_per_s": round(requests / (figures["duration_us"] / 1e6), 1),
        "p50_ms": round(figures["p50_us"] / 1000, 2),
        "p99_ms": round(figures["p99_us"] / 1000, 2),
        "errors": figures["graphql_errors"] + figures["status_errors"] + figures["timeouts"],
        "cpu_ms_per_request": [round(seconds / requests * 1000, 3) for seconds in spent],
    }


def warmed(replicas: list[Replica]) -> None:
    """One request to each replica, answered: its statements planned, its connections open."""
    for replica in replicas:
        answer = httpx.post(
            replica.url + "/graphql",
            json=BODY,
            headers={"authorization": f"Bearer {KEY}"},
            timeout=600,
        )
        assert answer.status_code == 200 and "errors" not in answer.json(), answer.text


def pid_of(replica: Replica) -> int:
    assert replica.process is not None
    return replica.process.pid


@contextlib.contextmanager
def scale(
    uri: str, root: Path, name: str, keys_file: Path, *, store: bool, count: int
) -> Iterator[Any]:
    folder = root / name
    folder.mkdir()
    with replicas_behind_nginx(uri, folder, settings(keys_file), store=store, count=count) as out:
        yield out


def measure_replicas(uri: str, root: Path, seconds: float) -> dict[str, Any]:
    keys_file = root / "keys.json"
    keys_file.write_text(json.dumps({KEY: ["acme"]}))
    bodies = write_bodies(root / "bodies.jsonl", [BODY])
    one: dict[str, Any] = {}
    with (
        scale(uri, root, "process", keys_file, store=False, count=1) as apart,
        scale(uri, root, "redis", keys_file, store=True, count=1) as shared,
    ):
        assert shared.redis is not None and shared.redis.process is not None
        warmed(apart.replicas + shared.replicas)
        for clients in (8, 32):
            for where, out in (("process", apart), ("redis", shared)):
                [replica] = out.replicas
                watched = [pid_of(replica)]
                if out.redis is not None:
                    watched.append(out.redis.process.pid)
                run_wrk(replica.url, bodies, clients, 2)  # warm
                one[f"{where}, {clients} clients"] = wrk_level(
                    replica.url, bodies, clients, seconds, watched, out.replicas
                )
    proxied: dict[str, Any] = {}
    for count in (1, 3):
        with scale(uri, root, f"nginx-{count}", keys_file, store=True, count=count) as out:
            watched = [pid_of(replica) for replica in out.replicas]
            warmed(out.replicas)
            run_wrk(out.proxy.url, bodies, 32, 2)  # warm
            proxied[f"{count} replica(s), 32 clients"] = wrk_level(
                out.proxy.url, bodies, 32, seconds, watched, out.replicas
            )
    return {"one replica": one, "behind nginx": proxied}


async def write_graph(uri: str) -> None:
    import neo4j

    async with neo4j.AsyncGraphDatabase.driver(uri, auth=None) as driver:
        with neo4j.GraphDatabase.driver(uri, auth=None) as checking:
            known_graph.reset(checking)
        graph = Graph(driver)
        await three_people(GraphBuilder(graph, dimension=TEST_DIMENSION), graph)


def measure(uri: str, arguments: argparse.Namespace) -> dict[str, Any]:
    figures: dict[str, Any] = {"load average before": load_average()}
    asyncio.run(write_graph(uri))
    with tempfile.TemporaryDirectory() as root:
        redis = LocalRedis(Path(root))
        redis.start()
        try:
            figures["a charge"] = asyncio.run(measure_charges(redis, arguments.charges))
        finally:
            redis.stop()
        figures.update(measure_replicas(uri, Path(root), arguments.seconds))
    figures["load average after"] = load_average()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--charges", type=int, default=5000)
    arguments = parser.parse_args()
    uri = os.environ.get("NEO4J_URI")
    if uri:
        print(json.dumps(measure(uri, arguments), indent=2))
        return
    from localneo4j.pytest_server import private_server
    from localneo4j.server import stop

    with tempfile.TemporaryDirectory() as root:
        server = private_server(Path(root))
        try:
            print(json.dumps(measure(server.bolt_uri, arguments), indent=2))
        finally:
            stop(server.home)


if __name__ == "__main__":
    main()
