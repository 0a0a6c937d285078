"""The app factory: routes, middleware and lifespan from declared lists.

Run with `uvicorn --factory api.app:create_app` or `evidencegraph serve`.

Every check of the caller is built here, before anything starts, so a bad auth setting stops
start-up with a message naming it (docs/security.md describes each limit and setting):

    HTTP_MAX_BODY_BYTES        Starlette refuses a larger body with 413 before reading it
    AUTH_MODE unset            only loopback addresses are answered (api/loopback_guard.py)
    AUTH_MODE unset or none    only loopback `Host` names are answered (DNS rebinding)
    REQUEST_TIMEOUT_SECONDS    a coded error instead of a hung request (api/request_timeout.py)
    MCP_MAX_RESULT_CHARS       the size of one MCP tool result at `/mcp` (api/mcp_http.py)
    GRAPHQL_*                  the schema's limits (api/graphql_limits.py)
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route

from api import graphiql
from api.auth import create_authenticator
from api.gateway_token import GatewayToken
from api.graphql_limits import graphql_limits
from api.graphql_view import GraphQLView
from api.health import healthz, readyz
from api.lifespan import lifespan_for
from api.loopback_guard import ImplicitNoAuthLoopbackOnly, LoopbackHostOnly
from api.mcp_http import McpEndpoint
from api.request_timeout import RequestTimeout
from api.schema import create_schema
from api.settings import Settings


def create_app(settings: Settings | None = None, host: str = "127.0.0.1") -> Starlette:
    settings = settings or Settings.from_environ()
    if settings.graphiql_enabled:
        graphiql.check_installed()
    authenticator = create_authenticator(settings, host)
    gateway_token = GatewayToken.from_settings(settings)
    hide_suggestions = not settings.graphql_field_suggestions
    schema = create_schema(graphql_limits(settings), hide_suggestions=hide_suggestions)
    graphql = GraphQLView(
        schema, graphiql=settings.graphiql_enabled, hide_suggestions=hide_suggestions
    )
    mcp = McpEndpoint(settings.mcp_max_result_chars)
    routes = [
        Route(
            "/graphql",
            graphql,
            methods=["GET", "POST"],
            middleware=[Middleware(RequestTimeout, seconds=settings.request_timeout_seconds)],
        ),
        Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
    ]
    if settings.graphiql_enabled:
        routes.append(
            Route(f"{graphiql.ASSETS_PATH}/{{name}}", graphiql.graphiql_asset, methods=["GET"])
        )
    middleware = []
    if settings.auth_mode is None:
        middleware.append(Middleware(ImplicitNoAuthLoopbackOnly))
    if settings.auth_mode in (None, "none"):
        middleware.append(Middleware(LoopbackHostOnly))
    return Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan_for(settings, authenticator, gateway_token, mcp.running),
        max_body_size=settings.http_max_body_bytes,
    )
