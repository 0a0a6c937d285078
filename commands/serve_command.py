"""`evidencegraph serve [--host H] [--port P]`: the GraphQL service under uvicorn."""

from __future__ import annotations

import argparse
import sys

import uvicorn

from api.app import create_app
from api.settings import Settings, SettingsError
from commands.runtime import EXIT_OK, EXIT_USAGE


def serve(host: str, port: int, settings: Settings | None = None) -> int:
    try:
        app = create_app(settings or Settings.from_environ(), host=host)
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    uvicorn.run(app, host=host, port=port, log_level="info", proxy_headers=False)
    return EXIT_OK


def _handle(arguments: argparse.Namespace) -> int:
    return serve(arguments.host, arguments.port)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "serve", help="serve the GraphQL API", description="Serve the GraphQL API at /graphql."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    parser.set_defaults(handler=_handle)
