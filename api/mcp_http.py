"""`/mcp`: the MCP server over Streamable HTTP (contract §11, §12), on the service itself.

Every request is authenticated as `/graphql`'s are (api/caller.py: the same bearer tokens,
the same grants, before anything of the server runs): no or bad credentials get 401 with
`WWW-Authenticate: Bearer` and the contract's code. The app's middleware (the loopback guard
while AUTH_MODE is unset, the body size cap) applies as it does to `/graphql`, and so does the
request time limit (api/request_timeout.py; a stopped call is 503 BACKEND_UNAVAILABLE). A
browser's foreign `Origin` is refused with 403 first (api/mcp_origin.py).

The front door is `/graphql`'s (contract §7, "one for every door"):
- a POST body is read by api/json_body.py's rule before the SDK sees it: one it cannot read
  (not JSON, nested too deeply, an integer beyond 64 bits, a lone surrogate) is 400 with
  JSON-RPC's parse error, whose `data.code` is the contract's MALFORMED (the SDK's own reader
  answered a deep body or a 5,000-digit number with a 500); one that is no JSON-RPC message is
  400 with JSON-RPC's invalid request and MALFORMED (the SDK's own answer quoted pydantic);
- each tool call takes an admission slot, is priced by what it reads and charged to its
  caller's rate, and its refusals are paced (api/front_door/door.py `FrontDoor.answer_tool`); a
  refusal is a tool error with the contract's code, and RATE_LIMITED's and OVERLOADED's answer
  also carries `Retry-After`;
- an event stream (GET) is bounded in time and in number per caller (api/mcp_streams.py).

The transport is stateless and answers in JSON: a tool call is one POST and one answer, and no
session outlives its request, so a grant is never carried from one request to another.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import INVALID_REQUEST, PARSE_ERROR, JSONRPCMessage
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocketClose

from answers.context import AnswerContext
from api.caller import identify
from api.front_door.door import FrontDoor
from api.front_door.rate_limit import caller_of
from api.json_body import UnreadableJson, read_json
from api.mcp_streams import EventStreams
from api.services import Services
from contract.errors import (
    BackendUnavailable,
    EvidenceGraphError,
    Malformed,
    Overloaded,
    RateLimited,
)
from contract.scope import Grant
from mcpserver.answering import ToolAnswer
from mcpserver.server import create_server

# Where the caller's grant waits for the tool call, in the ASGI scope of its request, and
# where a refusal leaves its `Retry-After` for the answer's headers.
GRANT_KEY = "evidencegraph.grant"
RETRY_AFTER_KEY = "evidencegraph.retry_after"


async def context_of(request: Request | None) -> tuple[AnswerContext, Grant]:
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


NOT_JSON_RPC = Malformed(
    "body",
    'send one JSON-RPC 2.0 message: an object with "jsonrpc": "2.0", a "method" and, for a '
    'request, an integer or string "id"',
)


def unreadable(error: EvidenceGraphError, json_rpc_code: int) -> Response:
    """A body the door refuses: JSON-RPC's error (`json_rpc_code`), with the contract's code."""
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": json_rpc_code, "message": error.message, "data": {"code": error.code}},
    }
    return JSONResponse(body, 400)


class McpEndpoint:
    """The ASGI app at `/mcp`; `running()` runs its sessions for the app's lifespan."""

    def __init__(self, max_result_chars: int, front_door: FrontDoor, streams: EventStreams):
        self.front_door = front_door
        self.streams = streams
        self.sessions = StreamableHTTPSessionManager(
            app=create_server(context_of, self.admit, max_result_chars),
            stateless=True,
            json_response=True,
        )

    async def admit(
        self, request: Request | None, cost: int, answer: Callable[[], Awaitable[ToolAnswer]]
    ) -> ToolAnswer:
        """One tool call through the front door, as its caller (mcpserver/server.py `Admit`)."""
        if request is None:
            raise RuntimeError("/mcp answers HTTP requests only")
        grant: Grant = request.scope[GRANT_KEY]
        try:
            return await self.front_door.answer_tool(request.client, grant, cost, answer)
        except (RateLimited, Overloaded) as refused:
            request.scope[RETRY_AFTER_KEY] = refused.retry_after
            raise

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
        if request.method == "GET":
            handle = self.sessions.handle_request
            await self.streams.serve(caller_of(caller.grant), scope, receive, send, handle)
            return
        if request.method == "POST":
            body = await request.body()
            try:
                JSONRPCMessage.model_validate(read_json(body))
            except UnreadableJson as error:
                await unreadable(error, PARSE_ERROR)(scope, receive, send)
                return
            except ValidationError:  # the SDK's own answer would quote pydantic's text
                await unreadable(NOT_JSON_RPC, INVALID_REQUEST)(scope, receive, send)
                return
            receive = _replaying(body, receive)
        await self.sessions.handle_request(scope, receive, _with_retry_after(scope, send))


def _replaying(body: bytes, receive: Receive) -> Receive:
    """`receive` for the SDK, once this door has read the body: the body again, then the rest
    of what the client sends (its leaving)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _with_retry_after(scope: Scope, send: Send) -> Send:
    """`send`, adding `Retry-After` to the answer of a call refused with one."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start" and RETRY_AFTER_KEY in scope:
            retry_after = str(scope[RETRY_AFTER_KEY]).encode()
            headers = [*message.get("headers", ()), (b"retry-after", retry_after)]
            message = {**message, "headers": headers}
        await send(message)

    return sending
