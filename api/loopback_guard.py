"""While `AUTH_MODE` is unset, answer only requests that arrived on a loopback address.

contract §8: `none` is the default only while the service listens on loopback. `evidencegraph
serve` checks the address it binds before it starts (api/auth.py `auth_mode_for`), but
`uvicorn --factory api.app:create_app --host 0.0.0.0` gives the app no way to know its host.
The ASGI `scope["server"]` does: it is the local address each connection arrived on. So while
AUTH_MODE is unset, a request that arrived on any other address (or an unknown one, such as a
Unix socket) is refused with 403 and the fix, and nothing behind this middleware runs.

Setting `AUTH_MODE` (even to `none`) removes this guard: the operator has then chosen. A
reverse proxy on the same host forwards outside traffic to loopback, which this cannot see;
docs/security.md says so.
"""

from __future__ import annotations

import logging

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketClose

from api.auth import is_loopback

log = logging.getLogger(__name__)

REFUSAL = (
    "This service runs without authentication because AUTH_MODE is not set, so it answers on "
    "loopback only. Set AUTH_MODE=jwt or AUTH_MODE=apikeys to serve other addresses."
)


class ImplicitNoAuthLoopbackOnly:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan
            return
        server = scope.get("server")
        host = server[0] if server else None
        if is_loopback(host):
            await self.app(scope, receive, send)
            return
        log.warning("refused a request that arrived on %s: AUTH_MODE is not set", host)
        if scope["type"] == "websocket":
            await WebSocketClose()(scope, receive, send)
            return
        await PlainTextResponse(REFUSAL, status_code=403)(scope, receive, send)
