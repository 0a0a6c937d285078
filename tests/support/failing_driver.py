"""Neo4j faults without a server: a driver whose every statement fails, and the graph's start
checks left deferred as when Neo4j was down at start (api/graph_checks.py).

    checks = await deferred_graph_checks(dimension=8)  # every ensure() BACKEND_UNAVAILABLE
    checks.graph = graph                                # Neo4j answers now: the next runs them
"""

from __future__ import annotations

from typing import Any

from neo4j.exceptions import ServiceUnavailable

from api.graph_checks import GraphChecks
from embedding.base import EmbedderIdentity
from graph.driver import Graph
from graph.lexical_index import LexicalIndexSpec


class FailingDriver:
    """A driver whose every statement fails with `error`."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def session(self, **_: Any) -> FailingDriver:
        return self

    async def __aenter__(self) -> FailingDriver:
        return self

    async def __aexit__(self, *_: Any) -> None:
        return None

    async def run(self, *_: Any) -> None:
        raise self.error

    async def execute_query(self, *_: Any, **__: Any) -> None:
        raise self.error


def graph_failing_with(error: BaseException) -> Graph:
    driver: Any = FailingDriver(error)
    return Graph(driver, query_timeout=2.0)


async def deferred_graph_checks(dimension: int) -> GraphChecks:
    """The start checks of a service with the hash embedder of `dimension`, started while
    Neo4j was down: they could not run, and run at the next request once `.graph` answers."""
    down = graph_failing_with(ServiceUnavailable("down"))
    identity = EmbedderIdentity("hash", "hash", dimension)
    checks = GraphChecks(down, identity, LexicalIndexSpec(), set())
    await checks.at_start()  # tolerated: Neo4j is down
    return checks
