"""A time limit per request to `/graphql` and `/mcp` (`REQUEST_TIMEOUT_SECONDS`), as ASGI
middleware.

A request whose answer has not started within the limit is cancelled (its resolvers and any
statement the driver is waiting on) and answered with a coded GraphQL error, so a slow query
ends as a clear answer instead of a connection the client waits on forever:

    {"errors": [{"message": "…", "extensions": {"code": "BACKEND_UNAVAILABLE"}}]}

under the media type the client accepts (`application/graphql-response+json` → 503, as
api/graphql_http.py maps the code; `application/json` → 200). The limit covers reading the
request body too, so a client trickling its body in is cut off the same way.

Once the answer has started, the limit is lifted: a GraphQL answer is sent in one piece right
away, and cutting a body half-sent would only corrupt it.

What cancellation cannot reach: a DataLoader runs its batch in a task of its own, which
outlives the request it served. Neo4j's per-statement limit (`NEO4J_QUERY_TIMEOUT_SECONDS`,
graph/driver.py) ends that work on the server; keep it below this one (10 s and 30 s by
default), so no statement of a request outlives the request by much.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api import graphql_http
from api.request_log import note_errors
from contract.errors import BackendUnavailable

log = logging.getLogger(__name__)


def timed_out(scope: Scope, seconds: float) -> JSONResponse:
    """The answer to a request stopped at its time limit, in the media type it accepts."""
    accept = Headers(scope=scope).get("accept")
    media_type = graphql_http.response_media_type(accept) or graphql_http.JSON
    error = BackendUnavailable(
        f"The request did not finish within {seconds:g} s (REQUEST_TIMEOUT_SECONDS) and was "
        "stopped. Ask for less (smaller limits, fewer fields or aliases) or try again later."
    )
    errors: list[dict[str, Any]] = [{"message": error.message, "extensions": {"code": error.code}}]
    note_errors(errors)
    body = {"errors": errors}
    return JSONResponse(
        body,
        status_code=graphql_http.response_status(media_type, body),
        media_type=f"{media_type}; charset=utf-8",
    )


class RequestTimeout:
    """`answer`: what a stopped request gets; by default the GraphQL error above (`/mcp`
    gives its own, api/mcp_http.py)."""

    def __init__(
        self,
        app: ASGIApp,
        seconds: float,
        answer: Callable[[Scope, float], Response] = timed_out,
    ) -> None:
        self.app = app
        self.seconds = seconds
        self.answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        deadline = asyncio.timeout(self.seconds)
        started = False

        async def send_lifting_the_limit(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                deadline.reschedule(None)
            await send(message)

        try:
            async with deadline:
                await self.app(scope, receive, send_lifting_the_limit)
        except TimeoutError:
            if started or not deadline.expired():
                raise  # not this limit's doing
            log.warning(
                "a request to %s was stopped after %g s (REQUEST_TIMEOUT_SECONDS)",
                scope.get("path"),
                self.seconds,
            )
            await self.answer(scope, self.seconds)(scope, receive, send)
