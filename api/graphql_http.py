"""GraphQL over HTTP (the GraphQL-over-HTTP specification, contract §11): which media type a
response is sent in, and which status it carries. Pure functions; `api/graphql_view.py` applies
them to Strawberry's view.

The specification's words, and what follows here:
- "If an `Accept` header is provided, the server MUST respect [it] and attempt to encode the
  response in the highest priority media type listed that is supported"; when none is
  supported, `406 Not Acceptable` is RECOMMENDED. Supported: `application/graphql-response+json`
  and `application/json`. Wildcards (`*/*`, `application/*`) and a missing header mean
  `application/json`, as legacy clients expect (graphql-http's audit asks for this too).
- `application/json`: "The server SHOULD use the `200` status code for every response to a
  well-formed GraphQL-over-HTTP request, independent of any GraphQL request error or GraphQL
  field error raised."
- `application/graphql-response+json`: a response with a `data` entry (even null: a partial
  response) is `200`; "If the GraphQL response does not contain the {data} entry then the
  server MUST reply with a `4xx` or `5xx` status code": `400` for a document that does not
  parse or validate or variables that do not coerce, `401` when the caller has no valid
  credentials ("403, 401 or similar"), `500`/`503` when the service itself failed first;
  the front door's refusals (api/front_door/door.py): `429` for RATE_LIMITED (the caller should
  slow down), `503` for OVERLOADED (the service should be asked again later), both with
  `Retry-After`; `400` for COST_LIMIT_EXCEEDED, PERSISTED_QUERY_NOT_FOUND and
  QUERY_NOT_IN_SAFELIST, which only a different request mends.
- `Retry-After` (seconds) goes out under either media type whenever an error says when to
  retry (`extensions.retryAfter`): under `application/json` the status stays 200 as that media
  type asks, and the header still tells the client when to come back.
- A GraphQL request error (one raised before execution starts) has no `data` entry at all, as
  the GraphQL specification asks; graphql-core reports those errors without a `path`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphql.error import GraphQLError

from contract.errors import (
    BackendUnavailable,
    Internal,
    Overloaded,
    RateLimited,
    Unauthenticated,
)

GRAPHQL_RESPONSE_JSON = "application/graphql-response+json"
JSON = "application/json"
HTML = "text/html"
SUPPORTED = (GRAPHQL_RESPONSE_JSON, JSON)
WILDCARDS = ("*/*", "application/*")

# A request error's code → its status under application/graphql-response+json.
REQUEST_ERROR_STATUS = {
    Unauthenticated.code: 401,
    Internal.code: 500,
    BackendUnavailable.code: 503,
    RateLimited.code: 429,
    Overloaded.code: 503,
}
DEFAULT_REQUEST_ERROR_STATUS = 400


def _accept_entries(accept: str) -> list[tuple[str, float]]:
    """(media range, q) for each entry of an `Accept` header, in the order listed."""
    entries = []
    for part in accept.split(","):
        media_range, *parameters = (piece.strip() for piece in part.split(";"))
        if not media_range:
            continue
        q = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        entries.append((media_range.lower(), q))
    return entries


def response_media_type(accept: str | None) -> str | None:
    """The media type to answer in, or None when the client accepts neither (→ 406).

    >>> response_media_type("application/graphql-response+json, application/json")
    'application/graphql-response+json'
    >>> response_media_type("*/*"), response_media_type(None)
    ('application/json', 'application/json')
    """
    if not accept or not accept.strip():
        return JSON
    entries = _accept_entries(accept)
    named = {media: q for media, q in entries if media in SUPPORTED}
    # Highest q wins; on a tie, the type listed first.
    candidates = [
        (q, -position, media)
        for position, (media, q) in enumerate(entries)
        if media in SUPPORTED and q > 0
    ]
    wildcard = max((q for media, q in entries if media in WILDCARDS), default=0.0)
    if wildcard > 0:
        # A wildcard stands for application/json (what legacy clients expect) unless the
        # client refused it by name.
        implied = next(
            (media for media in (JSON, GRAPHQL_RESPONSE_JSON) if named.get(media, 1) > 0), None
        )
        if implied is not None:
            candidates.append((wildcard, -len(entries), implied))
    return max(candidates)[2] if candidates else None


def prefers_html(accept: str | None) -> bool:
    """True for a browser navigating to the endpoint: it names HTML, and no GraphQL media type
    above it."""
    entries = _accept_entries(accept or "")
    html = max((q for media, q in entries if media == HTML), default=0.0)
    graphql = max((q for media, q in entries if media in SUPPORTED), default=0.0)
    return html > 0 and html >= graphql


def is_request_error(data: Any, errors: Sequence[GraphQLError] | None) -> bool:
    """True when the request failed before execution (parse, validation, variable coercion,
    credentials): there is no data and no error belongs to a field."""
    return data is None and bool(errors) and all(error.path is None for error in errors or ())


def response_status(media_type: str, body: Mapping[str, Any]) -> int:
    """The status of a response whose GraphQL body is `body` (contract §11)."""
    if media_type != GRAPHQL_RESPONSE_JSON or "data" in body:
        return 200
    codes = [str((e.get("extensions") or {}).get("code")) for e in body.get("errors") or ()]
    statuses = [REQUEST_ERROR_STATUS.get(code, DEFAULT_REQUEST_ERROR_STATUS) for code in codes]
    return max(statuses, default=DEFAULT_REQUEST_ERROR_STATUS)


def retry_after(body: Mapping[str, Any]) -> int | None:
    """The longest `extensions.retryAfter` of the body's errors: the `Retry-After` to send."""
    waits = [
        wait
        for error in body.get("errors") or ()
        if isinstance(wait := (error.get("extensions") or {}).get("retryAfter"), int)
    ]
    return max(waits, default=None)
