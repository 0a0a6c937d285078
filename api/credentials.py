"""The credential every GraphQL operation carries (contract §8): `Authorization: Bearer <token>`.

Shared by the JWT and API-key authenticators, so both refuse the same malformed headers with
the same message.
"""

from __future__ import annotations

import re

from contract.errors import Unauthenticated

# Longer credentials are refused before any parsing: no real JWT or key comes near this.
MAX_CREDENTIAL_LENGTH = 8192

CREDENTIALS_REQUIRED = "A valid `Authorization: Bearer <token>` header is required."
# RFC 6750 §2.1 `b64token`: what a bearer token may be made of. JWTs and generated keys fit;
# anything else is refused before a decoder or a hash sees it.
B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


def bearer_token(authorization: str | None) -> str:
    """The token of `Authorization: Bearer <token>`, else UNAUTHENTICATED.

    >>> bearer_token("Bearer abc.def")
    'abc.def'
    """
    if not authorization:
        raise Unauthenticated(CREDENTIALS_REQUIRED)
    if len(authorization) > MAX_CREDENTIAL_LENGTH:
        raise Unauthenticated("The `Authorization` header is too long.")
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    # RFC 6750: the scheme is case-insensitive; the token is one b64token.
    if scheme.lower() != "bearer" or not B64TOKEN.fullmatch(token):
        raise Unauthenticated(CREDENTIALS_REQUIRED)
    return token
