"""Every fault of Neo4j is BACKEND_UNAVAILABLE, never INTERNAL (contract §7): each driver error
class, raised by reads, writes and self-managed statements (graph/backend_faults.py). The real
server's outage and return are in tests/test_backend_recovery.py."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j.exceptions import (
    AuthError,
    ConnectionAcquisitionTimeoutError,
    ConstraintError,
    CypherSyntaxError,
    DatabaseError,
    DatabaseUnavailable,
    ForbiddenOnReadOnlyDatabase,
    IncompleteCommit,
    Neo4jError,
    NotALeader,
    ReadServiceUnavailable,
    RoutingServiceUnavailable,
    ServiceUnavailable,
    SessionExpired,
    TokenExpired,
    TransientError,
    WriteServiceUnavailable,
)

from contract.errors import BackendUnavailable
from graph.driver import READ_ATTEMPTS, Graph
from tests.support.failing_driver import FailingDriver, graph_failing_with


def server_error(code: str) -> Neo4jError:
    """The error the driver makes of a server failure with `code`."""
    return Neo4jError._hydrate_neo4j(code=code, message="detail of the server")


BACKEND_FAULTS: list[BaseException] = [
    ServiceUnavailable("down"),
    RoutingServiceUnavailable("no routing"),
    ReadServiceUnavailable("no reader"),
    WriteServiceUnavailable("no writer"),
    IncompleteCommit("connection lost while committing"),
    SessionExpired("expired"),
    ConnectionAcquisitionTimeoutError("failed to obtain a connection from the pool within 1s"),
    ConnectionRefusedError(111, "refused"),
    TimeoutError("connect timed out"),
    server_error("Neo.TransientError.General.DatabaseUnavailable"),
    server_error("Neo.TransientError.Transaction.DeadlockDetected"),
    server_error("Neo.TransientError.General.MemoryPoolOutOfMemoryError"),
    server_error("Neo.TransientError.Cluster.NotALeader"),
    server_error("Neo.ClientError.Security.Unauthorized"),
    server_error("Neo.ClientError.Security.AuthenticationRateLimit"),
    server_error("Neo.ClientError.Security.TokenExpired"),
    server_error("Neo.ClientError.Transaction.TransactionTimedOut"),
    server_error("Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"),
    DatabaseUnavailable(),
    NotALeader(),
    ForbiddenOnReadOnlyDatabase(),
    TransientError(),
    AuthError(),
    TokenExpired(),
]
SERVICE_DEFECTS: list[BaseException] = [
    server_error("Neo.ClientError.Statement.SyntaxError"),
    server_error("Neo.ClientError.Schema.ConstraintValidationFailed"),
    server_error("Neo.DatabaseError.General.UnknownError"),
    CypherSyntaxError(),
    ConstraintError(),
    DatabaseError(),
    ValueError("a bug"),
]


def runs(graph: Graph) -> list[Any]:
    return [
        lambda: graph.read("RETURN 1", {}),
        lambda: graph.write("RETURN 1", {}),
        lambda: graph.auto_commit("RETURN 1", {}),
    ]


@pytest.mark.parametrize("error", BACKEND_FAULTS, ids=lambda e: f"{type(e).__name__}")
async def test_every_backend_fault_is_backend_unavailable_for_reads_writes_and_auto_commits(
    error: BaseException,
) -> None:
    for run in runs(graph_failing_with(error)):
        with pytest.raises(BackendUnavailable) as raised:
            await run()
        assert "detail of the server" not in raised.value.message
        assert raised.value.__cause__ is error


@pytest.mark.parametrize("error", SERVICE_DEFECTS, ids=lambda e: f"{type(e).__name__}")
async def test_a_defect_of_the_service_is_not_disguised_as_a_backend_fault(
    error: BaseException,
) -> None:
    for run in runs(graph_failing_with(error)):
        with pytest.raises(type(error)):
            await run()


async def test_the_statement_time_limit_names_its_setting() -> None:
    error = server_error("Neo.ClientError.Transaction.TransactionTimedOut")
    with pytest.raises(BackendUnavailable) as raised:
        await graph_failing_with(error).read("RETURN 1", {})
    assert "within 2 s (NEO4J_QUERY_TIMEOUT_SECONDS)" in raised.value.message


class OnceOutdatedDriver(FailingDriver):
    """A driver whose first read is outdated by a concurrent commit, and whose next answers."""

    def __init__(self) -> None:
        super().__init__(server_error("Neo.TransientError.Transaction.Outdated"))
        self.runs = 0

    async def run(self, *_: Any) -> Any:
        self.runs += 1
        if self.runs == 1:
            raise self.error
        return EmptyResult()


class EmptyResult:
    def __aiter__(self) -> EmptyResult:
        return self

    async def __anext__(self) -> Any:
        raise StopAsyncIteration


async def test_a_read_outdated_by_a_concurrent_commit_is_sent_again_and_answers() -> None:
    driver = OnceOutdatedDriver()
    graph = Graph(driver, query_timeout=2.0)  # type: ignore[arg-type]
    assert await graph.read("RETURN 1", {}) == []
    assert driver.runs == 2


async def test_a_read_that_stays_transient_is_backend_unavailable_after_its_attempts() -> None:
    driver = FailingDriver(server_error("Neo.TransientError.Transaction.Outdated"))
    calls = 0
    original = driver.run

    async def counted(*args: Any) -> None:
        nonlocal calls
        calls += 1
        await original(*args)

    driver.run = counted  # type: ignore[method-assign]
    with pytest.raises(BackendUnavailable):
        await Graph(driver, query_timeout=2.0).read("RETURN 1", {})  # type: ignore[arg-type]
    assert calls == READ_ATTEMPTS
