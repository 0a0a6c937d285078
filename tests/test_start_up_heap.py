"""What start-up built is kept out of the garbage collector's passes while the app serves, and
given back when it stops (api/start_up_heap.py): full collections under load examined all of it,
about 80 ms each, once a second."""

from __future__ import annotations

import gc

from graph.driver import Graph
from tests.conftest import serving


def tracked(thing: object) -> bool:
    """Whether the collector's generations hold `thing` (the permanent one is not listed)."""
    return any(candidate is thing for candidate in gc.get_objects())


async def test_start_ups_objects_are_skipped_by_the_collector_while_serving(
    neo4j_uri: str, graph: Graph
) -> None:
    async with serving(neo4j_uri, graph) as client:
        front_door = client.app.state.front_door  # built by the app factory, at start-up
        assert gc.is_tracked(front_door)
        assert not tracked(front_door)
        built_while_serving: dict[str, list[int]] = {"a": []}
        assert tracked(built_while_serving)
    assert tracked(front_door)  # given back at shutdown: collectable again
    assert gc.get_freeze_count() == 0
