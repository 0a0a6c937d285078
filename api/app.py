"""The app factory: routes, middleware and lifespan from declared lists (STYLE 2).

Run with `uvicorn --factory api.app:create_app` or `evidencegraph serve`.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route

from api import graphiql
from api.graphql_view import GraphQLView
from api.health import healthz, readyz
from api.lifespan import lifespan_for
from api.schema import create_schema
from api.settings import Settings


def create_app(settings: Settings | None = None, host: str = "127.0.0.1") -> Starlette:
    settings = settings or Settings.from_environ()
    if settings.graphiql_enabled:
        graphiql.check_installed()
    schema = create_schema()
    graphql = GraphQLView(schema, graphiql=settings.graphiql_enabled)
    routes = [
        Route("/graphql", graphql, methods=["GET", "POST"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
    ]
    if settings.graphiql_enabled:
        routes.append(
            Route(f"{graphiql.ASSETS_PATH}/{{name}}", graphiql.graphiql_asset, methods=["GET"])
        )
    return Starlette(routes=routes, lifespan=lifespan_for(settings, host))
