"""`evidencegraph serve --workers N` (docs/operations.md): N worker processes on one socket that
share nothing but Neo4j; each of them answers; any worker's `/metrics` counts the requests of
all of them; SIGTERM to the command stops every worker and it exits 0.

Which worker takes a connection is the kernel's choice. To know that each one answers, the
test freezes the other with SIGSTOP while it opens a keep-alive connection (a `/healthz`): a
frozen process cannot accept, so the connection belongs to the one still running, and every
request sent on it after the other is thawed is answered there. The freeze lasts one
`/healthz` (uvicorn's supervisor replaces a worker that stays silent for 5 s). Every wait is
for an event (a log line, a port answering), never for a fixed time.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from commands.serve_command import worker_count
from graph.driver import Graph
from tests.conftest import TEST_DIMENSION
from tests.support.graph_builder import GraphBuilder
from tests.support.operations_app import SEARCH, three_people
from tests.support.serving import LOOPBACK, PROCESS_WAIT, free_port, log_messages, wait_for

WAIT = PROCESS_WAIT
WORKERS = 2


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


def search(http: httpx.Client) -> list[str]:
    """The names a search for Ada finds."""
    answer = http.post("/graphql", json={"query": SEARCH, "variables": {"query": "ada lovelace"}})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert "errors" not in body, body
    return [hit["entity"]["name"] for hit in body["data"]["searchEntities"]]


def requests_counted(http: httpx.Client) -> float:
    """`evidencegraph_requests_total` of GraphQL queries, as `/metrics` reports it."""
    text = http.get("/metrics").text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith('evidencegraph_requests_total{operation_type="query"}')
    )


@contextmanager
def serving_workers(neo4j_uri: str, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = free_port()
    environ = {key: value for key, value in os.environ.items() if key != "PROMETHEUS_MULTIPROC_DIR"}
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
        # Its workers are found while it is their parent: killed, it leaves them to init.
        workers = worker_pids(process.pid)
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in workers:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)  # a worker a failed step left frozen
                os.kill(pid, signal.SIGKILL)


@dataclass
class WorkersRun:
    workers: list[int]  # their process ids
    found: dict[int, list[str]]  # worker -> the names its search found
    counted: dict[int, float]  # worker -> the requests its /metrics counted, after its search
    returncode: int  # of the command, after SIGTERM
    left: list[int]  # workers still alive after the command ended
    messages: list[str]
    log: Path  # the command's output, for a failure to show


def serve_two_workers_ask_each_and_stop(neo4j_uri: str, log: Path) -> WorkersRun:
    with serving_workers(neo4j_uri, log) as (process, url):
        wait_for(
            lambda: log_messages(log).count("Application startup complete.") == WORKERS,
            f"start-up of {WORKERS} workers",
            log,
        )
        workers = worker_pids(process.pid)
        assert len(workers) == WORKERS, workers
        first, second = workers
        found: dict[int, list[str]] = {}
        counted: dict[int, float] = {}
        for asked, frozen in ((first, second), (second, first)):
            with httpx.Client(base_url=url, timeout=WAIT) as http:  # one keep-alive connection
                with stopped(frozen):
                    assert http.get("/healthz").status_code == 200  # accepted by `asked`
                found[asked] = search(http)
                counted[asked] = requests_counted(http)
        process.send_signal(signal.SIGTERM)
        returncode = process.wait(WAIT)
        left = [pid for pid in workers if alive(pid)]
        return WorkersRun(workers, found, counted, returncode, left, log_messages(log), log)


@pytest.fixture(scope="module")
async def run(
    module_graph: Graph, neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory
) -> WorkersRun:
    """One `serve --workers 2`, asked through each worker and then sent SIGTERM, for the whole
    module: each test below reads its own part of the same run (each started a server of its
    own before, three start-ups of two workers for one scenario). The run is over before the
    first test reads it, so the tests read the same facts in any order."""
    graph = module_graph
    await three_people(GraphBuilder(graph, dimension=TEST_DIMENSION), graph)
    log = tmp_path_factory.mktemp("serve-workers") / "serve.log"
    return await asyncio.to_thread(serve_two_workers_ask_each_and_stop, neo4j_uri, log)


def test_serve_with_two_workers_starts_two_processes_and_each_answers(run: WorkersRun) -> None:
    assert sorted(run.found) == run.workers
    for names in run.found.values():
        assert "Ada Lovelace" in names, run.log.read_text()[-4000:]


def test_metrics_of_any_worker_count_the_requests_of_all_workers(run: WorkersRun) -> None:
    first, second = run.workers
    # The first worker answered one search and counts it; the second, asked after it, counts
    # both: its own and the other process's.
    assert run.counted == {first: 1.0, second: 2.0}, run.log.read_text()[-4000:]


def test_sigterm_stops_every_worker_and_the_command_exits_0(run: WorkersRun) -> None:
    assert run.returncode == 0, run.log.read_text()[-4000:]
    assert run.left == []
    assert run.messages.count("Application shutdown complete.") == WORKERS


@pytest.mark.parametrize("text", ["0", "-1", "two", ""])
def test_workers_must_be_a_whole_number_of_at_least_one(text: str) -> None:
    with pytest.raises(Exception, match="at least 1"):
        worker_count(text)
