"""Every statement requests send, planned before requests need it (contract §7: `/readyz` says
ready only when the first request of each kind will answer without planning past the
statement limit).

`warm_plans` plans each statement of graph/served_statements.py that is not known to be
planned, one at a time, without running it (EXPLAIN: graph/planned_statements.py), each under
NEO4J_PLAN_TIMEOUT_SECONDS. A statement Neo4j does not plan in time is reported and left to
be planned on first use.

When to warm again is told by `PlanEpoch`, what Neo4j's plans depend on besides the code:
- the database's start (a restarted Neo4j has lost its plans);
- its indexes, by name and state, a constraint's too (Neo4j plans every statement again
  after an index or constraint is created or dropped: `load` creating a new label's indexes,
  `schema apply`, or an operator).
api/plan_readiness.py reads it every second and warms again when it moved.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import LiteralString

from contract.errors import BackendUnavailable
from graph.driver import Graph
from graph.graph_shape import STORED_RELATION_TYPES
from graph.index_catalog import read_index_catalog
from graph.planned_statements import PlanningFailed
from graph.served_statements import ServingGraph, served_statements
from graph.statement_names import statement_name

log = logging.getLogger(__name__)

# The database this driver reads (the home database when NEO4J_DATABASE is unset).
DATABASE_STARTED: LiteralString = (
    "SHOW DATABASES YIELD name, home, lastStartTime"
    " WHERE CASE WHEN $database IS NULL THEN home ELSE name = $database END"
    " RETURN lastStartTime"
)
# Every index, those that back a constraint too.
INDEX_STATES: LiteralString = "SHOW INDEXES YIELD name, state RETURN name, state"


@dataclass(frozen=True, slots=True)
class PlanEpoch:
    """What Neo4j's cached plans depend on besides the statements (module docstring)."""

    started: tuple[str, ...]  # the database's last start, on each server that hosts it
    indexes: frozenset[tuple[str, str]]  # every index (a constraint's too): name, state


async def read_plan_epoch(graph: Graph) -> PlanEpoch:
    started = await graph.read(DATABASE_STARTED, {"database": graph.database})
    indexes = await graph.read(INDEX_STATES, {})
    return PlanEpoch(
        tuple(sorted(str(row["lastStartTime"]) for row in started)),
        frozenset((row["name"], row["state"]) for row in indexes),
    )


async def read_serving_graph(
    graph: Graph, graph_owned_types: Sequence[str], external_vectors: bool
) -> ServingGraph:
    rows = await graph.read(STORED_RELATION_TYPES, {})
    catalog = await read_index_catalog(graph, configuration=False)
    return ServingGraph(
        tuple(rows[0]["types"]),
        tuple(graph_owned_types),
        external_vectors,
        tuple(catalog.entity_labels()),
    )


@dataclass
class WarmedPlans:
    """What one warming did."""

    statements: int = 0  # served statements
    planned: int = 0  # planned now (the others were known)
    seconds: float = 0.0
    failed: list[str] = field(default_factory=list)  # names of statements not planned in time


async def warm_plans(graph: Graph, serving: ServingGraph) -> WarmedPlans:
    """Plan every served statement not known to be planned, one at a time; BackendUnavailable
    when Neo4j cannot be reached (nothing more is tried)."""
    plans = graph.plans
    if plans is None:
        raise ValueError("warming plans needs a Graph that knows its plans")
    started = time.monotonic()
    statements = served_statements(serving)
    warmed = WarmedPlans(statements=len(statements))
    for statement in statements:
        if plans.known(statement):
            continue
        try:
            await plans.ensure(statement, graph.explain)
        except PlanningFailed:
            warmed.failed.append(statement_name(statement))
            continue
        except BackendUnavailable:
            raise
        except Exception:  # the statement's own defect: its requests will show it; go on
            log.exception("planning %s failed", statement_name(statement))
            warmed.failed.append(statement_name(statement))
            continue
        warmed.planned += 1
    warmed.seconds = time.monotonic() - started
    return warmed
