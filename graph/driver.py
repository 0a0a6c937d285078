"""One way to run a statement against Neo4j, with the database, timeout and error mapping set.

Reads are sent as auto-commit queries: one network round trip each (a managed transaction
costs two), and every read the service makes is a single statement.

Every statement carries the per-statement time limit (`NEO4J_QUERY_TIMEOUT_SECONDS`); Neo4j
stops a statement that exceeds it and the caller gets BACKEND_UNAVAILABLE, like an
unreachable server: nothing of the driver's message reaches a client. Every other fault of the
backend (graph/backend_faults.py) is BACKEND_UNAVAILABLE too, for reads, writes and
self-managed statements alike.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, LiteralString

import neo4j
from neo4j import AsyncDriver, Record

from graph.backend_faults import backend_fault

StatementObserver = Callable[[str, Mapping[str, Any]], None]


class Graph:
    """The service's handle on one Neo4j database.

    `observers` are called with every statement before it is sent; tests use them to count
    database round trips.
    """

    def __init__(
        self,
        driver: AsyncDriver,
        database: str | None = None,
        query_timeout: float | None = None,
    ) -> None:
        self.driver = driver
        self.database = database
        self.query_timeout = query_timeout
        self.observers: list[StatementObserver] = []

    def _observe(self, query: str, parameters: Mapping[str, Any]) -> None:
        for observer in self.observers:
            observer(query, parameters)

    async def read(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[Record]:
        """Run one read statement and return all its records."""
        self._observe(query, parameters)
        with self._contract_errors():
            async with self.driver.session(
                database=self.database, default_access_mode=neo4j.READ_ACCESS
            ) as session:
                result = await session.run(
                    neo4j.Query(query, timeout=self.query_timeout), dict(parameters)
                )
                return [record async for record in result]

    async def write(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[Record]:
        """Run one write statement in its own transaction (retried on transient errors)."""
        self._observe(query, parameters)
        with self._contract_errors():
            records, _, _ = await self.driver.execute_query(
                neo4j.Query(query, timeout=self.query_timeout),
                dict(parameters),
                database_=self.database,
                routing_=neo4j.RoutingControl.WRITE,
            )
            return list(records)

    async def auto_commit(self, query: LiteralString, parameters: Mapping[str, Any]) -> None:
        """Run a statement that manages its own transactions (`CALL … IN TRANSACTIONS`)."""
        self._observe(query, parameters)
        with self._contract_errors():
            async with self.driver.session(database=self.database) as session:
                result = await session.run(neo4j.Query(query), dict(parameters))
                await result.consume()

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
            raise fault from error
