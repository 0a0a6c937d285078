"""`evidencegraph vectors sync`: copy the graph's entity vectors into the external vector store
(`VECTOR_STORE=qdrant`), one collection per entity label, replacing what it held."""

from __future__ import annotations

import argparse
import sys

from api.embedder_setup import configured_dimension
from api.lifespan import open_graph
from api.settings import Settings
from api.vector_store_setup import create_vector_store
from commands.exit_codes import EXIT_OK, EXIT_USAGE
from commands.runtime import run_command
from vectorstores.sync import sync_entity_vectors


async def _sync(settings: Settings) -> int:
    if settings.vector_store != "qdrant":
        print(
            "error: set VECTOR_STORE=qdrant (and QDRANT_PATH) to sync into Qdrant", file=sys.stderr
        )
        return EXIT_USAGE
    store = create_vector_store(settings, configured_dimension(settings))
    try:
        async with open_graph(settings) as graph:
            counts = await sync_entity_vectors(graph, store)  # type: ignore[arg-type]
    finally:
        await store.close()
    print(f"synced {sum(counts.values())} vectors of {len(counts)} label(s)")
    return EXIT_OK


def _handle(arguments: argparse.Namespace) -> int:
    return run_command(_sync)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser("vectors", help="the external vector store")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    sync = actions.add_parser("sync", help="copy entity vectors from the graph into Qdrant")
    sync.set_defaults(handler=_handle)
