"""`evidencegraph demo` (contract §11): the README's first command. A local Neo4j, the demo data,
the service with GraphiQL, and two example queries that work as printed.

    1. Neo4j: the one `NEO4J_URI` names if set, else the local server (started if need be,
       `localneo4j`), whose Bolt address is printed
    2. data: data/graphrag-operation-dulce (Microsoft GraphRAG output) into workspace `demo`;
       a second run finds it unchanged (content hash) and writes nothing
    3. indexes of every label loaded, ONLINE before serving
    4. serve on 127.0.0.1 (loopback only, so AUTH_MODE=none is safe) with introspection,
       GraphiQL and the evidence explorer on, after printing their addresses and the example
       queries

Everything else comes from the environment as for `serve` (EMBEDDER, default minilm).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
from pathlib import Path

from api.settings import Settings, SettingsError
from commands.demo_examples import banner, walk_start
from commands.exit_codes import EXIT_FAILURE, EXIT_USAGE
from commands.load_command import load_and_index
from commands.runtime import say
from commands.serve_command import serve
from contract.errors import BackendUnavailable
from embedding.mismatch import EmbedderMismatch
from ingest.graphrag import read_graphrag
from ingest.load_source import Source
from localneo4j.launch import LOOPBACK
from localneo4j.process import port_taken
from localneo4j.server import DEFAULT_BOLT_PORT, Neo4jUnavailable, start

DEMO_DATA = Path(__file__).resolve().parent.parent / "data" / "graphrag-operation-dulce"
DEMO_WORKSPACE = "demo"
DEFAULT_PORT = 8000


def _neo4j_uri(neo4j_port: int | None) -> str:
    """NEO4J_URI when set; otherwise the local server's address, started if it is not."""
    configured = os.environ.get("NEO4J_URI")
    if configured:
        say(f"Neo4j: {configured} (from NEO4J_URI)")
        return configured
    server = start(port=neo4j_port, log=say)
    say(
        f"Neo4j: {server.bolt_uri} (data in {server.home}; "
        "`.venv/bin/evidencegraph neo4j stop` stops it)"
    )
    return server.bolt_uri


async def load_demo(settings: Settings) -> str | None:
    """Load the demo data (or find it unchanged) and make it searchable; the walk's start id,
    or None when the data could not be loaded whole."""
    source = Source(DEMO_DATA, "graphrag", DEMO_WORKSPACE)
    result, not_online = await load_and_index(settings, source, index_when_rejected=False)
    if result.rejections or not_online:
        return None
    return walk_start(read_graphrag(DEMO_DATA, DEMO_WORKSPACE).versions)


def demo(arguments: argparse.Namespace) -> int:
    if not DEMO_DATA.is_dir():
        say(f"error: the demo data is not at {DEMO_DATA}; run the demo from a clone")
        return EXIT_USAGE
    port: int = arguments.port
    if port_taken(port):
        say(f"error: port {port} on {LOOPBACK} is in use; choose another with --port")
        return EXIT_FAILURE
    try:
        settings = dataclasses.replace(
            Settings.from_environ(),
            neo4j_uri=_neo4j_uri(arguments.neo4j_port),
            auth_mode="none",  # loopback only: nobody else can reach it
            graphql_introspection=True,
            graphiql_enabled=True,
            explorer_enabled=True,
        )
        start_id = asyncio.run(load_demo(settings))
    except SettingsError as error:
        say(f"error: {error}")
        return EXIT_USAGE
    except EmbedderMismatch as error:
        say(f"error: {error} (the demo data was loaded before with another embedder)")
        return EXIT_USAGE
    except (Neo4jUnavailable, BackendUnavailable) as error:
        say(f"error: {error}")
        return EXIT_FAILURE
    if start_id is None:
        say("error: the demo data did not load whole (see above)")
        return EXIT_FAILURE
    print(banner(f"http://{LOOPBACK}:{port}/graphql", start_id), flush=True)
    return serve(LOOPBACK, port, settings)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "demo",
        help="local Neo4j, the demo data, and the service with GraphiQL",
        description="Start the local Neo4j (unless NEO4J_URI is set), load the Operation Dulce "
        "GraphRAG output into workspace 'demo', and serve it with GraphiQL on 127.0.0.1.",
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--neo4j-port",
        type=int,
        default=None,
        help=f"Bolt port of the local Neo4j when it must be started (default "
        f"{DEFAULT_BOLT_PORT}; 0 picks a free one)",
    )
    parser.set_defaults(handler=demo)
