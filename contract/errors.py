"""The errors a client can see (contract §7), drawn here once.

    EvidenceGraphError                 every error that reaches a client as a GraphQL error
    ├── Malformed          MALFORMED          an argument is invalid; says which and what is allowed
    ├── Unavailable        UNAVAILABLE        the entity is missing or hidden (never says which)
    ├── IndexNotReady      INDEX_NOT_READY    a label's index is missing, POPULATING or FAILED
    ├── Unauthenticated    UNAUTHENTICATED    no credentials, or bad ones
    ├── Forbidden          FORBIDDEN          `scope` names a workspace the caller is not granted
    ├── BackendUnavailable BACKEND_UNAVAILABLE Neo4j or the embedder cannot be reached
    └── Internal           INTERNAL           anything unexpected; details are logged, never sent

Anything that is not an `EvidenceGraphError` is reported to the client as `INTERNAL` with a
fixed message, so no traceback, Cypher text or driver message ever leaves the process.
"""

from __future__ import annotations

from typing import ClassVar


class EvidenceGraphError(Exception):
    """An error whose message is safe to show to the client."""

    code: ClassVar[str] = "INTERNAL"

    def __init__(self, message: str, **extensions: object) -> None:
        super().__init__(message)
        self.message = message
        self.extensions = extensions


class Malformed(EvidenceGraphError):
    code = "MALFORMED"

    def __init__(self, argument: str, allowed: str) -> None:
        super().__init__(f"Argument `{argument}` is invalid: {allowed}", argument=argument)


class Unavailable(EvidenceGraphError):
    code = "UNAVAILABLE"


class IndexNotReady(EvidenceGraphError):
    code = "INDEX_NOT_READY"

    def __init__(self, label: str, index: str, state: str) -> None:
        super().__init__(
            f"Label `{label}` cannot be searched: its {index} index is {state}. "
            "Run `evidencegraph schema apply` and wait until the index is ONLINE.",
            label=label,
            index=index,
            state=state,
        )


class Unauthenticated(EvidenceGraphError):
    code = "UNAUTHENTICATED"


class Forbidden(EvidenceGraphError):
    code = "FORBIDDEN"


class BackendUnavailable(EvidenceGraphError):
    code = "BACKEND_UNAVAILABLE"


class Internal(EvidenceGraphError):
    code = "INTERNAL"

    def __init__(self) -> None:
        super().__init__("Internal error; it has been logged.")
