"""The app factory: routes, middleware and lifespan from declared lists.

Run with `uvicorn --factory api.app:create_app` or `evidencegraph serve`.

Every check of the caller is built here, before anything starts, so a bad auth setting stops
start-up with a message naming it (docs/security.md describes each limit and setting):

    HTTP_MAX_BODY_BYTES        Starlette refuses a larger body with 413 before reading it
    AUTH_MODE unset            only loopback addresses are answered (api/loopback_guard.py)
    AUTH_MODE unset or none    only loopback `Host` names are answered (DNS rebinding)
    REQUEST_TIMEOUT_SECONDS    a coded error instead of a hung request, at /graphql and /mcp
                               (api/request_timeout.py)
    CORS_ALLOW_ORIGINS         pages on these origins may call /graphql (api/cors.py); /mcp
                               refuses any other foreign Origin with 403 (api/mcp_origin.py)
    MCP_HTTP_ENABLED           whether `/mcp` answers (off by default under trusted documents)
    MCP_MAX_RESULT_CHARS       the size of one MCP tool result at `/mcp` (api/mcp_http.py)
    MCP_MAX_STREAM*            `/mcp`'s event streams, per caller and in time (api/mcp_streams.py)
    GRAPHQL_*                  the schema's limits (api/graphql_limits.py) and the front door:
                               cost, admission, rate limits, persisted operations
                               (api/front_door/door.py), for `/graphql` and `/mcp` alike
    EXPLORER_ENABLED           GET /explore, the evidence explorer (api/explorer.py)

What operations use is built here too, each off unless configured (docs/operations.md):
    OTEL_*                     traces of requests, operations, resolvers, statements, embeddings
                               (api/telemetry.py)
    METRICS_ENABLED            GET /metrics (api/metrics.py)
and always: one log line per request and its X-Request-Id (api/request_log.py).
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route

from api import explorer, graphiql, mcp_http
from api.auth import create_authenticator
from api.cors import CorsPolicy
from api.front_door.door import FrontDoor
from api.gateway_token import GatewayToken
from api.graphql_limits import graphql_limits
from api.graphql_view import GraphQLView
from api.health import healthz, readyz
from api.lifespan import ServiceHook, lifespan_for
from api.loopback_guard import ImplicitNoAuthLoopbackOnly, LoopbackHostOnly
from api.mcp_http import McpEndpoint
from api.mcp_origin import McpOriginCheck
from api.mcp_streams import EventStreams
from api.metrics import Metrics
from api.request_log import RecordOperation, RequestLog, StatementCount
from api.request_timeout import RequestTimeout
from api.schema import create_schema
from api.settings import Settings
from api.telemetry import Tracing


def create_app(
    settings: Settings | None = None,
    host: str = "127.0.0.1",
    *,
    tracing: Tracing | None = None,
) -> Starlette:
    """`tracing`: a test's own (an in-memory exporter); by default OTEL_* decide."""
    settings = settings or Settings.from_environ()
    tracing = tracing or Tracing.from_settings(settings)
    if settings.graphiql_enabled:
        graphiql.check_installed()
    if settings.explorer_enabled:
        explorer.check_built()
    authenticator = create_authenticator(settings, host)
    gateway_token = GatewayToken.from_settings(settings)
    hide_suggestions = not settings.graphql_field_suggestions
    metrics = Metrics.from_settings(settings)
    front_door = FrontDoor.from_settings(settings, metrics)
    extensions = [*graphql_limits(settings), RecordOperation, front_door.extension()]
    if tracing is not None:
        extensions.append(tracing.extension())
    schema = create_schema(extensions, hide_suggestions=hide_suggestions)
    graphql = GraphQLView(
        schema,
        graphiql=settings.graphiql_enabled,
        hide_suggestions=hide_suggestions,
        front_door=front_door,
    )
    routes = [
        Route(
            "/graphql",
            graphql,
            methods=["GET", "POST"],
            middleware=[Middleware(RequestTimeout, seconds=settings.request_timeout_seconds)],
        ),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
    ]
    mcp = None
    if settings.mcp_http_enabled:
        streams = EventStreams(settings.mcp_max_streams_per_caller, settings.mcp_max_stream_seconds)
        mcp = McpEndpoint(settings.mcp_max_result_chars, front_door, streams)
        routes.append(
            Route(
                "/mcp",
                mcp,
                methods=["GET", "POST", "DELETE"],
                middleware=[
                    Middleware(McpOriginCheck, allowed=settings.cors_allow_origins),
                    Middleware(
                        RequestTimeout,
                        seconds=settings.request_timeout_seconds,
                        answer=mcp_http.timed_out,
                    ),
                ],
            )
        )
    if metrics is not None:
        routes.append(Route("/metrics", metrics.endpoint, methods=["GET"]))
    if settings.graphiql_enabled:
        routes.append(
            Route(f"{graphiql.ASSETS_PATH}/{{name}}", graphiql.graphiql_asset, methods=["GET"])
        )
    if settings.explorer_enabled:
        pages = explorer.Explorer()
        routes.append(Route(explorer.PAGE_PATH, pages.page_endpoint, methods=["GET"]))
        routes.append(
            Route(f"{explorer.ASSETS_PATH}/{{name}}", pages.asset_endpoint, methods=["GET"])
        )
    hooks: list[ServiceHook] = [StatementCount()]
    # The first is the outermost: the log line and the request's span cover all below them.
    middleware = [Middleware(RequestLog, metrics=metrics)]
    for hook in (metrics, tracing):
        if hook is not None:
            hooks.append(hook)
    if tracing is not None:
        middleware.append(tracing.middleware())
    if settings.auth_mode is None:
        middleware.append(Middleware(ImplicitNoAuthLoopbackOnly))
    if settings.auth_mode in (None, "none"):
        middleware.append(Middleware(LoopbackHostOnly))
    # Inside the guards (a refused Host gets no CORS header), before authentication (a
    # preflight carries no token), so it answers preflights and marks every answer.
    if settings.cors_allow_origins:
        middleware.append(Middleware(CorsPolicy, origins=settings.cors_allow_origins))
    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan_for(
            settings,
            authenticator,
            gateway_token,
            hooks,
            [front_door.serving, *([mcp.running] if mcp else [])],
        ),
        max_body_size=settings.http_max_body_bytes,
    )
    app.state.front_door = front_door  # tests and benchmarks reach its clock and its queue
    app.state.mcp_streams = mcp.streams if mcp else None  # tests reach its clock
    return app
