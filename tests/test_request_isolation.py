"""DataLoader caches are per request (contract §8): two callers with different grants,
in flight at the same moment and asking for the same ids, each see only their own workspace;
nothing one request read or primed is ever served to another."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION, serving
from tests.support.auth_material import bearer
from tests.support.graph_builder import GraphBuilder

ACME_KEY = "acme-only-key-0123456789abcdef"
GLOBEX_KEY = "globex-only-key-0123456789abcdef"


async def test_concurrent_requests_with_different_grants_share_no_cache(
    neo4j_uri: str,
    graph: Graph,
    builder: GraphBuilder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One entity, mentioned in both workspaces: each caller sees it, with its own evidence.
    acme = await builder.version("acme", ["Ada in acme."], mentions={"Ada": [0]})
    globex = await builder.version("globex", ["Ada in globex."], mentions={"Ada": [0]})
    ada = builder.entity_id("Ada")
    query = (
        f'{{ entity(id: "{ada}") {{ evidence {{ id text }} }}'
        f' a: passage(id: "{acme.passage_ids[0]}") {{ text }}'
        f' g: passage(id: "{globex.passage_ids[0]}") {{ text }}'
        ' hits: searchEntities(query: "ada", mode: LEXICAL) { evidence { text } } }'
    )
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({ACME_KEY: ["acme"], GLOBEX_KEY: ["globex"]}))
    await apply_schema(graph, TEST_DIMENSION)
    async with serving(
        neo4j_uri, graph, AUTH_MODE="apikeys", AUTH_API_KEYS_FILE=str(keys)
    ) as client:
        # Every read waits until both callers have one in flight, so the two requests overlap
        # for their whole life: a cache shared between them would serve one the other's rows.
        read = client.services.graph.read
        scopes_in_flight: set[tuple[str, ...]] = set()
        both_in_flight = asyncio.Event()

        async def overlapping_read(statement: str, parameters: Mapping[str, Any]) -> Any:
            if parameters.get("scopeWorkspaces") is not None:
                scopes_in_flight.add(tuple(parameters["scopeWorkspaces"]))
                if len(scopes_in_flight) == 2:
                    both_in_flight.set()
                await asyncio.wait_for(both_in_flight.wait(), timeout=10)
            return await read(statement, parameters)

        monkeypatch.setattr(client.services.graph, "read", overlapping_read)
        for _ in range(2):  # and again, now that any cache would be warm
            acme_body, globex_body = await asyncio.gather(
                client.execute(query, headers=bearer(ACME_KEY)),
                client.execute(query, headers=bearer(GLOBEX_KEY)),
            )
            assert scopes_in_flight == {("acme",), ("globex",)}
            assert acme_body["data"] == {
                "entity": {"evidence": [{"id": acme.passage_ids[0], "text": "Ada in acme."}]},
                "a": {"text": "Ada in acme."},
                "g": None,
                "hits": [{"evidence": [{"text": "Ada in acme."}]}],
            }
            assert globex_body["data"] == {
                "entity": {"evidence": [{"id": globex.passage_ids[0], "text": "Ada in globex."}]},
                "a": None,
                "g": {"text": "Ada in globex."},
                "hits": [{"evidence": [{"text": "Ada in globex."}]}],
            }
