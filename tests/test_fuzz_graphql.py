"""Hostile input, generated: schemathesis fuzzes every root field of the served schema, the
federation fields included, against the service under uvicorn on loopback in its production
configuration (API keys, introspection off, default limits), with a valid credential.

Every answer must be a clean one: no 5xx, JSON, every error coded with one of contract §7's codes
and never INTERNAL (an unexpected error is a bug, even masked), and nothing of the internals
(a traceback, a driver message, Cypher, a file path) in any body; the server logs no
unexpected error either. schemathesis's own `positive_data_acceptance` and
`not_a_server_error` checks are left out: the limits refuse queries the schema allows, and a
MALFORMED argument is a field error by design, which schemathesis counts as a server error.

The schema comes from the code (`create_schema()`), not from introspection, which is off.
Counts land in test-output/fuzz-graphql.json.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from typing import Any

import graphql
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.core.result import Ok
from schemathesis.graphql import nodes

from api.schema import create_schema
from tests.support.fuzzing import (
    API_KEY,
    NON_CHARACTERS,
    WORDS,
    Drawn,
    clean_log,
    leak,
    now_and_then,
)
from tests.support.node_tools import REPOSITORY
from tests.support.serving import Served

# Per root field (8 of them). The strategies are biased to what the graph holds (ids, words,
# small ints), so an argument check a field lacks, or an error that names internals, shows in
# the first few dozen queries of that field; 100 leaves room, where 400 cost four times as long
# for no bug more. FUZZ_EXAMPLES_PER_OPERATION=1000 for a longer hunt.
EXAMPLES_PER_OPERATION = int(os.environ.get("FUZZ_EXAMPLES_PER_OPERATION", "100"))
SPEC_CODES = {
    "MALFORMED",
    "UNAVAILABLE",
    "INDEX_NOT_READY",
    "UNAUTHENTICATED",
    "FORBIDDEN",
    "BACKEND_UNAVAILABLE",
    # The front door's (contract §7): a drawn `limit` × `supportLimit` can price a search over
    # GRAPHQL_MAX_COST, which is refused with this code before anything runs.
    "COST_LIMIT_EXCEEDED",
}
OUTPUT = REPOSITORY / "test-output" / "fuzz-graphql.json"


def field(name: str, value: graphql.ValueNode) -> graphql.ObjectFieldNode:
    return graphql.ObjectFieldNode(name=graphql.NameNode(value=name), value=value)


def representation(ids: list[str]) -> st.SearchStrategy[graphql.ValueNode]:
    """`_Any` values: mostly well-formed `{__typename, id}`, often not."""
    typename = st.sampled_from(["Entity", "Passage", "Document", "EntityHit", "Query", ""])
    good = st.builds(
        lambda t, i: nodes.Object([field("__typename", nodes.String(t)), field("id", i)]),
        typename,
        st.one_of(
            st.sampled_from(ids).map(nodes.String),
            st.uuids().map(nodes.String),
            st.text().map(nodes.String),
            st.integers().map(nodes.Int),
        ),
    )
    odd = st.one_of(
        st.text().map(nodes.String),
        st.integers().map(nodes.Int),
        st.just(nodes.Null),
        st.just(nodes.Object([])),
        st.builds(lambda i: nodes.Object([field("id", nodes.String(i))]), st.text()),
    )
    return st.one_of(good, good, odd)


drawn = Drawn()


def register_scalars(ids: list[str]) -> None:
    """Built-in scalars biased towards meaningful values, now and then an odd one (counted),
    and `_Any` (which needs one)."""
    odd_strings = drawn.odd_strings("String/ID")
    odd_integers = drawn.odd_integers("Int")
    schemathesis.graphql.scalar(
        "ID",
        now_and_then(
            odd_strings, st.one_of(st.sampled_from(ids), st.uuids().map(str), st.text())
        ).map(nodes.String),
    )
    schemathesis.graphql.scalar(
        "Int",
        now_and_then(
            odd_integers, st.one_of(st.integers(-2, 12), st.integers(-(2**31), 2**31 - 1))
        ).map(nodes.Int),
    )
    schemathesis.graphql.scalar(
        "String",
        now_and_then(odd_strings, st.one_of(st.sampled_from(WORDS), st.text())).map(nodes.String),
    )
    schemathesis.graphql.scalar("_Any", representation(ids))


SDL = (REPOSITORY / "schema.graphql").read_text().rstrip("\n")
STRING_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def without_echoes(text: str, request: str) -> str:
    """`text` less the string literals of the request: an error may name the caller's own
    input (a workspace called "neo4j.conf"), which is no leak of the service's internals."""
    for literal in sorted(set(STRING_LITERAL.findall(request)), key=len, reverse=True):
        if len(literal) >= 3:
            text = text.replace(literal, "")
    return text


