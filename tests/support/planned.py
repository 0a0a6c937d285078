"""What the service's warming planned, for the tests of api/plan_readiness.py.

    plan_only(monkeypatch, SEARCH_STATEMENTS)  # warming plans what a search sends, no more
    gate = held_warming(monkeypatch)           # warming waits while the gate is clear
    await unplanned(readiness.graph)           # the names of those its plans do not know

Planning all 40-odd statements cold takes a 2-core test machine 15 s to minutes; a test of
*when* the service warms needs only a few. That warming covers every statement a request sends
is tests/test_plan_warming.py's sweep.
"""

from __future__ import annotations

import asyncio
import sys

import pytest

from contract.graph_owned import GRAPH_OWNED_RELATION_TYPES
from graph.driver import Graph
from graph.plan_warming import WarmedPlans, read_serving_graph, warm_plans
from graph.served_statements import ServingGraph, served_statements
from graph.statement_names import statement_name

# What a plain search sends: the index catalog's states, then the search (in every scope shape).
SEARCH_STATEMENTS = frozenset(
    {"graph.index_catalog.SHOW_INDEX_STATES", "graph.entity_search.SEARCH_ENTITIES"}
)

_planned_only: frozenset[str] | None = None  # set by `plan_only` for one test


def _chosen(statements: list[str]) -> list[str]:
    if _planned_only is None:
        return statements
    return [s for s in statements if statement_name(s) in _planned_only]


async def served_now(graph: Graph) -> list[str]:
    """What warming plans for `graph` as it is now (the in-graph vector store)."""
    serving = await read_serving_graph(graph, GRAPH_OWNED_RELATION_TYPES, external_vectors=False)
    return _chosen(served_statements(serving))


async def unplanned(graph: Graph) -> list[str]:
    """The names of the statements warming plans that `graph`'s plans do not know."""
    assert graph.plans is not None
    return [statement_name(s) for s in await served_now(graph) if not graph.plans.known(s)]


def plan_only(monkeypatch: pytest.MonkeyPatch, names: frozenset[str]) -> None:
    """Warming plans only the served statements of these names, for one test."""

    def chosen(serving: ServingGraph) -> list[str]:
        return _chosen(served_statements(serving))

    monkeypatch.setattr("graph.plan_warming.served_statements", chosen)
    monkeypatch.setattr(sys.modules[__name__], "_planned_only", names)


class WarmingGate(asyncio.Event):
    """Held (cleared), warming waits before it plans anything; `warmings` counts those done."""

    warmings = 0


def held_warming(monkeypatch: pytest.MonkeyPatch) -> WarmingGate:
    """A gate warming waits at before it plans anything (open: set; held: cleared)."""
    gate = WarmingGate()
    gate.set()

    async def held(graph: Graph, serving: ServingGraph) -> WarmedPlans:
        await gate.wait()
        warmed = await warm_plans(graph, serving)
        gate.warmings += 1
        return warmed

    monkeypatch.setattr("api.plan_readiness.warm_plans", held)
    return gate
