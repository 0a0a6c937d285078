"""What a load has done so far, and who is told: the running totals a progress display reads and
the summary a load ends with.

The loader updates one `LoadTotals` as it goes and hands it to its `LoadObserver` after every
line and every written batch, so a display can redraw from it (or stay quiet) without the loader
knowing how it is shown.

    >>> totals = LoadTotals(documents_total=2)
    >>> totals.loaded, totals.passages = 1, 40
    >>> totals.summary_lines()[0]
    'documents: 1 loaded, 0 unchanged, 0 rejected (of 2)'
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from contract.terminal_text import printable


@dataclass(frozen=True, slots=True)
class Rejection:
    """A line (bundle) or document (GraphRAG folder) that was not written, and why."""

    number: int  # the line number of a bundle; the document's position in a GraphRAG folder
    reason: str


class Outcome(StrEnum):
    """What a load did with one document (`evidencegraph delete --document` takes its id)."""

    NEW = "new"  # the workspace had no document of that id: its version 1 was written
    NEW_VERSION = "new version"  # its next version was written; the previous stops being served
    UNCHANGED = "unchanged"  # its current version has the same content: nothing was written
    RESTORED = "restored"  # it was deleted, and this is the version it was deleted as


@dataclass(frozen=True, slots=True)
class DocumentOutcome:
    id: str
    workspace: str
    title: str | None
    outcome: Outcome

    def line(self) -> str:
        r"""One line of the load's summary, its title (from the file) made safe to print.

        >>> DocumentOutcome("d1", "acme", "Q3\x1b[2J", Outcome.NEW).line()
        'document d1 (new) in acme: Q3\\x1b[2J'
        """
        title = "(no title)" if self.title is None else printable(self.title)
        return f"document {self.id} ({self.outcome}) in {printable(self.workspace)}: {title}"


@dataclass
class LoadTotals:
    documents_total: int | None = None  # None: not known in advance
    loaded: int = 0
    restored: int = 0  # deleted documents brought back by the line they were deleted as
    unchanged: int = 0
    rejected: int = 0
    passages: int = 0
    entities: int = 0
    relations: int = 0
    embeddings: int = 0  # computed here (embeddings given in the input are not counted)
    embedding_seconds: float = 0.0  # wall time spent waiting for embeddings
    labels: set[str] = field(default_factory=set)  # entity labels of every line written
    documents: list[DocumentOutcome] = field(default_factory=list)  # in input order
    started: float = field(default_factory=time.monotonic)

    @property
    def documents_done(self) -> int:
        return self.loaded + self.restored + self.unchanged + self.rejected

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def per_second(self, count: int, seconds: float | None = None) -> float:
        spent = self.elapsed if seconds is None else seconds
        return count / spent if spent > 0 else 0.0

    def progress_line(self) -> str:
        """One plain line: where the load is and how fast it goes."""
        of = f"/{self.documents_total}" if self.documents_total is not None else ""
        return (
            f"documents {self.documents_done}{of} ({self.loaded} loaded, {self.unchanged} "
            f"unchanged, {self.rejected} rejected), passages {self.passages}, entities "
            f"{self.entities}, relations {self.relations}, embeddings {self.embeddings}; "
            f"{self.elapsed:.1f} s, {self.per_second(self.passages):.0f} passages/s"
        )

    def counts_line(self) -> str:
        """The counts a progress bar shows under it."""
        embedding_rate = self.per_second(self.embeddings, self.embedding_seconds)
        return (
            f"passages {self.passages:,} · entities {self.entities:,} · relations "
            f"{self.relations:,} · embeddings {self.embeddings:,} ({embedding_rate:.0f}/s)"
            f" · {self.per_second(self.passages):.0f} passages/s"
        )

    def document_lines(self) -> list[str]:
        """Each document loaded, new or not, with what was done with it (rejected lines are
        reported as they happen)."""
        return [document.line() for document in self.documents]

    def summary_lines(self) -> list[str]:
        of = f" (of {self.documents_total})" if self.documents_total is not None else ""
        embedding_rate = self.per_second(self.embeddings, self.embedding_seconds)
        restored = f"{self.restored} restored, " if self.restored else ""
        return [
            f"documents: {self.loaded} loaded, {restored}{self.unchanged} unchanged, "
            f"{self.rejected} rejected{of}",
            f"written: {self.passages} passages, {self.entities} entities, "
            f"{self.relations} relations",
            f"embeddings computed: {self.embeddings} in {self.embedding_seconds:.1f} s "
            f"({embedding_rate:.0f}/s)",
            f"elapsed: {self.elapsed:.1f} s; {self.per_second(self.passages):.0f} passages/s, "
            f"{self.per_second(self.entities):.0f} entities/s, "
            f"{self.per_second(self.relations):.0f} relations/s",
        ]


class LoadObserver(Protocol):
    def progress(self, totals: LoadTotals) -> None:
        """Something was written or a line finished; `totals` is current."""

    def rejected(self, rejection: Rejection) -> None:
        """A line was not written; nothing of it is in the graph."""


class SilentObserver:
    """Tells no one (library use, tests)."""

    def progress(self, totals: LoadTotals) -> None:
        pass

    def rejected(self, rejection: Rejection) -> None:
        pass
