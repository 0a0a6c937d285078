"""Start, stop and inspect a local Neo4j Community server that lives in a home directory.

A home holds conf/, data/, logs/, run/, import/ and plugins/; the jars come from the shared
cache (`localneo4j.jars`). One server per home: `run/evidencegraph-neo4j.pid` records its pid
and Bolt port, and a process counts as the home's server only while its command line names the
home, so a reused pid is never mistaken for it, and never signalled.

    >>> server = start(Path("/tmp/eg-home"), port=0)  # doctest: +SKIP
    >>> server.bolt_uri  # doctest: +SKIP
    'bolt://127.0.0.1:41234'
    >>> stop(server.home)  # doctest: +SKIP
    True
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from localneo4j.errors import Neo4jUnavailable, PortInUse
from localneo4j.filelock import file_lock
from localneo4j.jars import NEO4J_VERSION, cache_root, ensure_jars
from localneo4j.launch import (
    HOME_DIRECTORIES,
    LOOPBACK,
    java_executable,
    jvm_command,
    server_settings,
    write_config,
)
from localneo4j.process import LocalServer, is_server_of, port_taken, spawn, terminate
from localneo4j.readiness import await_bolt

__all__ = [
    "DEFAULT_BOLT_PORT",
    "NEO4J_VERSION",
    "LocalServer",
    "Neo4jUnavailable",
    "PortInUse",
    "ServerStatus",
    "cache_root",
    "default_home",
    "ensure_jars",
    "free_port",
    "start",
    "status",
    "stop",
]

DEFAULT_BOLT_PORT = 7687
PID_FILE = "evidencegraph-neo4j.pid"
_LOCK_FILE = "evidencegraph-neo4j.lock"
# SIGTERM stopped a server in about 10 s here; a failed start is cut shorter.
_ABANDON_SECONDS = 30.0


@dataclass(frozen=True)
class ServerStatus:
    """Whether the server of `home` runs; `pid` and `bolt_uri` are None when it does not."""

    running: bool
    pid: int | None
    bolt_uri: str | None
    home: Path


def default_home() -> Path:
    """The home the `evidencegraph neo4j` command uses unless told otherwise."""
    return cache_root() / "server"


def free_port() -> int:
    """A loopback TCP port nothing listens on right now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
        return port


def start(
    home: Path | None = None,
    port: int | None = None,
    wait_seconds: float = 180,
    log: Callable[[str], None] = print,
    settings: Mapping[str, str] | None = None,
) -> LocalServer:
    """Return the running server of `home`, starting it first if it is not running.

    `port` None means DEFAULT_BOLT_PORT, 0 a free port; either accepts a server already running
    on any port. `settings` are extra neo4j.conf lines (tests use them; loopback-only and
    no-usage-report settings cannot be overridden). Waits up to `wait_seconds` for Bolt to
    answer; raises `Neo4jUnavailable` (`PortInUse` for a taken port) with the server's logs.
    """
    home = _resolve(home)
    deadline = time.monotonic() + wait_seconds
    with file_lock(home / "run" / _LOCK_FILE):
        running = _recorded_server(home)
        if running is not None:
            if port not in (None, 0, running.port):
                raise Neo4jUnavailable(
                    f"The server of {home} already runs on port {running.port} (pid "
                    f"{running.pid}); stop it first to serve on port {port}."
                )
            await_bolt(running, deadline, process=None, debug_offset=0)
            return running
        _pid_path(home).unlink(missing_ok=True)  # stale: its process is gone
        if port is None:
            port = DEFAULT_BOLT_PORT
        elif port == 0:
            port = free_port()
        return _launch(home, port, deadline, log, settings)


def stop(home: Path | None = None, timeout: float = 60) -> bool:
    """Stop the server of `home`: SIGTERM, SIGKILL after `timeout` s. True if one was running."""
    home = _resolve(home)
    if not _pid_path(home).exists():
        return False
    with file_lock(home / "run" / _LOCK_FILE):
        server = _recorded_server(home)
        if server is not None:
            terminate(server.pid, home, timeout)
        _pid_path(home).unlink(missing_ok=True)
        return server is not None


def status(home: Path | None = None) -> ServerStatus:
    """Whether the server of `home` runs (its process is alive; Bolt may still be starting)."""
    home = _resolve(home)
    server = _recorded_server(home)
    if server is None:
        return ServerStatus(running=False, pid=None, bolt_uri=None, home=home)
    return ServerStatus(running=True, pid=server.pid, bolt_uri=server.bolt_uri, home=home)


def _launch(
    home: Path,
    port: int,
    deadline: float,
    log: Callable[[str], None],
    settings: Mapping[str, str] | None,
) -> LocalServer:
    # Checked before fetching anything, so a wrong machine set-up fails in a second.
    config = server_settings(home, port, settings)
    java = java_executable()
    lib = ensure_jars(log)
    if port_taken(port):
        raise PortInUse(
            f"Port {port} on {LOOPBACK} is already in use by another process (not by a "
            f"server from {home}). Choose another port (--port), or stop what holds it.",
            port,
        )
    for name in HOME_DIRECTORIES:
        (home / name).mkdir(parents=True, exist_ok=True)
    write_config(home, config)
    debug_log = home / "logs" / "debug.log"
    # debug.log accumulates across starts; only what this start appends explains a failure.
    debug_offset = debug_log.stat().st_size if debug_log.exists() else 0
    log(f"Starting Neo4j {NEO4J_VERSION} from {home} on {LOOPBACK}:{port}")
    began = time.monotonic()
    process = spawn(jvm_command(java, home, lib), home)
    server = LocalServer(home=home, port=port, pid=process.pid)
    _write_pid_file(server)
    try:
        await_bolt(server, deadline, process, debug_offset)
    except BaseException:
        # Leave nothing half-started behind: a later start would trip over it.
        terminate(server.pid, home, _ABANDON_SECONDS)
        _pid_path(home).unlink(missing_ok=True)
        raise
    log(f"Neo4j answers at {server.bolt_uri} ({time.monotonic() - began:.1f} s after launch)")
    return server


def _recorded_server(home: Path) -> LocalServer | None:
    try:
        record = json.loads(_pid_path(home).read_text(encoding="utf-8"))
        pid, port = int(record["pid"]), int(record["port"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return None  # unreadable: treated as stale, like a dead pid
    if not is_server_of(pid, home):
        return None
    return LocalServer(home=home, port=port, pid=pid)


def _write_pid_file(server: LocalServer) -> None:
    path = _pid_path(server.home)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps({"pid": server.pid, "port": server.port}), encoding="utf-8")
    partial.replace(path)  # readers never see a half-written file


def _pid_path(home: Path) -> Path:
    return home / "run" / PID_FILE


def _resolve(home: Path | None) -> Path:
    # Resolved, because the home's path is how its server is recognised among processes.
    return (home if home is not None else default_home()).expanduser().resolve()
