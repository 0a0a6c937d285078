"""The scale-out on loopback (docs/operations.md, "Replicas behind nginx, without Docker"):
`evidencegraph serve` replicas, each a process of its own on its own port, the session's Neo4j,
optionally a Redis they share as FRONT_DOOR_STORE (tests/support/redis_server.py), and nginx in
front with docker/nginx.conf's rules (tests/support/nginx_proxy.py).

    with replicas_behind_nginx(neo4j_uri, folder, settings, store=True) as scale: ...
        scale.proxy.url, scale.replicas[1].kill(), scale.redis.stop(), ...

Every wait is for a sign (a port answering, `/readyz` saying ready, a metric moving), never for
a fixed time. Every process is stopped when the block ends, whatever happened in it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import TEST_DIMENSION
from tests.support.nginx_proxy import NginxProxy
from tests.support.redis_server import LocalRedis
from tests.support.serving import LOOPBACK, PROCESS_WAIT, free_port, stop_process

EVIDENCEGRAPH = Path(sys.executable).parent / "evidencegraph"
ESTABLISHED = "01"  # a TCP connection's state in /proc/net/tcp


class Replica:
    """`evidencegraph serve` on 127.0.0.1:`port`, its output in `folder`/<name>.log."""

    def __init__(self, name: str, folder: Path, environment: Mapping[str, str]) -> None:
        self.name = name
        self.port = free_port()
        self.log = folder / f"{name}.log"
        self.environment = dict(environment)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> None:
        """Start the process (again, on the same port); `wait_ready` waits for it."""
        command = [str(EVIDENCEGRAPH), "serve", "--host", LOOPBACK, "--port", str(self.port)]
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                command, env=self.environment, stdout=output, stderr=subprocess.STDOUT
            )

    def wait_ready(self) -> None:
        """Return once `/readyz` says ready; fail with the log if the process ends first."""
        deadline = time.monotonic() + PROCESS_WAIT
        while not self.ready():
            if self.process is None or self.process.poll() is not None:
                pytest.fail(f"replica {self.name} ended:\n{self.log.read_text()[-4000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"replica {self.name} not ready:\n{self.log.read_text()[-4000:]}")
            time.sleep(0.05)

    def ready(self) -> bool:
        try:
            return httpx.get(self.url + "/readyz", timeout=2.0).status_code == 200
        except httpx.TransportError:
            return False

    def freeze(self) -> None:
        """SIGSTOP: the replica still accepts connections (the kernel does) and answers none."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def holds_a_request(self) -> bool:
        """Whether a connection to this replica holds bytes it has not read: a request sent
        to it (by nginx) that a frozen replica has not taken (the kernel's /proc/net/tcp)."""
        port = f"{self.port:04X}"
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            local, state, queues = fields[1], fields[3], fields[4]
            unread = int(queues.split(":")[1], 16)
            if local.endswith(":" + port) and state == ESTABLISHED and unread > 0:
                return True
        return False

    def kill(self) -> None:
        """SIGKILL: the replica ends at once, whatever it was answering."""
        assert self.process is not None
        self.process.kill()
        self.process.wait()

    def terminate(self) -> None:
        """SIGTERM, not waited for (`stop` waits); a frozen replica is thawed to hear it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.terminate()

    def stop(self) -> None:
        """SIGTERM: the replica finishes what is in flight and ends."""
        self.terminate()
        process, self.process = self.process, None
        stop_process(process)

    def metric(self, name: str) -> float:
        """The sum of the samples of `name` this replica's `/metrics` reports (loopback)."""
        text = httpx.get(self.url + "/metrics", timeout=5.0).text
        return sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith((name + " ", name + "{"))
        )


@dataclass
class ScaleOut:
    replicas: list[Replica]
    proxy: NginxProxy
    redis: LocalRedis | None  # FRONT_DOOR_STORE, when the replicas share one


@contextlib.contextmanager
def replicas_behind_nginx(
    neo4j_uri: str,
    folder: Path,
    settings: Mapping[str, str],
    *,
    store: bool,
    count: int = 3,
) -> Iterator[ScaleOut]:
    """`count` replicas with `settings` (and a Redis they share when `store`), nginx in front,
    all ready; every process stopped when the block ends."""
    environment = {
        key: value for key, value in os.environ.items() if key != "PROMETHEUS_MULTIPROC_DIR"
    }
    environment |= {
        "NEO4J_URI": neo4j_uri,
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
        "LOG_FORMAT": "json",
        "METRICS_ENABLED": "true",
        **settings,
    }
    redis = LocalRedis(folder) if store else None
    replicas = [Replica(f"replica-{n}", folder, environment) for n in range(1, count + 1)]
    proxy = NginxProxy(folder, [replica.port for replica in replicas])
    try:
        if redis is not None:
            redis.start()
            for replica in replicas:
                replica.environment["FRONT_DOOR_STORE"] = redis.url
        for replica in replicas:
            replica.start()  # all start at once; each is waited for below
        for replica in replicas:
            replica.wait_ready()
        proxy.start()
        yield ScaleOut(replicas, proxy, redis)
    finally:
        proxy.stop()
        for replica in replicas:
            replica.terminate()  # all at once; each is waited for below
        for replica in replicas:
            replica.stop()
        if redis is not None:
            redis.stop()
