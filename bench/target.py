"""Which Neo4j a benchmark script talks to: `--uri`, or a private local server in `--home`.

A private server (localneo4j, loopback, a free port) keeps the benchmark graph away from the
development server and from test runs that wipe theirs. `--stop` stops it when the script
ends, so a last run can clean up after itself.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from localneo4j.server import start, stop


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--uri", default=None, help="Bolt URI of a running Neo4j (or NEO4J_URI)")
    where.add_argument(
        "--home",
        type=Path,
        default=None,
        help="home of a private local Neo4j, started on a free loopback port if not running",
    )
    parser.add_argument(
        "--stop", action="store_true", help="stop the --home server when the script ends"
    )


def bolt_uri(arguments: argparse.Namespace) -> str:
    if arguments.home is not None:
        return start(home=arguments.home, port=0, log=_progress).bolt_uri
    uri = arguments.uri or os.environ.get("NEO4J_URI")
    if not uri:
        raise SystemExit("Name the database: --uri bolt://127.0.0.1:PORT, NEO4J_URI, or --home.")
    return str(uri)


def finish(arguments: argparse.Namespace) -> None:
    if arguments.stop and arguments.home is not None:
        stop(arguments.home)
        _progress(f"stopped the Neo4j of {arguments.home}")


def _progress(message: str) -> None:
    print(message, file=sys.stderr)
