"""`evidencegraph`: the one entry point (contract §11). Exit codes: 0 ok, 2 bad usage, 1 else.

Each command group lives in its own module and contributes `register(subcommands)`, which adds
its parser and sets `handler` (a function of the parsed arguments returning an exit code).
"""

from __future__ import annotations

import os

# No BLAS threads: MiniLM's work runs in ONNX Runtime (EMBEDDER_THREADS runs at once), and numpy's
# OpenBLAS threads would only spin beside them. Must be set before numpy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import logging
import sys
from collections.abc import Sequence

from commands.exit_codes import EXIT_FAILURE


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser, with every command; given the arguments `argv`, with only
    the command they name (when they name one), so only that command's modules are imported."""
    from commands import registry

    parser = argparse.ArgumentParser(
        prog="evidencegraph",
        description="GraphQL API over a Neo4j knowledge graph, with evidence for every answer.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # The only option before the command (-v) takes no value: the first word that is not an
    # option is the command.
    command = next((word for word in argv or () if not word.startswith("-")), None)
    registry.register(subcommands, command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    arguments = build_parser(words).parse_args(words)
    logging.basicConfig(
        level=logging.DEBUG if arguments.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        code: int = arguments.handler(arguments)
    except KeyboardInterrupt:
        return EXIT_FAILURE
    return code


if __name__ == "__main__":
    sys.exit(main())
