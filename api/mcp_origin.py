"""`/mcp`'s `Origin` check, as the MCP Streamable HTTP transport requires: "Servers MUST
validate the `Origin` header on all incoming connections to prevent DNS rebinding attacks. If
the `Origin` header is present and invalid, servers MUST respond with HTTP 403 Forbidden."

Valid here:
- no `Origin` at all: not a browser's request (an MCP client, curl, a gateway); the bearer
  token decides, as it does at `/graphql`;
- a loopback origin (`http://localhost:6274`, `http://127.0.0.1`, `http://[::1]:3000`, any
  port): a page served from the caller's own machine, such as the MCP Inspector's;
- an origin listed in `CORS_ALLOW_ORIGINS`, compared exactly as written (scheme, host, port).

Anything else (another site, `null`, several `Origin` headers) gets 403 before anything of
the MCP server runs. A browser cannot forge `Origin`, so a page on another site that rebinds
its name to this service's address is refused even when it reaches it.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from urllib.parse import urlsplit

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from api.auth import is_loopback
from contract.errors import Forbidden

log = logging.getLogger(__name__)


def is_loopback_origin(origin: str) -> bool:
    """An http(s) origin whose host is a loopback name or address, any port.

    >>> [is_loopback_origin(o) for o in ("http://localhost:6274", "https://[::1]", "null")]
    [True, True, False]
    >>> is_loopback_origin("http://localhost.evil.example"), is_loopback_origin("http://a@127.0.0.1")
    (False, False)
    """
    try:
        parts = urlsplit(origin)
        host = parts.hostname
        parts.port  # noqa: B018  (a port that is not a number raises here)
    except ValueError:
        return False
    exact = parts.scheme in ("http", "https") and origin == f"{parts.scheme}://{parts.netloc}"
    return exact and "@" not in parts.netloc and is_loopback(host)


def origin_allowed(origins: list[str], allowed: Collection[str]) -> bool:
    """At most one `Origin`, and that one loopback or listed (none: not a browser)."""
    if not origins:
        return True
    if len(origins) > 1:
        return False
    return origins[0] in allowed or is_loopback_origin(origins[0])


class McpOriginCheck:
    """ASGI middleware of the `/mcp` route: 403 for a foreign `Origin`."""

    def __init__(self, app: ASGIApp, allowed: Collection[str]) -> None:
        self.app = app
        self.allowed = frozenset(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        origins = [value.decode("latin-1") for name, value in scope["headers"] if name == b"origin"]
        if origin_allowed(origins, self.allowed):
            await self.app(scope, receive, send)
            return
        log.warning("refused an /mcp request from origin %r", origins)
        refusal = Forbidden(
            "This origin may not call /mcp: only loopback origins and the ones in "
            "CORS_ALLOW_ORIGINS may (MCP Streamable HTTP: Origin validation)."
        )
        body = {"error": {"code": refusal.code, "message": refusal.message}}
        await JSONResponse(body, status_code=403)(scope, receive, send)
