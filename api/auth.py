"""Authentication (contract §8): who is calling, and which workspaces they are granted.

`Authorization: Bearer <token>` on every GraphQL operation. The mode is `AUTH_MODE`:

    none     every caller is granted every workspace; local development only, on loopback
    jwt      a signed JWT whose `workspaces` claim lists the grant (api/auth_jwt.py)
    apikeys  an opaque key, looked up in AUTH_API_KEYS_FILE (api/auth_apikeys.py)

`none` is the default only while the service listens on loopback. `evidencegraph serve` knows
its host and refuses to start elsewhere (`auth_mode_for`); `uvicorn --factory` does not tell
the app its host, so api/loopback_guard.py refuses, per request, what arrives on another
address while AUTH_MODE is unset.
"""

from __future__ import annotations

import ipaddress
import logging
from typing import Protocol

from api.auth_apikeys import ApiKeyAuthenticator
from api.auth_jwt import JwtAuthenticator
from api.settings import Settings, SettingsError
from contract.scope import Grant

log = logging.getLogger(__name__)

LOOPBACK_NAMES = ("localhost",)


class Authenticator(Protocol):
    def authenticate(self, authorization: str | None) -> Grant:
        """The caller's grant, or raise `contract.errors.Unauthenticated`."""
        ...


def is_loopback(host: str | None) -> bool:
    """True for 127.0.0.0/8, ::1 and `localhost`; False for anything else, unknown included."""
    if host is None:
        return False
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    # A dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d.
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


class NoAuthentication:
    """`AUTH_MODE=none`: every caller is granted every workspace."""

    def authenticate(self, authorization: str | None) -> Grant:
        return Grant.everything()


def auth_mode_for(settings: Settings, host: str) -> str:
    """`none` is the default only while the service listens on loopback (contract §8)."""
    if settings.auth_mode is not None:
        return settings.auth_mode
    if is_loopback(host):
        return "none"
    raise SettingsError(
        f"The service would listen on {host}, which is not loopback, without authentication. "
        "Set AUTH_MODE=jwt or AUTH_MODE=apikeys (or AUTH_MODE=none to expose it unprotected)."
    )


def create_authenticator(settings: Settings, host: str) -> Authenticator:
    """The authenticator AUTH_MODE names, its key material read and checked now, so a bad
    setting stops start-up with a message naming it."""
    mode = auth_mode_for(settings, host)
    if mode == "jwt":
        return JwtAuthenticator.from_settings(settings)
    if mode == "apikeys":
        return ApiKeyAuthenticator.from_settings(settings)
    log.warning(
        "AUTH_MODE=none: every caller can read every workspace. For local development only."
    )
    return NoAuthentication()
