"""The server JVM as an operating-system process: spawning, recognising and ending it.

A process counts as the server of a home only while its command line names that home
(`--home-dir=<home>`), so a pid reused by an unrelated process after a crash is never mistaken
for a server, and never signalled.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from localneo4j.errors import Neo4jUnavailable
from localneo4j.launch import LOOPBACK, home_marker

_KILL_GRACE_SECONDS = 10.0

# The servers this Python process started, kept so that they are reaped when they exit (a
# zombie would still look alive to a signal probe) and so that `subprocess` does not warn
# about a child it believes was forgotten.
_children: dict[int, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class LocalServer:
    """A running server: its home, Bolt port and JVM pid."""

    home: Path
    port: int
    pid: int

    @property
    def bolt_uri(self) -> str:
        return f"bolt://{LOOPBACK}:{self.port}"


def spawn(command: list[str], home: Path) -> subprocess.Popen[bytes]:
    """Start `command` in the background, detached, its output going to logs/console.log."""
    with (home / "logs" / "console.log").open("wb") as console:
        process = subprocess.Popen(  # noqa: S603 (our own JVM command line)
            command,
            stdin=subprocess.DEVNULL,
            stdout=console,
            stderr=subprocess.STDOUT,
            cwd=home,
            # Its own session: Ctrl-C in the shell that ran `neo4j start` must not reach it.
            start_new_session=True,
        )
    _children[process.pid] = process
    return process


def is_server_of(pid: int, home: Path) -> bool:
    """True while `pid` is alive and is the server JVM of `home` (not a reused pid)."""
    child = _children.get(pid)
    if child is not None:
        # Our own child: its exit status is authoritative, and its command line reads empty
        # for a moment while the java launcher execs.
        if child.poll() is None:
            return True
        del _children[pid]
        return False
    try:
        command_line = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return False
    except OSError:
        return _signal_probe(pid)  # no /proc (not Linux): trust the pid file
    # A zombie's command line is empty, so an exited but unreaped server reads as stopped.
    return home_marker(home).encode() in command_line.split(b"\0")


def terminate(pid: int, home: Path, timeout: float) -> None:
    """SIGTERM the server of `home`, SIGKILL it if still alive after `timeout` seconds."""
    for sig, patience in ((signal.SIGTERM, timeout), (signal.SIGKILL, _KILL_GRACE_SECONDS)):
        if not is_server_of(pid, home):
            return
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        until = time.monotonic() + patience
        while is_server_of(pid, home) and time.monotonic() < until:
            time.sleep(0.2)
    if is_server_of(pid, home):
        raise Neo4jUnavailable(f"Neo4j (pid {pid}) of {home} survived SIGKILL.")


def port_taken(port: int) -> bool:
    """True if something listens on `port` of the loopback address."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As Neo4j binds: a socket lingering in TIME_WAIT does not block it, a listener does.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((LOOPBACK, port))
        except OSError:
            return True
    return False


def _signal_probe(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, owned by someone else
    return True
