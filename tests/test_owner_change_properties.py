"""When another pipeline changes an owner, answers follow the new owner once `schema apply` has
run (contract §2: "nor may a stale copy: when another pipeline changes an owner (removes
`workspace` to share an entity, sets one, moves a document), answers follow the new owner at
once, or after `evidencegraph schema apply` where the docs say it is needed after such writes
(the derived data is then reconciled, and the run says how much it fixed)"; issue 38 §6).

Each example: a random world (tests/support/scope_world.py) with owners and keys as the
service's loaders write them, 1–4 owner changes as another pipeline makes them
(tests/support/owner_changes.py), then what `schema apply` runs on the graph's data
(`order_mentions`, `stamp_owners`). Then, for a drawn caller and scope, the LEXICAL searches
must return exactly what the other doors (`entity`, `passage`, a walk, `_entities`) and the
independent oracle (tests/support/scope_oracle.py) say the scope may see; every key must be
its owner's; and the run must have counted every stale key it fixed. Mentions are read in
evidence order (graph/mention_order.py) in half the examples and the plain way in the other.

Everything is written over one app and one schema per test run (tests/support/scope_callers.py);
each example replaces only its world's nodes. Profiles (OWNER_CHANGES_PROFILE): `owners-ci`
(the default, 25 examples), `owners-thorough` (1000) and `owners-quick` (10).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph import mention_order
from graph.driver import Graph
from graph.mention_order import order_mentions
from graph.owner_stamping import stamp_owners
from tests.support.example_profiles import graph_example_profiles
from tests.support.owner_changes import (
    WRITE_OWNERS,
    owner_parameters,
    owners_of,
    pipeline_changes,
    read_keys,
)
from tests.support.scope_callers import GRANTS, Callers, scope_callers
from tests.support.scope_checks import check_federation, check_scoped_fields, check_walk
from tests.support.scope_oracle import Oracle, effective
from tests.support.scope_world import (
    WIPE_WORLD,
    WORD,
    WORKSPACES,
    WRITE_WORLD,
    World,
    worlds,
    write_parameters,
)

# 25 examples: with `schema apply` as it was before issue 38 §6, a run found five distinct
# failures: LEXICAL entity and passage searches missing what a moved document or a shared
# entity holds, `entity` missing a hub of a moved document, stale entity and passage keys.
PROFILE_NAME = graph_example_profiles(
    "owners", "OWNER_CHANGES_PROFILE", ci=25, thorough=1000, quick=10
)
UNHURRIED = {"REQUEST_TIMEOUT_SECONDS": "300"}


# Every entity and passage holds the searched word, and `limit` exceeds the world: a LEXICAL
# search finds all the scope may see, or misses what a stale key hides.
LEXICAL_IDS = (
    "query($scope: ScopeInput) {"
    f' entities: searchEntities(query: "{WORD}", scope: $scope, mode: LEXICAL, limit: 100)'
    " { entity { id } }"
    f' passages: searchPassages(query: "{WORD}", scope: $scope, mode: LEXICAL, limit: 100)'
    " { passage { id } } }"
)


@pytest.fixture
async def callers(neo4j_uri: str, graph: Graph, tmp_path: Path) -> AsyncIterator[Callers]:
    # What is checked is what the answers say, never how soon: a first example plans every
    # statement shape, which on a busy machine takes longer than the usual limits.
    async with scope_callers(neo4j_uri, graph, tmp_path, **UNHURRIED) as both:
        yield both


@settings(settings.get_profile(PROFILE_NAME))
@given(data=st.data(), world=worlds())
async def test_after_schema_apply_lexical_search_follows_every_owner_another_pipeline_changed(
    callers: Callers,
    graph: Graph,
    world: World,
    data: st.DataObject,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Mentions read in evidence order (every entity dense) or the plain way.
    dense = data.draw(st.sampled_from((0, mention_order.DENSE_MENTIONS)), label="dense")
    monkeypatch.setattr(mention_order, "DENSE_MENTIONS", dense)
    owners = data.draw(owners_of(world), label="owners")
    await graph.write(WIPE_WORLD, {})
    await graph.write(WRITE_WORLD, write_parameters(world))
    await graph.write(WRITE_OWNERS, owner_parameters(owners))
    await order_mentions(graph)  # as the service's commits keep them: every mention ordered

    for change in data.draw(pipeline_changes(world, owners), label="changes"):
        await graph.write(change.statement, change.parameters)
    before = await read_keys(graph)
    order = await order_mentions(graph)
    stamped = await stamp_owners(graph)

    # The lexical searches against the other doors and the oracle, for one caller and scope.
    grant = data.draw(st.sampled_from([None, *GRANTS]), label="grant")
    client, headers = callers.for_grant(grant)
    granted = sorted(WORKSPACES if grant is None else grant)
    some = st.lists(st.sampled_from(granted), unique=True, min_size=1) if granted else st.none()
    workspaces = data.draw(st.one_of(st.none(), some), label="scope workspaces")
    scope = {"workspaces": workspaces, "documentIds": None}
    oracle = Oracle(world, effective(grant, workspaces, None))
    found = await client.execute(LEXICAL_IDS, {"scope": scope}, headers)
    assert "errors" not in found, found
    assert sorted(h["entity"]["id"] for h in found["data"]["entities"]) == sorted(
        e for e in world.entities if oracle.returnable(e)
    ), "LEXICAL entity search"
    assert sorted(h["passage"]["id"] for h in found["data"]["passages"]) == sorted(
        c for c in world.chunks if oracle.visible(c)
    ), "LEXICAL passage search"
    # The same fields with everything they show, beside `entity`, `passage`, a walk, `_entities`.
    await check_scoped_fields(client, headers, world, scope, oracle, "LEXICAL")
    available = [e for e in world.entities if oracle.supported(e)]
    start = data.draw(st.sampled_from([*available, *world.entities]), label="walk start")
    await check_walk(client, headers, world, scope, oracle, start, 2)
    await check_federation(client, headers, world, Oracle(world, effective(grant, None, None)))

    # What made them agree: every key its owner's, and the run counted what it fixed.
    after = await read_keys(graph)
    assert after.stale_entities() == set(), "an entity's key is not its owner's"
    assert after.stale_passages() == set(), "a passage's key is not its document's"
    assert after.stale_mentions() == 0, "an ordered mention keeps another workspace"
    # The run says how much it fixed: every key it changed or removed that was not the
    # owner's it ends with (a key written where there was none is not a fix).
    fixed_entities = {
        e
        for e, (_, key) in before.entities.items()
        if key is not None and key != after.entities[e][1]
    }
    fixed_passages = {
        p
        for p, (key, _) in before.passages.items()
        if key is not None and key != after.passages[p][0]
    }
    assert stamped.entities.fixed == len(fixed_entities)
    assert stamped.passages.fixed == len(fixed_passages)
    assert order.rekeyed == before.stale_mentions()
