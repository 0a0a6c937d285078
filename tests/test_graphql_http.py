"""GraphQL over HTTP (contract §11), in process: media types, status codes and the `data` entry,
as `api/graphql_http.py` draws them from the GraphQL-over-HTTP specification. The same rules
are audited from outside by graphql-http's own suite in `test_graphql_http_audit.py`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from api.app import create_app
from api.graphql_http import response_media_type
from contract.errors import Unauthenticated
from contract.scope import Grant
from tests.conftest import settings_for_tests as settings_for
from tests.conftest import without_request_ids

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
TYPENAME = {"query": "{ __typename }"}


class BearerOnly:
    """An authenticator that grants everything to `Bearer good`, and nothing to anyone else."""

    def authenticate(self, authorization: str | None) -> Grant:
        if authorization != "Bearer good":
            raise Unauthenticated("A valid `Authorization: Bearer <token>` header is required.")
        return Grant.everything()


@pytest.fixture
async def http(neo4j_uri: str) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings_for(neo4j_uri))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client


async def post(http: httpx.AsyncClient, accept: str, body: dict[str, Any]) -> httpx.Response:
    return await http.post("/graphql", json=body, headers={"accept": accept})


@pytest.mark.parametrize(
    ("accept", "chosen"),
    [
        (None, JSON),  # legacy clients; graphql-http's audit asks for this too
        ("*/*", JSON),
        ("application/*", JSON),
        (JSON, JSON),
        (GRAPHQL_RESPONSE, GRAPHQL_RESPONSE),
        (f"{GRAPHQL_RESPONSE}, {JSON}, multipart/mixed", GRAPHQL_RESPONSE),  # GraphiQL
        (f"{JSON}, {GRAPHQL_RESPONSE}", JSON),  # the first listed on a tie
        (f"{JSON};q=0.5, {GRAPHQL_RESPONSE}", GRAPHQL_RESPONSE),
        (f"{GRAPHQL_RESPONSE};q=0.5, */*", JSON),
        (f"{JSON};q=0, */*", GRAPHQL_RESPONSE),
        ("text/html", None),
        ("image/png, text/plain", None),
    ],
)
def test_the_response_media_type_follows_accept(accept: str | None, chosen: str | None) -> None:
    assert response_media_type(accept) == chosen


async def test_each_media_type_is_answered_in_kind(http: httpx.AsyncClient) -> None:
    for accept, content_type in (
        (GRAPHQL_RESPONSE, GRAPHQL_RESPONSE),
        (JSON, JSON),
        ("*/*", JSON),
    ):
        response = await post(http, accept, TYPENAME)
        assert response.status_code == 200
        assert response.headers["content-type"] == f"{content_type}; charset=utf-8"
        assert response.json()["data"] == {"__typename": "Query"}
    response = await http.post("/graphql", json=TYPENAME, headers={"accept": "text/plain"})
    assert response.status_code == 406


@pytest.mark.parametrize(
    "body",
    [
        {"query": "{"},  # does not parse
        {"query": "{ noSuchField }"},  # does not validate
        {"query": "query($id: ID!) { entity(id: $id) { id } }", "variables": {"id": None}},
        {"query": "query A { __typename } query B { __typename }"},  # which operation?
    ],
    ids=["parse", "validation", "variable coercion", "operation unknown"],
)
async def test_request_errors_have_no_data_and_are_400_only_under_the_new_media_type(
    http: httpx.AsyncClient, body: dict[str, Any]
) -> None:
    new = await post(http, GRAPHQL_RESPONSE, body)
    legacy = await post(http, JSON, body)
    assert (new.status_code, legacy.status_code) == (400, 200)
    assert without_request_ids(new.json()) == without_request_ids(legacy.json())
    assert "data" not in new.json()
    assert new.json()["errors"][0]["extensions"]["code"] == "MALFORMED"


async def test_field_errors_are_200_with_data_under_both_media_types(
    http: httpx.AsyncClient,
) -> None:
    body = {"query": '{ searchEntities(query: "ada", limit: 0) { score } }'}
    for accept in (GRAPHQL_RESPONSE, JSON):
        response = await post(http, accept, body)
        assert response.status_code == 200
        assert response.json()["data"] is None  # a partial response: the entry is there
        error = response.json()["errors"][0]
        assert (error["path"], error["extensions"]["code"]) == (["searchEntities"], "MALFORMED")


async def test_get_runs_queries_but_never_mutations(http: httpx.AsyncClient) -> None:
    for accept in (GRAPHQL_RESPONSE, JSON):
        response = await http.get("/graphql", params=TYPENAME, headers={"accept": accept})
        assert response.status_code == 200
        assert response.json()["data"] == {"__typename": "Query"}
        response = await http.get(
            "/graphql", params={"query": "mutation { __typename }"}, headers={"accept": accept}
        )
        assert response.status_code == 405
        assert response.headers["allow"] == "POST"
    # Over POST the mutation reaches GraphQL, which has none: a request error.
    response = await post(http, GRAPHQL_RESPONSE, {"query": "mutation { __typename }"})
    assert response.status_code == 400


async def test_requests_that_are_not_graphql_over_http_are_4xx(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/graphql", content=b'{"query": "{ __typename }"}', headers={"content-type": "text/plain"}
    )
    assert response.status_code == 415
    response = await http.post(
        "/graphql", content=b'{"query": ', headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    for bad in ({"operationName": 0}, {"variables": [1]}, {"extensions": "x"}, {"query": 1}):
        response = await post(http, GRAPHQL_RESPONSE, {**TYPENAME, **bad})
        assert response.status_code == 400, bad
        assert response.json()["errors"][0]["extensions"]["code"] == "MALFORMED", bad
    response = await http.get("/graphql", headers={"accept": JSON})  # no query
    assert response.status_code == 400
    assert response.json()["errors"][0]["extensions"]["code"] == "MALFORMED"  # coded (§7)


async def test_without_credentials_every_operation_is_refused_before_it_runs(
    http: httpx.AsyncClient,
) -> None:
    http.app.state.services.authenticator = BearerOnly()  # type: ignore[attr-defined]
    for headers in ({}, {"authorization": "Bearer bad"}):
        new = await http.post(
            "/graphql", json=TYPENAME, headers={"accept": GRAPHQL_RESPONSE, **headers}
        )
        assert new.status_code == 401
        assert new.headers["www-authenticate"] == "Bearer"
        assert without_request_ids(new.json()["errors"]) == [
            {
                "message": "A valid `Authorization: Bearer <token>` header is required.",
                "extensions": {"code": "UNAUTHENTICATED"},
            }
        ]
        legacy = await http.post("/graphql", json=TYPENAME, headers={"accept": JSON, **headers})
        assert (legacy.status_code, without_request_ids(legacy.json())) == (
            200,
            without_request_ids(new.json()),
        )
    granted = await http.post(
        "/graphql",
        json=TYPENAME,
        headers={"accept": GRAPHQL_RESPONSE, "authorization": "Bearer good"},
    )
    assert (granted.status_code, granted.json()["data"]) == (200, {"__typename": "Query"})


def nested(depth: int, opener: str) -> str:
    """JSON `depth` levels deep: `[[[…]]]` or `{"a":{"a":…}}`."""
    closer = "]" if opener == "[" else "}"
    return opener * depth + "1" + closer * depth


NESTINGS = st.builds(nested, st.integers(33, 20_000), st.sampled_from(["[", '{"a":']))
URL_NESTINGS = st.builds(nested, st.integers(33, 2_000), st.sampled_from(["[", '{"a":']))
# What a body can be: deep nesting (inside a request or bare), cut-off JSON, any bytes.
UNREADABLE_BODIES = (
    NESTINGS.map(lambda deep: f'{{"query": "{{ __typename }}", "variables": {{"v": {deep}}}}}')
    | NESTINGS.map(lambda deep: f'{{"query": "{{ __typename }}", "extensions": {{"e": {deep}}}}}')
    | NESTINGS
    | NESTINGS.map(lambda deep: deep[: len(deep) // 2])
    | st.binary(max_size=64).map(lambda raw: raw.decode("latin-1"))
)


def coded_refusal(response: httpx.Response) -> str:
    """The code of a refused request's one error, once its shape is checked."""
    assert response.status_code == 400, response.text
    body = response.json()
    assert "data" not in body
    [error] = body["errors"]
    return str(error["extensions"]["code"])


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=UNREADABLE_BODIES)
async def test_a_body_the_server_cannot_read_is_400_with_a_coded_error_never_a_500(
    http: httpx.AsyncClient, body: str
) -> None:
    assume(not is_readable_request(body))
    response = await http.post(
        "/graphql", content=body.encode(), headers={"content-type": JSON, "accept": JSON}
    )
    assert coded_refusal(response) == "MALFORMED"


def is_readable_request(body: str) -> bool:
    """A JSON object a handful of levels deep (garbage may happen to be one)."""
    try:
        return isinstance(json.loads(body), dict) and body.count("[") + body.count("{") <= 32
    except (RecursionError, ValueError):
        return False


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    deep=NESTINGS.filter(lambda deep: len(deep) < 6000),
    parameter=st.sampled_from(["variables", "extensions"]),
)
async def test_deeply_nested_get_variables_or_extensions_are_400_with_a_coded_error(
    http: httpx.AsyncClient, deep: str, parameter: str
) -> None:
    response = await http.get(
        "/graphql",
        params={"query": "{ __typename }", parameter: f'{{"v": {deep}}}'},
        headers={"accept": JSON},
    )
    assert coded_refusal(response) == "MALFORMED"