def problems(response: requests.Response, codes: Counter[str], request: str = "") -> list[str]:
    """What is wrong with one answer (nothing, for a clean one)."""
    found = [f"status {response.status_code}"] if response.status_code >= 500 else []
    try:
        body: Any = response.json()
    except ValueError:
        return [*found, f"not JSON: {response.text[:200]}"]
    if not isinstance(body, dict):
        return [*found, "not a JSON object"]
    service = ((body.get("data") or {}).get("_service") or {}) if "data" in body else {}
    if isinstance(service, dict) and "sdl" in service:
        # The published schema, the one body allowed to say what the service is built on.
        assert service.pop("sdl") == SDL
    shown = leak(without_echoes(json.dumps(body, ensure_ascii=False), request))
    if shown:
        found.append(f"internals in the body: {shown!r}")
    for error in body.get("errors") or []:
        code = (error.get("extensions") or {}).get("code")
        codes[str(code)] += 1
        if code not in SPEC_CODES:
            found.append(f"error coded {code!r}: {error.get('message')}")
    return found


def fuzz_operation(
    operation: Any,
    url: str,
    session: requests.Session,
    codes: Counter[str],
    failures: list[tuple[str, str, list[str]]],
) -> int:
    """Send `EXAMPLES_PER_OPERATION` generated queries of one root field; return how many."""
    sent = 0

    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy())
    def fuzz(case: Any) -> None:
        nonlocal sent
        # A first plan of a statement on a busy machine can take more than the default 10 s.
        response = case.call(base_url=url, session=session, timeout=120)
        sent += 1
        found = problems(response, codes, str(case.body))
        if found:
            failures.append((operation.label, str(case.body)[:500], found))

    fuzz()
    return sent


def test_fuzzed_operations_never_fail_or_leak(fuzz_service: Served, fuzz_graph: list[str]) -> None:
    register_scalars(fuzz_graph)
    introspection = dict(graphql.introspection_from_schema(create_schema()._schema))
    # Including every Query field explicitly brings in `_entities` and `_service`.
    schema = schemathesis.graphql.from_dict(introspection).include(name_regex=r"^Query\.")
    session = requests.Session()
    session.headers.update(
        {"authorization": f"Bearer {API_KEY}", "accept": "application/graphql-response+json"}
    )
    sent: dict[str, int] = {}
    codes: Counter[str] = Counter()
    failures: list[tuple[str, str, list[str]]] = []
    started = time.monotonic()
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result
        operation = result.ok()
        url = f"{fuzz_service.url}/graphql"
        sent[operation.label] = fuzz_operation(operation, url, session, codes, failures)
    OUTPUT.parent.mkdir(exist_ok=True)
    summary = {
        "operations": sum(sent.values()),
        "by_field": sent,
        "error_codes": dict(codes),
        "seconds": round(time.monotonic() - started, 1),
        "failures": len(failures),
        "generators": dict(drawn),
    }
    OUTPUT.write_text(json.dumps(summary, indent=2))
    assert not failures, failures[:5]
    # The seven fields that take arguments send about that many each; `_service`,
    # `entityLabels` and `grantedWorkspaces` take none.
    assert sum(sent.values()) >= 6 * EXAMPLES_PER_OPERATION, summary
    assert len(sent) == 10, sent  # every root field, `_entities` and `_service` included
    assert clean_log(fuzz_service) is None, clean_log(fuzz_service)


