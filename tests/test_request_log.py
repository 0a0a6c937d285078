"""The request log (docs/operations.md): one line per request with its id, caller, operation,
duration, statements and error code; the id in `X-Request-Id` and in error extensions; never a
token, a query text, a variable or a parameter value."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.responses import PlainTextResponse
from starlette.types import Message

from api.request_log import JsonFormatter, RequestLog, TextFormatter, logging_config
from api.settings import Settings, SettingsError
from graph.driver import Graph
from tests.support.graph_builder import GraphBuilder
from tests.support.operations_app import SEARCH, WALK, served, three_people

TOKEN = "tok-7d1e0c5b-never-logged"


def request_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "evidencegraph.request"]


async def test_each_request_is_one_json_line_with_its_id_caller_operation_and_statements(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph, caplog: pytest.LogCaptureFixture
) -> None:
    await three_people(builder, graph)
    caplog.set_level(logging.INFO, logger="evidencegraph.request")
    async with served(neo4j_uri) as (http, _):
        response = await http.post(
            "/graphql",
            json={"query": SEARCH, "variables": {"query": "ada lovelace"}},
            headers={"authorization": f"Bearer {TOKEN}", "x-request-id": "client-req.42"},
        )
    assert response.headers["x-request-id"] == "client-req.42"
    [record] = request_lines(caplog)
    line = JsonFormatter().format(record)
    entry = json.loads(line)
    assert entry["requestId"] == "client-req.42"
    fingerprint = hashlib.sha256(f"Bearer {TOKEN}".encode()).hexdigest()[:12]
    assert entry["callerId"] == f"key:{fingerprint}"
    assert entry["operationName"] == "Search"
    assert entry["operationType"] == "query"
    assert entry["status"] == 200
    assert entry["statements"] >= 1
    assert entry["errorCode"] is None
    assert isinstance(entry["durationMs"], float)
    assert entry["level"] == "INFO" and entry["logger"] == "evidencegraph.request"
    for secret in (TOKEN, "ada", "lovelace", "searchEntities"):
        assert secret not in line.lower(), line
    assert "\n" not in line


async def test_an_error_carries_the_request_id_in_its_extensions_and_its_code_in_the_log_line(
    neo4j_uri: str, graph: Graph, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="evidencegraph.request")
    async with served(neo4j_uri) as (http, _):
        response = await http.post(
            "/graphql",
            json={"query": WALK, "variables": {"id": "not-a-uuid"}},
            headers={"x-request-id": "bad id with spaces\tand a tab"},
        )
    generated = response.headers["x-request-id"]
    assert len(generated) == 32 and int(generated, 16) >= 0  # a new id, not the client's
    [error] = response.json()["errors"]
    assert error["extensions"]["code"] == "MALFORMED"
    assert error["extensions"]["requestId"] == generated
    [record] = request_lines(caplog)
    entry = json.loads(JsonFormatter().format(record))
    assert (entry["requestId"], entry["errorCode"], entry["callerId"]) == (
        generated,
        "MALFORMED",
        None,
    )
    assert entry["statements"] == 0
    assert "not-a-uuid" not in JsonFormatter().format(record)


async def test_an_overlong_request_id_is_replaced_and_probes_are_not_logged(
    neo4j_uri: str, graph: Graph, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="evidencegraph.request")
    async with served(neo4j_uri) as (http, _):
        response = await http.get("/healthz", headers={"x-request-id": "a" * 129})
    assert response.headers["x-request-id"] != "a" * 129
    assert request_lines(caplog) == []


def test_log_format_text_writes_the_fields_after_the_message() -> None:
    record = logging.LogRecord("evidencegraph.request", logging.INFO, "", 0, "request", (), None)
    record.fields = {"event": "request", "requestId": "r1", "statements": 2}
    assert TextFormatter("%(message)s").format(record) == "request requestId=r1 statements=2"


def test_log_format_is_json_or_text_and_anything_else_stops_start_up() -> None:
    assert Settings.from_environ({}).log_format == "text"
    assert Settings.from_environ({"LOG_FORMAT": "json"}).log_format == "json"
    with pytest.raises(SettingsError, match="LOG_FORMAT='yaml'"):
        Settings.from_environ({"LOG_FORMAT": "yaml"})
    config = logging_config("json")
    assert config["formatters"]["default"]["()"] is JsonFormatter
    assert config["loggers"]["uvicorn.access"]["propagate"] is False


# Characters that end a line somewhere (str.splitlines, log viewers) or hide what follows.
LINE_BREAKERS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00\x1b\t"
PATHS = st.text(st.sampled_from(LINE_BREAKERS + ' "=\\') | st.characters(), max_size=40).map(
    lambda text: "/" + text
)


def logged_request(path: str) -> logging.LogRecord:
    """The request log's record of one request for `path`, as a server decodes it (`%0a`
    arrives as a newline), answered 404 by an app behind the log."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign,assignment]
    logger = logging.getLogger("evidencegraph.request")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    scope = {"type": "http", "method": "GET", "path": path, "headers": []}

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    async def send(message: Message) -> None:
        pass

    try:
        asyncio.run(RequestLog(PlainTextResponse("not found", 404))(scope, receive, send))
    finally:
        logger.removeHandler(handler)
    [record] = records
    return record


@given(path=PATHS)
def test_a_request_path_is_escaped_so_it_cannot_forge_a_log_line(path: str) -> None:
    record = logged_request(path)
    text = TextFormatter("%(levelname)s %(name)s: %(message)s").format(record)
    assert len(text.splitlines()) == 1, text
    # The path reads back exactly, and the next pair is the log's own.
    start = text.index(" path=") + len(" path=")
    if text[start] == '"':
        read, end = json.JSONDecoder().raw_decode(text, start)
    else:
        end = text.index(" ", start)
        read = text[start:end]
    assert read == path
    assert text[end:].startswith(" status=404 ")
    entry = JsonFormatter().format(record)
    assert len(entry.splitlines()) == 1 and json.loads(entry)["path"] == path


@given(quoted=PATHS)
def test_a_log_message_quoting_a_client_stays_one_line(quoted: str) -> None:
    record = logging.LogRecord(
        "api.request_timeout", logging.WARNING, "", 0, "a request to %s", (quoted,), None
    )
    assert len(TextFormatter("%(levelname)s: %(message)s").format(record).splitlines()) == 1
