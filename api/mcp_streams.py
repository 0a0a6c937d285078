"""`/mcp`'s event streams, bounded (issue 38 §1, docs/mcp.md "Event streams").

A GET with `Accept: text/event-stream` opens a stream on which an MCP server may send messages
of its own; the SDK holds it open until the client leaves. This transport is stateless, so such
a stream belongs to no session and carries nothing but the SDK's keep-alive pings: it only holds
a connection, a task and their memory, for as long as the client likes and as many times over
as it likes. So each stream is bounded in time and each caller in streams:

- `MCP_MAX_STREAM_SECONDS`: the stream ends then, as if its client had left (the SDK ends it as
  it ends any stream, and a client that wants one opens another);
- `MCP_MAX_STREAMS_PER_CALLER` open at once for each caller (api/front_door/rate_limit.py
  `caller_of`: an API key, a JWT subject, AUTH_MODE=none's one identity): one more is 429 with the
  contract's `RATE_LIMITED` and `Retry-After`, the seconds until that caller's first stream ends. 0
  offers no stream: a GET is 405, as the MCP transport lets a server answer when it offers none.

What is kept: for each caller with an open stream, when each of its streams ends: at most
`MCP_MAX_STREAMS_PER_CALLER` numbers under a bounded key (api/front_door/bounded_memory.py).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Awaitable, Callable, Iterator

import anyio
from starlette.responses import JSONResponse, Response
from starlette.types import Message, Receive, Scope, Send

from contract.errors import Malformed, RateLimited

Handler = Callable[[Scope, Receive, Send], Awaitable[None]]


class TooManyStreams(Exception):
    def __init__(self, retry_after: int) -> None:
        super().__init__(retry_after)
        self.retry_after = retry_after


class EventStreams:
    def __init__(
        self, per_caller: int, seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_caller = per_caller
        self.seconds = seconds
        self.clock = clock
        self.open: dict[str, list[float]] = {}  # caller → when each of its open streams ends

    async def serve(
        self, caller: str, scope: Scope, receive: Receive, send: Send, handler: Handler
    ) -> None:
        """Run `handler` on one stream of `caller`'s, or refuse it (see the module docstring)."""
        if self.per_caller == 0:
            message = (
                "This service offers no event stream at /mcp (MCP_MAX_STREAMS_PER_CALLER=0); "
                "send requests with POST."
            )
            await refusal(405, Malformed.code, message, {"allow": "POST, DELETE"})(
                scope, receive, send
            )
            return
        try:
            with self._opened(caller):
                stream = _Lifetime(receive, send, self.seconds)
                await handler(scope, stream.receive, stream.send)
                await stream.end()
        except TooManyStreams as refused:
            message = (
                f"At most {self.per_caller} event streams may be open at once for each caller "
                f"(MCP_MAX_STREAMS_PER_CALLER); one of yours ends in {refused.retry_after} s. "
                "Tool calls need none: send them with POST."
            )
            headers = {"retry-after": str(refused.retry_after)}
            answer = refusal(429, RateLimited.code, message, headers, refused.retry_after)
            await answer(scope, receive, send)

    @contextlib.contextmanager
    def _opened(self, caller: str) -> Iterator[None]:
        now = self.clock()
        ends = self.open.setdefault(caller, [])
        if len(ends) >= self.per_caller:
            raise TooManyStreams(max(1, math.ceil(min(ends) - now)))
        end = now + self.seconds
        ends.append(end)
        try:
            yield
        finally:
            ends.remove(end)
            if not ends:
                del self.open[caller]


def refusal(
    status: int, code: str, message: str, headers: dict[str, str], retry_after: int | None = None
) -> Response:
    """A stream refused, in the shape of `/mcp`'s other refusals (api/mcp_http.py)."""
    error: dict[str, object] = {"code": code, "message": message}
    if retry_after is not None:
        error["retryAfter"] = retry_after
    return JSONResponse({"error": error}, status, headers)


class _Lifetime:
    """One stream's `receive` and `send`: the client is said to have left once `seconds` have
    passed, and then (the client still there) the answer is ended properly, so the client sees
    the stream close rather than its connection drop."""

    def __init__(self, receive: Receive, send: Send, seconds: float) -> None:
        self.client_receive = receive
        self.client_send = send
        self.deadline = anyio.current_time() + seconds
        self.started = self.ended = self.client_left = False

    async def receive(self) -> Message:
        with anyio.move_on_after(self.deadline - anyio.current_time()):
            message = await self.client_receive()
            self.client_left = message["type"] == "http.disconnect"
            return message
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        self.started = self.started or message["type"] == "http.response.start"
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            self.ended = True
        await self.client_send(message)

    async def end(self) -> None:
        if self.started and not self.ended and not self.client_left:
            await self.send({"type": "http.response.body", "body": b"", "more_body": False})
