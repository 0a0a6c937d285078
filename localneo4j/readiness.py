"""Waiting for a started server to answer Bolt, and explaining with its logs when it does not.

Ready means the default database answers a query, not merely that the port accepts
connections, and that the answer comes from this home's server: another Neo4j that took the
port first must not be mistaken for it.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from neo4j import Driver, GraphDatabase
from neo4j.exceptions import DriverError, Neo4jError

from localneo4j.errors import Neo4jUnavailable, PortInUse
from localneo4j.launch import LOOPBACK
from localneo4j.process import LocalServer, is_server_of

_POLL_SECONDS = 0.5
_LOG_TAIL_LINES = 40
_DATA_DIRECTORY = (
    "SHOW SETTINGS YIELD name, value WHERE name = 'server.directories.data' RETURN value"
)


def await_bolt(
    server: LocalServer,
    deadline: float,
    process: subprocess.Popen[bytes] | None,
    debug_offset: int,
) -> None:
    """Return once `server` answers Bolt; raise with its logs if it exits or time runs out.

    `process` is the JVM when this process started it; `debug_offset` is where this start's
    part of logs/debug.log begins.
    """
    with GraphDatabase.driver(
        server.bolt_uri,
        auth=None,
        max_connection_pool_size=1,
        connection_timeout=2.0,
        # Bounds the Bolt handshake too: a listener that never answers (the port taken by
        # something else) would otherwise hold each attempt for a minute.
        connection_acquisition_timeout=3.0,
    ) as driver:
        while True:
            exit_code = process.poll() if process is not None else None
            if exit_code is not None or not is_server_of(server.pid, server.home):
                code = "unknown" if exit_code is None else exit_code
                report = failure_report(
                    f"Neo4j exited during start-up (exit code {code}).", server.home, debug_offset
                )
                if "Address already in use" in report:
                    raise PortInUse(
                        f"Port {server.port} on {LOOPBACK} was taken by another process while "
                        f"the server started. {report}",
                        server.port,
                    )
                raise Neo4jUnavailable(report)
            if _answers(driver, server):
                return
            if time.monotonic() >= deadline:
                message = (
                    f"Neo4j (pid {server.pid}) did not answer on {server.bolt_uri} in time; "
                    "the machine may be busy: retry with a longer wait."
                )
                raise Neo4jUnavailable(failure_report(message, server.home, debug_offset))
            time.sleep(_POLL_SECONDS)


def failure_report(message: str, home: Path, debug_offset: int) -> str:
    """`message`, then the tails of logs/console.log and of this start's logs/debug.log."""
    logs = home / "logs"
    return "\n".join(
        [message, _tail(logs / "console.log", 0), _tail(logs / "debug.log", debug_offset)]
    )


def _answers(driver: Driver, server: LocalServer) -> bool:
    try:
        # An auto-commit query, not `execute_query`: that retries transient errors for up to
        # 30 s, which would hide the moment the server becomes ready.
        with driver.session() as session:
            record = session.run(_DATA_DIRECTORY).single()
    except (DriverError, Neo4jError, OSError):
        return False  # not listening yet, or its databases are still starting
    data_dir = str(record["value"]) if record is not None else None
    if data_dir != str(server.home / "data"):
        # Someone else's server answers on the port (ours will fail to bind).
        raise PortInUse(
            f"Another Neo4j (data directory {data_dir}) answers on port {server.port}; "
            "choose another port.",
            server.port,
        )
    return True


def _tail(path: Path, offset: int) -> str:
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            # A file smaller than the offset was rotated or truncated: read it all.
            handle.seek(offset if offset <= size else 0)
            text = handle.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return f"--- {path}: not written ---"
    lines = text.splitlines()[-_LOG_TAIL_LINES:]
    if not lines:
        return f"--- {path}: nothing new ---"
    return f"--- last {len(lines)} lines of {path} ---\n" + "\n".join(lines)