# Odd JSON at every door (issue 38 §3) ----------------------------------------------------------

DOOR_EXAMPLES = int(os.environ.get("FUZZ_DOOR_EXAMPLES", "300"))
DOORS_OUTPUT = REPOSITORY / "test-output" / "fuzz-doors.json"
PING = '{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
# Each door, and where in its request the odd JSON goes (ODD: its JSON text).
PLACES: dict[str, tuple[str, str, str]] = {
    "/graphql POST body": ("POST", "/graphql", "ODD"),
    "/graphql POST variables": (
        "POST",
        "/graphql",
        '{"query": "query ($v: String) { grantedWorkspaces }", "variables": {"v": ODD}}',
    ),
    "/graphql POST persisted query": (
        "POST",
        "/graphql",
        '{"query": "{ grantedWorkspaces }", "extensions": {"persistedQuery": ODD}}',
    ),
    "/graphql GET variables": ("GET", "/graphql", '{"v": ODD}'),
    "/graphql GET persisted query": ("GET", "/graphql", '{"persistedQuery": ODD}'),
    "/mcp body": ("POST", "/mcp", "ODD"),
    "/mcp JSON-RPC id": ("POST", "/mcp", PING.replace('"id": 1', '"id": ODD')),
    "/mcp tool arguments": (
        "POST",
        "/mcp",
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call",'
        ' "params": {"name": "search_entities", "arguments": {"query": ODD}}}',
    ),
}


def nested(depth: int, inner: str) -> str:
    return "[" * depth + inner + "]" * depth


# Each kind of odd JSON text, as a strategy of its text.
ODD_JSON: dict[str, st.SearchStrategy[str]] = {
    "deep": st.builds(
        nested,
        st.one_of(st.integers(1, 40), st.integers(30, 5000)),
        st.sampled_from(["1", '"ada"', "{}", "null"]),
    ),
    "deep objects": st.integers(1, 3000).map(lambda depth: '{"a": ' * depth + "1" + "}" * depth),
    "huge integer": st.integers(20, 5000).map(lambda digits: "9" * digits)
    | st.integers(min_value=2**63, max_value=2**300).map(lambda n: f"-{n}"),
    "huge number": st.sampled_from(["1e400", "-1e400", "1" * 400 + ".5", "NaN", "Infinity"]),
    "lone surrogate": st.builds(
        lambda word, surrogate: json.dumps(word + surrogate),
        st.sampled_from(["", "ada ", "acme"]),
        st.characters(categories=["Cs"]),
    ),
    "non-characters": st.builds(
        lambda c, raw: json.dumps("ada " + c, ensure_ascii=not raw),
        st.sampled_from(NON_CHARACTERS),
        st.booleans(),
    ),
    "long string": st.integers(1_000, 200_000).map(lambda n: json.dumps("a" * n)),
    "broken": st.sampled_from(['{"a": ', "[1, 2", '"unterminated', "\\", "{]", ""]),
}


