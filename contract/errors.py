"""The errors a client can see (contract §7), drawn here once.

    EvidenceGraphError                 every error that reaches a client as a GraphQL error
    ├── Malformed          MALFORMED          an argument is invalid; says which and what is allowed
    ├── Unavailable        UNAVAILABLE        the entity is missing or hidden (never says which)
    ├── IndexNotReady      INDEX_NOT_READY    a label's index is missing, POPULATING or FAILED
    ├── Unauthenticated    UNAUTHENTICATED    no credentials, or bad ones
    ├── Forbidden          FORBIDDEN          `scope` names a workspace the caller is not granted
    ├── BackendUnavailable BACKEND_UNAVAILABLE Neo4j or the embedder cannot be reached
    ├── Internal           INTERNAL           anything unexpected; details are logged, never sent
    │   The front door (api/front_door/door.py), each refused before any statement runs:
    ├── CostLimitExceeded  COST_LIMIT_EXCEEDED the document's static cost is over GRAPHQL_MAX_COST
    ├── RateLimited        RATE_LIMITED       the caller's cost points per minute are spent
    ├── Overloaded         OVERLOADED         the process's queue is full, or the wait ran out
    ├── PersistedQueryNotFound PERSISTED_QUERY_NOT_FOUND  a hash the service has not seen (APQ)
    └── QueryNotInSafelist QUERY_NOT_IN_SAFELIST a document outside GRAPHQL_TRUSTED_DOCUMENTS

`RateLimited` and `Overloaded` carry `retry_after` (whole seconds): the HTTP door sends it as
`Retry-After`, and the error's extensions say it too.

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


class CostLimitExceeded(EvidenceGraphError):
    code = "COST_LIMIT_EXCEEDED"

    def __init__(self, cost: int | None, limit: int) -> None:
        """`cost` None: the document expands to more fields than its pricing reads."""
        what = f"is {cost}" if cost is not None else "cannot be bounded (too many fields)"
        super().__init__(
            f"The request's cost {what}, over the limit of {limit} (GRAPHQL_MAX_COST). "
            "Lower `limit`, `supportLimit` or a walk's bounds, select fewer nested lists, or "
            "split the request.",
            cost=cost,
            limit=limit,
        )


class RateLimited(EvidenceGraphError):
    code = "RATE_LIMITED"

    def __init__(self, cost: int, per_minute: int, retry_after: int) -> None:
        super().__init__(
            f"Rate limit reached: {per_minute} cost points per minute for each caller, and this "
            f"request costs {cost}. Retry after {retry_after} s.",
            cost=cost,
            retryAfter=retry_after,
        )
        self.retry_after = retry_after


class Overloaded(EvidenceGraphError):
    code = "OVERLOADED"

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            f"The service is at capacity: every slot is busy and the queue is full or the wait "
            f"ran out. Retry after {retry_after} s.",
            retryAfter=retry_after,
        )
        self.retry_after = retry_after


class PersistedQueryNotFound(EvidenceGraphError):
    """Apollo's automatic persisted queries: the message is the one Apollo's clients match."""

    code = "PERSISTED_QUERY_NOT_FOUND"

    def __init__(self) -> None:
        super().__init__("PersistedQueryNotFound")


class QueryNotInSafelist(EvidenceGraphError):
    code = "QUERY_NOT_IN_SAFELIST"

    def __init__(self) -> None:
        super().__init__(
            "This service answers only the documents of its trusted-documents manifest "
            "(GRAPHQL_TRUSTED_DOCUMENTS); send one of them, by its sha256 hash or its text."
        )
