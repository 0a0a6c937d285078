"""What one HTTP request came to, gathered while it runs, for its log line and its metrics.

`api/request_log.py` opens a record per request; the GraphQL layer fills in the operation and
the error code, and the graph counts statements into it. It lives in a context variable, so
every task the request starts (a DataLoader's batch included) counts into the same record.
No field ever holds a token, a query text or a parameter value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

# GraphQL's Name grammar; a client's `operationName` that is not one is logged as `invalid`.
OPERATION_NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]{0,99}")


@dataclass
class RequestRecord:
    request_id: str
    caller_id: str | None = None
    operation_name: str | None = None
    operation_type: str | None = None  # query, mutation; None when no operation ran
    statements: int = 0
    # The operation's static cost (api/front_door/query_cost.py), once priced.
    cost: int | None = None
    # How long it waited for a slot (api/front_door/admission.py).
    queue_seconds: float | None = None
    # The caller's points once it was charged or refused (api/front_door/rate_limit.py), for
    # `extensions.cost`: the charge said it, so the answer asks the store nothing more.
    points_available: int | None = None
    error_codes: list[str] = field(default_factory=list)

    @property
    def error_code(self) -> str | None:
        """The first error's code: what the request came to, for one log field and one label."""
        return self.error_codes[0] if self.error_codes else None


current: ContextVar[RequestRecord | None] = ContextVar("evidencegraph_request", default=None)


def safe_operation_name(name: object) -> str | None:
    if name is None:
        return None
    return name if isinstance(name, str) and OPERATION_NAME.fullmatch(name) else "invalid"


def count_statement(query: str, parameters: Mapping[str, Any]) -> None:
    """A `Graph` observer: one more statement for the request that sent it."""
    record = current.get()
    if record is not None:
        record.statements += 1
