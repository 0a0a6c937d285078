"""Loading one source (a bundle file, a GraphRAG output folder, a file of LangChain graph
documents, or a graph in Neo4j that neo4j-graphrag or LLM Graph Builder wrote) through the
write path, with
its progress on stderr and its summary on stdout, and making the labels it wrote searchable.

`evidencegraph load`, `evidencegraph demo` and `evidencegraph eval` all load this way
(contract §10, §11). The caller checks first that the graph's vectors were made by the
configured embedder (`api.embedder_setup.check_graph_embedder`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from contract.graph_owned import GRAPH_OWNED_RELATION_TYPES
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.index_catalog import IndexState, read_index_catalog
from graph.lexical_index import LexicalIndexSpec
from ingest.bundle import LineError, read_bundle
from ingest.document_version import DocumentVersion
from ingest.graphrag import read_graphrag
from ingest.langchain_graph import read_graph_documents
from ingest.load_progress import progress_display
from ingest.loader import Loader, LoadResult
from ingest.source_graph_import import FORMATS as GRAPH_FORMATS
from ingest.source_graph_import import GraphSource, read_source_graph

FILE_FORMATS = ("bundle", "graphrag", "langchain")
FORMATS = (*FILE_FORMATS, *GRAPH_FORMATS)
DEFAULT_WORKSPACE = "default"


@dataclass(frozen=True, slots=True)
class Source:
    path: Path
    format: str  # one of FORMATS
    # `--workspace`. A GraphRAG folder's or LangChain file's documents are its (None: the
    # default workspace). A bundle's lines are held to it (contract §10: a line naming another
    # is refused, a line naming none takes it); None: each line names its own.
    workspace: str | None = None

    @property
    def documents_workspace(self) -> str:
        """The workspace of the documents of a format whose documents name none."""
        return DEFAULT_WORKSPACE if self.workspace is None else self.workspace


def count_lines(path: Path) -> int:
    """Non-blank lines of a bundle: the number of documents, for the progress bar."""
    with path.open("rb") as handle:
        return sum(1 for raw in handle if raw.strip())


async def load_source(
    graph: Graph,
    embedder: QueryEmbedder,
    source: Source | GraphSource,
    owned_relation_types: tuple[str, ...] = GRAPH_OWNED_RELATION_TYPES,
) -> LoadResult:
    """Load `source` into `graph` with progress on stderr and its summary on stdout.

    Raises `NotGraphRagOutput` for a folder that is not one, `NotGraphDocuments` for a file that
    is not LangChain graph documents, `NotASourceGraph` for a graph in Neo4j that is not of
    its format, `SourceUnavailable` when that graph cannot be read.
    """
    lines: Iterable[tuple[int, DocumentVersion | LineError]]
    if isinstance(source, GraphSource):
        imported = await read_source_graph(source, owned_relation_types)
        for warning in imported.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        lines, total = imported.lines, len(imported.lines)
        describe = f"{source.describe()}: document"
    elif source.format == "graphrag":
        export = read_graphrag(source.path, source.documents_workspace)
        for warning in export.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        lines, total, describe = enumerate(export.versions, start=1), len(export.versions), "doc"
    elif source.format == "langchain":
        graph_documents = read_graph_documents(
            source.path, source.documents_workspace, owned_relation_types
        )
        for warning in graph_documents.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        lines, total = graph_documents.lines, len(graph_documents.lines)
        describe = f"{source.path}: record"
    else:
        total, describe = count_lines(source.path), f"{source.path}: line"
        lines = read_bundle(
            source.path,
            dimensions=embedder.identity.dimension,
            graph_owned_relation_types=owned_relation_types,
            workspace=source.workspace,
        )
    where = source.describe() if isinstance(source, GraphSource) else source.path
    print(
        f"loading {where} ({source.format}) with {embedder.identity.describe()}",
        file=sys.stderr,
    )
    with progress_display(describe, total) as display:
        result = await Loader(graph, embedder, display, total).load(lines)
    for line in [*result.totals.document_lines(), *result.totals.summary_lines()]:
        print(line)
    return result


async def make_searchable(
    graph: Graph,
    labels: Iterable[str],
    dimension: int,
    lexical: LexicalIndexSpec | None = None,
) -> list[str]:
    """Create both indexes of each label (and the passages'), wait until they are ONLINE;
    the indexes that are not ONLINE even so. `lexical`: what the FULLTEXT indexes cover
    (RETRIEVAL_LEXICAL_FIELDS) and their analyzer."""
    chosen = sorted(labels)
    lexical = lexical or LexicalIndexSpec()
    report = await apply_schema(graph, dimension, labels=chosen, lexical=lexical)
    catalog = await read_index_catalog(graph)
    every = [catalog.label_indexes(label, lexical.fields) for label in chosen]
    every.append(catalog.passage_indexes())
    not_online = [
        f"{indexes.label} {kind} index {state.value}"
        for indexes in every
        for kind, state in (("FULLTEXT", indexes.fulltext_state), ("VECTOR", indexes.vector_state))
        if state is not IndexState.ONLINE
    ]
    created = f"{len(report.created)} created" if report.created else "all existed already"
    state = f"NOT ONLINE: {'; '.join(not_online)}" if not_online else "ONLINE"
    print(f"indexes of {', '.join(chosen) or 'no entity label'} and passages ({created}): {state}")
    return not_online
