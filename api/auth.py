"""Authentication (SPEC §8): who is calling, and which workspaces they are granted.

`Authorization: Bearer <token>` on every GraphQL operation. `AUTH_MODE=none` (local development
only) grants every workspace; `jwt` and `apikeys` check the token.
"""

from __future__ import annotations

import logging
from typing import Protocol

from api.settings import Settings, SettingsError
from contract.scope import Grant

log = logging.getLogger(__name__)

LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


class Authenticator(Protocol):
    def authenticate(self, authorization: str | None) -> Grant:
        """The caller's grant, or raise `contract.errors.Unauthenticated`."""
        ...


class NoAuthentication:
    """`AUTH_MODE=none`: every caller is granted every workspace."""

    def authenticate(self, authorization: str | None) -> Grant:
        return Grant.everything()


def auth_mode_for(settings: Settings, host: str) -> str:
    """`none` is the default only while the service listens on loopback (SPEC §8)."""
    if settings.auth_mode is not None:
        return settings.auth_mode
    if host in LOOPBACK_HOSTS:
        return "none"
    raise SettingsError(
        f"The service would listen on {host}, which is not loopback, without authentication. "
        "Set AUTH_MODE=jwt or AUTH_MODE=apikeys (or AUTH_MODE=none to expose it unprotected)."
    )


def create_authenticator(settings: Settings, host: str) -> Authenticator:
    mode = auth_mode_for(settings, host)
    if mode == "none":
        log.warning(
            "AUTH_MODE=none: every caller can read every workspace. For local development only."
        )
        return NoAuthentication()
    raise SettingsError(f"AUTH_MODE={mode} is not available yet")
