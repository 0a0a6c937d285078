"""`/mcp`: the MCP server over Streamable HTTP (contract §11, §12), on the service itself.

Every request is authenticated as `/graphql`'s are (api/caller.py: the same bearer tokens,
the same grants, before anything of the server runs): no or bad credentials get 401 with
`WWW-Authenticate: Bearer` and the contract's code. The app's middleware (the loopback guard
while AUTH_MODE is unset, the body size cap) applies as it does to `/graphql`, and so does the
request time limit (api/request_timeout.py; a stopped call is 503 BACKEND_UNAVAILABLE). A
browser's foreign `Origin` is refused with 403 first (api/mcp_origin.py).

The transport is stateless and answers in JSON: a tool call is one POST and one answer, and no
session outlives its request, so a grant is never carried from one request to another.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocketClose

from answers.context import AnswerContext
from api.caller import identify
from api.services import Services
from contract.errors import BackendUnavailable
from contract.scope import Grant
from mcpserver.server import create_server

# Where the caller's grant waits for the tool call, in the ASGI scope of its request.
GRANT_KEY = "evidencegraph.grant"


async def caller_of(request: Request | None) -> tuple[AnswerContext, Grant]:
    """The tool call's context and grant; BACKEND_UNAVAILABLE while the graph's start checks
    cannot pass (api/graph_checks.py), as `/graphql` answers then."""
    if request is None:
        raise RuntimeError("/mcp answers HTTP requests only")
    services: Services = request.app.state.services
    grant: Grant = request.scope[GRANT_KEY]
    return await services.checked_answer_context(), grant


def timed_out(scope: Scope, seconds: float) -> Response:
    """A tool call stopped at REQUEST_TIMEOUT_SECONDS (api/request_timeout.py): 503 with the
    contract's code, in the shape of `/mcp`'s other refusals."""
    error = BackendUnavailable(
        f"The request did not finish within {seconds:g} s (REQUEST_TIMEOUT_SECONDS) and was "
        "stopped. Ask for less (smaller limits) or try again later."
    )
    return JSONResponse({"error": {"code": error.code, "message": error.message}}, 503)


class McpEndpoint:
    """The ASGI app at `/mcp`; `running()` runs its sessions for the app's lifespan."""

    def __init__(self, max_result_chars: int, max_cost: int) -> None:
        self.sessions = StreamableHTTPSessionManager(
            app=create_server(caller_of, max_result_chars, max_cost),
            stateless=True,
            json_response=True,
        )

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The SDK's session manager, run in a task of its own: it holds an anyio task group,
        which must be left in the task that entered it, and a lifespan may be entered and
        left in different tasks (test fixtures are)."""
        started, stop = asyncio.Event(), asyncio.Event()

        async def hold() -> None:
            async with self.sessions.run():
                started.set()
                await stop.wait()

        holder = asyncio.create_task(hold())
        waiting = asyncio.create_task(started.wait())
        await asyncio.wait({holder, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if holder.done():
            waiting.cancel()
            holder.result()  # raises what stopped it
        try:
            yield
        finally:
            stop.set()
            await holder

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await WebSocketClose()(scope, receive, send)
            return
        request = Request(scope, receive)
        services: Services = request.app.state.services
        caller = identify(services.authenticator, None, request.headers)
        if caller.grant is None:
            refusal = caller.refusal
            assert refusal is not None
            response = JSONResponse(
                {"error": {"code": refusal.code, "message": refusal.message}},
                status_code=401 if refusal.code == "UNAUTHENTICATED" else 500,
                headers={"WWW-Authenticate": "Bearer"},
            )
            await response(scope, receive, send)
            return
        scope[GRANT_KEY] = caller.grant
        await self.sessions.handle_request(scope, receive, send)
