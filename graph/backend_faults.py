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


def backend_fault(error: BaseException, timeout: float | None) -> BackendUnavailable | None:
    """The contract's error for a backend fault, or None when `error` is not one."""
    code = getattr(error, "code", None) or ""
    if isinstance(error, ClientError) and code.startswith(TIMED_OUT_CODE_PREFIX):
        limit = f" within {timeout:g} s" if timeout else ""
        message = (
            f"The graph database did not answer{limit} (NEO4J_QUERY_TIMEOUT_SECONDS); "
            "ask for less or try again later."
        )
        return _logged(error, message)
    if isinstance(error, AuthError) or (
        isinstance(error, ClientError) and code.startswith(SECURITY_CODE_PREFIX)
    ):
        return _logged(error, REFUSED)
    if isinstance(error, ConnectionPoolError):
        return _logged(error, BUSY)
    if isinstance(error, TransientError):
        return _logged(error, TRANSIENT)
    if isinstance(error, ServiceUnavailable | SessionExpired | OSError):
        return _logged(error, UNREACHABLE)
    return None


def _logged(error: BaseException, message: str) -> BackendUnavailable:
    code = getattr(error, "code", None)
    log.warning("Neo4j fault (%s%s): %s", type(error).__name__, f" {code}" if code else "", error)
    return BackendUnavailable(message)
