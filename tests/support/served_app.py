"""The app as a test serves it from a real process (uvicorn), for real clients: a federation
gateway, graphql-http's audit, a browser.

    uvicorn --factory tests.support.served_app:create_test_app

Test-only: `GET /_test/statements` lists the statements the process sent to Neo4j since the last
  `DELETE /_test/statements`, so a test can count round trips across the process boundary.
  `TEST_CATALOG_MAX_AGE_SECONDS` sets how long the process keeps its index catalog (contract
  §3 says 1 s): a long one shows that what it sees, it sees through the graph's marker.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from api.app import create_app
from api.settings import Settings
from graph.catalog_cache import catalog_cache


class StatementLog:
    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def observe(self, query: str, parameters: Mapping[str, Any]) -> None:
        keys = parameters.get("keys")
        self.entries.append({"query": query, "keys": len(keys) if keys is not None else None})

    async def endpoint(self, request: Request) -> JSONResponse:
        if request.method == "DELETE":
            self.entries.clear()
        return JSONResponse({"statements": self.entries})


def create_test_app() -> Starlette:
    settings = Settings.from_environ()
    app = create_app(settings)
    statements = StatementLog()
    app.router.routes.append(
        Route("/_test/statements", statements.endpoint, methods=["GET", "DELETE"])
    )
    served_lifespan = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with served_lifespan(app):
            services = app.state.services
            services.graph.observers.append(statements.observe)
            max_age = os.environ.get("TEST_CATALOG_MAX_AGE_SECONDS")
            if max_age is not None:
                catalog_cache(services.graph).max_age = float(max_age)
            yield

    app.router.lifespan_context = lifespan
    return app
