"""The lifespan owns the external resources: one async Neo4j driver (and the embedder), built
at start, handed to requests as typed state, closed at shutdown (STYLE 4)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import neo4j
from starlette.applications import Starlette

from api.auth import create_authenticator
from api.services import Services
from api.settings import Settings
from graph.driver import Graph

log = logging.getLogger(__name__)


def create_driver(settings: Settings) -> neo4j.AsyncDriver:
    auth = (settings.neo4j_user, str(settings.neo4j_password)) if settings.neo4j_password else None
    return neo4j.AsyncGraphDatabase.driver(
        settings.neo4j_uri,
        auth=auth,
        connection_acquisition_timeout=settings.query_timeout_seconds,
        connection_timeout=5.0,
        max_connection_pool_size=50,
        notifications_min_severity="OFF",
    )


def lifespan_for(settings: Settings, host: str):  # type: ignore[no-untyped-def]
    """The lifespan of an app serving on `host` (auth defaults depend on it)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        driver = create_driver(settings)
        services = Services(
            settings=settings,
            graph=Graph(driver, settings.neo4j_database, settings.query_timeout_seconds),
            authenticator=create_authenticator(settings, host),
        )
        app.state.services = services
        log.info("serving with settings %s", settings.public_summary())
        try:
            yield
        finally:
            await driver.close()

    return lifespan