def door_problems(door: str, response: requests.Response) -> list[str]:
    """A clean answer: below 500, JSON (but a notification's 202), coded; nothing of the
    internals."""
    found = [f"status {response.status_code}"] if response.status_code >= 500 else []
    if door.startswith("/mcp") and response.status_code == 202 and not response.content:
        return found  # taken as a notification (an id JSON-RPC does not allow), accepted
    try:
        body: Any = response.json()
    except ValueError:
        return [*found, f"not JSON: {response.text[:200]}"]
    if leak(json.dumps(body)):
        found.append(f"internals in the body: {json.dumps(body)[:300]}")
    if door.startswith("/graphql"):
        codes = [(e.get("extensions") or {}).get("code") for e in body.get("errors") or []]
        found += [f"error coded {code!r}" for code in codes if code not in DOOR_CODES]
    elif "error" in body:  # JSON-RPC's error: the contract's code in `data` when the door refused
        data = body["error"].get("data") or {}
        if response.status_code == 400 and data.get("code") != "MALFORMED":
            found.append(f"a 400 without the contract's code: {body}")
    elif body.get("result", {}).get("isError"):
        code = body["result"]["structuredContent"]["error"]["code"]
        if code not in DOOR_CODES:
            found.append(f"tool error coded {code!r}")
    return found


# uvicorn refuses a request line longer than 64 KiB itself, before the service sees it, with a
# plain 400 (docs/security.md, "Limits"): a GET whose URL is that long gets no coded answer.
LONGEST_REQUEST_LINE = 64 * 1024


def refused_by_the_http_server(response: requests.Response) -> bool:
    request = response.request
    return (
        request.method == "GET"
        and len(request.url or "") > LONGEST_REQUEST_LINE
        and response.status_code == 400
        and response.text == "Invalid HTTP request received."
    )


# Odd values may also make a persisted-query extension name no known document.
DOOR_CODES = SPEC_CODES | {"PERSISTED_QUERY_NOT_FOUND"}


def test_odd_json_at_every_door_is_answered_or_refused_with_a_code(fuzz_service: Served) -> None:
    session = requests.Session()
    session.headers.update(
        {
            "authorization": f"Bearer {API_KEY}",
            "accept": "application/graphql-response+json, application/json, text/event-stream",
        }
    )
    kinds = st.sampled_from(sorted(ODD_JSON)).flatmap(
        lambda kind: ODD_JSON[kind].map(lambda text: (kind, text))
    )
    sent: Counter[str] = Counter()
    failures: list[tuple[str, str, str, list[str]]] = []

    @settings(
        max_examples=DOOR_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(door=st.sampled_from(sorted(PLACES)), odd=kinds)
    def fuzz(door: str, odd: tuple[str, str]) -> None:
        kind, text = odd
        method, path, template = PLACES[door]
        filled = template.replace("ODD", text)
        url = fuzz_service.url + path
        if method == "GET":
            name = "variables" if "variables" in door else "extensions"
            query = "query ($v: String) { grantedWorkspaces }"
            response = session.get(url, params={"query": query, name: filled})
        else:
            headers = {"content-type": "application/json"}
            response = session.post(
                url, data=filled.encode("utf-8", "surrogatepass"), headers=headers
            )
        sent[f"{door} / {kind}"] += 1
        if refused_by_the_http_server(response):
            sent[f"{door} / {kind}, refused by the HTTP server"] += 1
            return
        found = door_problems(door, response)
        if found:
            failures.append((door, kind, filled[:200], found))

    started = time.monotonic()
    fuzz()
    DOORS_OUTPUT.parent.mkdir(exist_ok=True)
    answered = Counter({key: n for key, n in sent.items() if "refused by" not in key})
    by_kind = Counter(key.split(" / ")[1] for key in answered.elements())
    by_door = Counter(key.split(" / ")[0] for key in answered.elements())
    summary = {
        "requests": sum(sent.values()),
        "by_kind": dict(by_kind),
        "by_door": dict(by_door),
        "refused_by_the_http_server": {k: n for k, n in sent.items() if "refused by" in k},
        "seconds": round(time.monotonic() - started, 1),
        "failures": len(failures),
    }
    DOORS_OUTPUT.write_text(json.dumps({**summary, "first_failures": failures[:5]}, indent=2))
    assert not failures, failures[:5]
    assert set(by_door) == set(PLACES) and set(by_kind) == set(ODD_JSON), summary
    assert clean_log(fuzz_service) is None, clean_log(fuzz_service)
