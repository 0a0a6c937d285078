"""`evidencegraph purge [--older-than DURATION]` (contract §11): remove from the store what no
reader can see any more: superseded passages, failed jobs' leftovers, deleted documents, the
entities no passage mentions, finished jobs (graph/purge.py says what exactly, and what it
never touches). Every answer is the same after it.

DURATION (default 1h) is how long a thing must have been settled (superseded, failed,
deleted, finished) before it goes: a read that began before a commit may still be reading the
version it replaced, so it must be longer than any read.

Exit codes: 0 done; 2 bad usage; 1 anything else (Neo4j unreachable).
"""

from __future__ import annotations

import argparse
import time
from datetime import timedelta

from api.lifespan import open_graph
from api.settings import Settings
from commands.exit_codes import EXIT_OK
from commands.jobs_command import parse_duration
from commands.runtime import run_command, say
from graph.purge import PurgeReport, purge


async def run(settings: Settings, older_than: timedelta) -> int:
    started = time.monotonic()

    def on_step(name: str, report: PurgeReport) -> None:
        say(f"purge: {name} done ({time.monotonic() - started:.1f} s)")

    async with open_graph(settings) as graph:
        report = await purge(graph, older_than, on_step=on_step)
    for line in report.lines():
        print(line)
    print(f"elapsed: {time.monotonic() - started:.1f} s")
    return EXIT_OK


def _handle(arguments: argparse.Namespace) -> int:
    older_than: timedelta = arguments.older_than
    return run_command(lambda settings: run(settings, older_than))


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "purge",
        help="remove superseded versions, failed jobs and deleted documents from the store",
        description="Remove from the store what no reader can see any more: superseded "
        "passages, failed jobs' leftovers, deleted documents, entities no passage mentions and "
        "finished jobs, in bounded transactions. Never anything visible, nothing a job under "
        "way needs, and nothing settled for less than DURATION.",
    )
    parser.add_argument(
        "--older-than",
        type=parse_duration,
        default=timedelta(hours=1),
        metavar="DURATION",
        help="only what was superseded, failed, deleted or finished longer ago (default 1h)",
    )
    parser.set_defaults(handler=_handle)
