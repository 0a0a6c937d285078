"""`evidencegraph load [--format bundle|graphrag|langchain] [--workspace W] PATH` (contract §11).

Loads a bundle file (JSON Lines, one document version per line), a Microsoft GraphRAG output
folder or a file of LangChain graph documents (`ingest.langchain_graph`) through the write
path, shows its progress, ends with a summary and by creating the indexes of every entity label
it wrote, so what it loaded is searchable at once. `--workspace W` is the workspace of a GraphRAG
folder's or LangChain file's documents; a bundle's lines name their own, and with `--workspace W`
each must name W or none (contract §10: a line naming another is rejected with its number).

Exit codes: 0 every line loaded (or was unchanged); 2 a line was rejected, or the input or the
settings are wrong (an embedder other than the one that made the graph's vectors, say);
1 anything else (Neo4j unreachable, an index that failed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from api.embedder_setup import check_graph_embedder, embedder_from
from api.lifespan import open_graph
from api.metrics import Metrics
from api.settings import Settings
from commands.exit_codes import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from commands.runtime import run_command
from embedding.mismatch import EmbedderMismatch
from embedding.query_cache import QueryEmbedder
from graph.lexical_index import LexicalIndexSpec
from ingest.graphrag_tables import NotGraphRagOutput
from ingest.langchain_graph import NotGraphDocuments
from ingest.load_source import DEFAULT_WORKSPACE, FORMATS, Source, load_source, make_searchable
from ingest.loader import LoadResult


async def load_and_index(
    settings: Settings, source: Source, *, index_when_rejected: bool = True
) -> tuple[LoadResult, list[str] | None]:
    """Load `source` with the configured embedder into the Neo4j `settings` names, then make
    the labels it wrote searchable (`make_searchable`, with RETRIEVAL_LEXICAL_FIELDS).

    The load's result, and the indexes that are not ONLINE: None when lines were rejected and
    `index_when_rejected` is off, for then nothing is indexed. Raises as `load_source` does,
    and `EmbedderMismatch` when the graph's vectors were made by another embedder.
    """
    embedder = QueryEmbedder(embedder_from(settings), size=0)
    try:
        async with open_graph(settings) as graph:
            await check_graph_embedder(graph, embedder.identity)
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
    except (NotGraphRagOutput, NotGraphDocuments, EmbedderMismatch) as error:
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
    elif chosen in ("bundle", "langchain") and not path.is_file():
        problem = f"{path} is not a file; a GraphRAG output folder needs --format graphrag"
    workspace: str | None = arguments.workspace
    if not problem and workspace is not None and not workspace.strip():
        problem = "--workspace must not be empty"
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    source = Source(path, chosen, workspace)
    return run_command(lambda settings: load(settings, source))


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "load",
        help="load a bundle file, a GraphRAG output folder or LangChain graph documents",
        description="Load a bundle (JSON Lines, one document version per line), a Microsoft "
        "GraphRAG output folder or LangChain graph documents (GraphDocument.model_dump() as a "
        "JSON array or JSON Lines), then create the indexes of the labels it wrote. Exit code 2 "
        "when a line was rejected (each is reported with its line or record number).",
    )
    parser.add_argument(
        "path", type=Path, metavar="PATH", help="bundle file, GraphRAG folder or graph documents"
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="bundle, graphrag or langchain (default: graphrag for a folder, bundle for a file)",
    )
    parser.add_argument(
        "--workspace",
        default=None,
        metavar="W",
        help=f"workspace of a GraphRAG folder's or LangChain file's documents "
        f"(default {DEFAULT_WORKSPACE!r}); for a bundle, the one workspace every line is held "
        "to: a line naming another is rejected, a line naming none takes W. Use it to load a "
        "bundle someone else handed in (a tenant's) into their workspace alone",
    )
    parser.set_defaults(handler=_handle)
