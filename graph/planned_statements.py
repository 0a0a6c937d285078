"""Which statements Neo4j holds a plan for, as far as this process knows, and planning one
before it runs when it may hold none (contract §7: a request is not failed by planning).

Neo4j plans a statement the first time it meets it and keeps the plan in its query cache
(graph/plan_key.py: the text alone is the key). Planning the service's statements is most of
what Neo4j does for a cold one: 60-75% of its time in a profile of the test suite, 10-25 s for
the entity search at load 18 against 0.3-0.8 s for its cached plan (docs/operations.md,
"Plans"). Sent cold with the statement limit (`NEO4J_QUERY_TIMEOUT_SECONDS`), planning alone
could use it up. The driver cannot tell planning and execution apart within one statement, so
the two are sent apart: a statement not known to be planned is first sent as `EXPLAIN` (which
plans it and caches the plan without running it) under its own limit
(`NEO4J_PLAN_TIMEOUT_SECONDS`), then run under the statement limit. What the real run still
adds for a plan EXPLAIN made is the part of compiling that Neo4j keeps apart for each mode
(parsing, measured at 15-25% of a cold run's time), so the statement limit bounds execution and
that part, not the plan.

Planning a statement is one task, shared by every request that needs it meanwhile and shielded
from their cancellation: a request that gives up (REQUEST_TIMEOUT_SECONDS) leaves the plan to
be finished for the next one. At most `PLANNING_AT_ONCE` statements are planned at a time
(Neo4j plans each on one of its threads), so planning never takes every core from requests.

What is known is forgotten (`forget`) when Neo4j may have lost its plans: the connection to it
was lost (it may have restarted), or an index or constraint was created or dropped (Neo4j then
plans every statement again). graph/plan_warming.py plans them all again then; a statement met
before that is planned first, as above. Known statements are kept by the hash of their text,
at most `KNOWN_LIMIT` of them (the least recently used goes first), a few bytes each.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Final

from contract.errors import BackendUnavailable

log = logging.getLogger(__name__)

PLANNING_AT_ONCE: Final = 2
KNOWN_LIMIT: Final = 4096
SLOW_PLAN_SECONDS: Final = 1.0  # a plan that took longer is logged


class PlanningFailed(BackendUnavailable):
    """Neo4j did not plan a statement within NEO4J_PLAN_TIMEOUT_SECONDS."""


Explain = Callable[[str], Awaitable[None]]


class PlannedStatements:
    """The statements planned since Neo4j may last have lost its plans (module docstring).

    `explain` plans one statement without running it (graph/driver.py `Graph.explain`, under
    the planning limit); it raises the contract's errors."""

    def __init__(self, limit_seconds: float) -> None:
        self.limit_seconds = limit_seconds
        self.epoch = 0  # counts the times Neo4j may have lost its plans
        self._known: OrderedDict[int, None] = OrderedDict()
        self._planning: dict[int, asyncio.Future[None]] = {}
        self._slots = asyncio.Semaphore(PLANNING_AT_ONCE)
        self._listeners: list[Callable[[str], None]] = []

    def known(self, query: str) -> bool:
        key = hash(query)
        if key in self._known:
            self._known.move_to_end(key)
            return True
        return False

    def count(self) -> int:
        return len(self._known)

    def on_forget(self, listener: Callable[[str], None]) -> None:
        """Call `listener` with the reason whenever what is known is forgotten."""
        self._listeners.append(listener)

    def forget(self, reason: str) -> None:
        """Neo4j may have lost its plans: every statement is planned again before it runs."""
        if self._known or self._planning:
            log.info("statement plans to be made again: %s", reason)
        self._known.clear()
        self.epoch += 1
        for listener in self._listeners:
            listener(reason)

    async def ensure(self, query: str, explain: Explain) -> None:
        """Return once `query` is planned (at once when known); `PlanningFailed` when Neo4j
        did not plan it within the limit, BackendUnavailable when it cannot be reached."""
        if self.known(query):
            return
        key = hash(query)
        planning = self._planning.get(key)
        if planning is None:
            planning = asyncio.ensure_future(self._plan(key, query, explain))
            self._planning[key] = planning
            planning.add_done_callback(lambda done: self._planned(key, done))
        await asyncio.shield(planning)

    async def _plan(self, key: int, query: str, explain: Explain) -> None:
        epoch = self.epoch
        async with self._slots:
            if key in self._known:
                return
            started = time.monotonic()
            await explain(query)
            took = time.monotonic() - started
        if took >= SLOW_PLAN_SECONDS:
            log.info("planned a statement in %.1f s before running it", took)
        if epoch == self.epoch:  # not planned against a Neo4j that has since lost its plans
            self._known[key] = None
            while len(self._known) > KNOWN_LIMIT:
                self._known.popitem(last=False)

    def _planned(self, key: int, done: asyncio.Future[None]) -> None:
        if self._planning.get(key) is done:
            del self._planning[key]
        if not done.cancelled():
            done.exception()  # retrieved: whoever awaited it has it; no one else must log it

    async def close(self) -> None:
        """Stop planning (before the driver closes)."""
        pending = list(self._planning.values())
        for planning in pending:
            planning.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
