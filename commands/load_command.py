"""`evidencegraph load [--format bundle|graphrag] [--workspace W] PATH` (SPEC §10, §11).

Loads a bundle file (JSON Lines, one document version per line) or a Microsoft GraphRAG output
folder through the write path, shows its progress, ends with a summary and by creating the
indexes of every entity label it wrote, so what it loaded is searchable at once.

Exit codes: 0 every line loaded (or was unchanged); 2 a line was rejected, or the input or the
settings are wrong (an embedder other than the one that made the graph's vectors, say);
1 anything else (Neo4j unreachable, an index that failed).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from api.embedder_setup import check_graph_embedder, embedder_from
from api.metrics import Metrics
from api.settings import Settings
from commands.load_progress import progress_display
from commands.runtime import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, open_graph, run_command
from embedding.mismatch import EmbedderMismatch
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.index_catalog import IndexState, read_index_catalog
from graph.lexical_index import LexicalIndexSpec
from graph.records import GRAPH_OWNED_RELATION_TYPES
from ingest.bundle import LineError, read_bundle
from ingest.document_version import DocumentVersion
from ingest.graphrag import read_graphrag
from ingest.graphrag_tables import NotGraphRagOutput
from ingest.loader import Loader, LoadResult

FORMATS = ("bundle", "graphrag")
DEFAULT_WORKSPACE = "default"


@dataclass(frozen=True, slots=True)
class Source:
    path: Path
    format: str  # bundle | graphrag
    workspace: str = DEFAULT_WORKSPACE  # GraphRAG only: bundle lines name their own


def count_lines(path: Path) -> int:
    """Non-blank lines of a bundle: the number of documents, for the progress bar."""
    with path.open("rb") as handle:
        return sum(1 for raw in handle if raw.strip())


async def load_source(
    graph: Graph,
    embedder: QueryEmbedder,
    source: Source,
    owned_relation_types: tuple[str, ...] = GRAPH_OWNED_RELATION_TYPES,
) -> LoadResult:
    """Load `source` into `graph` with progress on stderr and its summary on stdout.

    Raises `NotGraphRagOutput` for a folder that is not one, `EmbedderMismatch` when the
    graph's vectors were made by another embedder.
    """
    await check_graph_embedder(graph, embedder.identity)
    lines: Iterable[tuple[int, DocumentVersion | LineError]]
    if source.format == "graphrag":
        export = read_graphrag(source.path, source.workspace)
        for warning in export.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        lines, total, describe = enumerate(export.versions, start=1), len(export.versions), "doc"
    else:
        total, describe = count_lines(source.path), f"{source.path}: line"
        lines = read_bundle(
            source.path,
            dimensions=embedder.identity.dimension,
            graph_owned_relation_types=owned_relation_types,
        )
    print(
        f"loading {source.path} ({source.format}) with {embedder.identity.describe()}",
        file=sys.stderr,
    )
    with progress_display(describe, total) as display:
        result = await Loader(graph, embedder, display, total).load(lines)
    for line in result.totals.summary_lines():
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


async def load_and_index(
    settings: Settings, source: Source, *, index_when_rejected: bool = True
) -> tuple[LoadResult, list[str] | None]:
    """Load `source` with the configured embedder into the Neo4j `settings` names, then make
    the labels it wrote searchable (`make_searchable`, with RETRIEVAL_LEXICAL_FIELDS).

    The load's result, and the indexes that are not ONLINE: None when lines were rejected and
    `index_when_rejected` is off, for then nothing is indexed. Raises as `load_source` does.
    """
    embedder = QueryEmbedder(embedder_from(settings), size=0)
    try:
        async with open_graph(settings) as graph:
            result = await load_source(graph, embedder, source, settings.graph_owned_relation_types)
            if result.rejections and not index_when_rejected:
                return result, None
            dimension = embedder.identity.dimension
            lexical = LexicalIndexSpec(settings.lexical.fields)
            return result, await make_searchable(graph, result.totals.labels, dimension, lexical)
    finally:
        embedder.close()


async def load(settings: Settings, source: Source) -> int:
    try:
        result, not_online = await load_and_index(settings, source)
    except (NotGraphRagOutput, EmbedderMismatch) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    if settings.metrics_enabled:
        # Seen by the service's /metrics when both share PROMETHEUS_MULTIPROC_DIR.
        totals = result.totals
        Metrics().load_finished(
            loaded=totals.loaded, unchanged=totals.unchanged, rejected=totals.rejected
        )
    if not_online:
        return EXIT_FAILURE
    return EXIT_USAGE if result.rejections else EXIT_OK


def _handle(arguments: argparse.Namespace) -> int:
    path: Path = arguments.path
    chosen = arguments.format or ("graphrag" if path.is_dir() else "bundle")
    problem = None
    if not path.exists():
        problem = f"{path} does not exist"
    elif chosen == "bundle" and not path.is_file():
        problem = f"{path} is not a file; a GraphRAG output folder needs --format graphrag"
    elif chosen == "bundle" and arguments.workspace is not None:
        problem = "--workspace is for GraphRAG folders; each bundle line names its workspace"
    workspace = DEFAULT_WORKSPACE if arguments.workspace is None else arguments.workspace
    if not problem and not workspace.strip():
        problem = "--workspace must not be empty"
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    source = Source(path, chosen, workspace)
    return run_command(lambda settings: load(settings, source))


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "load",
        help="load a bundle file or a GraphRAG output folder",
        description="Load a bundle (JSON Lines, one document version per line) or a Microsoft "
        "GraphRAG output folder, then create the indexes of the labels it wrote. Exit code 2 "
        "when a line was rejected (each is reported with its line number).",
    )
    parser.add_argument("path", type=Path, metavar="PATH", help="bundle file or GraphRAG folder")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="bundle or graphrag (default: graphrag for a folder, bundle for a file)",
    )
    parser.add_argument(
        "--workspace",
        default=None,
        metavar="W",
        help=f"workspace of a GraphRAG folder's documents (default {DEFAULT_WORKSPACE!r})",
    )
    parser.set_defaults(handler=_handle)
