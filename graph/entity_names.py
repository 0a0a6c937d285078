"""Every entity a workspace's passages mention, with its name: what the eval's exact-name
measure queries (evaluation/exact_names.py)."""

from __future__ import annotations

from typing import LiteralString

from graph.driver import Graph

ENTITY_NAMES_BY_WORKSPACE: LiteralString = (
    "MATCH (e:Entity)-[:MENTIONED_IN]->(:Chunk)<-[:HAS_PART]-(d:Document)"
    " WHERE d.workspace = $workspace AND e.name IS NOT NULL"
    " RETURN DISTINCT e.id AS id, toString(e.name) AS name ORDER BY name, id"
)


async def entity_names(graph: Graph, workspace: str) -> list[tuple[str, str]]:
    """(id, name) of every entity a passage of `workspace` mentions, by name then id."""
    rows = await graph.read(ENTITY_NAMES_BY_WORKSPACE, {"workspace": workspace})
    return [(row["id"], row["name"]) for row in rows]
