"""Every workspace is its own (issue 25, contract §2 "Ownership"), as a property on the real
Neo4j: random bundles, GraphRAG folders and LangChain files (tests/support/workspace_sources.py)
are loaded one after another into workspaces A and B, reusing each other's entity ids,
relation ids and names at random. After every load into one workspace, what the other
workspace's caller reads (tests/support/workspace_reads.py) is byte-identical to before for
`entity`, `passage`, walks of depth 1 and 2, `_entities` and the MCP lookups `get_entity` and
`get_passage`; in its searches in the three modes, every entity (and passage) found both before
and after has identical fields and evidence.

The ids read are every id stored before the load and every id the load names (read from the
source with the loader's own readers), so an id the load creates is read before it exists too
(tests/support/workspace_isolation.py). The same property over graphs read from Neo4j
(`load --from`) is tests/test_load_from_neo4j.py's, the one module that starts a source server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import given, note, settings

from graph.driver import Graph
from tests.support.workspace_isolation import (
    PROFILE,
    Served,
    loads_change_nothing_the_other_workspace_reads,
    serve_two_workspaces,
)
from tests.support.workspace_sources import Load, load_sequences


@pytest.fixture
async def served(neo4j_uri: str, graph: Graph, tmp_path: Path) -> AsyncIterator[Served]:
    async with serve_two_workspaces(neo4j_uri, graph, tmp_path) as served:
        yield served


@settings(PROFILE)
@given(loads=load_sequences())
async def test_a_load_into_one_workspace_changes_nothing_the_other_workspace_reads(
    served: Served, graph: Graph, loads: list[Load]
) -> None:
    note(repr(loads))
    await loads_change_nothing_the_other_workspace_reads(served, graph, loads)
