"""Plans warmed before the service says it is ready, and again whenever Neo4j may have lost
them (contract §7: "`/readyz` says ready only when the first request of each kind will answer
without planning past the statement limit: after start and after Neo4j returns").

One task per process watches Neo4j every `WATCH_SECONDS` (graph/plan_warming.py `PlanEpoch`:
the database's start and its indexes) and plans every statement requests send
(`warm_plans`) whenever:
- the service starts, once the graph's start checks have passed (api/graph_checks.py);
- Neo4j answers again after it could not be reached, or its database started again (a
  restart lost every plan): `/readyz` is 503 from the moment either is seen until the
  statements are planned again;
- an index or constraint was created or dropped (`load` adding a label's indexes, `schema
  apply`, an operator): Neo4j plans every statement again then, so they are planned again in
  the background while the service stays ready; a request meanwhile plans its own statement
  first (graph/planned_statements.py), so planning never uses up its statement limit;
- a request found the connection lost (graph/driver.py forgets what was planned).
Warming plans one statement at a time, so it takes one of Neo4j's threads, never all of them.
How long it takes is in docs/operations.md ("Plans").

`PLAN_WARMING=false` turns all of it off (the test suite does, to keep its own timing).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Final

from api.graph_checks import GraphChecks
from contract.errors import BackendUnavailable
from graph.driver import Graph
from graph.plan_warming import PlanEpoch, read_plan_epoch, warm_plans
from graph.served_statements import ServingGraph

log = logging.getLogger(__name__)

WATCH_SECONDS: Final = 1.0

READY = "ok"
WARMING = "warming"


class PlanReadiness:
    """`graph`: the service's driver, planned statements and database, for this task alone
    (its reads are not the requests': no observer or instrument sees them). `serving` reads
    what decides which statements requests send (graph/served_statements.py)."""

    def __init__(
        self,
        graph: Graph,
        serving: Callable[[Graph], Awaitable[ServingGraph]],
        checks: GraphChecks | None = None,
        watch_seconds: float = WATCH_SECONDS,
    ) -> None:
        if graph.plans is None:
            raise ValueError("plan readiness needs a Graph that knows its plans")
        self.graph = graph
        self.serving = serving
        self.checks = checks
        self.watch_seconds = watch_seconds
        self.ready = False
        self.warmed: PlanEpoch | None = None  # what the plans were last warmed against
        self._stale = True  # something was forgotten since the last warming
        self._wake = asyncio.Event()
        graph.plans.on_forget(self._forgotten)

    @property
    def state(self) -> str:
        return READY if self.ready else WARMING

    def _forgotten(self, reason: str) -> None:
        self._stale = True
        self._wake.set()

    async def run(self) -> None:
        """Watch and warm until cancelled."""
        while True:
            try:
                await self.step()
            except BackendUnavailable:
                self.ready = False  # Neo4j cannot be reached: it may come back without plans
            except Exception:  # a defect: told, and the watch goes on
                log.exception("watching the statement plans failed")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.watch_seconds)

    async def step(self) -> None:
        """One look at Neo4j, and a warming when its plans may be gone; BackendUnavailable
        while it cannot be reached."""
        if self.checks is not None:
            await self.checks.ensure()
        epoch = await read_plan_epoch(self.graph)
        warmed = self.warmed
        if warmed is not None and epoch == warmed and not self._stale:
            return
        plans = self.graph.plans
        assert plans is not None
        if warmed is None or epoch.started != warmed.started:
            self.ready = False
            if warmed is not None:
                plans.forget("Neo4j's database started again")
        elif epoch.indexes != warmed.indexes:
            plans.forget("the indexes changed")
        self._stale = False
        forgotten = plans.epoch
        done = await warm_plans(self.graph, await self.serving(self.graph))
        log.info(
            "planned %d of %d statements requests send in %.1f s%s",
            done.planned,
            done.statements,
            done.seconds,
            f"; not planned in time: {', '.join(done.failed)}" if done.failed else "",
        )
        if plans.epoch != forgotten:
            return  # forgotten meanwhile: the next step warms again
        self.warmed = epoch
        self.ready = True


@contextlib.asynccontextmanager
async def watching(readiness: PlanReadiness) -> AsyncIterator[None]:
    """Run `readiness` while the context is open."""
    task = asyncio.create_task(readiness.run(), name="plan readiness")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
