"""Hostile JSON-RPC, generated (issue 38 §3): messages to `/mcp` of the service under uvicorn in
its production configuration (API keys, default limits), with a valid credential. Methods real
and made up, ids of every JSON kind (integers beyond 64 bits, odd strings), and for `tools/call`
arguments drawn from each tool's own input schema, now and then out of range, of the wrong
type, or odd (surrogates, non-characters, integers beyond 64 bits).

Every answer must be a clean one: below 500; JSON (a notification's 202 has no body); a body the
door refuses is 400 with JSON-RPC's parse error and the contract's MALFORMED; a tool error is
coded with one of contract §7's codes, never INTERNAL; nothing of the internals in any body; the
server logs no unexpected error. Counts land in test-output/fuzz-mcp.json.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from typing import Any

import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpserver.tools import TOOLS
from tests.support.fuzzing import (
    API_KEY,
    WORDS,
    Drawn,
    clean_log,
    leak,
    now_and_then,
)
from tests.support.node_tools import REPOSITORY
from tests.support.serving import Served

EXAMPLES = int(os.environ.get("FUZZ_MCP_EXAMPLES", "400"))
OUTPUT = REPOSITORY / "test-output" / "fuzz-mcp.json"
METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "prompts/list",
    "logging/setLevel",
    "completion/complete",
    "notifications/initialized",
    "notifications/cancelled",
]
TOOL_CODES = {
    "MALFORMED",
    "UNAVAILABLE",
    "INDEX_NOT_READY",
    "FORBIDDEN",
    "BACKEND_UNAVAILABLE",
    "COST_LIMIT_EXCEEDED",
}


class Messages:
    """JSON-RPC messages, biased to what the server answers and the graph holds."""

    def __init__(self, ids: list[str], drawn: Drawn) -> None:
        self.ids = ids
        self.drawn = drawn

    def text(self) -> st.SearchStrategy[str]:
        usual = st.one_of(st.sampled_from(WORDS), st.text(max_size=40))
        return now_and_then(self.drawn.odd_strings("string"), usual)

    def integer(self, low: int, high: int) -> st.SearchStrategy[Any]:
        usual = st.one_of(
            st.integers(low - 2, min(high, low + 12)),
            st.integers(low, high),
            st.integers(high - 2, high + 2),
        )
        wrong = st.one_of(st.floats(allow_nan=False), st.text(max_size=5), st.none())
        odd = st.booleans().flatmap(
            lambda beyond: self.drawn.odd_integers("integer") if beyond else wrong
        )
        # One in three: an integer argument is optional, and most calls leave it out.
        return st.integers(1, 3).flatmap(lambda n: usual if n > 1 else odd)

    def value(self, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
        """A value for one property of a tool's input schema."""
        kind = schema.get("type")
        if "enum" in schema:
            return now_and_then(self.text(), st.sampled_from(schema["enum"]))
        if kind == "integer":
            return self.integer(schema.get("minimum", -10), schema.get("maximum", 10_000))
        if kind == "string" and "pattern" in schema:  # an id
            return now_and_then(self.text(), st.sampled_from(self.ids) | st.uuids().map(str))
        if kind == "string":
            return self.text()
        if kind == "array":
            items = self.value(schema.get("items", {}))
            return now_and_then(self.text(), st.lists(items, max_size=4))
        if kind == "object":
            properties = {k: self.value(v) for k, v in schema.get("properties", {}).items()}
            return st.fixed_dictionaries({}, optional=properties)
        return self.text()

    def arguments(self, name: str) -> st.SearchStrategy[Any]:
        tool = next((tool for tool in TOOLS if tool.name == name), None)
        if tool is None:
            return st.dictionaries(st.text(max_size=5), self.text(), max_size=3)
        schema = tool.inputSchema
        properties = {k: self.value(v) for k, v in schema["properties"].items()}
        required = {k: v for k, v in properties.items() if k in schema.get("required", [])}
        optional = {k: v for k, v in properties.items() if k not in required}
        arguments = st.fixed_dictionaries(required, optional=optional)
        extra = st.dictionaries(st.text(max_size=8), self.text(), min_size=1, max_size=2)
        return now_and_then(st.builds(lambda a, b: {**a, **b}, arguments, extra), arguments)

    def params(self, method: str) -> st.SearchStrategy[Any]:
        if method == "tools/call":
            names = now_and_then(self.text(), st.sampled_from([tool.name for tool in TOOLS]))
            return names.flatmap(
                lambda name: now_and_then(
                    st.just({"name": name}),  # no arguments at all
                    st.fixed_dictionaries(
                        {"name": st.just(name), "arguments": self.arguments(name)}
                    ),
                )
            )
        if method == "initialize":
            return st.fixed_dictionaries(
                {
                    "protocolVersion": st.sampled_from(["2025-06-18", "2024-11-05"]) | self.text(),
                    "capabilities": st.just({}),
                    "clientInfo": st.fixed_dictionaries(
                        {"name": self.text(), "version": self.text()}
                    ),
                }
            )
        return st.dictionaries(st.text(max_size=8), self.text(), max_size=3)

    def message(self) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
        # Half the messages call a tool, where the work is.
        method = st.booleans().flatmap(
            lambda call: (
                st.just("tools/call")
                if call
                else now_and_then(self.text(), st.sampled_from(METHODS))
            )
        )
        usual_ids = st.one_of(
            st.integers(-(2**31), 2**31),
            st.sampled_from(WORDS),
            st.none(),
            st.floats(allow_nan=False, allow_infinity=False),
        )
        ids = now_and_then(st.one_of(self.drawn.odd_integers("id"), self.text()), usual_ids)

        def build(name: str) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
            fields = {"jsonrpc": now_and_then(self.text(), st.just("2.0")), "method": st.just(name)}
            optional = {"params": self.params(name)}
            if name == "tools/call":  # what it calls, where the work is
                fields["params"] = optional.pop("params")
            if not name.startswith("notifications/"):
                fields["id"] = ids
            else:
                optional["id"] = ids
            return st.fixed_dictionaries(fields, optional=optional).map(lambda m: (name, m))

        return method.flatmap(build)


