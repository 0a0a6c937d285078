"""The lifespan owns the external resources: one async Neo4j driver (and the embedder), built
at start, handed to requests as typed state, closed at shutdown (STYLE 4)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

import neo4j
from starlette.applications import Starlette

from api.auth import Authenticator
from api.embedder_setup import check_graph_embedder, embedder_from
from api.gateway_token import GatewayToken
from api.services import Services
from api.settings import Settings
from api.vector_store_setup import create_vector_store
from contract.errors import BackendUnavailable
from embedding.base import EmbedderIdentity
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from graph.lexical_index import LexicalIndexSpec

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


def lifespan_for(
    settings: Settings,
    authenticator: Authenticator,
    gateway_token: GatewayToken | None = None,
    hooks: Sequence[ServiceHook] = (),
) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """The lifespan of an app whose caller checks were built (and their settings checked) by
    the app factory, before anything starts.

    Its end runs once the server has finished the requests in flight (uvicorn's graceful
    shutdown, docs/operations.md), so closing the driver here never cuts a request short."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        embedder = embedder_from(settings)
        query_embedder = QueryEmbedder(embedder)
        dimension = embedder.identity.dimension
        vector_store = create_vector_store(settings, dimension)
        driver = create_driver(settings)
        graph = Graph(driver, settings.neo4j_database, settings.query_timeout_seconds)
        try:
            lexical_warnings = await check_graph_at_start(
                graph, embedder.identity, LexicalIndexSpec(settings.lexical.fields)
            )
            app.state.services = services = Services(
                settings=settings,
                graph=graph,
                authenticator=authenticator,
                query_embedder=query_embedder,
                vector_store=vector_store,
                gateway_token=gateway_token,
                lexical_warnings=lexical_warnings,
            )
            for hook in hooks:
                hook.attach(services)
            log.info(
                "serving with %s; settings %s",
                embedder.identity.describe(),
                settings.public_summary(),
            )
            yield
        finally:
            await driver.close()
            await vector_store.close()
            query_embedder.close()
            for hook in hooks:
                hook.close()

    return lifespan


async def check_graph_at_start(
    graph: Graph, identity: EmbedderIdentity, lexical: LexicalIndexSpec
) -> set[str]:
    """Refuse to serve vectors another embedder made (recorded, or of another dimension), and
    tell the operator each label whose FULLTEXT index is not what RETRIEVAL_LEXICAL_FIELDS asks
    for (the search still runs on the index there is); returns the problems told, so that
    searches do not repeat them. Tolerates a graph that is still down (`/readyz` reports it
    until it answers). Reads only: `serve` never writes."""
    try:
        catalog = await check_graph_embedder(graph, identity)
    except BackendUnavailable:
        log.warning("Neo4j is not reachable yet; /readyz will say so until it is")
        return set()
    problems = catalog.lexical_mismatches(lexical)
    for problem in problems:
        log.warning("%s", problem)
    return set(problems)
