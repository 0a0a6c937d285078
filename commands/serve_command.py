"""`evidencegraph serve [--host H] [--port P] [--workers N]`: the GraphQL service under uvicorn.

`--workers N` (default 1) runs N uvicorn worker processes on one listening socket; they share
nothing but Neo4j (each has its own driver pool, query-vector cache and index catalog). Each
worker builds its app from the environment with `create_worker_app`, the import string
uvicorn needs to start a process. With METRICS_ENABLED and no PROMETHEUS_MULTIPROC_DIR, serve
makes a fresh directory for the workers' figures (removed when it ends), so any worker's
`/metrics` answers for all of them (api/metrics.py). SIGTERM to the parent process stops every
worker gracefully (each finishes its requests in flight) and the command exits 0.

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
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator

import uvicorn
from starlette.applications import Starlette

from api.app import create_app
from api.embedder_setup import check_graph_embedder, configured_identity
from api.front_door.door import PROCESSES_VARIABLE
from api.lifespan import open_graph
from api.metrics import MULTIPROC_DIR
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


# The address `serve` listens on, handed to the worker processes (the loopback checks of
# api/app.py depend on it); set by `serve` itself, not a setting.
WORKER_HOST_VARIABLE = "EVIDENCEGRAPH_SERVE_HOST"
WORKER_APP = "commands.serve_command:create_worker_app"


def create_worker_app() -> Starlette:
    """The app of one `--workers` process: settings from the environment it inherited."""
    return create_app(Settings.from_environ(), host=os.environ.get(WORKER_HOST_VARIABLE, ""))


def serve(host: str, port: int, settings: Settings | None = None, workers: int = 1) -> int:
    try:
        settings = settings or Settings.from_environ()
        app = create_app(settings, host=host)  # in the parent too: a bad setting stops here
        asyncio.run(check_graph(settings))
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    # uvicorn finishes the requests in flight, then raises the signal again to the handler it
    # found; a stop it has already carried out gracefully is a normal end (exit 0), not a kill.
    # With workers, uvicorn's supervisor takes the signal and passes it to every worker.
    if threading.current_thread() is threading.main_thread():  # where signals are handled
        signal.signal(signal.SIGTERM, lambda signum, frame: None)
    if workers > 1:
        os.environ[WORKER_HOST_VARIABLE] = host
        os.environ[PROCESSES_VARIABLE] = str(workers)  # the cores' slots are shared among them
    with metrics_directory(settings.metrics_enabled and workers > 1):
        uvicorn.run(
            app if workers == 1 else WORKER_APP,
            factory=workers > 1,
            workers=workers,
            host=host,
            port=port,
            log_config=logging_config(settings.log_format),
            access_log=False,  # the request line (api/request_log.py) says more
            proxy_headers=False,
            timeout_graceful_shutdown=int(settings.request_timeout_seconds)
            + SHUTDOWN_MARGIN_SECONDS,
        )
    return EXIT_OK


@contextlib.contextmanager
def metrics_directory(enabled: bool) -> Iterator[None]:
    """A fresh PROMETHEUS_MULTIPROC_DIR for the workers when metrics are on and none is set."""
    if not enabled or os.environ.get(MULTIPROC_DIR):
        yield
        return
    folder = tempfile.mkdtemp(prefix="evidencegraph-metrics-")
    os.environ[MULTIPROC_DIR] = folder
    try:
        yield
    finally:
        del os.environ[MULTIPROC_DIR]
        shutil.rmtree(folder, ignore_errors=True)


def worker_count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1, not {text!r}")
    return count


def _handle(arguments: argparse.Namespace) -> int:
    try:
        settings = Settings.from_environ()
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    # Before anything logs, so that every line of the command is in LOG_FORMAT.
    logging.config.dictConfig(logging_config(settings.log_format))
    return serve(arguments.host, arguments.port, settings, workers=arguments.workers)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "serve", help="serve the GraphQL API", description="Serve the GraphQL API at /graphql."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    parser.add_argument(
        "--workers",
        type=worker_count,
        default=1,
        help="worker processes, sharing nothing but Neo4j (1)",
    )
    parser.set_defaults(handler=_handle)
