"""GraphQL hardening (api/graphql_limits.py, api/errors.py): depth, aliases, tokens,
introspection, suggestions, batching, WebSockets and caches, each refused the way contract §7 asks
(`MALFORMED`, a clear message) and logged below ERROR."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from graphql import get_introspection_query
from graphql.language.lexer import Lexer
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from strawberry.extensions import SchemaExtension

from api.app import create_app
from api.graphql_document import CACHEABLE_DOCUMENT_CHARS, cached_parse, cached_validate
from graph.driver import Graph
from tests.conftest import Client, serving, settings_for_tests
from tests.support.graph_builder import new_id

ENTITY_ID = new_id()
# The deepest path the schema has: walk → edges → source → evidence → document (depth 5).
DEEPEST = (
    f'{{ walk(entityId: "{ENTITY_ID}") '
    "{ edges { source { evidence { document { id } } } } } }"
)
DEEPEST_BY_FRAGMENTS = (
    f'{{ walk(entityId: "{ENTITY_ID}") {{ ...E }} }}'
    " fragment E on WalkResult { edges { ...S } }"
    " fragment S on Edge { source { evidence { document { id } } } }"
)
ENTITIES_NESTED = (
    'query { _entities(representations: [{__typename: "Entity", id: "x"}]) {'
    " ... on Entity { evidence { document { id } } } } }"
)


def codes(body: dict[str, Any]) -> list[str]:
    return [error["extensions"]["code"] for error in body.get("errors", [])]


def messages(body: dict[str, Any]) -> str:
    return " ".join(error["message"] for error in body.get("errors", []))


async def test_depth_is_limited_and_the_deepest_legitimate_query_passes(
    neo4j_uri: str, graph: Graph
) -> None:
    async with serving(neo4j_uri, graph) as client:
        for query in (DEEPEST, DEEPEST_BY_FRAGMENTS):
            # Validates under the default (8); the walk itself finds no such entity.
            assert codes(await client.execute(query)) == ["UNAVAILABLE"]
    async with serving(neo4j_uri, graph, GRAPHQL_MAX_DEPTH="4") as client:
        for query in (DEEPEST, DEEPEST_BY_FRAGMENTS):
            body = await client.execute(query)
            assert codes(body) == ["MALFORMED"], body
            assert "exceeds maximum operation depth of 4" in messages(body)
            assert client.statements == []  # refused before anything ran
    async with serving(neo4j_uri, graph, GRAPHQL_MAX_DEPTH="2") as client:
        # `_entities` is counted like any field (the gateway's own queries are shallow).
        assert "maximum operation depth of 2" in messages(await client.execute(ENTITIES_NESTED))


async def test_introspection_depth_is_bounded_although_the_depth_limit_skips_it(
    neo4j_uri: str, graph: Graph
) -> None:
    cyclic = "{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }"
    async with serving(neo4j_uri, graph, GRAPHQL_INTROSPECTION="true") as client:
        body = await client.execute(cyclic)
        assert set(codes(body)) == {"MALFORMED"}
        assert "Maximum introspection depth exceeded" in messages(body)
        # GraphiQL's and the gateway tooling's full introspection query still passes.
        full = await client.execute(get_introspection_query(descriptions=True))
        assert "errors" not in full and full["data"]["__schema"]["queryType"]["name"] == "Query"


def aliased(count: int) -> str:
    return "{ " + " ".join(f"a{i}: __typename" for i in range(count)) + " }"


async def test_aliases_are_limited(client: Client, neo4j_uri: str, graph: Graph) -> None:
    assert "errors" not in await client.execute(aliased(30))  # the default allows 30
    body = await client.execute(aliased(31))
    assert codes(body) == ["MALFORMED"]
    assert "31 aliases found. Allowed: 30" in messages(body)
    async with serving(neo4j_uri, graph, GRAPHQL_MAX_ALIASES="2") as limited:
        nested = "{ a: entityLabels { l: label } b: entityLabels { l: label } }"
        assert "4 aliases found. Allowed: 2" in messages(await limited.execute(nested))


async def test_tokens_are_limited_before_parsing_completes(
    client: Client, neo4j_uri: str, graph: Graph
) -> None:
    huge = "{ " + "__typename " * 2000 + "}"
    body = await client.execute(huge)
    assert codes(body) == ["MALFORMED"]
    assert "more than 1000 tokens" in messages(body)
    async with serving(neo4j_uri, graph, GRAPHQL_MAX_TOKENS="50") as limited:
        assert "more than 50 tokens" in messages(await limited.execute(aliased(20)))


@pytest.mark.parametrize("operation_name", [None, "A"])
async def test_the_token_limit_acts_before_any_full_parse_with_or_without_an_operation_name(
    client: Client, monkeypatch: pytest.MonkeyPatch, operation_name: str | None
) -> None:
    """A 70,000-alias document (with two operations, so its operations matter) is read only up
    to the limit: no parse of the whole text happens anywhere, whatever the request names."""
    document = "query A { " + "a: __typename " * 70_000 + "} query B { __typename }"
    tokens_read = 0
    advance = Lexer.advance

    def counting(lexer: Lexer) -> Any:
        nonlocal tokens_read
        tokens_read += 1
        return advance(lexer)

    monkeypatch.setattr(Lexer, "advance", counting)
    payload = {"query": document, "operationName": operation_name}
    body = (await client.http.post("/graphql", json=payload)).json()
    monkeypatch.undo()
    assert codes(body) == ["MALFORMED"] and "more than 1000 tokens" in messages(body), body
    assert tokens_read <= 1001, tokens_read


async def test_a_document_with_several_operations_must_name_the_one_to_run(client: Client) -> None:
    body = await client.execute("query A { __typename } query B { __typename }")
    assert codes(body) == ["MALFORMED"]
    assert "Must provide operation name" in messages(body)
    payload = {"query": "query A { __typename } query B { __typename }", "operationName": "B"}
    named = (await client.http.post("/graphql", json=payload)).json()
    assert named["data"] == {"__typename": "Query"}


async def test_directives_are_limited_per_field_and_per_document(
    client: Client, neo4j_uri: str, graph: Graph
) -> None:
    overloaded = "query cop { __typename @aa@aa@aa@aa@aa@aa@aa@aa@aa@aa }"  # graphql-cop's
    body = await client.execute(overloaded)
    assert codes(body) == ["MALFORMED"], body  # one error, not one per directive
    assert "GRAPHQL_MAX_DIRECTIVES_PER_FIELD" in messages(body)
    ordinary = "{ __typename @include(if: true) @skip(if: false) }"
    assert (await client.execute(ordinary))["data"] == {"__typename": "Query"}
    many = "{ " + "__typename @include(if: true) " * 51 + "}"
    body = await client.execute(many)
    assert codes(body) == ["MALFORMED"] and "GRAPHQL_MAX_DIRECTIVES)" in messages(body), body
    assert "errors" not in await client.execute("{ " + "__typename @include(if: true) " * 50 + "}")
    settings = {"GRAPHQL_MAX_DIRECTIVES_PER_FIELD": "1", "GRAPHQL_MAX_DIRECTIVES": "2"}
    async with serving(neo4j_uri, graph, **settings) as limited:
        assert codes(await limited.execute(ordinary)) == ["MALFORMED"]
        fragment = (
            "{ ...F @include(if: true) } fragment F on Query @aa { __typename @skip(if: false) }"
        )
        assert codes(await limited.execute(fragment)) == ["MALFORMED"]  # 3 in the document


async def test_introspection_is_off_by_default_but_the_gateway_still_reads_the_sdl(
    client: Client, neo4j_uri: str, graph: Graph
) -> None:
    for query in ("{ __schema { types { name } } }", '{ __type(name: "Entity") { name } }'):
        body = await client.execute(query)
        assert set(codes(body)) == {"MALFORMED"}, body
        assert "introspection has been disabled" in messages(body)
    assert (await client.execute("{ __typename }"))["data"] == {"__typename": "Query"}
    sdl = (await client.execute("{ _service { sdl } }"))["data"]["_service"]["sdl"]
    assert "type Entity @key" in sdl
    async with serving(neo4j_uri, graph, GRAPHQL_INTROSPECTION="true") as open_client:
        body = await open_client.execute("{ __schema { queryType { name } } }")
        assert body["data"] == {"__schema": {"queryType": {"name": "Query"}}}


MISTAKES = [
    ('{ searchEntitie(query: "ada") { score } }', "Cannot query field 'searchEntitie'"),
    ('{ entity(idd: "x") { id } }', "Unknown argument 'idd'"),
    ('{ searchEntities(query: "a", mode: HYBRD) { score } }', "HYBRD"),
    ('{ searchEntities(query: "a", scope: {workspace: ["x"]}) { score } }', "'workspace'"),
    ('{ walk(entityId: "x") { ... on Entiti { id } } }', "Unknown type 'Entiti'"),
]


@pytest.mark.parametrize(("query", "named"), MISTAKES)
async def test_suggestions_are_off_unless_enabled(
    client: Client, neo4j_uri: str, graph: Graph, query: str, named: str
) -> None:
    hidden = await client.execute(query)
    assert set(codes(hidden)) == {"MALFORMED"}
    assert named in messages(hidden)
    assert "Did you mean" not in messages(hidden)
    async with serving(neo4j_uri, graph, GRAPHQL_FIELD_SUGGESTIONS="true") as helpful:
        assert "Did you mean" in messages(await helpful.execute(query))


async def test_suggestions_are_off_in_variable_errors_too(client: Client) -> None:
    body = await client.execute(
        'query($m: SearchMode!) { searchEntities(query: "a", mode: $m) { score } }', {"m": "HYBRD"}
    )
    assert codes(body) == ["MALFORMED"] and "Did you mean" not in messages(body)


async def test_batches_are_refused_with_a_coded_400(client: Client) -> None:
    """Contract §7: a batch array is a body the server does not read: a 4xx with a code."""
    response = await client.http.post("/graphql", json=[{"query": "{ __typename }"}] * 2)
    assert response.status_code == 400
    assert codes(response.json()) == ["MALFORMED"]
    assert "a batch" in messages(response.json())


def test_websockets_are_refused(neo4j_uri: str) -> None:
    app = create_app(settings_for_tests(neo4j_uri))
    with TestClient(app) as http:  # runs the lifespan, so a handshake would be served
        for protocols in (["graphql-transport-ws"], ["graphql-ws"]):
            with (
                pytest.raises(WebSocketDisconnect),
                http.websocket_connect("/graphql", subprotocols=protocols) as socket,
            ):
                socket.receive_json()


def test_extensions_are_classes_or_factories_never_shared_instances(neo4j_uri: str) -> None:
    app = create_app(settings_for_tests(neo4j_uri))
    route = next(r for r in app.routes if getattr(r, "path", None) == "/graphql")
    view = route.app.app  # type: ignore[attr-defined]  # RequestTimeout wraps the view
    assert view.schema.extensions
    assert not [e for e in view.schema.extensions if isinstance(e, SchemaExtension)]


async def test_parsing_and_validation_are_cached_across_requests(client: Client) -> None:
    parse_cache: Any = cached_parse
    validate_cache: Any = cached_validate
    query = "{ entityLabels { label } __typename }"
    await client.execute(query)
    parsed, validated = parse_cache.cache_info(), validate_cache.cache_info()
    await client.execute(query)
    assert parse_cache.cache_info().hits == parsed.hits + 1
    # The limits' rule classes are built once, so a second request finds its validation.
    assert validate_cache.cache_info().hits == validated.hits + 1
    assert validate_cache.cache_info().misses == validated.misses


async def test_a_large_document_is_kept_in_no_cache(client: Client) -> None:
    """A few tokens can be a megabyte (a long string literal): such a document is parsed and
    validated for its request and then let go."""
    parse_cache: Any = cached_parse
    validate_cache: Any = cached_validate
    padding = "x" * CACHEABLE_DOCUMENT_CHARS
    large = f'{{ searchPassages(query: "{padding}") {{ score }} }}'
    before = parse_cache.cache_info(), validate_cache.cache_info()
    for _ in range(2):
        assert codes(await client.execute(large)) == ["MALFORMED"]  # the query is too long
    after = parse_cache.cache_info(), validate_cache.cache_info()
    assert [(c.hits, c.misses) for c in after] == [(c.hits, c.misses) for c in before]


async def test_a_refused_document_is_refused_again_when_the_caches_know_it(
    client: Client, neo4j_uri: str, graph: Graph
) -> None:
    for _ in range(3):  # the first request fills the parse and validation caches
        assert "31 aliases found" in messages(await client.execute(aliased(31)))
    async with serving(neo4j_uri, graph, GRAPHQL_MAX_DEPTH="4") as limited:
        for _ in range(3):
            assert "maximum operation depth of 4" in messages(await limited.execute(DEEPEST))
        assert limited.statements == []


async def test_client_errors_are_logged_below_error(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for query in [
        "{",
        "{ noSuchField }",
        aliased(31),
        "{ " + "__typename " * 2000 + "}",
        "{ __schema { types { name } } }",
        '{ entity(id: "not-a-uuid") { id } }',
        f'{{ walk(entityId: "{ENTITY_ID}") {{ nodes {{ id }} }} }}',
        '{ searchEntities(query: "a", limit: 0) { score } }',
    ]:
        assert codes(await client.execute(query)), query
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not loud, [(r.name, r.getMessage()) for r in loud]
    assert any(r.name == "evidencegraph.errors" for r in caplog.records)
