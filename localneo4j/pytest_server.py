"""A private Neo4j per test run: its own home under the run's temporary directory, a free port.

Several test runs share a machine (CI jobs, engineers working in parallel); each one gets a
server nobody else writes to, while all of them share the one jar cache. The project's session
fixture calls `private_server` and stops the server when the session ends:

    server = private_server(tmp_path_factory.mktemp("neo4j"))
    try:
        yield server
    finally:
        stop(server.home)
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from localneo4j.errors import PortInUse
from localneo4j.server import LocalServer, start

# A free port can be taken by another run between being picked and being bound; a new port
# (and a new home, since the failed one holds a half-created store) fixes that.
_PORT_ATTEMPTS = 3


def private_server(
    tmp_root: Path,
    *,
    wait_seconds: float = 180,
    log: Callable[[str], None] = print,
    settings: Mapping[str, str] | None = None,
) -> LocalServer:
    """Start a server in a fresh home under `tmp_root`, on a free loopback port, with
    `settings` as extra neo4j.conf lines (`start`)."""

    def attempt() -> LocalServer:
        return start(
            _fresh_home(tmp_root), port=0, wait_seconds=wait_seconds, log=log, settings=settings
        )

    for _ in range(_PORT_ATTEMPTS - 1):
        try:
            return attempt()
        except PortInUse as error:
            log(f"{str(error).splitlines()[0]} Retrying on another port.")
    return attempt()


def _fresh_home(tmp_root: Path) -> Path:
    return Path(tempfile.mkdtemp(prefix="neo4j-home-", dir=tmp_root))
