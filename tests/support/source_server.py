"""The Neo4j that `load --from` reads in tests: a second private server of the session.

Neo4j 5.26 Community holds one user database (`CREATE DATABASE` is Enterprise's: the test
server answers `Neo.ClientError.Statement.UnsupportedAdministrationCommand`), and a source
graph's `:Chunk` and `:Document` are the service's own labels, so the source cannot share the
service's database. The session starts this second server the first time a test asks for it
(conftest.py `source_server`); its tests are kept in one module (tests/test_load_from_neo4j.py),
so a run under `pytest -n 2 --dist loadfile` starts at most one such server. Each test gets it
empty through conftest.py's `source` fixture, which empties it again when the test ends
(`wipe_source`: nodes, relationships, indexes and constraints; neo4j-graphrag's writer creates
an index), so no module leaves anything in it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, LiteralString

import neo4j

from tests.fixtures import llm_graph_builder_graph, neo4j_graphrag_graph
from tests.support.workspace_sources import GraphLoad, edited_text

# Labels and relationship types a source may hold, built to break Cypher or the graph's model.
HOSTILE_NAMES = (
    "Person`) DETACH DELETE (n",
    "\\u0060) MATCH (m) DETACH DELETE m //",
    "Org:Admin",
    "research institute",
    "_Bloom_Perspective_",
    "Chunk",
    "MENTIONED_IN",
    "3D",
    "名前",
    " ",
)
SHOW_SCHEMA: tuple[tuple[LiteralString, LiteralString], ...] = (
    ("SHOW CONSTRAINTS YIELD name RETURN name", "DROP CONSTRAINT $name"),
    (
        "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name",
        "DROP INDEX $name IF EXISTS",
    ),
)


async def wipe_source(driver: neo4j.AsyncDriver) -> None:
    """An empty source database: no node, no relationship, no index or constraint."""
    await driver.execute_query("MATCH (n) DETACH DELETE n")
    for show, drop in SHOW_SCHEMA:
        records, _, _ = await driver.execute_query(show)
        for record in records:
            await driver.execute_query(drop, {"name": record["name"]})


async def source_snapshot(driver: neo4j.AsyncDriver) -> list[Any]:
    """Every node and relationship of the source with its labels or type and properties,
    and its indexes: to show that a load left the source as it was."""
    nodes, _, _ = await driver.execute_query(
        "MATCH (n) RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS p ORDER BY id"
    )
    edges, _, _ = await driver.execute_query(
        "MATCH (a)-[r]->(b) RETURN elementId(r) AS id, elementId(a) AS a, type(r) AS t,"
        " elementId(b) AS b, properties(r) AS p ORDER BY id"
    )
    indexes, _, _ = await driver.execute_query("SHOW INDEXES YIELD name RETURN name ORDER BY name")
    return [[dict(r) for r in rows] for rows in (nodes, edges, indexes)]


Writer = Callable[[neo4j.AsyncDriver, list[dict[str, Any]]], Awaitable[None]]
Editor = Callable[[neo4j.AsyncDriver, list[dict[str, Any]], str], Awaitable[None]]
# How each layout's graph is written from graph documents, and its first chunk edited.
WRITERS: dict[str, tuple[Writer, Editor]] = {
    "neo4j-graphrag": (
        neo4j_graphrag_graph.write_neo4j_graphrag_graph,
        neo4j_graphrag_graph.edit_first_chunk,
    ),
    "llm-graph-builder": (
        llm_graph_builder_graph.write_llm_graph_builder_graph,
        llm_graph_builder_graph.edit_first_chunk,
    ),
}


class SourceHolder:
    """Makes the source hold what a drawn `load --from` reads (tests/support/workspace_sources.py
    `GraphLoad`), writing as little as it can: each layout's graph once per sequence (the two
    layouts side by side: a format reads its own layout, and the other's nodes are not linked
    by its relationship types), and an edit as one statement. `clear` before each sequence."""

    def __init__(self, driver: neo4j.AsyncDriver) -> None:
        self._driver = driver
        self._edited: dict[str, bool] = {}  # layout written -> whether its first chunk is edited

    async def clear(self) -> None:
        if self._edited:
            await wipe_source(self._driver)
            self._edited.clear()

    async def hold(self, format: str, load: GraphLoad) -> None:
        write, edit = WRITERS[format]
        if format not in self._edited:
            await write(self._driver, load.graph_documents)
            self._edited[format] = False
        if self._edited[format] != load.edited:
            first = load.graph_documents[0]["source"]["page_content"]
            text = edited_text(first) if load.edited else first
            await edit(self._driver, load.graph_documents, text)
            self._edited[format] = load.edited
