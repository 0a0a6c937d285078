"""How `evidencegraph load` shows its progress: a rich progress bar on a terminal, plain lines
otherwise (a log file, CI, a pipe), where redrawn bars would be noise.

Both go to stderr, with the rejected lines, so stdout holds only the summary. Both implement
`ingest.load_report.LoadObserver`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from types import TracebackType
from typing import Self, TextIO

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from contract.terminal_text import printable
from ingest.load_report import LoadTotals, Rejection

PLAIN_INTERVAL_SECONDS = 5.0


def rejection_line(describe: str, rejection: Rejection) -> str:
    """Where the rejected line is (`describe` and its number), then why, on one line of
    printable characters: a reason quotes what the line held (a workspace it names, say)."""
    return f"{describe} {rejection.number}: {printable(rejection.reason)}"


class _Display:
    """A progress display is a context: shown on entry, finished on exit."""

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


class PlainProgress(_Display):
    """A line now and then: the first progress at once, then at most one per `interval`."""

    def __init__(
        self,
        describe: str,
        stream: TextIO,
        interval: float = PLAIN_INTERVAL_SECONDS,
        command: str = "load",
    ) -> None:
        self._describe = describe  # "line" or "document", for rejections
        self._command = command  # what each line starts with
        self._stream = stream
        self._interval = interval
        self._last: float | None = None

    def stop(self) -> None:
        self._stream.flush()

    def progress(self, totals: LoadTotals) -> None:
        now = time.monotonic()
        if self._last is None or now - self._last >= self._interval:
            self._last = now
            print(f"{self._command}: {totals.progress_line()}", file=self._stream, flush=True)

    def rejected(self, rejection: Rejection) -> None:
        print(rejection_line(self._describe, rejection), file=self._stream, flush=True)


class _BarAndCounts(Progress):
    """The documents bar, and under it a line of counts (too long to fit beside it)."""

    counts = Text("")

    def get_renderables(self) -> Iterable[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        yield self.counts


class BarProgress(_Display):
    """A rich progress bar of documents (or `unit`), with the counts and the rates under it."""

    def __init__(self, describe: str, total: int | None, unit: str = "documents") -> None:
        self._describe = describe
        self._progress = _BarAndCounts(
            TextColumn(f"[bold]{unit}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True, highlight=False),
            transient=False,
        )
        self._task: TaskID = self._progress.add_task("load", total=total)

    def start(self) -> None:
        self._progress.start()

    def stop(self) -> None:
        self._progress.stop()

    def progress(self, totals: LoadTotals) -> None:
        self._progress.counts = Text(totals.counts_line(), style="dim")
        self._progress.update(
            self._task, completed=totals.documents_done, total=totals.documents_total
        )

    def rejected(self, rejection: Rejection) -> None:
        self._progress.console.print(rejection_line(self._describe, rejection), markup=False)


def progress_display(
    describe: str, total: int | None, unit: str = "documents", command: str = "load"
) -> PlainProgress | BarProgress:
    """A bar of `unit` when stderr is a terminal, plain lines starting `command:` otherwise."""
    if sys.stderr.isatty():
        return BarProgress(describe, total, unit)
    return PlainProgress(describe, sys.stderr, command=command)
