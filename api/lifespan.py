"""The lifespan owns the external resources: one async Neo4j driver (and the embedder), built
at start, handed to requests as typed state, closed at shutdown."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Protocol

import neo4j
from starlette.applications import Starlette

from api.auth import Authenticator
from api.embedder_setup import embedder_from
from api.gateway_token import GatewayToken
from api.graph_checks import GraphChecks
from api.plan_readiness import PlanReadiness, watching
from api.services import Services
from api.settings import Settings
from api.start_up_heap import frozen_while_serving
from api.vector_store_setup import create_vector_store
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from graph.lexical_index import LexicalIndexSpec
from graph.plan_warming import read_serving_graph
from graph.planned_statements import PlannedStatements

log = logging.getLogger(__name__)


class ServiceHook(Protocol):
    """Something operations add to the services once they exist (api/telemetry.py,
    api/metrics.py), and close after the driver."""

    def attach(self, services: Services) -> None: ...

    def close(self) -> None: ...


def neo4j_auth(settings: Settings) -> tuple[str, str] | None:
    """The driver's credentials: user and password, or none when NEO4J_PASSWORD is unset."""
    return (settings.neo4j_user, str(settings.neo4j_password)) if settings.neo4j_password else None


def create_driver(settings: Settings) -> neo4j.AsyncDriver:
    return neo4j.AsyncGraphDatabase.driver(
        settings.neo4j_uri,
        auth=neo4j_auth(settings),
        connection_acquisition_timeout=settings.query_timeout_seconds,
        connection_timeout=5.0,
        max_connection_pool_size=50,
        notifications_min_severity="OFF",
    )


@asynccontextmanager
async def open_graph(settings: Settings) -> AsyncIterator[Graph]:
    """One driver for a command's run (the service's lifespan owns its own), closed after."""
    driver = create_driver(settings)
    try:
        yield Graph(driver, settings.neo4j_database)
    finally:
        await driver.close()


@asynccontextmanager
async def open_services(
    settings: Settings,
    authenticator: Authenticator,
    gateway_token: GatewayToken | None = None,
) -> AsyncIterator[Services]:
    """The embedder, the vector store and the one driver, started and checked, closed after;
    the app's lifespan and `evidencegraph mcp` (stdio) both serve from them."""
    embedder = embedder_from(settings)
    query_embedder = QueryEmbedder(embedder)
    dimension = embedder.identity.dimension
    vector_store = create_vector_store(settings, dimension)
    driver = create_driver(settings)
    plans = PlannedStatements(settings.plan_timeout_seconds) if settings.plan_warming else None
    graph = Graph(driver, settings.neo4j_database, settings.query_timeout_seconds, plans)
    try:
        lexical_warnings: set[str] = set()
        checks = GraphChecks(
            graph, embedder.identity, LexicalIndexSpec(settings.lexical.fields), lexical_warnings
        )
        await checks.at_start()
        log.info(
            "serving with %s; settings %s",
            embedder.identity.describe(),
            settings.public_summary(),
        )
        services = Services(
            settings=settings,
            graph=graph,
            authenticator=authenticator,
            query_embedder=query_embedder,
            vector_store=vector_store,
            gateway_token=gateway_token,
            lexical_warnings=lexical_warnings,
            graph_checks=checks,
        )
        if plans is None:
            yield services
            return
        # The task's own handle on the driver: its reads are not the requests' to observe.
        readiness = PlanReadiness(
            Graph(driver, settings.neo4j_database, settings.query_timeout_seconds, plans),
            lambda watched: read_serving_graph(
                watched, settings.graph_owned_relation_types, not vector_store.in_graph
            ),
            checks,
        )
        services.plan_readiness = readiness
        async with watching(readiness):
            yield services
    finally:
        if plans is not None:
            await plans.close()
        await driver.close()
        await vector_store.close()
        query_embedder.close()


def lifespan_for(
    settings: Settings,
    authenticator: Authenticator,
    gateway_token: GatewayToken | None = None,
    hooks: Sequence[ServiceHook] = (),
    running: Sequence[Callable[[], AbstractAsyncContextManager[None]]] = (),
) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """The lifespan of an app whose caller checks were built (and their settings checked) by
    the app factory, before anything starts; it attaches the operations' `hooks` and runs
    what else runs while the app serves (`running`: the front door's store,
    api/front_door/door.py `FrontDoor.serving`; `/mcp`'s sessions, api/mcp_http.py).

    Its end runs once the server has finished the requests in flight (uvicorn's graceful
    shutdown, docs/operations.md), so closing the driver here never cuts a request short."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for hook in hooks:
                stack.callback(hook.close)  # closed after the services (the stack unwinds)
            services = await stack.enter_async_context(
                open_services(settings, authenticator, gateway_token)
            )
            app.state.services = services
            for hook in hooks:
                hook.attach(services)
            for run in running:
                await stack.enter_async_context(run())
            stack.enter_context(frozen_while_serving())  # last: all of start-up is frozen
            yield

    return lifespan
