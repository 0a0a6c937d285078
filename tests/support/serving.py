"""Servers in their own processes, on 127.0.0.1 and a free port, for the client tests: the
service under uvicorn (`tests/support/served_app.py`) and the Node servers of `tests/node/`.

    with served_process([...command...], name="gateway") as server: ... server.url ...

A server that exits or does not answer in time fails the test with its log.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import TEST_DIMENSION
from tests.support.node_tools import NODE_DIR, REPOSITORY, WEB_DIR, node, npm_packages

LOOPBACK = "127.0.0.1"
PROCESS_WAIT = 120.0  # the most any one step of a served process may take on a busy machine


def wait_for(condition: Callable[[], bool], what: str, log: Path) -> None:
    """Polls `condition` (an event's sign, not an assumed duration) until it holds; fails the
    test with the process's `log` after PROCESS_WAIT."""
    deadline = time.monotonic() + PROCESS_WAIT
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {PROCESS_WAIT:g} s:\n{log.read_text()[-4000:]}")
        time.sleep(0.05)


def stop_process(process: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM to `process` (and SIGKILL if it lingers past PROCESS_WAIT); returns once it has
    ended. Nothing when there is none or it has ended already."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=PROCESS_WAIT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def log_messages(log: Path) -> list[str]:
    """The `message` of every JSON line of a served process's log (LOG_FORMAT=json)."""
    messages = []
    for line in log.read_text().splitlines():
        try:
            messages.append(json.loads(line)["message"])
        except (ValueError, KeyError):
            continue
    return messages


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Served:
    url: str  # http://127.0.0.1:PORT
    log: Path
    pid: int  # the server's process (its memory: tests/test_memory_bounds.py)


def _wait_until_up(process: subprocess.Popen[bytes], probe_url: str, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(
                f"{probe_url}: the server exited ({process.returncode}):\n"
                f"{log.read_text()[-4000:]}",
                pytrace=False,
            )
        try:
            # Any HTTP answer means the server is listening.
            httpx.get(probe_url, timeout=1.0, headers={"accept": "application/json"})
            return
        except httpx.TransportError:
            time.sleep(0.1)
    pytest.fail(
        f"{probe_url} did not answer within 60 s:\n{log.read_text()[-4000:]}", pytrace=False
    )


@contextmanager
def served_process(
    command: list[str],
    *,
    name: str,
    cwd: Path,
    env: dict[str, str],
    probe_path: str,
    log_dir: Path,
) -> Iterator[Served]:
    """Run `command` (`{port}` in it and $PORT are its port) until the block ends."""
    port = free_port()
    log = log_dir / f"{name}.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [part.replace("{port}", str(port)) for part in command],
            cwd=cwd,
            env={**os.environ, **env, "PORT": str(port)},
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://{LOOPBACK}:{port}"
    try:
        _wait_until_up(process, url + probe_path, log)
        yield Served(url, log, process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def service_environment(neo4j_uri: str) -> dict[str, str]:
    return {
        "NEO4J_URI": neo4j_uri,
        "AUTH_MODE": "none",
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
        "GRAPHQL_INTROSPECTION": "true",
        "GRAPHIQL_ENABLED": "true",
        # What a test counts must not depend on how busy the machine is: the process keeps its
        # index catalog until the graph's marker moves (contract §3; served_app.py).
        "TEST_CATALOG_MAX_AGE_SECONDS": "3600",
    }


@contextmanager
def served_service(neo4j_uri: str, log_dir: Path) -> Iterator[Served]:
    """evidencegraph under uvicorn, with GraphiQL (its files installed first)."""
    npm_packages(WEB_DIR)
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "tests.support.served_app:create_test_app",
        "--host",
        LOOPBACK,
        "--port",
        "{port}",
        "--log-level",
        "warning",
    ]
    with served_process(
        command,
        name="evidencegraph",
        cwd=REPOSITORY,
        env=service_environment(neo4j_uri),
        probe_path="/healthz",
        log_dir=log_dir,
    ) as served:
        yield served


@contextmanager
def served_api(neo4j_uri: str, log_dir: Path, name: str, **settings: str) -> Iterator[Served]:
    """evidencegraph's own app (`api.app:create_app`) under uvicorn, as `serve` runs it, with
    the hash embedder and `settings` (AUTH_MODE among them)."""
    environment = {
        "NEO4J_URI": neo4j_uri,
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
        **settings,
    }
    command = [sys.executable, "-m", "uvicorn", "--factory", "api.app:create_app"]
    command += ["--host", LOOPBACK, "--port", "{port}", "--log-level", "warning"]
    with served_process(
        command,
        name=name,
        cwd=REPOSITORY,
        env=environment,
        probe_path="/healthz",
        log_dir=log_dir,
    ) as served:
        yield served


@contextmanager
def served_node(script: str, env: dict[str, str], log_dir: Path) -> Iterator[Served]:
    """`node tests/node/<script>` listening on $PORT."""
    npm_packages(NODE_DIR)
    with served_process(
        [node(), script],
        name=Path(script).stem,
        cwd=NODE_DIR,
        env=env,
        probe_path="/",
        log_dir=log_dir,
    ) as served:
        yield served
