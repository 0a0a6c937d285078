"""FEDERATION_GATEWAY_TOKEN with a real Apollo gateway (`tests/node/gateway.mjs`) in front of
evidencegraph under uvicorn with API keys: the gateway composes the supergraph with its token
alone, forwards each user's key so `_entities` applies that user's scope, and a client that
calls the subgraph directly gets FORBIDDEN for the federation fields."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from graph.driver import Graph
from tests.conftest import TEST_DIMENSION, without_request_ids
from tests.support.graph_builder import GraphBuilder
from tests.support.node_tools import REPOSITORY
from tests.support.serving import Served, served_node, served_process

TOKEN = "gateway-token-for-the-federation-test-0123456789"
ACME_KEY = "acme-user-key-0123456789abcdef"
GLOBEX_KEY = "globex-user-key-0123456789abcdef"


@dataclass
class Federation:
    service: Served
    gateway: Served

    def through_gateway(self, query: str, variables: dict[str, Any], key: str) -> Any:
        response = httpx.post(
            self.gateway.url + "/",
            json={"query": query, "variables": variables},
            headers={"authorization": f"Bearer {key}"},
            timeout=60,
        )
        return response.json()


@pytest.fixture(scope="module")
def federation(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    logs = tmp_path_factory.mktemp("gateway-token")
    keys = logs / "keys.json"
    keys.write_text(json.dumps({ACME_KEY: ["acme"], GLOBEX_KEY: ["globex"]}))
    environment = {
        "NEO4J_URI": neo4j_uri,
        "AUTH_MODE": "apikeys",
        "AUTH_API_KEYS_FILE": str(keys),
        "FEDERATION_GATEWAY_TOKEN": TOKEN,
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
    }
    command = [sys.executable, "-m", "uvicorn", "--factory", "api.app:create_app"]
    command += ["--host", "127.0.0.1", "--port", "{port}", "--log-level", "warning"]
    fetch_log = logs / "fetches.jsonl"
    fetch_log.touch()
    with (
        served_process(
            command,
            name="evidencegraph",
            cwd=REPOSITORY,
            env=environment,
            probe_path="/healthz",
            log_dir=logs,
        ) as service,
        served_node("popularity-subgraph.mjs", {}, logs) as popularity,
        served_node(
            "gateway.mjs",
            {
                "EVIDENCEGRAPH_URL": service.url + "/graphql",
                "POPULARITY_URL": popularity.url + "/",
                "FETCH_LOG": str(fetch_log),
                "GATEWAY_TOKEN": TOKEN,
            },
            logs,
        ) as gateway,
    ):
        yield Federation(service, gateway)


PASSAGES = "query($ids: [ID!]!) { featuredPassages(ids: $ids) { id text } }"


async def test_the_gateway_composes_with_its_token_and_users_keep_their_scope(
    federation: Federation, builder: GraphBuilder, graph: Graph
) -> None:
    acme = await builder.version("acme", ["Ada in acme."], mentions={"Ada": [0]})
    ids = {"ids": acme.passage_ids}
    # The gateway started and composed: it read `_service { sdl }` with its token alone.
    body = federation.through_gateway(PASSAGES, ids, ACME_KEY)
    found = [{"id": acme.passage_ids[0], "text": "Ada in acme."}]
    assert body == {"data": {"featuredPassages": found}}
    # Another user's key, the same reference: evidencegraph resolves it to null (hidden), so
    # the gateway cannot complete the non-null `text`; the text never arrives.
    body = federation.through_gateway(PASSAGES, ids, GLOBEX_KEY)
    assert "Ada in acme." not in json.dumps(body)
    assert body["data"] is None
    (completion,) = body["extensions"]["valueCompletion"]
    assert completion["path"] == ["featuredPassages", 0, "text"]


def test_calling_the_subgraph_directly_is_forbidden_for_the_federation_fields(
    federation: Federation,
) -> None:
    headers = {"authorization": f"Bearer {ACME_KEY}"}
    url = federation.service.url + "/graphql"
    for query in ("{ _service { sdl } }", "{ _entities(representations: []) { __typename } }"):
        body = httpx.post(url, json={"query": query}, headers=headers).json()
        assert without_request_ids(body["errors"][0]["extensions"]) == {"code": "FORBIDDEN"}
    body = httpx.post(url, json={"query": "{ entityLabels { label } }"}, headers=headers).json()
    assert "errors" not in body
