"""`evidencegraph neo4j start|stop|status`: a local Neo4j Community server (contract §11).

Loopback only, authentication off. `start` prints the Bolt URI on stdout, also when the server
already runs, so scripts can capture it (`uri=$(evidencegraph neo4j start)`); progress goes to
stderr. `status` exits 0 when the server runs and 1 when it does not.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from commands.exit_codes import EXIT_FAILURE, EXIT_OK
from commands.runtime import say
from localneo4j.server import (
    DEFAULT_BOLT_PORT,
    Neo4jUnavailable,
    default_home,
    start,
    status,
    stop,
)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    home_option = argparse.ArgumentParser(add_help=False)
    home_option.add_argument(
        "--home",
        type=Path,
        default=None,
        help="the server's directory (default: $EVIDENCEGRAPH_CACHE/server, "
        "else ~/.cache/evidencegraph/server)",
    )
    neo4j = subcommands.add_parser(
        "neo4j",
        help="run a local Neo4j Community server (loopback only, no authentication)",
        description="A local Neo4j Community server for development and tests, on loopback "
        "only, with authentication off. Its jars are fetched with Maven on first start.",
    )
    actions = neo4j.add_subparsers(dest="action", required=True, metavar="ACTION")

    start_parser = actions.add_parser(
        "start",
        parents=[home_option],
        help="start the server (if not running) and print its Bolt URI",
    )
    start_parser.add_argument(
        "--port",
        type=_port,
        default=None,
        help=f"Bolt port on 127.0.0.1 (default {DEFAULT_BOLT_PORT}; 0 picks a free one)",
    )
    start_parser.add_argument(
        "--wait",
        type=float,
        default=180.0,
        metavar="SECONDS",
        help="how long to wait for Bolt to answer (default 180)",
    )
    start_parser.set_defaults(handler=_start)

    stop_parser = actions.add_parser("stop", parents=[home_option], help="stop the server")
    stop_parser.set_defaults(handler=_stop)

    status_parser = actions.add_parser(
        "status", parents=[home_option], help="say whether the server runs (exit 1 if not)"
    )
    status_parser.set_defaults(handler=_status)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535)")
    return port


def _start(arguments: argparse.Namespace) -> int:
    try:
        server = start(arguments.home, port=arguments.port, wait_seconds=arguments.wait, log=say)
    except Neo4jUnavailable as error:
        print(f"evidencegraph neo4j start: {error}", file=sys.stderr)
        return EXIT_FAILURE
    print(server.bolt_uri)
    return EXIT_OK


def _stop(arguments: argparse.Namespace) -> int:
    try:
        stopped = stop(arguments.home)
    except Neo4jUnavailable as error:
        print(f"evidencegraph neo4j stop: {error}", file=sys.stderr)
        return EXIT_FAILURE
    home = arguments.home or default_home()
    print(f"Stopped the server of {home}." if stopped else f"No server of {home} was running.")
    return EXIT_OK


def _status(arguments: argparse.Namespace) -> int:
    state = status(arguments.home)
    if not state.running:
        print(f"Not running (home {state.home}).")
        return EXIT_FAILURE
    print(f"Running: {state.bolt_uri} (pid {state.pid}, home {state.home}).")
    return EXIT_OK
