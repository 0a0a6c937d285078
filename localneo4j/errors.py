"""Why a local Neo4j could not be fetched or started.

Neo4jUnavailable   the jars, Java or the server itself failed; the message says which and
│                  carries the tool's or server's own output (mvn, console.log, debug.log)
└── PortInUse      the Bolt port is held by another process; another port may succeed
"""

from __future__ import annotations


class Neo4jUnavailable(RuntimeError):
    """A local Neo4j server could not be fetched, started or reached."""


class PortInUse(Neo4jUnavailable):
    """The requested Bolt port is taken by something other than this home's server."""

    def __init__(self, message: str, port: int) -> None:
        super().__init__(message)
        self.port = port
