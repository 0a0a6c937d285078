"""MCP tool-call latency, before and after (issue 38 §1: tool calls pass the front door).

    .venv/bin/python -m bench.mcp_latency --tree /tmp/before --tree . [--calls 100]
        [--warmup 5] [--home-root /tmp/eg-bench/mcp-latency] [--json-out FILE]

Each checkout (`--tree`, once per checkout; this one by default) gets its own private Neo4j
(`--home-root`/<the checkout's directory name>) holding the demo data
(data/graphrag-operation-dulce, workspace `demo`, written by that checkout's own
`evidencegraph load` on the home's first use), and its own `evidencegraph serve`
(bench/first_requests.py's `Service`: hash embedder, no authentication). The front door keeps
its defaults, which refuse no call made one at a time: no rate limit
(GRAPHQL_RATE_LIMIT_PER_MINUTE unset), 4 admission slots per core, GRAPHQL_MAX_COST's default;
the `GRAPHQL_*` and `MCP_*` variables of this process's environment, if any, are passed on and
reported.

Each service is asked through one session of the official MCP SDK's client over streamable
HTTP (`/mcp`), as an agent asks. Every tool below is called `--warmup` times on each service
(plans, caches and the JIT warmed), then `--calls` times on each in turns: the i-th call of a
tool goes to the checkouts in a rotating order, so before and after are measured in the same
minutes on the same machine. It reports p50 and p95 in milliseconds per tool and checkout, the
answer's length (both checkouts should answer alike), and any error result (a refusal would
be one: the figures then do not stand).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mcp import ClientSession

from bench.first_requests import (
    REPOSITORY,
    Service,
    counted,
    load_once,
    mcp_session,
    percentile,
    progress,
    read_ids,
    tool_error_code,
)
from localneo4j.server import start, stop

DEMO = ((REPOSITORY / "data" / "graphrag-operation-dulce", "demo"),)
ENTITY_NAME = "ALEX MERCER"


def tool_calls(ids: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """Each tool with the arguments an agent sends first (the tools' defaults otherwise)."""
    return [
        ("search_entities", {"query": "Alex Mercer"}),
        ("walk", {"entityId": ids["entity"]}),
        ("get_entity", {"id": ids["entity"]}),
        ("get_passage", {"id": ids["passage"]}),
        ("describe_graph", {}),
    ]


@dataclass
class ToolFigures:
    tree: str
    tool: str
    milliseconds: list[float] = field(default_factory=list)
    characters: int = 0  # the last answer's text length
    errors: dict[str, int] = field(default_factory=dict)  # the error result's code -> count

    def summary(self) -> dict[str, Any]:
        return {
            "tree": self.tree,
            "tool": self.tool,
            "calls": len(self.milliseconds),
            "p50_ms": percentile(self.milliseconds, 0.5),
            "p95_ms": percentile(self.milliseconds, 0.95),
            "characters": self.characters,
            "errors": self.errors,
        }


async def call(
    session: ClientSession, name: str, arguments: dict[str, Any], figures: ToolFigures | None
) -> None:
    started = time.perf_counter()
    result = await session.call_tool(name, arguments)
    elapsed = (time.perf_counter() - started) * 1000
    if figures is None:  # a warm-up call
        return
    figures.milliseconds.append(elapsed)
    text = "".join(getattr(part, "text", "") for part in result.content)
    figures.characters = len(text)
    if result.isError:
        code = tool_error_code(text)
        figures.errors[code] = figures.errors.get(code, 0) + 1


@dataclass
class Run:
    started: str
    ended: str = ""
    load_average_start: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_average_end: tuple[float, float, float] = (0.0, 0.0, 0.0)
    calls: int = 0
    warmup: int = 0
    settings: dict[str, str] = field(default_factory=dict)
    trees: list[str] = field(default_factory=list)
    figures: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Target:
    """One checkout's service: its MCP session and its tool calls (with its graph's ids)."""

    tree: Path
    session: ClientSession
    calls: list[tuple[str, dict[str, Any]]]


async def serve(stack: AsyncExitStack, tree: Path, home_root: Path, logs: Path) -> Target:
    """`tree`'s own Neo4j with the demo data and its own service, closed with `stack`
    (`tree` resolved: its directory's name names its home)."""
    home = home_root / tree.name
    server = start(home, port=0, log=progress)
    stack.callback(stop, home)
    load_once(tree, home, server, DEMO)
    ids = await read_ids(server.bolt_uri, ENTITY_NAME)
    service = Service(tree, server.bolt_uri, logs / f"serve-{tree.name}.log")
    stack.callback(service.close)
    if await service.ready(service.started) is None:
        raise SystemExit(f"{tree} never said ready; see {service.log.name}")
    session = await stack.enter_async_context(mcp_session(service.url))
    progress(f"{tree}: serving at {service.url}")
    return Target(tree, session, tool_calls(ids))


async def measure(
    trees: Sequence[Path], home_root: Path, calls: int, warmup: int, logs: Path
) -> Run:
    settings = {k: v for k, v in os.environ.items() if k.startswith(("GRAPHQL_", "MCP_"))}
    async with AsyncExitStack() as stack:
        targets = [await serve(stack, tree, home_root, logs) for tree in trees]
        run = Run(
            started=now(),
            load_average_start=os.getloadavg(),
            calls=calls,
            warmup=warmup,
            settings=settings,
            trees=[str(tree) for tree in trees],
        )
        for index, (name, _) in enumerate(targets[0].calls):
            figures = [ToolFigures(str(target.tree), name) for target in targets]
            for _ in range(warmup):
                for target in targets:
                    await call(target.session, name, target.calls[index][1], None)
            for i in range(calls):
                for k in ((i + shift) % len(targets) for shift in range(len(targets))):
                    target = targets[k]
                    await call(target.session, name, target.calls[index][1], figures[k])
            run.figures += [f.summary() for f in figures]
            progress(table(run.figures[-len(targets) :]))
        run.ended = now()
        run.load_average_end = os.getloadavg()
    return run


def now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())


