"""Nobody sees what is not theirs through the paged fields either (contract §1, §8): the scope
property of tests/test_scope_properties.py for `Entity.evidencePage`, `Edge.evidencePage`,
`Document.passages` and `Passage.mentions`, over the same random worlds, callers and scopes,
with each entity read the plain way and through the order indexes.

Few examples (PAGES_SCOPE_EXAMPLES, default 15): the property test of the other fields runs 80
over the same worlds and visibility rule; this one checks what the new reads add (a key to
seek after, a document's passages, a passage's entities).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph import mention_order
from graph.driver import Graph
from tests.support.scope_callers import Callers, scope_callers
from tests.support.scope_checks import check_forbidden
from tests.support.scope_oracle import ForbiddenScope, Oracle, effective
from tests.support.scope_pages import check_edge_pages, check_paged_fields
from tests.support.scope_world import WIPE_WORLD, WRITE_WORLD, World, worlds, write_parameters
from tests.test_scope_properties import requests

EXAMPLES = int(os.environ.get("PAGES_SCOPE_EXAMPLES", "15"))


@pytest.fixture
async def callers(neo4j_uri: str, graph: Graph, tmp_path: Path) -> AsyncIterator[Callers]:
    async with scope_callers(neo4j_uri, graph, tmp_path) as both:
        yield both


@pytest.fixture(params=["plain", "in order"])
def in_order(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    if request.param == "in order":
        monkeypatch.setattr(mention_order, "DENSE_MENTIONS", 0)
    return bool(request.param == "in order")


@settings(settings.get_profile("scope-ci"), max_examples=EXAMPLES)
@given(data=st.data(), world=worlds())
async def test_every_page_and_mention_returns_only_what_the_scope_allows(
    in_order: bool, callers: Callers, graph: Graph, world: World, data: st.DataObject
) -> None:
    request = data.draw(requests(world))
    await graph.write(WIPE_WORLD, {})
    await graph.write(WRITE_WORLD, write_parameters(world))
    if in_order:
        await mention_order.order_mentions(graph)
    client, headers = callers.for_grant(request["grant"])
    scope = {"workspaces": request["workspaces"], "documentIds": request["documentIds"]}
    try:
        oracle = Oracle(world, effective(request["grant"], *scope.values()))
    except ForbiddenScope:
        await check_forbidden(client, headers, world, scope)
        return
    await check_paged_fields(client, headers, world, scope, oracle)
    available = [e for e in world.entities if oracle.supported(e)]
    start = data.draw(st.sampled_from([*available, *available, world.missing_id]))
    await check_edge_pages(client, headers, world, scope, oracle, start)
