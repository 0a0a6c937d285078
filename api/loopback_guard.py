"""Without authentication, answer only loopback: two guards (contract §8).

`ImplicitNoAuthLoopbackOnly`, while `AUTH_MODE` is unset. contract §8: "`none` is the default only
while the service listens on loopback". `evidencegraph serve` checks the address it binds
before it starts (api/auth.py `auth_mode_for`), but `uvicorn --factory api.app:create_app
--host 0.0.0.0` gives the app no way to know its host. The ASGI `scope["server"]` does: it is
the local address each connection arrived on. So while AUTH_MODE is unset, a request that
arrived on any other address (or an unknown one, such as a Unix socket) is refused with 403 and
the fix, and nothing behind this middleware runs. Setting `AUTH_MODE` (even to `none`) removes
this guard: the operator has then chosen. A reverse proxy on the same host forwards outside
traffic to loopback, which this cannot see; docs/security.md says so.

`LoopbackHostOnly`, whenever no authentication applies (`AUTH_MODE` unset or `none`). contract §8:
"Without authentication, a request whose `Host` is not a loopback name or address is refused".
A web page on `evil.example` can rebind its name to 127.0.0.1 and then read this service from
the victim's browser as same-origin: the connection is to loopback, but the browser still sends
`Host: evil.example`. Only `localhost` and loopback addresses (with any port) are answered; any
other `Host`, or none, is refused with 421 Misdirected Request and nothing behind runs.
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


class _LoopbackOnly:
    """Answers a request only when `address` of it is a loopback one; refuses it otherwise
    (a WebSocket is closed, HTTP gets `status` and `refusal`). Lifespan passes through."""

    refusal: str
    status: int
    log_message: str  # with one %r (or %s) for the address

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def address(self, scope: Scope) -> str | None:
        raise NotImplementedError

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan
            return
        address = self.address(scope)
        if address is not None and is_loopback(address):
            await self.app(scope, receive, send)
            return
        log.warning(self.log_message, address)
        if scope["type"] == "websocket":
            await WebSocketClose()(scope, receive, send)
            return
        await PlainTextResponse(self.refusal, status_code=self.status)(scope, receive, send)


class ImplicitNoAuthLoopbackOnly(_LoopbackOnly):
    """AUTH_MODE unset: only requests that arrived on a loopback address."""

    refusal = REFUSAL
    status = 403
    log_message = "refused a request that arrived on %s: AUTH_MODE is not set"

    def address(self, scope: Scope) -> str | None:
        server = scope.get("server")
        return server[0] if server else None


HOST_REFUSAL = (
    "This service runs without authentication, so it answers only requests addressed to a "
    "loopback name or address (Host: localhost or 127.0.0.1). Set AUTH_MODE=jwt or "
    "AUTH_MODE=apikeys to serve other names."
)


def host_name(host_header: str) -> str:
    """The name or address of a `Host` header, without its port.

    >>> host_name("localhost:8000"), host_name("[::1]:8000"), host_name("127.0.0.1")
    ('localhost', '::1', '127.0.0.1')
    """
    if host_header.startswith("["):
        return host_header[1:].partition("]")[0]
    return host_header.rpartition(":")[0] if ":" in host_header else host_header


class LoopbackHostOnly(_LoopbackOnly):
    """No authentication: only requests addressed to a loopback name (DNS rebinding)."""

    refusal = HOST_REFUSAL
    status = 421
    log_message = "refused a request for host %r: no authentication, loopback only"

    def address(self, scope: Scope) -> str | None:
        hosts = [value for name, value in scope["headers"] if name == b"host"]
        return host_name(hosts[0].decode("latin-1")) if len(hosts) == 1 else None
