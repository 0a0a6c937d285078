"""CORS at `/graphql`: the web origins in `CORS_ALLOW_ORIGINS` may call the API from a browser
(docs/security.md, "Web pages on other origins"). Unset (the default), nothing here is built
and no response carries a CORS header.

The rule, as the Fetch standard's CORS protocol asks of a server:
- An origin is allowed when it is listed, compared exactly as written (scheme, host, port):
  no wildcard, no pattern, no loopback exception (that one is `/mcp`'s, api/mcp_origin.py).
- A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered here,
  before authentication, which a preflight cannot pass (a browser never sends credentials
  with it). From an allowed origin asking for `GET` or `POST` with no header beyond
  `ALLOWED_HEADERS`: 204 with the origin echoed, those methods and headers, and
  `Access-Control-Max-Age`. Anything else: 400 naming what was refused, with no
  `Access-Control-*` header, so the browser does not send the request.
- An actual request from an allowed origin gets the origin echoed and `EXPOSED_HEADERS`; from
  any other origin, none of it: the browser hands the page a network error, though the
  request itself is answered as any other (its bearer token decides; the operations are
  reads).
- `Access-Control-Allow-Credentials` is never sent: the service reads no cookie, and a bearer
  token in `Authorization` needs no credentials mode. So `fetch(url, {headers:
  {Authorization: …}})` works; `credentials: "include"` does not, and needs nothing.
- Every response at the path carries `Vary: Origin`, so a shared cache never hands one
  origin's answer to another.
"""

from __future__ import annotations

from collections.abc import Collection

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PATHS = frozenset({"/graphql"})
ALLOWED_METHODS = ("GET", "POST")
# What a web app sends: its token, a JSON body, and optionally its own request id
# (api/request_log.py). Accept is CORS-safelisted and needs no listing.
ALLOWED_HEADERS = ("Authorization", "Content-Type", "X-Request-Id")
# What a web app may read beyond the safelisted headers: when to retry (RATE_LIMITED,
# OVERLOADED) and the id that finds the request's log line.
EXPOSED_HEADERS = ("Retry-After", "X-Request-Id")
# How long a browser may reuse a preflight: Chromium's cap (2 h; Firefox's is 24 h), so a web
# app pays one preflight per page and URL, not one per query. Nothing is lost by caching: a
# cached preflight only lets a read be *sent*; whether the page may *read* the answer is
# decided anew by every response, so an origin removed from the setting is refused at once.
MAX_AGE_SECONDS = 7200


class CorsPolicy:
    """ASGI middleware: the rule above for requests to `PATHS`; others pass untouched."""

    def __init__(self, app: ASGIApp, origins: Collection[str]) -> None:
        self.app = app
        self.origins = frozenset(origins)
        self._allowed_headers = {name.lower() for name in ALLOWED_HEADERS}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in PATHS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if scope["method"] == "OPTIONS" and origin and "access-control-request-method" in headers:
            await self.preflight(origin, headers)(scope, receive, send)
            return
        allowed = origin is not None and origin in self.origins

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                response_headers = MutableHeaders(scope=message)
                response_headers.add_vary_header("Origin")
                if allowed:
                    response_headers["Access-Control-Allow-Origin"] = str(origin)
                    response_headers["Access-Control-Expose-Headers"] = ", ".join(EXPOSED_HEADERS)
            await send(message)

        await self.app(scope, receive, send_with_cors)

    def preflight(self, origin: str, headers: Headers) -> Response:
        method = headers["access-control-request-method"]
        requested = [
            name.strip().lower()
            for name in headers.get("access-control-request-headers", "").split(",")
            if name.strip()
        ]
        refused = []
        if origin not in self.origins:
            refused.append(f"origin {origin!r} (not in CORS_ALLOW_ORIGINS)")
        if method not in ALLOWED_METHODS:
            refused.append(f"method {method!r} (allowed: {', '.join(ALLOWED_METHODS)})")
        if extra := [name for name in requested if name not in self._allowed_headers]:
            refused.append(f"headers {extra} (allowed: {', '.join(ALLOWED_HEADERS)})")
        vary = {"Vary": "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"}
        if refused:
            return PlainTextResponse(
                "Disallowed CORS request: " + "; ".join(refused), status_code=400, headers=vary
            )
        return Response(
            status_code=204,
            headers={
                **vary,
                "Access-Control-Allow-Origin": origin,
                "Access-Control-Allow-Methods": ", ".join(ALLOWED_METHODS),
                "Access-Control-Allow-Headers": ", ".join(ALLOWED_HEADERS),
                "Access-Control-Max-Age": str(MAX_AGE_SECONDS),
            },
        )
