"""`evidencegraph eval`: retrieval quality you can measure (docs/retrieval-quality.md).

Loads the data of each labelled query set (evaluation/querysets/*.jsonl) into a fresh private
Neo4j (or the one `--neo4j-uri` names), then reports recall@5, recall@10 and MRR per retrieval
variant, mode and kind of query: a Markdown table on stdout, and JSON with `--json PATH`.

    evidencegraph eval                          # dulce, standard variants, a fresh Neo4j
    evidencegraph eval --set christmas-carol --variants all --peer --json carol.json
    evidencegraph eval --queries mine.jsonl --data path/to/graphrag/output
    evidencegraph eval --set dulce,christmas-carol,names --exact-names

A given Neo4j keeps the data (in workspace `--workspace`, default the set's name) and gets its
entity FULLTEXT indexes replaced per variant, then put back as the settings ask: point it at a
graph you serve only if that is acceptable. Exit codes: 0 measured, 2 bad usage, 1 failure.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib.util
import logging
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from api.settings import Settings, SettingsError
from commands.exit_codes import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from commands.runtime import say
from contract.errors import BackendUnavailable
from evaluation.queryset import BUILT_IN, QuerySet, QuerySetError, built_in, read_queryset
from evaluation.report import write_json
from evaluation.run import EvalFailed, Plan, evaluate
from evaluation.served_search import MODES
from evaluation.variants import chosen
from localneo4j.server import Neo4jUnavailable


@contextmanager
def fresh_neo4j() -> Iterator[str]:
    """A private Neo4j in a temporary home on a free loopback port, removed afterwards."""
    from localneo4j.pytest_server import private_server
    from localneo4j.server import stop

    root = Path(tempfile.mkdtemp(prefix="evidencegraph-eval-"))
    try:
        server = private_server(root, log=say)
        try:
            yield server.bolt_uri
        finally:
            stop(server.home)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def querysets(arguments: argparse.Namespace) -> list[QuerySet]:
    if arguments.queries is not None:
        if arguments.data is None:
            raise QuerySetError(
                "--queries needs --data, the GraphRAG folder (or bundle) it was written for"
            )
        return [read_queryset(arguments.queries, data=arguments.data)]
    return [built_in(name) for name in arguments.set]


@contextmanager
def quiet_served_app() -> Iterator[None]:
    """The app runs in-process, once per variant, each over indexes that differ from the
    defaults on purpose: its per-request and start-up notices would only drown the progress."""
    quieter = {"httpx": logging.WARNING, "api.auth": logging.ERROR}
    quieter |= {"api.lifespan": logging.ERROR, "answers.entity_search": logging.ERROR}
    before = {name: logging.getLogger(name).level for name in quieter}
    for name, level in quieter.items():
        logging.getLogger(name).setLevel(level)
    try:
        yield
    finally:
        for name, level in before.items():
            logging.getLogger(name).setLevel(level)


def run(arguments: argparse.Namespace) -> int:
    with quiet_served_app():
        return _run(arguments)


def _run(arguments: argparse.Namespace) -> int:
    if arguments.peer and importlib.util.find_spec("neo4j_graphrag") is None:
        say(
            "error: --peer needs neo4j-graphrag, the optional extra `peer`: "
            ".venv/bin/pip install -e '.[peer]'"
        )
        return EXIT_USAGE
    try:
        plan = Plan(
            querysets=querysets(arguments),
            variants=chosen(arguments.variants),
            modes=arguments.modes,
            peer=arguments.peer,
            workspace=arguments.workspace,
            exact_names=arguments.exact_names,
        )
        settings = dataclasses.replace(Settings.from_environ(), auth_mode="none")
    except (QuerySetError, ValueError, OSError) as error:
        say(f"error: {error}")
        return EXIT_USAGE
    try:
        if arguments.neo4j_uri:
            reports = asyncio.run(
                evaluate(dataclasses.replace(settings, neo4j_uri=arguments.neo4j_uri), plan)
            )
        else:
            with fresh_neo4j() as uri:
                reports = asyncio.run(evaluate(dataclasses.replace(settings, neo4j_uri=uri), plan))
    except SettingsError as error:
        say(f"error: {error}")
        return EXIT_USAGE
    except (EvalFailed, Neo4jUnavailable, BackendUnavailable) as error:
        say(f"error: {error}")
        return EXIT_FAILURE
    for report in reports:
        print(report.text(), end="\n\n")
    if arguments.json is not None:
        write_json(reports, arguments.json)
        say(f"wrote {arguments.json}")
    return EXIT_OK


def _set_names(raw: str) -> list[str]:
    names = [part.strip() for part in raw.split(",") if part.strip()]
    unknown = [name for name in names if name not in BUILT_IN]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"known sets: {', '.join(BUILT_IN)}")
    return names


def _modes(raw: str) -> list[str]:
    modes = [part.strip().upper() for part in raw.split(",") if part.strip()]
    if not modes or any(mode not in MODES for mode in modes):
        raise argparse.ArgumentTypeError(f"modes: {', '.join(MODES)}")
    return modes


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "eval",
        help="measure retrieval quality on labelled query sets",
        description="Load a labelled query set's data into a fresh Neo4j (or --neo4j-uri), then "
        "report recall@5, recall@10 and MRR per variant, mode and kind of query.",
    )
    parser.add_argument(
        "--set",
        type=_set_names,
        default=["dulce"],
        metavar="NAMES",
        help=f"built-in query sets, comma-separated: {', '.join(BUILT_IN)} (default dulce)",
    )
    parser.add_argument("--queries", type=Path, metavar="PATH", help="a query set file instead")
    parser.add_argument(
        "--data", type=Path, metavar="DIR", help="the GraphRAG folder --queries is over"
    )
    parser.add_argument(
        "--variants",
        default="standard",
        metavar="NAMES",
        help="variants, comma-separated; 'standard' (default, seed, name+description) or 'all'",
    )
    parser.add_argument(
        "--modes", type=_modes, default=list(MODES), metavar="MODES", help="default: all three"
    )
    parser.add_argument(
        "--peer", action="store_true", help="also run neo4j-graphrag's retrievers (extra `peer`)"
    )
    parser.add_argument(
        "--exact-names",
        action="store_true",
        help="also search every distinct entity name and count how often it comes first",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--neo4j-uri", metavar="URI", help="a running Neo4j instead of a fresh one")
    parser.add_argument(
        "--workspace", metavar="W", help="workspace to load into (default: set name)"
    )
    parser.set_defaults(handler=run)