def problems(response: requests.Response, message: dict[str, Any]) -> list[str]:
    found = [f"status {response.status_code}"] if response.status_code >= 500 else []
    if response.status_code == 202 and not response.content:
        return found  # a notification, accepted
    try:
        body: Any = response.json()
    except ValueError:
        return [*found, f"not JSON: {response.status_code} {response.text[:200]}"]
    if leak(json.dumps(body, ensure_ascii=False)):
        found.append(f"internals in the body: {json.dumps(body)[:300]}")
    if not isinstance(body, dict):
        return [*found, f"not a JSON-RPC answer: {body!r:.200}"]
    if response.status_code == 400 and (body.get("error") or {}).get("data") != {
        "code": "MALFORMED"
    }:
        found.append(f"a 400 without the contract's code: {body}")
    result = body.get("result")
    if isinstance(result, dict) and result.get("isError"):
        code = result["structuredContent"]["error"]["code"]
        if code not in TOOL_CODES:
            found.append(f"tool error coded {code!r}: {result['content'][0]['text'][:200]}")
    return found


def test_fuzzed_json_rpc_at_mcp_never_fails_or_leaks(
    fuzz_service: Served, fuzz_graph: list[str]
) -> None:
    drawn = Drawn()
    messages = Messages(fuzz_graph, drawn)
    session = requests.Session()
    session.headers.update(
        {
            "authorization": f"Bearer {API_KEY}",
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
        }
    )
    sent: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    failures: list[tuple[str, list[str]]] = []

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(drawn_message=messages.message())
    def fuzz(drawn_message: tuple[str, dict[str, Any]]) -> None:
        method, message = drawn_message
        # Python's encoder writes what a hostile client may: big integers, lone surrogates.
        body = json.dumps(message).encode()
        response = session.post(f"{fuzz_service.url}/mcp", data=body)
        sent[method if method in METHODS else "(made up)"] += 1
        statuses[response.status_code] += 1
        found = problems(response, message)
        if found:
            failures.append((body.decode()[:300], found))

    started = time.monotonic()
    fuzz()
    OUTPUT.parent.mkdir(exist_ok=True)
    summary = {
        "messages": sum(sent.values()),
        "by_method": dict(sent),
        "statuses": {str(k): v for k, v in statuses.items()},
        "generators": dict(drawn),
        "seconds": round(time.monotonic() - started, 1),
        "failures": len(failures),
    }
    OUTPUT.write_text(json.dumps(summary, indent=2))
    assert not failures, failures[:5]
    assert sent["tools/call"] >= EXAMPLES // 20, summary
    assert clean_log(fuzz_service) is None, clean_log(fuzz_service)
