"""The tenancy property's run (contract §2 "Ownership"), shared by its two modules:
tests/test_workspace_isolation.py (files: bundles, GraphRAG folders, LangChain files) and
tests/test_load_from_neo4j.py (graphs read from the source server with `load --from`, among
files), which alone may start the source server.

`loads_change_nothing_the_other_workspace_reads` loads a drawn sequence
(tests/support/workspace_sources.py) one load after another; before and after each, it reads
what the other workspace's caller reads (tests/support/workspace_reads.py) of every id stored
and every id the load names (read from the source with the loader's own readers, so an id the
load creates is read before it exists too), and asserts that nothing changed.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, Phase, settings

from contract.graph_owned import GRAPH_OWNED_RELATION_TYPES
from graph.driver import Graph
from graph.graph_schema import apply_schema
from ingest.bundle import LineError, read_bundle
from ingest.document_version import DocumentVersion
from ingest.graphrag import read_graphrag
from ingest.langchain_graph import read_graph_documents
from ingest.load_source import Source, load_source
from ingest.source_graph_import import GraphSource, parse_source_uri, read_source_graph
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support.auth_material import bearer
from tests.support.mcp_sessions import http_session
from tests.support.source_server import SourceHolder
from tests.support.workspace_loads import hash_query_embedder
from tests.support.workspace_reads import (
    WorkspaceCaller,
    changed_answers,
    moved_hits,
    workspace_view,
)
from tests.support.workspace_sources import GRAPH_FORMATS, LABELS, QUERIES, WORKSPACES, Load

# Profiles (WORKSPACE_ISOLATION_PROFILE): `isolation-ci` (the default, a dozen examples, about a
# minute on a quiet machine) and `isolation-first-failure` (the first failing example as drawn,
# not shrunk: for a busy machine, where shrinking may take many minutes).
settings.register_profile(
    "isolation-ci",
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.register_profile(
    "isolation-first-failure",
    parent=settings.get_profile("isolation-ci"),
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
PROFILE = settings.get_profile(os.environ.get("WORKSPACE_ISOLATION_PROFILE", "isolation-ci"))

WIPE: str = "MATCH (n) DETACH DELETE n"
STORED_IDS = (
    "CALL () { MATCH (e:Entity) RETURN 'entity' AS kind, e.id AS id"
    " UNION MATCH (c:Chunk) RETURN 'passage' AS kind, c.id AS id"
    " UNION MATCH (d:Document) RETURN 'document' AS kind, d.id AS id }"
    " RETURN kind, id"
)


@dataclass
class Served:
    client: Client
    keys: dict[str, str]  # workspace -> the API key granting it alone

    @asynccontextmanager
    async def callers(self) -> AsyncIterator[dict[str, WorkspaceCaller]]:
        """A caller per workspace, GraphQL and MCP. Opened in the test's own task (an MCP
        session's cancel scopes must end in the task that began them)."""
        async with AsyncExitStack() as stack:
            callers = {}
            for workspace, key in self.keys.items():
                session = await stack.enter_async_context(http_session(self.client, key))
                callers[workspace] = WorkspaceCaller(workspace, self.client, bearer(key), session)
            yield callers


@asynccontextmanager
async def serve_two_workspaces(neo4j_uri: str, graph: Graph, folder: Path) -> AsyncIterator[Served]:
    """The app with an API key granting A alone and one granting B alone (its key file in
    `folder`)."""
    await apply_schema(graph, TEST_DIMENSION, labels=list(LABELS))
    keys = {workspace: f"key-{workspace}-only-0123456789abcdef" for workspace in WORKSPACES}
    keys_file = folder / "keys.json"
    keys_file.write_text(json.dumps({key: [workspace] for workspace, key in keys.items()}))
    auth = {"AUTH_MODE": "apikeys", "AUTH_API_KEYS_FILE": str(keys_file)}
    # A search on a busy machine may take longer than the served default; what is compared is
    # the answers, never how long they took.
    limits = {
        "GRAPHQL_MAX_ALIASES": "500",
        "GRAPHQL_MAX_TOKENS": "100000",
        "REQUEST_TIMEOUT_SECONDS": "600",
    }
    async with serving(neo4j_uri, graph, **auth, **limits) as client:
        # Any query embeds as a load's text does, so SEMANTIC and HYBRID find what they would.
        client.services.query_embedder = hash_query_embedder()
        yield Served(client, keys)


async def named_ids(source: Source | GraphSource) -> dict[str, set[str]]:
    """The entity, passage and document ids the load names, as the loader reads them."""
    lines: list[DocumentVersion | LineError]
    if isinstance(source, GraphSource):
        imported = await read_source_graph(source, GRAPH_OWNED_RELATION_TYPES)
        lines = [line for _, line in imported.lines]
    elif source.format == "graphrag":
        lines = list(read_graphrag(source.path, source.documents_workspace).versions)
    elif source.format == "langchain":
        documents = read_graph_documents(
            source.path, source.documents_workspace, GRAPH_OWNED_RELATION_TYPES
        )
        lines = [line for _, line in documents.lines]
    else:
        lines = [line for _, line in read_bundle(source.path, dimensions=TEST_DIMENSION)]
    named: dict[str, set[str]] = {"entity": set(), "passage": set(), "document": set()}
    for version in lines:
        if not isinstance(version, DocumentVersion):
            continue  # a line the reader refuses writes nothing
        named["document"].add(version.document.id)
        named["passage"].update(passage.id for passage in version.passages)
        named["entity"].update(entity.id for entity in version.entities)
        for relation in version.relations:
            named["entity"].update((relation.source, relation.target))
    return named


async def loads_change_nothing_the_other_workspace_reads(
    served: Served,
    graph: Graph,
    loads: list[Load],
    source: tuple[str, SourceHolder] | None = None,
) -> None:
    """Load `loads` one after another from a wiped graph, asserting after each that the other
    workspace reads what it read before (module docstring). `source`: the source server's URI
    and what keeps it holding the graph a `load --from` reads (GRAPH_FORMATS need it)."""
    await graph.write(WIPE, {})
    if source is not None:
        await source[1].clear()
    async with served.callers() as callers:
        with tempfile.TemporaryDirectory() as folder:
            for load in loads:
                other = callers["B" if load.workspace == "A" else "A"]
                where: Source | GraphSource
                if load.format in GRAPH_FORMATS:
                    assert source is not None, "a load --from needs the source server"
                    uri, holder = source
                    await holder.hold(load.format, load.content)
                    where = GraphSource(parse_source_uri(uri), load.format, load.workspace)
                else:
                    path = load.write(Path(folder) / f"load-{load.number}")
                    where = Source(path, load.format, load.workspace)
                ids = await named_ids(where)
                for row in await graph.read(STORED_IDS, {}):
                    ids[row["kind"]].add(row["id"])
                read = (sorted(ids["entity"]), sorted(ids["passage"]), sorted(ids["document"]))
                before = await workspace_view(other, *read, list(QUERIES))
                await load_source(graph, hash_query_embedder(), where)
                after = await workspace_view(other, *read, list(QUERIES))
                assert changed_answers(before, after) == {}, (load, other.workspace)
                assert moved_hits(before, after) == {}, (load, other.workspace)
