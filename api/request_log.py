"""One log line per request, and its request id (docs/operations.md).

Every HTTP request gets a request id: the client's `X-Request-Id` when it is a sane one (1–128
characters of letters, digits and `._:-`), else a new one. It goes back in the `X-Request-Id`
response header and in every GraphQL error's `extensions.requestId`, so a client's report of
an error finds its log line.

Each request is logged once it is answered, on the `evidencegraph.request` logger at INFO:

    {"event": "request", "requestId": "…", "callerId": "key:3f1a…", "method": "POST",
     "path": "/graphql", "status": 200, "operationName": "Search", "operationType": "query",
     "durationMs": 12.4, "statements": 2, "errorCode": null, "cost": 42, "queueMs": 0.0}

`cost` is the operation's static cost (api/front_door/query_cost.py; null when the request was
refused before it was priced), `queueMs` the time it waited for a slot (api/front_door/admission.py;
null when it got none). `callerId` is a fingerprint of the bearer credential (the first 12 hex
digits of its SHA-256), never the credential; null without one. Query text, variables and parameter
values are never logged. `LOG_FORMAT=json` writes this and every other log record as one JSON object
a line; `text` (the default) as `key=value` pairs after the message.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
import uuid
from collections.abc import Generator, Sequence
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext

from api import request_record
from api.metrics import Metrics
from api.request_record import RequestRecord, safe_operation_name
from api.services import Services
from contract.terminal_text import printable

log = logging.getLogger("evidencegraph.request")

REQUEST_ID_HEADER = "x-request-id"
SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
# Probes would drown the requests worth reading; they are counted by nothing either.
UNLOGGED_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


def request_id_from(headers: Headers) -> str:
    offered = headers.get(REQUEST_ID_HEADER)
    if offered is not None and SANE_REQUEST_ID.fullmatch(offered):
        return offered
    return uuid.uuid4().hex


def caller_id_from(headers: Headers) -> str | None:
    authorization = headers.get("authorization")
    if not authorization:
        return None
    digest = hashlib.sha256(authorization.encode("utf-8", "surrogateescape")).hexdigest()
    return f"key:{digest[:12]}"


class RequestLog:
    """ASGI middleware: the request's record, its id header, its log line and its metrics."""

    def __init__(self, app: ASGIApp, metrics: Metrics | None = None) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        record = RequestRecord(request_id_from(headers), caller_id_from(headers))
        token = request_record.current.set(record)
        started = time.perf_counter()
        status = 500  # what the client sees if the app fails before answering

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = record.request_id
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_record.current.reset(token)
            seconds = time.perf_counter() - started
            path = scope.get("path", "")
            if path not in UNLOGGED_PATHS:
                self.finished(record, scope.get("method", ""), path, status, seconds)

    def finished(
        self, record: RequestRecord, method: str, path: str, status: int, seconds: float
    ) -> None:
        fields: dict[str, Any] = {
            "event": "request",
            "requestId": record.request_id,
            "callerId": record.caller_id,
            "method": method,
            "path": path,
            "status": status,
            "operationName": record.operation_name,
            "operationType": record.operation_type,
            "durationMs": round(seconds * 1000, 1),
            "statements": record.statements,
            "errorCode": record.error_code,
            "cost": record.cost,
            "queueMs": (
                round(record.queue_seconds * 1000, 1) if record.queue_seconds is not None else None
            ),
        }
        log.info("request", extra={"fields": fields})
        if self.metrics is not None and path == "/graphql":
            self.metrics.request_finished(record, seconds)


class StatementCount:
    """A service hook: every statement the graph sends counts for the request sending it."""

    def attach(self, services: Services) -> None:
        services.graph.observers.append(request_record.count_statement)

    def close(self) -> None:
        pass


class RecordOperation(SchemaExtension):
    """Notes the operation's name and type in the request's record (never its document)."""

    def on_operation(self) -> Generator[None, None, None]:
        yield
        record = request_record.current.get()
        if record is None:
            return
        record.operation_name, record.operation_type = operation_of(self.execution_context)


def operation_of(context: ExecutionContext) -> tuple[str | None, str | None]:
    """The operation's name (as the client sent it, if a GraphQL name) and type, once parsed."""
    name = safe_operation_name(context.operation_name)
    try:
        kind = context.operation_type.value if context.graphql_document is not None else None
    except RuntimeError:  # the document holds no operation of that name
        kind = None
    return name, kind


def note_errors(errors: Sequence[object]) -> None:
    """Each error sent (as its JSON form): its code to the record, the request id to its
    extensions."""
    record = request_record.current.get()
    if record is None:
        return
    for error in errors:
        if not isinstance(error, dict):
            continue
        extensions = error.setdefault("extensions", {})
        record.error_codes.append(str(extensions.get("code")))
        extensions["requestId"] = record.request_id


# Formatting ---------------------------------------------------------------------------------


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, and a request's fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


# A text value written as it stands: printable ASCII but the space, `"` and `\\`, so it can
# neither end the line nor run into the next `key=value` pair.
_BARE_VALUE = re.compile(r"[!#-\[\]-~]+")


def text_value(value: object) -> str:
    """A field's value in a text line: as it stands when that is safe, else as a JSON string
    (every control character, line separator and non-ASCII letter escaped). A request path is
    the client's: `/graphql%0a…` arrives decoded, and must not start a forged line.

    >>> text_value("/graphql"), text_value(200), text_value("/a\\nlevel=ERROR b")
    ('/graphql', '200', '"/a\\\\nlevel=ERROR b"')
    """
    if isinstance(value, str) and not _BARE_VALUE.fullmatch(value):
        return json.dumps(value)
    return f"{value}"


class TextFormatter(logging.Formatter):
    """The usual line, with a request's fields as `key=value` after the message. Only a
    traceback spans lines: the message and every value are escaped onto the one line."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        escaped = logging.makeLogRecord(record.__dict__)
        escaped.message = printable(record.message)
        return super().formatMessage(escaped)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = getattr(record, "fields", None)
        if fields:
            pairs = (f"{k}={text_value(v)}" for k, v in fields.items() if k != "event")
            line += " " + " ".join(pairs)
        return line


def logging_config(log_format: str) -> dict[str, Any]:
    """The `logging.config.dictConfig` for `evidencegraph serve` (also handed to uvicorn):
    everything through one stderr handler in LOG_FORMAT; uvicorn's access log is left out,
    since the request line says more."""
    formatter: dict[str, Any] = (
        {"()": JsonFormatter}
        if log_format == "json"
        else {"()": TextFormatter, "format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "default",
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"handlers": ["stderr"], "level": "INFO"},
        "loggers": {
            "uvicorn": {"handlers": [], "propagate": True},
            "uvicorn.error": {"handlers": [], "propagate": True},
            "uvicorn.access": {"handlers": [], "propagate": False},
        },
    }
