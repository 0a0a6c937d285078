"""Where the wall time of one `evidencegraph load` goes: start-up, the embedder, each kind of
Neo4j statement, the embedding, the indexes at the end.

    NEO4J_URI=bolt://127.0.0.1:PORT .venv/bin/python -m bench.load_phases \
        load --workspace carol data/graphrag-christmas-carol

Runs the command in this process, as `evidencegraph` would, with a stopwatch around each
phase. Phases overlap (the embedding runs in a worker thread beside the statements), so their
times do not add up to the total. The embedding's CPU is the whole process's while it ran.
Only for measuring: against a scratch Neo4j, never a database that matters.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import time
from pathlib import Path
from typing import Any

STARTED = time.perf_counter()

# What `evidencegraph` sets before numpy's first import (commands/main.py).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from commands import main as command_line  # noqa: E402

phases: dict[str, list[float]] = {}  # name: calls, wall s, process CPU s


def note(name: str, wall: float, cpu: float) -> None:
    calls, walls, cpus = phases.setdefault(name, [0, 0.0, 0.0])
    phases[name] = [calls + 1, walls + wall, cpus + cpu]


def timed(owner: Any, attribute: str, name: str) -> None:
    """Wraps the coroutine function or function `owner.attribute` with a stopwatch."""
    function = getattr(owner, attribute)

    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def waited(*args: Any, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return await function(*args, **kwargs)
            finally:
                note(name, time.perf_counter() - wall, time.process_time() - cpu)

        setattr(owner, attribute, waited)
    else:

        @functools.wraps(function)
        def called(*args: Any, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                note(name, time.perf_counter() - wall, time.process_time() - cpu)

        setattr(owner, attribute, called)


def process_age() -> float:
    """Seconds since this process was started (its interpreter's start-up included)."""
    ticks = os.sysconf("SC_CLK_TCK")
    started_ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return uptime - started_ticks / ticks


def main() -> int:
    interpreter = process_age() - (time.perf_counter() - STARTED)
    words = sys.argv[1:]
    # Imports the command's modules (every command's, in a checkout from before they were
    # imported only when needed: run it there with PYTHONPATH=that checkout).
    build_parser: Any = command_line.build_parser
    takes_words = "argv" in inspect.signature(build_parser).parameters
    parser = build_parser(words) if takes_words else build_parser()
    imported, imported_cpu = time.perf_counter() - STARTED, time.process_time()

    from commands import load_command
    from embedding.query_cache import QueryEmbedder
    from graph import jobs
    from ingest import load_source, loader

    timed(load_command, "embedder_from", "create the embedder (weights' sha256, session)")
    timed(load_command, "check_graph_embedder", "check the graph's embedder")
    timed(load_source, "read_graphrag", "read the GraphRAG folder")
    timed(loader, "stored_references", "read what the graph holds of the line")
    timed(loader, "apply_constraints", "constraints (before the first job)")
    timed(loader, "record_embedder", "record the embedder")
    for statement in ("begin_job", "write_passages", "write_entities", "write_relations"):
        timed(jobs, statement, f"job: {statement}")
    timed(jobs, "commit_job", "job: commit (status, then publish)")
    timed(QueryEmbedder, "embed_many", "embedding (worker thread)")
    timed(load_source, "apply_schema", "indexes: create, wait until ONLINE")
    timed(load_source, "read_index_catalog", "indexes: read their states")
    arguments = parser.parse_args(words)
    code = int(arguments.handler(arguments))
    total = time.perf_counter() - STARTED
    print(f"\nload average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    rows = [
        ("interpreter start-up", 1, interpreter, float("nan")),
        ("imports (the command's modules)", 1, imported, imported_cpu),
        *((name, int(calls), wall, cpu) for name, (calls, wall, cpu) in phases.items()),
        ("total, start to exit", 1, interpreter + total, time.process_time()),
    ]
    print(f"{'phase':50} {'calls':>5} {'wall s':>7} {'CPU s':>6}", file=sys.stderr)
    for name, calls, wall, cpu in rows:
        print(f"{name:50} {calls:5} {wall:7.2f} {cpu:6.2f}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
