"""The owner stamping's progress and report as `evidencegraph schema apply` prints them
(graph/owner_stamping.py): progress on stderr after every page, the report on stdout."""

from __future__ import annotations

from commands.runtime import say
from graph.owner_stamping import OwnerStampReport, StepReport


def print_progress(step: str, done: int, total: int) -> None:
    say(f"owners: {step}: {done:,} of {total:,} ids checked")


def _step_lines(step: str, what: str, report: StepReport, keyed: bool = True) -> list[str]:
    fixed = f", {report.fixed:,} stale keys fixed" if keyed else ""
    lines = [f"owners: {step}: {report.stamped:,} {what}{fixed}, {report.undecided:,} undecided"]
    for reason, count in sorted(report.reasons.items()):
        lines.append(f"  {count:,} undecided: {reason}")
    for item in report.first_undecided:
        where = f" ({', '.join(item.workspaces)})" if item.workspaces else ""
        lines.append(f"  undecided {item.id}: {item.reason}{where}")
    if report.undecided > len(report.first_undecided):
        lines.append(f"  … and {report.undecided - len(report.first_undecided):,} more")
    return lines


def report_lines(report: OwnerStampReport) -> list[str]:
    """Counts per step (entities and passages: also the keys that were not their owner's and
    were fixed), then the first undecided ids (by id) with why."""
    return [
        *_step_lines("entities", "stamped with their workspace", report.entities),
        *_step_lines("relations", "stamped with their workspace", report.relations, False),
        *_step_lines("passages", "given their workspace's key", report.passages),
    ]
