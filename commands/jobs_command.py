"""`evidencegraph jobs recover [--older-than DURATION]`: fail stale RUNNING jobs and remove
what they wrote, and finish commits that stopped between their two steps (contract §2, §11).
Only this command recovers; `serve` never changes data."""

from __future__ import annotations

import argparse
import re
from datetime import timedelta

from api.lifespan import open_graph
from api.settings import Settings
from commands.exit_codes import EXIT_OK
from commands.runtime import run_command
from graph.jobs import publish_committed_jobs, recover_stale_jobs

_DURATION = re.compile(r"(\d+)([smhd])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def parse_duration(text: str) -> timedelta:
    """`90s`, `30m`, `1h`, `2d`, or combinations like `1h30m`.

    >>> parse_duration("1h30m")
    datetime.timedelta(seconds=5400)
    """
    parts = _DURATION.findall(text.strip().lower())
    if not parts or "".join(n + u for n, u in parts) != text.strip().lower():
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration like 90s, 30m, 1h or 2d")
    return sum((timedelta(**{_UNITS[unit]: int(n)}) for n, unit in parts), timedelta())


def _handle(arguments: argparse.Namespace) -> int:
    async def recover(settings: Settings) -> int:
        async with open_graph(settings) as graph:
            failed = await recover_stale_jobs(graph, arguments.older_than)
            published = await publish_committed_jobs(graph)
        for job_id in published:
            print(f"finished the commit of job {job_id}")
        for job_id in failed:
            print(f"failed and cleaned up job {job_id}")
        print(f"{len(failed)} stale job(s) recovered")
        return EXIT_OK

    return run_command(recover)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser("jobs", help="ingestion jobs")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    recover = actions.add_parser(
        "recover",
        help="mark RUNNING jobs older than DURATION as FAILED and remove what they wrote",
    )
    recover.add_argument(
        "--older-than",
        type=parse_duration,
        default=timedelta(hours=1),
        metavar="DURATION",
        help="only jobs started longer ago than this (default 1h)",
    )
    recover.set_defaults(handler=_handle)
