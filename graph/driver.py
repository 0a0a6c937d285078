"""One way to run a statement against Neo4j, with the database, timeout and error mapping set.

Reads are sent as auto-commit queries: one network round trip each (a managed transaction
costs two), and every read the service makes is a single statement.

Every statement carries the per-statement time limit (`NEO4J_QUERY_TIMEOUT_SECONDS`); Neo4j
stops a statement that exceeds it and the caller gets BACKEND_UNAVAILABLE, like an
unreachable server: nothing of the driver's message reaches a client.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Mapping
from typing import Any, LiteralString

import neo4j
from neo4j import AsyncDriver, Record
from neo4j.exceptions import ClientError, ServiceUnavailable, SessionExpired

from contract.errors import BackendUnavailable

log = logging.getLogger(__name__)

StatementObserver = Callable[[str, Mapping[str, Any]], None]

# Neo4j's codes for a transaction stopped at its time limit (the client's or the server's).
TIMED_OUT_CODE_PREFIX = "Neo.ClientError.Transaction.TransactionTimedOut"


def timed_out(error: ClientError, timeout: float | None) -> BackendUnavailable:
    limit = f" within {timeout:g} s" if timeout else ""
    log.warning("Neo4j stopped a statement at its time limit: %s", error.code)
    return BackendUnavailable(
        f"The graph database did not answer{limit} (NEO4J_QUERY_TIMEOUT_SECONDS); "
        "ask for less or try again later."
    )


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
        async with self.driver.session(database=self.database) as session:
            result = await session.run(neo4j.Query(query), dict(parameters))
            await result.consume()

    @contextlib.contextmanager
    def _contract_errors(self) -> Iterator[None]:
        """The driver's errors a client may see, as the contract's: unreachable, timed out."""
        try:
            yield
        except (ServiceUnavailable, SessionExpired) as error:
            log.warning("Neo4j unreachable: %s", error)
            raise BackendUnavailable("The graph database cannot be reached; try again.") from error
        except ClientError as error:
            if (error.code or "").startswith(TIMED_OUT_CODE_PREFIX):
                raise timed_out(error, self.query_timeout) from error
            raise
