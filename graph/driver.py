"""One way to run a statement against Neo4j, with the database, timeout and error mapping set.

Reads are sent as auto-commit queries: one network round trip each (a managed transaction
costs two), and every read the service makes is a single statement.

`instruments` (api/telemetry.py, api/metrics.py) see each statement around its run: they are
told its text before and its row count and database time (the driver's result summary) after,
never its parameters. With none, a statement costs exactly what it did without them.

Every statement carries the per-statement time limit (`NEO4J_QUERY_TIMEOUT_SECONDS`); Neo4j
stops a statement that exceeds it and the caller gets BACKEND_UNAVAILABLE, like an
unreachable server: nothing of the driver's message reaches a client. Every other fault of the
backend (graph/backend_faults.py) is BACKEND_UNAVAILABLE too, for reads, writes and
self-managed statements alike.

Reads are sent with their values in one map parameter (graph/plan_key.py), so Neo4j plans
each read's text once. The service's `Graph` also knows which reads are planned
(`plans`, graph/planned_statements.py): a read not known to be is planned first (EXPLAIN,
under NEO4J_PLAN_TIMEOUT_SECONDS) and then run, and a lost connection forgets what is known.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, LiteralString, Protocol

import neo4j
from neo4j import AsyncDriver, Record
from neo4j.exceptions import TransientError

from graph.backend_faults import backend_fault, connection_lost, timed_out
from graph.plan_key import sent_parameters, sent_text
from graph.planned_statements import PlannedStatements, PlanningFailed

StatementObserver = Callable[[str, Mapping[str, Any]], None]

# A read that meets a transient error is sent again this many times in all (see `Graph.read`).
READ_ATTEMPTS = 3
READ_RETRY_PAUSE_SECONDS = 0.05


@dataclass
class StatementOutcome:
    """What one statement came to, filled in by `Graph` once its result is read."""

    rows: int | None = None
    database_ms: int | None = None  # Neo4j's time to first record plus to the last


class StatementInstrument(Protocol):
    def statement(self, query: str, outcome: StatementOutcome) -> AbstractContextManager[None]:
        """Wraps one statement's run; `Graph` fills `outcome` before the context exits."""
        ...


def _database_ms(summary: neo4j.ResultSummary) -> int | None:
    available, consumed = summary.result_available_after, summary.result_consumed_after
    return None if available is None or consumed is None else available + consumed


