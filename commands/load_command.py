"""`evidencegraph load [--format bundle|graphrag|langchain] [--workspace W] PATH` and
`evidencegraph load --format neo4j-graphrag|llm-graph-builder [--workspace W] --from URI`
(contract §11).

Loads a bundle file (JSON Lines, one document version per line), a Microsoft GraphRAG output
folder, a file of LangChain graph documents (`ingest.langchain_graph`) or a graph that
neo4j-graphrag or LLM Graph Builder wrote into a Neo4j database (`ingest.source_graph_import`,
read-only, with SOURCE_NEO4J_USER and SOURCE_NEO4J_PASSWORD) through the write
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
from dataclasses import replace
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
from graph.source_graph import SourceUnavailable
from ingest.graphrag_tables import NotGraphRagOutput
from ingest.langchain_graph import NotGraphDocuments
from ingest.load_source import DEFAULT_WORKSPACE, FORMATS, Source, load_source, make_searchable
from ingest.loader import LoadResult
from ingest.source_graph_import import FORMATS as GRAPH_FORMATS
from ingest.source_graph_import import GraphSource, NotASourceGraph, parse_source_uri


async def load_and_index(
    settings: Settings, source: Source | GraphSource, *, index_when_rejected: bool = True
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


async def load(settings: Settings, source: Source | GraphSource) -> int:
    if isinstance(source, GraphSource) and settings.source_neo4j_password:
        password = str(settings.source_neo4j_password)
        source = replace(source, auth=(settings.source_neo4j_user, password))
    try:
        result, not_online = await load_and_index(settings, source)
    except (NotGraphRagOutput, NotGraphDocuments, NotASourceGraph, EmbedderMismatch) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except SourceUnavailable as error:
        assert isinstance(source, GraphSource)
        print(f"error: the source graph at {source.describe()} cannot be read: {error}",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAILURE
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
    if arguments.source is not None or arguments.format in GRAPH_FORMATS:
        return _handle_graph(arguments)
    path: Path | None = arguments.path
    if path is None:
        print("error: PATH is missing (or --from, for a graph in Neo4j)", file=sys.stderr)
        return EXIT_USAGE
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


def _handle_graph(arguments: argparse.Namespace) -> int:
    """`--from URI` with `--format neo4j-graphrag|llm-graph-builder`, and no PATH."""
    problem = None
    workspace = DEFAULT_WORKSPACE if arguments.workspace is None else arguments.workspace
    if arguments.format not in GRAPH_FORMATS:
        problem = f"--from reads a graph in Neo4j: give --format {' or '.join(GRAPH_FORMATS)}"
    elif arguments.source is None:
        problem = f"--format {arguments.format} reads a graph in Neo4j: give --from URI"
    elif arguments.path is not None:
        problem = f"--from reads a graph in Neo4j; PATH ({arguments.path}) is not read with it"
    elif not workspace.strip():
        problem = "--workspace must not be empty"
    if problem is None:
        try:
            address = parse_source_uri(arguments.source)
        except NotASourceGraph as error:
            problem = str(error)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    source = GraphSource(address, arguments.format, workspace)
    return run_command(lambda settings: load(settings, source))


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "load",
        help="load a bundle file, a GraphRAG output folder, LangChain graph documents or a "
        "graph in Neo4j",
        description="Load a bundle (JSON Lines, one document version per line), a Microsoft "
        "GraphRAG output folder, LangChain graph documents (GraphDocument.model_dump() as a "
        "JSON array or JSON Lines), or a graph neo4j-graphrag or LLM Graph Builder wrote into "
        "a Neo4j database (--from, read-only), then create the indexes of the labels it wrote. "
        "Exit code 2 when a line was rejected (each is reported with its line, record or "
        "document number).",
    )
    parser.add_argument(
        "path",
        type=Path,
        metavar="PATH",
        nargs="?",
        help="bundle file, GraphRAG folder or graph documents",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="bundle, graphrag, langchain (default: graphrag for a folder, bundle for a file), "
        "or neo4j-graphrag or llm-graph-builder with --from",
    )
    parser.add_argument(
        "--from",
        dest="source",
        default=None,
        metavar="URI",
        help="the Neo4j holding the graph: bolt://host:port[/database] (credentials: "
        "SOURCE_NEO4J_USER, SOURCE_NEO4J_PASSWORD); it is only read",
    )
    parser.add_argument(
        "--workspace",
        default=None,
        metavar="W",
        help=f"workspace of a GraphRAG folder's, LangChain file's or Neo4j graph's documents "
        f"(default {DEFAULT_WORKSPACE!r}); for a bundle, the one workspace every line is held "
        "to: a line naming another is rejected, a line naming none takes W. Use it to load a "
        "bundle someone else handed in (a tenant's) into their workspace alone",
    )
    parser.set_defaults(handler=_handle)
