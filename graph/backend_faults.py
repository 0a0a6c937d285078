"""Which driver errors are faults of the backend (contract §7), and the contract's error for each.

contract §7: "Every fault of Neo4j or the embedder (down, restarting, pool exhausted, transient,
timed out, refused credentials) is `BACKEND_UNAVAILABLE`, never `INTERNAL`, and the service
recovers by itself when the backend returns". What the neo4j driver (6.x) raises for each:

    down, restarting, connect timeout   ServiceUnavailable (and its Routing/Read/Write/
                                        IncompleteCommit kinds), SessionExpired, OSError
    pool exhausted                      ConnectionAcquisitionTimeoutError (a ConnectionPoolError)
    transient                           TransientError and its kinds: DatabaseUnavailable,
                                        NotALeader, ForbiddenOnReadOnlyDatabase, deadlocks,
                                        memory limits (`Neo.TransientError.*`)
    statement time limit                ClientError `…Transaction.TransactionTimedOut*`
    refused credentials                 AuthError (TokenExpired), any `Neo.ClientError.Security.*`

Anything else (a syntax error, a constraint the service broke) is a defect of the service and
stays `INTERNAL`. The driver's message goes to the log, never to the client. None of these
errors leaves the driver unusable: its pool opens new connections when the server answers
again, so recovery needs nothing from the service.
"""

from __future__ import annotations

import logging

from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConnectionPoolError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from contract.errors import BackendUnavailable

log = logging.getLogger(__name__)

# Neo4j's codes for a transaction stopped at its time limit (the client's or the server's).
TIMED_OUT_CODE_PREFIX = "Neo.ClientError.Transaction.TransactionTimedOut"
SECURITY_CODE_PREFIX = "Neo.ClientError.Security."

UNREACHABLE = "The graph database cannot be reached; try again."
BUSY = "The graph database is busy (no connection free in time); try again."
REFUSED = "The graph database refused the service's credentials; try again later."
TRANSIENT = "The graph database could not answer just now; try again."


def backend_fault(
    error: BaseException, timeout: float | None, limit_setting: str = "NEO4J_QUERY_TIMEOUT_SECONDS"
) -> BackendUnavailable | None:
    """The contract's error for a backend fault, or None when `error` is not one. `timeout`
    and `limit_setting`: the time limit the statement was sent with, and the setting naming it."""
    if timed_out(error):
        limit = f" within {timeout:g} s" if timeout else ""
        message = (
            f"The graph database did not answer{limit} ({limit_setting}); "
            "ask for less or try again later."
        )
        return _logged(error, message)
    code = getattr(error, "code", None) or ""
    if isinstance(error, AuthError) or (
        isinstance(error, ClientError) and code.startswith(SECURITY_CODE_PREFIX)
    ):
        return _logged(error, REFUSED)
    if isinstance(error, ConnectionPoolError):
        return _logged(error, BUSY)
    if isinstance(error, TransientError):
        return _logged(error, TRANSIENT)
    if connection_lost(error):
        return _logged(error, UNREACHABLE)
    return None


def timed_out(error: BaseException) -> bool:
    """Neo4j stopped the statement at its time limit."""
    code = getattr(error, "code", None) or ""
    return isinstance(error, ClientError) and code.startswith(TIMED_OUT_CODE_PREFIX)


def connection_lost(error: BaseException) -> bool:
    """The connection to Neo4j was lost or could not be made: the server may have restarted
    (and lost what it kept in memory, such as its query plans: graph/planned_statements.py)."""
    return isinstance(error, ServiceUnavailable | SessionExpired | OSError)


def _logged(error: BaseException, message: str) -> BackendUnavailable:
    code = getattr(error, "code", None)
    log.warning("Neo4j fault (%s%s): %s", type(error).__name__, f" {code}" if code else "", error)
    return BackendUnavailable(message)