class Graph:
    """The service's handle on one Neo4j database.

    `observers` are called with every statement before it is sent; tests use them to count
    database round trips (a read's planning, `explain`, is not one).
    `plans`: which reads are planned (the service's; None: every read is simply run).
    """

    def __init__(
        self,
        driver: AsyncDriver,
        database: str | None = None,
        query_timeout: float | None = None,
        plans: PlannedStatements | None = None,
    ) -> None:
        self.driver = driver
        self.database = database
        self.query_timeout = query_timeout
        self.plans = plans
        self.observers: list[StatementObserver] = []
        self.instruments: list[StatementInstrument] = []

    def _observe(self, query: str, parameters: Mapping[str, Any]) -> None:
        for observer in self.observers:
            observer(query, parameters)

    @contextlib.contextmanager
    def _instrumented(self, query: str) -> Iterator[StatementOutcome | None]:
        """The instruments' view of one statement; `None` (nothing to fill) without any."""
        if not self.instruments:
            yield None
            return
        outcome = StatementOutcome()
        with contextlib.ExitStack() as stack:
            for instrument in self.instruments:
                stack.enter_context(instrument.statement(query, outcome))
            yield outcome

    async def read(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[Record]:
        """Run one read statement and return all its records.

        A read that meets a transient error (`Neo.TransientError.*`: a transaction outdated by
        a concurrent commit, a leader switch) is sent again, up to `READ_ATTEMPTS` times, as the
        driver does for managed transactions; only then is it BACKEND_UNAVAILABLE. Reads change
        nothing, so sending one again is always safe."""
        self._observe(query, parameters)
        with self._instrumented(query) as outcome, self._contract_errors():
            if self.plans is not None:
                await self.plans.ensure(query, self.explain)
            for attempt in range(1, READ_ATTEMPTS + 1):
                try:
                    return await self._read_once(query, parameters, outcome)
                except TransientError:
                    if attempt == READ_ATTEMPTS:
                        raise
                    await asyncio.sleep(READ_RETRY_PAUSE_SECONDS * attempt)
            raise AssertionError("unreachable")  # the loop returns or raises

    async def _read_once(
        self, query: LiteralString, parameters: Mapping[str, Any], outcome: StatementOutcome | None
    ) -> list[Record]:
        async with self.driver.session(
            database=self.database, default_access_mode=neo4j.READ_ACCESS
        ) as session:
            result = await session.run(
                neo4j.Query(sent_text(query), timeout=self.query_timeout),
                sent_parameters(parameters),
            )
            records = [record async for record in result]
            if outcome is not None:  # the summary came with the last records: no round trip
                outcome.rows = len(records)
                outcome.database_ms = _database_ms(await result.consume())
            return records

    async def explain(self, query: LiteralString) -> None:
        """Plan the read `query` without running it: Neo4j caches the plan, and the read's
        real run uses it (graph/planned_statements.py). Under NEO4J_PLAN_TIMEOUT_SECONDS;
        `PlanningFailed` past it, BACKEND_UNAVAILABLE for any other fault of the backend."""
        limit = self.plans.limit_seconds if self.plans is not None else None
        try:
            async with self.driver.session(
                database=self.database, default_access_mode=neo4j.READ_ACCESS
            ) as session:
                result = await session.run(
                    neo4j.Query("EXPLAIN " + sent_text(query), timeout=limit),
                    sent_parameters({}),
                )
                await result.consume()
        except Exception as error:
            fault = backend_fault(error, limit, "NEO4J_PLAN_TIMEOUT_SECONDS")
            if fault is None:
                raise
            self._forget_plans_if_lost(error)
            if timed_out(error):
                raise PlanningFailed(fault.message) from error
            raise fault from error

    async def write(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[Record]:
        """Run one write statement in its own transaction (retried on transient errors)."""
        self._observe(query, parameters)
        with self._instrumented(query) as outcome, self._contract_errors():
            records, summary, _ = await self.driver.execute_query(
                neo4j.Query(query, timeout=self.query_timeout),
                dict(parameters),
                database_=self.database,
                routing_=neo4j.RoutingControl.WRITE,
            )
            if outcome is not None:
                outcome.rows = len(records)
                outcome.database_ms = _database_ms(summary)
            return list(records)

    async def auto_commit(self, query: LiteralString, parameters: Mapping[str, Any]) -> None:
        """Run a statement that manages its own transactions (`CALL … IN TRANSACTIONS`)."""
        self._observe(query, parameters)
        with self._instrumented(query) as outcome, self._contract_errors():
            async with self.driver.session(database=self.database) as session:
                result = await session.run(neo4j.Query(query), dict(parameters))
                summary = await result.consume()
                if outcome is not None:
                    outcome.rows = 0
                    outcome.database_ms = _database_ms(summary)

    async def auto_commit_rows(
        self, query: LiteralString, parameters: Mapping[str, Any]
    ) -> list[Record]:
        """`auto_commit`, returning the statement's records (what `CALL … IN TRANSACTIONS`
        reported: counts, say). Not retried: the transactions it committed stay committed."""
        self._observe(query, parameters)
        with self._instrumented(query) as outcome, self._contract_errors():
            async with self.driver.session(database=self.database) as session:
                result = await session.run(neo4j.Query(query), dict(parameters))
                records = [record async for record in result]
                summary = await result.consume()
                if outcome is not None:
                    outcome.rows = len(records)
                    outcome.database_ms = _database_ms(summary)
                return records

    @contextlib.contextmanager
    def _contract_errors(self) -> Iterator[None]:
        """The driver's errors a client may see, as the contract's: every backend fault is
        BACKEND_UNAVAILABLE; anything else is the service's own defect and goes on."""
        try:
            yield
        except Exception as error:
            fault = backend_fault(error, self.query_timeout)
            if fault is None:
                raise
            self._forget_plans_if_lost(error)
            raise fault from error

    def _forget_plans_if_lost(self, error: BaseException) -> None:
        if self.plans is not None and connection_lost(error):
            self.plans.forget("the connection to Neo4j was lost (it may have restarted)")
