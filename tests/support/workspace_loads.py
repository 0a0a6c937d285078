"""Loading sources into workspaces in-process, as `evidencegraph load` does (ingest/load_source.py
with the test embedder), then making what was loaded searchable; and stripping the owners a
load wrote, so a test can hold the graph the release before ownership left behind."""

from __future__ import annotations

from pathlib import Path

from contract.graph_owned import GRAPH_OWNED_LABELS
from embedding.hashing import HashEmbedder
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from graph.graph_schema import apply_schema
from ingest.load_source import Source, load_source
from ingest.loader import LoadResult
from tests.conftest import TEST_DIMENSION

ENTITY_LABELS = (
    "MATCH (e:Entity) UNWIND labels(e) AS label WITH DISTINCT label"
    " WHERE NOT label IN $owned RETURN label"
)


def hash_query_embedder() -> QueryEmbedder:
    return QueryEmbedder(HashEmbedder(TEST_DIMENSION), size=0)


async def load_into(
    graph: Graph, path: Path, format: str, workspace: str | None = None
) -> LoadResult:
    """Load `path` (`format`: bundle, graphrag or langchain) and wait for its labels' indexes;
    `workspace` as `load --workspace` takes it (ingest/load_source.py `Source`)."""
    result = await load_source(graph, hash_query_embedder(), Source(path, format, workspace))
    rows = await graph.read(ENTITY_LABELS, {"owned": list(GRAPH_OWNED_LABELS)})
    await apply_schema(graph, TEST_DIMENSION, labels=[row["label"] for row in rows])
    return result


# What a release before ownership never wrote (graph/ownership.py): entities' and relations'
# `workspace`, entities' and passages' `workspaceKey`. Documents keep their workspace.
FORGET_OWNERS = (
    "CALL () { MATCH (e:Entity) REMOVE e.workspace, e.workspaceKey }"
    " CALL () { MATCH (c:Chunk) REMOVE c.workspaceKey }"
    " CALL () { MATCH (:Entity)-[r]->(:Entity) REMOVE r.workspace }"
)


async def as_the_previous_release_left_it(graph: Graph) -> None:
    """Remove every owner and key a load wrote. With a loader that writes none (the release
    before ownership) this changes nothing; with one that does, it makes the graph the earlier
    release would have left, but for ids the new loader derives per workspace."""
    await graph.write(FORGET_OWNERS, {})
