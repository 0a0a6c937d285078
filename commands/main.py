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


def build_parser() -> argparse.ArgumentParser:
    from commands import registry

    parser = argparse.ArgumentParser(
        prog="evidencegraph",
        description="GraphQL API over a Neo4j knowledge graph, with evidence for every answer.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in registry.REGISTERED:
        register(subcommands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
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
