"""Who is calling (contract §8): what one request's headers earn it, decided once per request.

    Authorization verifies              → its grant
    no Authorization, gateway token ok  → the gateway itself: no workspace (api/gateway_token.py)
    anything else                       → UNAUTHENTICATED, before the document is parsed
    the authenticator itself fails      → INTERNAL (fail closed), logged with its traceback

`through_gateway` says whether the federation fields may answer: always, unless
FEDERATION_GATEWAY_TOKEN is set and the request did not carry it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from api.auth import Authenticator
from api.gateway_token import GATEWAY_TOKEN_HEADER, GatewayToken
from contract.errors import EvidenceGraphError, Internal, Unauthenticated
from contract.scope import Grant

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Caller:
    grant: Grant | None  # None: refused, see `refusal`
    refusal: EvidenceGraphError | None
    through_gateway: bool


def identify(
    authenticator: Authenticator, gateway: GatewayToken | None, headers: Mapping[str, str]
) -> Caller:
    authorization = headers.get("authorization")
    through_gateway = gateway is None or gateway.matches(headers.get(GATEWAY_TOKEN_HEADER))
    try:
        return Caller(authenticator.authenticate(authorization), None, through_gateway)
    except Unauthenticated as refused:
        if authorization is None and gateway is not None and through_gateway:
            return Caller(Grant.of((), subject="gateway"), None, through_gateway)
        return Caller(None, refused, through_gateway)
    except EvidenceGraphError as refused:
        return Caller(None, refused, through_gateway)
    except Exception:
        log.exception("authentication failed unexpectedly")
        return Caller(None, Internal(), through_gateway)
