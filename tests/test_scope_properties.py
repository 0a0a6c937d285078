"""Nobody sees what is not theirs (contract §1, §8), as a property over random graphs on the real
Neo4j: for random worlds (tests/support/scope_world.py), callers and scopes, every field that can
return a passage or an entity returns exactly what the independent oracle
(tests/support/scope_oracle.py) allows, with the right status and evidence, and a hidden id answers
exactly like a missing one.

Fields checked: searchEntities (hits, status, ranks, evidenceIds, evidence) and searchPassages,
in a mode drawn per example (LEXICAL, SEMANTIC or HYBRID); entity (+ evidence) and passage
(+ document) for every id of the world and a missing one; a walk (start, nodes, edges, kinds,
edge evidence, DEPTH) from a drawn start, compared word for word with a walk from a missing id
when hidden; FORBIDDEN in every scoped field when the scope names an ungranted workspace; and
`_entities` for every Entity, Passage and Document id and a missing one of each.

Callers: AUTH_MODE=none (every workspace) and API keys granting each subset of w0–w2.
Profiles (SCOPE_PROPERTIES_PROFILE): `scope-ci` (the default, 80 examples), `scope-quick` (30)
and `scope-thorough` (2000). Each run writes its counts to
test-output/scope-properties.json.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph.driver import Graph
from tests.support.example_profiles import graph_example_profiles
from tests.support.scope_callers import GRANTS, Callers, scope_callers
from tests.support.scope_checks import (
    MODES,
    check_federation,
    check_forbidden,
    check_scoped_fields,
    check_walk,
)
from tests.support.scope_oracle import ForbiddenScope, Oracle, effective
from tests.support.scope_world import (
    WIPE_WORLD,
    WORKSPACES,
    WRITE_WORLD,
    World,
    worlds,
    write_parameters,
)

OUTPUT = Path(__file__).resolve().parents[1] / "test-output" / "scope-properties.json"

# 80 examples: with the visibility rule broken in graph/visibility.py, a fresh run (no example
# database, six runs) failed within 3 to 47 examples: the document scope dropped (at 9, 10 and
# 44), the workspace condition dropped (5), a RUNNING or FAILED job's passages counted current
# (47), a retired document counted live (3). 200 examples cost 2.5 times as long.
PROFILE_NAME = graph_example_profiles(
    "scope", "SCOPE_PROPERTIES_PROFILE", ci=80, thorough=2000, quick=30
)


@pytest.fixture
async def callers(neo4j_uri: str, graph: Graph, tmp_path: Path) -> AsyncIterator[Callers]:
    async with scope_callers(neo4j_uri, graph, tmp_path) as both:
        yield both


@st.composite
def requests(draw: st.DrawFn, world: World) -> dict[str, Any]:
    """A caller's grant (None: every workspace), a requested scope, a search mode, a depth."""

    def narrowing(choices: list[str]) -> st.SearchStrategy[list[str] | None]:
        """Mostly absent or naming some; sometimes an empty list (which allows nothing)."""
        some = st.lists(st.sampled_from(choices), unique=True, min_size=1)
        return st.sampled_from([None, None, "some", "some", "none"]).flatmap(
            lambda kind: st.none() if kind is None else some if kind == "some" else st.just([])
        )

    return {
        "grant": draw(st.sampled_from([None, *GRANTS])),
        "workspaces": draw(narrowing([*WORKSPACES, "w9"])),
        "documentIds": draw(narrowing([*world.documents, world.missing_id])),
        "mode": draw(st.sampled_from(MODES)),
        "depth": draw(st.integers(1, 2)),
    }


STATS: dict[str, float] = dict.fromkeys(
    ("examples", "seconds", "forbidden", "hits_checked", "walks", "unavailable_walks"), 0
)


@settings(settings.get_profile(PROFILE_NAME))
@given(data=st.data(), world=worlds())
async def test_every_field_returns_only_what_the_scope_allows(
    callers: Callers, graph: Graph, world: World, data: st.DataObject
) -> None:
    started = time.monotonic()
    request = data.draw(requests(world))
    # One statement wipes the previous example's world, one writes this one.
    await graph.write(WIPE_WORLD, {})
    await graph.write(WRITE_WORLD, write_parameters(world))
    client, headers = callers.for_grant(request["grant"])
    scope = {"workspaces": request["workspaces"], "documentIds": request["documentIds"]}
    try:
        oracle = Oracle(world, effective(request["grant"], *scope.values()))
    except ForbiddenScope:
        await check_forbidden(client, headers, world, scope)
        STATS["forbidden"] += 1
    else:
        STATS["hits_checked"] += await check_scoped_fields(
            client, headers, world, scope, oracle, request["mode"]
        )
        # Walk from an available start twice as often as from a hidden or missing one.
        available = [e for e in world.entities if oracle.supported(e)]
        start = data.draw(
            st.sampled_from([*available, *available, *world.entities, world.missing_id])
        )
        available_walk = await check_walk(
            client, headers, world, scope, oracle, start, request["depth"]
        )
        STATS["walks" if available_walk else "unavailable_walks"] += 1
    # `_entities` takes no scope: the caller's whole grant applies.
    whole_grant = Oracle(world, effective(request["grant"], None, None))
    await check_federation(client, headers, world, whole_grant)
    STATS["examples"] += 1
    STATS["seconds"] += time.monotonic() - started
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text(json.dumps({"profile": PROFILE_NAME, **STATS}, indent=2))
