"""`evidencegraph delete`: documents retired as jobs, a batch at a time (graph/retirement.py).

Each document is its own job (contract §2: all or nothing for every reader), but the jobs of a
batch share their transactions: one begins them all, one commits them, one publishes them. A
document is visible whole until its batch's last transaction and gone whole after it. A run
stopped part-way has retired the batches it finished; the batch under way is left to `jobs
recover` (RUNNING jobs are failed, and their documents stay visible; committed ones are
published) or, on an error this process sees, failed at once. Running the same command again
retires what is left: documents retired already are counted, not retired twice.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from graph import jobs, retirement
from graph.driver import Graph
from ingest.load_report import LoadObserver, LoadTotals, SilentObserver

# Documents per batch: three transactions each. Measured at scale S (docs/operations.md):
# larger batches gain little, and a batch is what a crash leaves to `jobs recover`.
BATCH = 200


@dataclass
class DeleteTotals(LoadTotals):
    """A delete's progress in the load display's terms: `loaded` counts documents retired now,
    `unchanged` those retired already, `passages` the passages no longer visible."""

    # A load that began after this command's retirement and committed before it: the document
    # is that load's version, visible (the last job to begin wins).
    overtaken: int = 0
    # Removed by a purge between the command's check and its job (or, in a delete held to a
    # workspace, moved out of it by another pipeline meanwhile).
    gone: int = 0

    @property
    def documents_done(self) -> int:
        return self.loaded + self.unchanged + self.overtaken + self.gone

    def _others(self) -> str:
        others = [
            f"{count} {what}"
            for count, what in (
                (self.overtaken, "loaded again meanwhile"),
                (self.gone, "purged or moved meanwhile"),
            )
            if count
        ]
        return "".join(f", {other}" for other in others)

    def progress_line(self) -> str:
        of = f"/{self.documents_total}" if self.documents_total is not None else ""
        return (
            f"documents {self.documents_done}{of} ({self.loaded} deleted, {self.unchanged} "
            f"deleted before{self._others()}), passages no longer visible {self.passages}; "
            f"{self.elapsed:.1f} s, {self.per_second(self.loaded):.0f} documents/s"
        )

    def counts_line(self) -> str:
        return (
            f"deleted {self.loaded:,} · deleted before {self.unchanged:,} · passages no longer "
            f"visible {self.passages:,} · {self.per_second(self.loaded):.0f} documents/s"
        )

    def summary_lines(self) -> list[str]:
        return [
            f"documents: {self.loaded} deleted, {self.unchanged} deleted before{self._others()}"
            + (f" (of {self.documents_total})" if self.documents_total is not None else ""),
            f"passages no longer visible: {self.passages}",
            f"elapsed: {self.elapsed:.1f} s; {self.per_second(self.loaded):.0f} documents/s",
        ]


async def delete_documents(
    graph: Graph,
    document_ids: Sequence[str],
    observer: LoadObserver | None = None,
    batch: int = BATCH,
    workspace: str | None = None,
) -> DeleteTotals:
    """Retire every document of `document_ids` (which must exist), `batch` jobs at a time;
    given `workspace` (`delete --workspace W`), none outside it, whatever happens meanwhile."""
    observer = observer or SilentObserver()
    ordered = sorted(set(document_ids))
    totals = DeleteTotals(documents_total=len(ordered))
    observer.progress(totals)
    for start in range(0, len(ordered), batch):
        named = ordered[start : start + batch]
        begun, already = await retirement.begin_retirements(graph, named, workspace)
        totals.gone += len(named) - len(begun) - len(already)
        try:
            published = await retirement.commit_retirements(graph, begun)
        except BaseException:
            # Also on Ctrl-C: no retirement stays RUNNING. A committed one is not failed (its
            # publication is `jobs recover`'s), and if Neo4j is gone, recover does it all.
            with contextlib.suppress(Exception):
                for job in begun:
                    await jobs.fail_job(graph, job.id)
            raise
        totals.loaded += published.retired
        totals.overtaken += published.superseded
        totals.unchanged += len(already)
        totals.passages += published.passages_hidden
        observer.progress(totals)
    return totals
