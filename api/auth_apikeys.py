"""`AUTH_MODE=apikeys` (contract §8): opaque keys, each granted a list of workspaces.

`AUTH_API_KEYS_FILE` is a JSON object mapping each key to its workspaces:

    {"k3y-for-the-search-ui-5d1e…": ["acme", "globex"], "k3y-for-the-gateway-0b6f…": []}

Only SHA-256 digests of the keys are kept in memory, so neither a log line nor a crash dump
can show one. A presented key is hashed and compared with every stored digest by
`hmac.compare_digest`, with no early exit: the time taken depends on the number of keys only,
never on how much of a key an attacker guessed.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from pathlib import Path

from api.credentials import B64TOKEN, bearer_token
from api.settings import Settings, SettingsError, read_json_file
from contract.errors import Unauthenticated
from contract.scope import Grant

MIN_KEY_LENGTH = 16
UNKNOWN_KEY = "Invalid bearer token: it is not a known API key."


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("ascii")).digest()  # a b64token is ASCII


class ApiKeyAuthenticator:
    def __init__(self, grants: Mapping[str, Sequence[str]]) -> None:
        self._grants = [
            (digest, Grant.of(list(ws), subject=f"key:{digest.hex()[:16]}"))
            for digest, ws in ((_digest(key), ws) for key, ws in grants.items())
        ]

    def __repr__(self) -> str:  # never a key
        return f"ApiKeyAuthenticator({len(self._grants)} keys)"

    @classmethod
    def from_settings(cls, settings: Settings) -> ApiKeyAuthenticator:
        if settings.auth_api_keys_file is None:
            raise SettingsError(
                "AUTH_MODE=apikeys needs AUTH_API_KEYS_FILE: a JSON object mapping each key to "
                'its list of workspaces, e.g. {"<key>": ["acme"]}.'
            )
        return cls(load_api_keys(settings.auth_api_keys_file))

    def authenticate(self, authorization: str | None) -> Grant:
        presented = _digest(bearer_token(authorization))
        found: Grant | None = None
        for digest, grant in self._grants:
            # Every digest is compared, whichever matches: no early exit.
            if hmac.compare_digest(digest, presented):
                found = grant
        if found is None:
            raise Unauthenticated(UNKNOWN_KEY)
        return found


def load_api_keys(path: Path) -> dict[str, list[str]]:
    """The key → workspaces map of AUTH_API_KEYS_FILE; a SettingsError names what is wrong
    (never the key itself)."""
    where = f"AUTH_API_KEYS_FILE={path}"
    document = read_json_file("AUTH_API_KEYS_FILE", path)
    if not isinstance(document, dict) or not document:
        raise SettingsError(
            f"{where} must be a JSON object mapping each key to its workspaces: "
            '{"<key>": ["acme"]}.'
        )
    for number, (key, workspaces) in enumerate(document.items(), start=1):
        if len(key) < MIN_KEY_LENGTH or not B64TOKEN.fullmatch(key):
            raise SettingsError(
                f"{where}: key #{number} is too short or holds characters a bearer token "
                f"cannot; use at least {MIN_KEY_LENGTH} letters, digits or -._~+/, e.g. "
                "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`."
            )
        names = isinstance(workspaces, list) and all(isinstance(w, str) and w for w in workspaces)
        if not names:
            raise SettingsError(f"{where}: key #{number} must map to a list of workspace names.")
    return document
