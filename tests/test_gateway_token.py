"""`FEDERATION_GATEWAY_TOKEN` (api/gateway_token.py): `_service` and `_entities` answer the
gateway only; the end user's credentials still decide the scope; nothing else changes."""

from __future__ import annotations

import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from api.gateway_token import GatewayToken
from api.settings import Settings, SettingsError
from graph.driver import Graph
from tests.conftest import Client, serving, settings_for_tests
from tests.support.auth_material import bearer
from tests.support.graph_builder import GraphBuilder

TOKEN = "gateway-token-0123456789abcdef0123456789abcdef"
USER_KEY = "acme-user-key-aaaaaaaaaaaaaaaa"
ENTITIES = (
    "query($r: [_Any!]!) { _entities(representations: $r) {"
    " ... on Entity { id } ... on Passage { id } ... on Document { id } } }"
)


@pytest.fixture
def keys_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({USER_KEY: ["acme"]}))
    return path


def gateway(user: str | None = USER_KEY, token: str | None = TOKEN) -> dict[str, str]:
    headers = bearer(user) if user else {}
    return {**headers, "x-gateway-token": token} if token else headers


def code(body: dict[str, Any]) -> str | None:
    errors = body.get("errors")
    return errors[0]["extensions"]["code"] if errors else None


async def test_federation_fields_answer_only_the_gateway(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, keys_file: Path
) -> None:
    acme = await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    globex = await builder.version("globex", ["Grace."], mentions={"Grace": [0]})
    representations = [
        {"__typename": "Passage", "id": acme.passage_ids[0]},
        {"__typename": "Passage", "id": globex.passage_ids[0]},
        {"__typename": "Document", "id": globex.document_id},
    ]
    variables = {"r": representations}
    settings = {
        "AUTH_MODE": "apikeys",
        "AUTH_API_KEYS_FILE": str(keys_file),
        "FEDERATION_GATEWAY_TOKEN": TOKEN,
    }
    async with serving(neo4j_uri, graph, **settings) as client:
        # Through the gateway with the user's key: the user's scope applies.
        body = await client.execute(ENTITIES, variables, headers=gateway())
        assert body["data"]["_entities"] == [{"id": acme.passage_ids[0]}, None, None]
        assert "type Query" in (await sdl(client, gateway()))["data"]["_service"]["sdl"]

        # Not through the gateway: FORBIDDEN, however the field is spelt.
        for headers in (gateway(token=None), gateway(token="x"), gateway(token=TOKEN + "x")):
            for query in (ENTITIES, "{ _service { sdl } }", "{ s: _service { ...F } } " + FRAGMENT):
                body = await client.execute(query, variables if "$r" in query else {}, headers)
                assert body["data"] is None and code(body) == "FORBIDDEN", body
                assert "X-Gateway-Token" in body["errors"][0]["message"]
            # Every other field is unaffected.
            passage = f'{{ passage(id: "{acme.passage_ids[0]}") {{ id }} }}'
            assert code(await client.execute(passage, headers=headers)) is None

        # The gateway on its own behalf (composing the supergraph): the schema, no data.
        alone = gateway(user=None)
        assert "type Query" in (await sdl(client, alone))["data"]["_service"]["sdl"]
        body = await client.execute(ENTITIES, variables, headers=alone)
        assert body["data"]["_entities"] == [None, None, None]
        search = '{ searchEntities(query: "ada", mode: LEXICAL) { score } }'
        body = await client.execute(search, headers=alone)
        assert body["data"] == {"searchEntities": []} and "errors" not in body
        # …but a user credential that does not verify is still UNAUTHENTICATED.
        body = await client.execute(ENTITIES, variables, headers=gateway(user="not-a-key"))
        assert code(body) == "UNAUTHENTICATED"
        # Without either, nothing at all.
        assert code(await sdl(client, {})) == "UNAUTHENTICATED"


FRAGMENT = "fragment F on _Service { sdl }"


async def sdl(client: Client, headers: dict[str, str]) -> dict[str, Any]:
    return await client.execute("{ _service { sdl } }", headers=headers)


async def test_without_a_gateway_token_the_federation_fields_answer_every_caller(
    client: Client,
) -> None:
    assert "type Query" in (await sdl(client, {}))["data"]["_service"]["sdl"]


def test_the_token_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[int, int]] = []
    compare_digest = hmac.compare_digest

    def counting(a: bytes, b: bytes) -> bool:
        compared.append((len(a), len(b)))
        return compare_digest(a, b)

    monkeypatch.setattr("api.gateway_token.hmac.compare_digest", counting)
    token = GatewayToken(TOKEN)
    results = [token.matches(value) for value in (TOKEN, TOKEN[:-1], "x", TOKEN * 3)]
    assert results == [True, False, False, False]
    # Digests of equal length whatever was sent: the time does not depend on the guess.
    assert compared == [(32, 32)] * 4
    assert token.matches(None) is False
    assert TOKEN not in repr(token)


def test_a_short_token_stops_start_up(neo4j_uri: str) -> None:
    with pytest.raises(SettingsError, match="FEDERATION_GATEWAY_TOKEN must be at least 32"):
        create_app(settings_for_tests(neo4j_uri, FEDERATION_GATEWAY_TOKEN="short"))
    settings = Settings.from_environ({"FEDERATION_GATEWAY_TOKEN": TOKEN})
    assert TOKEN not in repr(settings) + str(settings.public_summary())
