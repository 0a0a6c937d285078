"""Odd input is a coded 4xx, never INTERNAL or 500 (contract §7, issue 38 §3): one rule reads the
JSON of every door (api/json_body.py) — `/graphql`'s body, GET's `variables` and `extensions`,
the persisted-query extensions inside them, `/mcp`'s JSON-RPC body — and refuses integers
beyond 64 bits, lone surrogates, `NaN` and JSON nested too deeply, each as MALFORMED."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.json_body import MAX_JSON_DEPTH, UnreadableJson, read_json
from tests.conftest import Client

GRAPHQL_RESPONSE = {"accept": "application/graphql-response+json"}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
BEYOND_64_BITS = 18446744073709551616
SEARCH = "query ($q: String!) { searchEntities(query: $q) { score } }"

# Integer literals beyond 64 bits, up to 5,000 digits (past Python's own 4,300-digit limit).
beyond_64_bits = (
    st.integers(min_value=2**63).map(str)
    | st.integers(max_value=-(2**63) - 1).map(str)
    | st.integers(min_value=20, max_value=5000).map(lambda digits: "9" * digits)
)
lone_surrogates = st.integers(0xD800, 0xDFFF).map(chr)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)


PLACE = "place for the odd value"  # longer than any generated string


def placed(value: str, within: object) -> str:
    """`[within, value]` as JSON text, `value` being JSON text itself."""
    return json.dumps([within, PLACE]).replace(json.dumps(PLACE), value)


# The rule, on its own ---------------------------------------------------------------------------


@settings(max_examples=200)
@given(number=beyond_64_bits, within=json_values)
def test_an_integer_beyond_64_bits_anywhere_is_unreadable(number: str, within: object) -> None:
    text = placed(number, within)
    with pytest.raises(UnreadableJson, match="beyond 64 bits"):
        read_json(text)


@given(number=st.integers(-(2**63), 2**63 - 1))
def test_an_integer_within_64_bits_is_read_as_itself(number: int) -> None:
    assert read_json(f'{{"n": {number}}}') == {"n": number}


@settings(max_examples=200)
@given(surrogate=lone_surrogates, text=st.text(max_size=5), within=json_values, key=st.booleans())
def test_a_lone_surrogate_anywhere_is_unreadable(
    surrogate: str, text: str, within: object, key: bool
) -> None:
    spelled = json.dumps(text + surrogate)  # the escape: \udxxx
    document = placed(f"{{{spelled}: 1}}" if key else spelled, within)
    with pytest.raises(UnreadableJson, match="lone surrogate"):
        read_json(document)
    escape = json.dumps(surrogate)[1:-1].encode()
    raw = surrogate.encode("utf-8", "surrogatepass")  # the bytes UTF-8 forbids
    with pytest.raises(UnreadableJson):
        read_json(document.encode().replace(escape, raw))


@given(
    text=st.text(
        st.characters(codec="utf-8")
        | st.sampled_from(["\ufffe", "\uffff", "\ufdd0", "\U0010fffe", "\U0001f600"])
    )
)
def test_every_character_is_read_surrogate_pairs_and_non_characters_too(text: str) -> None:
    assert read_json(json.dumps({"q": text})) == {"q": text}  # ASCII JSON: pairs as escapes
    assert read_json(json.dumps({"q": text}, ensure_ascii=False).encode()) == {"q": text}


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 3000, 100_000])
def test_json_nested_too_deeply_is_unreadable(depth: int) -> None:
    with pytest.raises(UnreadableJson, match="nested more than"):
        read_json("[" * depth + "]" * depth)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_numbers_json_has_not_are_unreadable(literal: str) -> None:
    with pytest.raises(UnreadableJson):
        read_json(f'{{"limit": {literal}}}')


# At /graphql ------------------------------------------------------------------------------------


def assert_malformed(response: Any, caplog: pytest.LogCaptureFixture) -> str:
    assert response.status_code == 400, response.text
    errors = response.json()["errors"]
    assert [error["extensions"]["code"] for error in errors] == ["MALFORMED"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    return str(errors[0]["message"])


@pytest.mark.parametrize("declared", [True, False])
async def test_a_variable_beyond_64_bits_is_malformed_declared_or_not(
    client: Client, caplog: pytest.LogCaptureFixture, declared: bool
) -> None:
    used = 'query ($n: Int) { searchPassages(query: "ada", limit: $n) { score } }'
    query = used if declared else "{ grantedWorkspaces }"
    body = f'{{"query": {json.dumps(query)}, "variables": {{"n": {BEYOND_64_BITS}}}}}'
    posted = await client.http.post(
        "/graphql", content=body, headers={**GRAPHQL_RESPONSE, "content-type": "application/json"}
    )
    assert "beyond 64 bits" in assert_malformed(posted, caplog)
    params = {"query": query, "variables": f'{{"n": {BEYOND_64_BITS}}}'}
    got = await client.http.get("/graphql", params=params, headers=GRAPHQL_RESPONSE)
    assert "beyond 64 bits" in assert_malformed(got, caplog)


async def test_a_lone_surrogate_in_a_search_is_malformed(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    variables = '{"q": "ada \\ud800"}'
    body = f'{{"query": {json.dumps(SEARCH)}, "variables": {variables}}}'
    posted = await client.http.post(
        "/graphql", content=body, headers={**GRAPHQL_RESPONSE, "content-type": "application/json"}
    )
    assert "lone surrogate" in assert_malformed(posted, caplog)
    got = await client.http.get(
        "/graphql", params={"query": SEARCH, "variables": variables}, headers=GRAPHQL_RESPONSE
    )
    assert "lone surrogate" in assert_malformed(got, caplog)
    literal = '{ searchEntities(query: "ada \\ud800") { score } }'  # GraphQL's own escape
    in_document = await client.http.post(
        "/graphql", json={"query": literal}, headers=GRAPHQL_RESPONSE
    )
    assert_malformed(in_document, caplog)


@pytest.mark.parametrize(
    "extensions",
    [
        '{"persistedQuery": {"version": 18446744073709551616, "sha256Hash": "0"}}',
        '{"persistedQuery": {"version": 1, "sha256Hash": "\\udfff"}}',
        '{"persistedQuery": ' + "[" * 3000 + "]" * 3000 + "}",
    ],
    ids=["beyond 64 bits", "lone surrogate", "3,000 deep"],
)
async def test_persisted_query_extensions_are_read_by_the_same_rule(
    client: Client, caplog: pytest.LogCaptureFixture, extensions: str
) -> None:
    got = await client.http.get(
        "/graphql", params={"extensions": extensions}, headers=GRAPHQL_RESPONSE
    )
    assert_malformed(got, caplog)
    posted = await client.http.post(
        "/graphql",
        content=f'{{"extensions": {extensions}}}',
        headers={**GRAPHQL_RESPONSE, "content-type": "application/json"},
    )
    assert_malformed(posted, caplog)


# At /mcp ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "[" * 3000 + "]" * 3000,
        '{"jsonrpc": "2.0", "id": ' + "1" * 5000 + ', "method": "ping"}',
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "walk",'
        ' "arguments": {"entityId": "x", "depth": 18446744073709551616}}}',
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name":'
        ' "search_entities", "arguments": {"query": "ada \\ud800"}}}',
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "walk",'
        ' "arguments": {"entityId": "x", "depth": NaN}}}',
    ],
    ids=["3,000 deep", "5,000 digits", "beyond 64 bits", "lone surrogate", "NaN"],
)
async def test_an_mcp_body_the_door_cannot_read_is_a_coded_400(
    client: Client, caplog: pytest.LogCaptureFixture, body: str
) -> None:
    client.statements.clear()
    answer = await client.http.post("/mcp", content=body, headers=MCP_HEADERS)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == -32700  # JSON-RPC's parse error
    assert error["data"] == {"code": "MALFORMED"}
    assert client.statements == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize(
    "body",
    [
        '"just a string"',
        "[]",
        '[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]',
        "{}",
        '{"jsonrpc": "1.0", "method": "ping"}',
    ],
    ids=["a string", "an empty batch", "a batch", "an empty object", "not 2.0"],
)
async def test_an_mcp_body_that_is_no_json_rpc_message_is_a_coded_400_in_the_services_words(
    client: Client, body: str
) -> None:
    answer = await client.http.post("/mcp", content=body, headers=MCP_HEADERS)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == -32600  # JSON-RPC's invalid request
    assert error["data"] == {"code": "MALFORMED"}
    assert "pydantic" not in answer.text.lower()  # the SDK's own answer quoted its validator
