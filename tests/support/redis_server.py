"""A private Redis for a test, as the session's Neo4j is one (localneo4j): Debian's redis-server
7 (installed on first use, tests/support/debian_programs.py) in a directory of its own, on a
free loopback port, persisting nothing, never the system's service. The tests of the front
door's store stop it, freeze it (SIGSTOP: a server that accepts and never answers) and start
it again on the same port, as an outage and a recovery look to the service.

The fixture `local_redis` (registered in tests/conftest.py) gives each test a fresh server and
stops it when the test ends.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.debian_programs import redis_server
from tests.support.serving import LOOPBACK, PROCESS_WAIT, free_port, stop_process

# A store is small here; as in production (docs/operations.md), every key the service writes
# expires and memory is bounded by evicting the least recently used of them.
SERVER_OPTIONS = ["--save", "", "--appendonly", "no", "--maxmemory", "64mb"]
SERVER_OPTIONS += ["--maxmemory-policy", "volatile-lru", "--daemonize", "no"]


class LocalRedis:
    """redis-server on 127.0.0.1:`port`, its log in `directory`/redis.log."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = directory / "redis.log"

    @property
    def url(self) -> str:
        return f"redis://{LOOPBACK}:{self.port}/0"

    def start(self) -> None:
        """Start the server (again, on the same port) and return once it answers PING."""
        command = [str(redis_server()), "--port", str(self.port), "--bind", LOOPBACK]
        command += ["--dir", str(self.directory), *SERVER_OPTIONS]
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + PROCESS_WAIT
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"redis-server did not start:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL if it lingers) and wait for its end."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            os.kill(process.pid, signal.SIGCONT)  # a frozen server cannot hear SIGTERM
        stop_process(process)

    @contextlib.contextmanager
    def frozen(self) -> Iterator[None]:
        """The server stopped with SIGSTOP for the block: connections are accepted by the
        kernel and never answered, as a store that hangs."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGSTOP)
        try:
            yield
        finally:
            if self.process is not None:
                os.kill(self.process.pid, signal.SIGCONT)

    def answers(self) -> bool:
        """Whether the server answers PING now."""
        try:
            with socket.create_connection((LOOPBACK, self.port), timeout=1.0) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(16).startswith(b"+PONG")
        except OSError:
            return False


@pytest.fixture
def local_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRedis]:
    """A fresh Redis for the test, stopped when it ends."""
    server = LocalRedis(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()
