"""`evidencegraph export-schema [--output PATH]` (contract §11): rewrite `schema.graphql`, the
schema as clients and gateways see it, from the code. The committed file is a contract: a test
fails when it drifts from the code and lists what a change would break."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from commands.exit_codes import EXIT_FAILURE, EXIT_OK

log = logging.getLogger(__name__)

DEFAULT_OUTPUT = Path("schema.graphql")


def export_schema(arguments: argparse.Namespace) -> int:
    from api.schema import schema_sdl  # the schema is built only when this command runs

    output: Path = arguments.output
    try:
        output.write_text(schema_sdl(), encoding="utf-8")
    except OSError as error:
        log.error("cannot write %s: %s", output, error.strerror or error)
        return EXIT_FAILURE
    print(f"wrote {output}")
    return EXIT_OK


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "export-schema",
        help="rewrite schema.graphql from the code",
        description="Write the GraphQL schema (SDL, with its federation directives) to a file.",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        metavar="PATH",
        help="where to write it (default: schema.graphql in the current directory)",
    )
    parser.set_defaults(handler=export_schema)
