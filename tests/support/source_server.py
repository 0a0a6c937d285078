"""The Neo4j that `load --from` reads in tests: a second private server of the session.

Neo4j 5.26 Community holds one user database (`CREATE DATABASE` is Enterprise's: the test
server answers `Neo.ClientError.Statement.UnsupportedAdministrationCommand`), and a source
graph's `:Chunk` and `:Document` are the service's own labels, so the source cannot share the
service's database. The session starts this second server the first time a test asks for it
(conftest.py `source_server`); every module that reads a source shares it, and each test or
module fixture starts from `wipe_source`, which leaves it empty, indexes and constraints
included (neo4j-graphrag's writer creates one).
"""

from __future__ import annotations

from typing import Any, LiteralString

import neo4j

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