def table(figures: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| tool | tree | calls | p50 ms | p95 ms | answer chars | error results |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for f in figures:
        errors = counted(f["errors"])
        lines.append(
            f"| {f['tool']} | {Path(f['tree']).name} | {f['calls']} | {f['p50_ms']:.1f}"
            f" | {f['p95_ms']:.1f} | {f['characters']} | {errors} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--tree", type=Path, action="append", help="a checkout (repeat; default this one)"
    )
    parser.add_argument("--calls", type=int, default=100, help="measured calls per tool (100)")
    parser.add_argument("--warmup", type=int, default=5, help="warm-up calls per tool (5)")
    parser.add_argument("--home-root", type=Path, default=Path("/tmp/eg-bench/mcp-latency"))
    parser.add_argument("--logs", type=Path, default=None)
    parser.add_argument("--json-out", type=Path, default=None)
    arguments = parser.parse_args()
    trees = [tree.resolve() for tree in arguments.tree or [REPOSITORY]]
    names = [tree.name for tree in trees]
    if len(set(names)) != len(names):
        raise SystemExit(f"checkouts need distinct directory names (their homes): {names}")
    logs = arguments.logs or Path(tempfile.mkdtemp(prefix="eg-mcp-latency-"))
    run = asyncio.run(measure(trees, arguments.home_root, arguments.calls, arguments.warmup, logs))
    loads = " → ".join(
        ", ".join(f"{v:.2f}" for v in la) for la in (run.load_average_start, run.load_average_end)
    )
    print(f"{run.started} – {run.ended}; load average (1, 5, 15 min) {loads}")
    print(f"front-door settings from the environment: {run.settings or 'none (defaults)'}")
    print(table(run.figures))
    if arguments.json_out is not None:
        with arguments.json_out.open("a", encoding="utf-8") as out:
            out.write(json.dumps(asdict(run)) + "\n")
    progress(f"service logs in {logs}")


if __name__ == "__main__":
    main()
