"""How fast `evidencegraph delete` and `evidencegraph purge` go on the benchmark graph.

    .venv/bin/python -m bench.delete_purge --home /tmp/eg-bench-delete/neo4j [--scale S] [--stop]

Builds the benchmark graph (`bench.build_graph`; rebuilt when an earlier run of this script
changed it), then, timed one after the other:
1. `jobs recover --older-than 0s`: the generator's RUNNING jobs failed (while a job is under
   way, purge leaves entities alone);
2. `purge --older-than 0s` of the generator's backlog: superseded versions (about a third of
   the passages are not current) and failed jobs;
3. `delete` of every document of workspace `initech` (a fifth of them), in the command's
   batches (`ingest.deletion.BATCH` documents per three transactions);
4. `delete` of 100 documents of `globex`, one document per batch, for comparison;
5. `purge --older-than 0s` again: the deleted documents, and what only they held.
Prints a Markdown table with wall time, CPU time of this process and (with `--home`) of the
Neo4j server, and the load average. The graph is changed: the next run of any benchmark
rebuilds it (its marker says so).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

import neo4j

from bench import target
from bench.build_graph import SCALES, build
from graph.driver import Graph
from graph.jobs import recover_stale_jobs
from graph.purge import PurgeReport, purge
from graph.retirement import documents_of_workspace
from ingest.deletion import BATCH, delete_documents
from localneo4j.server import status

MARK_CHANGED = "MATCH (m:BenchGraph) SET m.state = 'changed by bench.delete_purge'"
COUNTS = """
CALL () { MATCH (d:Document) RETURN count(d) AS documents }
CALL () { MATCH (c:Chunk) RETURN count(c) AS passages }
CALL () { MATCH (e:Entity) RETURN count(e) AS entities }
CALL () { MATCH (j:Job) RETURN count(j) AS jobs }
RETURN documents, passages, entities, jobs
"""


def load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def server_cpu(pid: int | None) -> float:
    """User + system CPU seconds of process `pid` so far (0 when unknown)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Timer:
    def __init__(self, server: int | None) -> None:
        self.server = server

    def __enter__(self) -> Timer:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        self.server_cpu = server_cpu(self.server)
        self.load = load_average()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu
        self.server_cpu = server_cpu(self.server) - self.server_cpu


async def counts(graph: Graph) -> dict[str, int]:
    [row] = await graph.read(COUNTS, {})
    return {key: int(value) for key, value in dict(row).items()}


def purged(report: PurgeReport) -> str:
    pruned = report.relations_pruned - report.relations_removed
    skipped = " (entities skipped: jobs under way)" if report.entities_skipped_for_jobs else ""
    return (
        f"{report.documents_removed} documents, {report.superseded_passages} superseded and "
        f"{report.failed_passages} failed passages, {report.entities_removed} entities, "
        f"{report.relations_removed} relations removed and {pruned} pruned, "
        f"{report.jobs_removed} jobs{skipped}"
    )


async def run(graph: Graph, scale: str, seed: int, server: int | None) -> None:
    await build(graph, SCALES[scale], seed, wipe=False)
    await graph.write(MARK_CHANGED, {})
    before = await counts(graph)
    rows: list[tuple[str, str, Timer, int | None]] = []

    with Timer(server) as recovered:
        failed = await recover_stale_jobs(graph, timedelta(0))
    rows.append(("jobs recover --older-than 0s", f"{len(failed)} jobs", recovered, None))

    with Timer(server) as backlog:
        report = await purge(graph, timedelta(0))
    rows.append(("purge --older-than 0s (the generator's backlog)", purged(report), backlog, None))

    initech = [d.id for d in await documents_of_workspace(graph, "initech") if not d.retired]
    with Timer(server) as batched:
        totals = await delete_documents(graph, initech)
    hidden = f"{totals.loaded} documents ({totals.passages} passages no longer visible)"
    rows.append((f"delete, {BATCH} documents per batch", hidden, batched, totals.loaded))

    globex = [d.id for d in await documents_of_workspace(graph, "globex") if not d.retired]
    with Timer(server) as single:
        totals = await delete_documents(graph, globex[:100], batch=1)
    hidden = f"{totals.loaded} documents ({totals.passages} passages no longer visible)"
    rows.append(("delete, 1 document per batch", hidden, single, totals.loaded))

    with Timer(server) as deleted:
        report = await purge(graph, timedelta(0))
    rows.append(
        (
            "purge --older-than 0s (the deleted documents)",
            purged(report),
            deleted,
            report.documents_removed,
        )
    )
    after = await counts(graph)

    print(f"scale {scale}: {before} before, {after} after\n")
    print(
        "| run | what | wall s | documents/s | CPU s client | CPU s Neo4j | load average at start |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, what, timer, documents in rows:
        rate = f"{documents / timer.wall:.0f}" if documents and timer.wall else ""
        print(
            f"| {name} | {what} | {timer.wall:.1f} | {rate} | {timer.cpu:.1f}"
            f" | {timer.server_cpu:.1f} | {timer.load} |"
        )
    print(f"\nload average at the end: {load_average()}")


async def main_async(arguments: argparse.Namespace) -> None:
    uri = target.bolt_uri(arguments)
    async with neo4j.AsyncGraphDatabase.driver(
        uri, auth=None, notifications_min_severity="OFF"
    ) as driver:
        pid = status(arguments.home).pid if arguments.home is not None else None
        await run(Graph(driver), arguments.scale, arguments.seed, pid)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    target.add_arguments(parser)
    parser.add_argument("--scale", choices=sorted(SCALES), default="S")
    parser.add_argument("--seed", type=int, default=7)
    arguments = parser.parse_args()
    try:
        asyncio.run(main_async(arguments))
    finally:
        target.finish(arguments)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
