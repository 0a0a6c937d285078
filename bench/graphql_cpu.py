"""GraphQL execution alone: CPU time of the benchmark's search, its records held in memory.

    .venv/bin/python -m bench.graphql_cpu --uri bolt://127.0.0.1:PORT \
        --tree before=/tmp/eg-before --tree after=. [--executions 1500] [--rounds 3]

For each tree (a checkout of this repository), in a process of its own with that tree's code
first on the path: the app's lifespan starts (against the benchmark graph, built by
bench/build_graph.py), one real search fills the records, and from then on the search answers
from memory, so `schema.execute` of bench/search_paths.py's operation (10 hits, 3 evidence
passages each with text and document title: ~175 fields) costs only Strawberry, graphql-core
and the resolvers. Prints the CPU ms per execution; trees alternate, `--rounds` times.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import target


def child(executions: int) -> None:
    """Runs in the tree's process (its code first on sys.path)."""
    import answers.entity_search as answers_search
    from api.app import create_app
    from api.settings import Settings
    from bench.search_paths import SEARCH_OPERATION, graphql_schema
    from resolvers.context import RequestContext

    real = answers_search.search_entities
    kept: dict[bool, Any] = {}

    async def from_memory(context: Any, effective: Any, request: Any) -> Any:
        if request.with_text not in kept:
            kept[request.with_text] = await real(context, effective, request)
        return kept[request.with_text]

    # resolvers/entity_search.py looks the function up on the module at each call.
    answers_search.search_entities = from_memory

    async def run() -> float:
        app = create_app(Settings.from_environ())
        async with app.router.lifespan_context(app):
            services = app.state.services
            schema = graphql_schema(app)

            async def once() -> None:
                context = RequestContext(
                    answers=services.answer_context(),
                    grant=services.authenticator.authenticate(None),
                )
                result = await schema.execute(
                    SEARCH_OPERATION,
                    variable_values={"query": "ada lovelace"},
                    context_value=context,
                )
                assert not result.errors, result.errors

            for _ in range(50):
                await once()
            started = time.process_time()
            for _ in range(executions):
                await once()
            return (time.process_time() - started) * 1000 / executions

    print(f"{asyncio.run(run()):.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target.add_arguments(parser)
    parser.add_argument("--tree", action="append", metavar="NAME=PATH", default=[])
    parser.add_argument("--executions", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child is not None:
        child(arguments.child)
        return
    trees = [
        (name, Path(path).resolve()) for name, _, path in (t.partition("=") for t in arguments.tree)
    ]
    environment = {
        **os.environ,
        "NEO4J_URI": target.bolt_uri(arguments),
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": "384",
        "AUTH_MODE": "none",
    }
    results: dict[str, list[float]] = {name: [] for name, _ in trees}
    load = os.getloadavg()[0]
    for _ in range(arguments.rounds):
        for name, path in trees:
            done = subprocess.run(
                # This file, with the tree's code first on the path (older trees lack it).
                [sys.executable, __file__, "--child", str(arguments.executions)],
                cwd=path,
                env={**environment, "PYTHONPATH": str(path)},
                capture_output=True,
                text=True,
                check=True,
            )
            results[name].append(float(done.stdout.strip().splitlines()[-1]))
    print(f"load average (1 min) {load:.2f} → {os.getloadavg()[0]:.2f}")
    first = min(results[trees[0][0]])
    for name, values in results.items():
        rounds = ", ".join(f"{v:.3f}" for v in values)
        print(f"| {name} | {min(values):.3f} | {rounds} | {min(values) / first:.3f} |")
    target.finish(arguments)


if __name__ == "__main__":
    main()
