"""`evidencegraph serve --workers N` (docs/operations.md): N worker processes on one socket that
share nothing but Neo4j; each of them answers; any worker's `/metrics` counts the requests of
all of them; SIGTERM to the command stops every worker and it exits 0.

Which worker answers a connection is the kernel's choice. To know that each one answers,
the test stops the other with SIGSTOP while it asks: a stopped process cannot accept, so the
answer can only come from the one still running. Every wait is for an event (a log line, a
port answering), never for a fixed time.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from commands.serve_command import worker_count
from graph.driver import Graph
from tests.conftest import TEST_DIMENSION
from tests.support.graph_builder import GraphBuilder
from tests.support.operations_app import SEARCH, three_people
from tests.support.serving import LOOPBACK, free_port

WAIT = 120.0  # the most any one step may take on a busy shared machine
WORKERS = 2


def wait_for(condition: Callable[[], bool], what: str, log: Path) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {WAIT:g} s:\n{log.read_text()[-4000:]}")
        time.sleep(0.05)  # polling an event's sign, not assuming a duration


def log_messages(log: Path) -> list[str]:
    messages = []
    for line in log.read_text().splitlines():
        try:
            messages.append(json.loads(line)["message"])
        except (ValueError, KeyError):
            continue
    return messages


def worker_pids(parent: int) -> list[int]:
    """The uvicorn workers the command started: its children that multiprocessing spawned."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"spawn_main" in command:
            pids.append(int(entry.name))
    return sorted(pids)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@contextmanager
def stopped(pid: int) -> Iterator[None]:
    """The process `pid` frozen (SIGSTOP) for the block: it cannot accept a connection."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def search(url: str) -> list[str]:
    """The names a search for Ada finds, on a connection of its own."""
    answer = httpx.post(
        f"{url}/graphql",
        json={"query": SEARCH, "variables": {"query": "ada lovelace"}},
        timeout=WAIT,
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert "errors" not in body, body
    return [hit["entity"]["name"] for hit in body["data"]["searchEntities"]]


def requests_counted(url: str) -> float:
    """`evidencegraph_requests_total` of GraphQL queries, as `/metrics` reports it."""
    text = httpx.get(f"{url}/metrics", timeout=WAIT).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith('evidencegraph_requests_total{operation_type="query"}')
    )


@contextmanager
def serving_workers(neo4j_uri: str, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = free_port()
    environ = {
        key: value for key, value in os.environ.items() if key != "PROMETHEUS_MULTIPROC_DIR"
    }
    environ |= {
        "NEO4J_URI": neo4j_uri,
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
        "AUTH_MODE": "none",
        "LOG_FORMAT": "json",
        "METRICS_ENABLED": "true",
        "NEO4J_QUERY_TIMEOUT_SECONDS": "300",
        "REQUEST_TIMEOUT_SECONDS": "300",
    }
    command = [
        str(Path(sys.executable).parent / "evidencegraph"),
        "serve",
        "--port",
        str(port),
        "--workers",
        str(WORKERS),
    ]
    with log.open("wb") as output:
        process = subprocess.Popen(command, env=environ, stdout=output, stderr=output)
    try:
        yield process, f"http://{LOOPBACK}:{port}"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in worker_pids(process.pid):
            os.kill(pid, signal.SIGKILL)


def serve_two_workers_ask_each_and_stop(neo4j_uri: str, log: Path) -> dict[str, object]:
    with serving_workers(neo4j_uri, log) as (process, url):
        wait_for(
            lambda: log_messages(log).count("Application startup complete.") == WORKERS,
            f"start-up of {WORKERS} workers",
            log,
        )
        workers = worker_pids(process.pid)
        assert len(workers) == WORKERS, workers
        first, second = workers
        found = {}
        counted = {}
        for asked, frozen in ((first, second), (second, first)):
            with stopped(frozen):
                found[asked] = search(url)
                counted[asked] = requests_counted(url)
        process.send_signal(signal.SIGTERM)
        returncode = process.wait(WAIT)
        return {
            "workers": workers,
            "found": found,
            "counted": counted,
            "returncode": returncode,
            "left": [pid for pid in workers if alive(pid)],
            "messages": log_messages(log),
        }


async def test_serve_with_two_workers_starts_two_processes_and_each_answers(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph, tmp_path: Path
) -> None:
    await three_people(builder, graph)
    log = tmp_path / "serve.log"
    run = await asyncio.to_thread(serve_two_workers_ask_each_and_stop, neo4j_uri, log)
    found = run["found"]
    assert isinstance(found, dict)
    assert sorted(found) == run["workers"]
    for names in found.values():
        assert "Ada Lovelace" in names, log.read_text()[-4000:]


async def test_metrics_of_any_worker_count_the_requests_of_all_workers(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph, tmp_path: Path
) -> None:
    await three_people(builder, graph)
    log = tmp_path / "serve.log"
    run = await asyncio.to_thread(serve_two_workers_ask_each_and_stop, neo4j_uri, log)
    first, second = run["workers"]  # type: ignore[misc]
    # The first worker answered one search and counts it; the second, asked after it, counts
    # both: its own and the other process's.
    assert run["counted"] == {first: 1.0, second: 2.0}, log.read_text()[-4000:]


async def test_sigterm_stops_every_worker_and_the_command_exits_0(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph, tmp_path: Path
) -> None:
    await three_people(builder, graph)
    log = tmp_path / "serve.log"
    run = await asyncio.to_thread(serve_two_workers_ask_each_and_stop, neo4j_uri, log)
    assert run["returncode"] == 0, log.read_text()[-4000:]
    assert run["left"] == []
    messages = run["messages"]
    assert isinstance(messages, list)
    assert messages.count("Application shutdown complete.") == WORKERS


@pytest.mark.parametrize("text", ["0", "-1", "two", ""])
def test_workers_must_be_a_whole_number_of_at_least_one(text: str) -> None:
    with pytest.raises(Exception, match="at least 1"):
        worker_count(text)
