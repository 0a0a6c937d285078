"""`evidencegraph serve [--host H] [--port P]`: the GraphQL service under uvicorn.

Before uvicorn starts, the graph is checked against the configured embedder (the same check
the lifespan runs, for `uvicorn --factory` too), so a mismatch ends the command with one clear
line and exit code 2 instead of a start-up traceback. The check only reads: `serve` never
writes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging.config
import signal
import sys
import threading

import uvicorn

from api.app import create_app
from api.embedder_setup import check_graph_embedder, configured_identity
from api.lifespan import open_graph
from api.request_log import logging_config
from api.settings import Settings, SettingsError
from commands.exit_codes import EXIT_OK, EXIT_USAGE
from contract.errors import BackendUnavailable


async def check_graph(settings: Settings) -> None:
    """`SettingsError` when the graph's vectors were made by another embedder. A graph still
    down passes: the lifespan says so, and `/readyz` reports it until it answers."""
    async with open_graph(settings) as graph:
        with contextlib.suppress(BackendUnavailable):
            await check_graph_embedder(graph, configured_identity(settings))


# Time past the request limit that shutdown waits for the last answers to be written.
SHUTDOWN_MARGIN_SECONDS = 5


def serve(host: str, port: int, settings: Settings | None = None) -> int:
    try:
        settings = settings or Settings.from_environ()
        app = create_app(settings, host=host)
        asyncio.run(check_graph(settings))
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    # uvicorn finishes the requests in flight, then raises the signal again to the handler it
    # found; a stop it has already carried out gracefully is a normal end (exit 0), not a kill.
    if threading.current_thread() is threading.main_thread():  # where signals are handled
        signal.signal(signal.SIGTERM, lambda signum, frame: None)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_config=logging_config(settings.log_format),
        access_log=False,  # the request line (api/request_log.py) says more
        proxy_headers=False,
        timeout_graceful_shutdown=int(settings.request_timeout_seconds) + SHUTDOWN_MARGIN_SECONDS,
    )
    return EXIT_OK


def _handle(arguments: argparse.Namespace) -> int:
    try:
        settings = Settings.from_environ()
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    # Before anything logs, so that every line of the command is in LOG_FORMAT.
    logging.config.dictConfig(logging_config(settings.log_format))
    return serve(arguments.host, arguments.port, settings)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "serve", help="serve the GraphQL API", description="Serve the GraphQL API at /graphql."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    parser.set_defaults(handler=_handle)
