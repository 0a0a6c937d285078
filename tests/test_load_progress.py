"""`evidencegraph load` off a terminal (a log, CI, a pipe) shows its progress as plain lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graph.driver import Graph
from ingest.load_progress import PlainProgress
from ingest.load_report import LoadTotals
from tests.support.load_helpers import Cli, bundle_line, entity, uid, write_bundle

PROGRESS = re.compile(
    r"load: documents \d+/\d+ \(\d+ loaded, \d+ unchanged, \d+ rejected\), passages \d+, "
    r"entities \d+, relations \d+, embeddings \d+; [\d.]+ s, \d+ passages/s"
)


async def test_progress_off_a_terminal_is_plain_lines_and_ends_with_a_summary(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    lines = [bundle_line(n, [(n, f"text {n}")], entities=[entity(n, f"E{n}", [n])]) for n in (1, 2)]
    bundle = write_bundle(tmp_path / "two.jsonl", lines)
    run = await cli.run("load", str(bundle))
    assert run.code == 0, run.err
    for output in (run.out, run.err):
        assert "\r" not in output and "\x1b" not in output, repr(output)  # no redrawn bar
    progress = [line for line in run.err.splitlines() if line.startswith("load: ")]
    assert progress and all(PROGRESS.fullmatch(line) for line in progress), run.err
    assert run.out.splitlines()[:4] == [
        f"document {uid('d', 1)} (new) in acme: doc 1",
        f"document {uid('d', 2)} (new) in acme: doc 2",
        "documents: 2 loaded, 0 unchanged, 0 rejected (of 2)",
        "written: 2 passages, 2 entities, 0 relations",
    ]
    assert re.search(r"^embeddings computed: 4 in [\d.]+ s \(\d+/s\)$", run.out, re.M), run.out


def test_plain_progress_prints_at_most_one_line_per_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import sys

    display = PlainProgress("line", sys.stderr, interval=3600)
    totals = LoadTotals(documents_total=3)
    for _ in range(3):
        totals.loaded += 1
        display.progress(totals)
    printed = capsys.readouterr().err.splitlines()
    assert len(printed) == 1 and printed[0].startswith("load: documents 1/3")
