"""Settled planner statistics, for tests that compare what two reads cost.

Neo4j plans a statement from its statistics: the counts, updated at every commit, and each
index's sample, taken in the background once enough updates have piled up. A plan cached while
a sample is pending is replaced when the sample lands and the next use finds the statistics
moved. So a test that writes a graph, then measures a read of a small entity and the same read
of a large one a few seconds later, can measure the two under different plans: the comparison
then says nothing about the read, and the test fails on some machines only (CI saw a walk's
start cost 31 database hits for one hub and 47 for the other, where a quiet run measures 25 and
25).

`settle_plans` takes every index's sample again, waits until no index has an update its sample
has not seen, and empties the plan cache: every read measured after it, with no write between,
is planned once from the same statistics.
"""

from __future__ import annotations

import asyncio
import time
from typing import LiteralString

from graph.driver import Graph

# The indexes Neo4j samples for the planner: the ones `db.stats.retrieve('GRAPH COUNTS')`
# reports (full-text and vector indexes keep no sample).
SAMPLED_INDEXES: LiteralString = (
    "SHOW INDEXES YIELD name, type WHERE type IN ['RANGE', 'TEXT', 'POINT'] RETURN name"
)
RESAMPLE: LiteralString = "CALL db.resampleIndex($name)"
UNSAMPLED_UPDATES: LiteralString = (
    "CALL db.stats.retrieve('GRAPH COUNTS') YIELD data"
    " RETURN [index IN data.indexes WHERE index.updatesSinceEstimation > 0"
    " | [index.labels, index.relationshipTypes, index.properties]] AS pending"
)
CLEAR_PLANS: LiteralString = "CALL db.clearQueryCaches()"

SETTLE_SECONDS = 120.0


async def settle_plans(graph: Graph) -> None:
    """Fresh samples of every index, then an empty plan cache (see the module docstring)."""
    for row in await graph.read(SAMPLED_INDEXES, {}):
        await graph.auto_commit(RESAMPLE, {"name": row["name"]})
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        [row] = await graph.read(UNSAMPLED_UPDATES, {})
        if not row["pending"]:
            break
        # Resampling is scheduled, not done, when the procedure returns; it takes well under a
        # second on a test's graph. The deadline only turns a server that never samples into a
        # failure that says so, rather than a hang.
        assert time.monotonic() < deadline, f"indexes still unsampled: {row['pending']}"
        await asyncio.sleep(0.1)
    await graph.auto_commit(CLEAR_PLANS, {})
