"""`AUTH_MODE=jwt` (contract §8): a signed JWT whose `workspaces` claim lists the grant.

Keys, and the one algorithm each is accepted with (so `alg` in a token never chooses how it
is checked; it only has to agree):

    AUTH_JWT_SECRET   HS256 (at least 32 bytes, RFC 7518 §3.2)
    AUTH_JWKS_FILE    public keys picked by the token's `kid`: RSA (≥ 2048 bits) → RS256,
                      EC P-256 → ES256

So `alg: none` is refused, and so is the HS/RS confusion (a token "signed" with HS256 using
an RSA public key as the secret): HS256 is only ever checked against AUTH_JWT_SECRET.

Claims: `exp` is required; `exp`, `nbf` and `iat` are checked with AUTH_JWT_LEEWAY_SECONDS of
clock skew; `aud` and `iss` are required and checked when AUTH_JWT_AUDIENCE / AUTH_JWT_ISSUER
are set (a token carrying an `aud` is refused when no audience is configured, as RFC 7519 §4.1.3
asks); `workspaces` must be a list of strings (empty grants nothing).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

from api.credentials import bearer_token
from api.settings import Settings, SettingsError, read_json_file
from contract.errors import Unauthenticated
from contract.scope import Grant

HS256 = "HS256"
MIN_SECRET_BYTES = 32
MIN_RSA_BITS = 2048
# (kty, crv) of a JWKS key → the only algorithm a token signed with it may use.
ALGORITHM_FOR_KEY_TYPE: dict[tuple[object, object], str] = {
    ("RSA", None): "RS256",
    ("EC", "P-256"): "ES256",
}

# PyJWT's verdict → what the caller is told (nothing about the keys themselves).
REFUSALS: tuple[tuple[type[jwt.PyJWTError], str], ...] = (
    (jwt.ExpiredSignatureError, "The token has expired."),
    (jwt.ImmatureSignatureError, "The token is not valid yet (`nbf` or `iat` is in the future)."),
    (jwt.InvalidAudienceError, "The token's audience (`aud`) is not this service."),
    (jwt.InvalidIssuerError, "The token's issuer (`iss`) is not trusted here."),
    (jwt.InvalidSignatureError, "The token's signature does not verify."),
)


@dataclass(frozen=True)
class VerificationKey:
    key: Any  # a secret (bytes) or a public key object
    algorithm: str


def _refused(reason: str) -> Unauthenticated:
    return Unauthenticated(f"Invalid bearer token: {reason}")


def workspaces_claim(claims: Mapping[str, Any]) -> tuple[str, ...]:
    """The `workspaces` claim: required, a list of non-empty strings."""
    value = claims.get("workspaces")
    if not isinstance(value, list) or not all(isinstance(w, str) and w for w in value):
        raise _refused("its `workspaces` claim must be a list of workspace names.")
    return tuple(value)


class JwtAuthenticator:
    def __init__(
        self,
        *,
        secret: bytes | None = None,
        keys: Mapping[str, VerificationKey] | None = None,
        audience: str | None = None,
        issuer: str | None = None,
        leeway: float = 30.0,
    ) -> None:
        self._secret = None if secret is None else VerificationKey(secret, HS256)
        self._keys = dict(keys or {})
        self._audience = audience
        self._issuer = issuer
        self._leeway = leeway
        self._required = ["exp"] + (["aud"] if audience else []) + (["iss"] if issuer else [])

    def __repr__(self) -> str:  # never the secret
        return f"JwtAuthenticator(hs256={self._secret is not None}, kids={sorted(self._keys)})"

    @classmethod
    def from_settings(cls, settings: Settings) -> JwtAuthenticator:
        if settings.auth_jwt_secret is None and settings.auth_jwks_file is None:
            raise SettingsError(
                "AUTH_MODE=jwt needs AUTH_JWT_SECRET (HS256) or AUTH_JWKS_FILE (a JWK Set of "
                "RS256/ES256 public keys), or both."
            )
        secret = None
        if settings.auth_jwt_secret is not None:
            secret = str(settings.auth_jwt_secret).encode("utf-8")
            if len(secret) < MIN_SECRET_BYTES:
                raise SettingsError(
                    f"AUTH_JWT_SECRET must be at least {MIN_SECRET_BYTES} bytes for HS256; "
                    "generate one with "
                    "`python -c 'import secrets; print(secrets.token_urlsafe(48))'`."
                )
        keys = load_jwks(settings.auth_jwks_file) if settings.auth_jwks_file else {}
        return cls(
            secret=secret,
            keys=keys,
            audience=settings.auth_jwt_audience,
            issuer=settings.auth_jwt_issuer,
            leeway=settings.auth_jwt_leeway_seconds,
        )

    def authenticate(self, authorization: str | None) -> Grant:
        token = bearer_token(authorization)
        key = self._key_for(token)
        try:
            claims = jwt.decode(
                token,
                key.key,
                algorithms=[key.algorithm],
                audience=self._audience,
                issuer=self._issuer,
                leeway=self._leeway,
                options={"require": self._required},
            )
        except jwt.MissingRequiredClaimError as missing:
            raise _refused(f"it has no `{missing.claim}` claim.") from None
        except jwt.PyJWTError as error:
            reason = next((text for kind, text in REFUSALS if isinstance(error, kind)), None)
            raise _refused(reason or "it is not a valid JWT.") from None
        return Grant.of(workspaces_claim(claims), subject=subject_of(claims, token))

    def _key_for(self, token: str) -> VerificationKey:
        """The key this token must verify with, from its header's `alg` and `kid`."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise _refused("it is not a valid JWT.") from None
        algorithm, kid = header.get("alg"), header.get("kid")
        if not isinstance(algorithm, str):
            raise _refused("its header has no `alg`.")
        if algorithm == HS256 and self._secret is not None:
            return self._secret
        if isinstance(kid, str) and kid in self._keys:
            key = self._keys[kid]
            if algorithm != key.algorithm:
                raise _refused(f"key `{kid}` accepts only {key.algorithm}.")
            return key
        accepted = {key.algorithm for key in self._keys.values()}
        if algorithm in accepted:
            raise _refused("its key id (`kid`) names none of the trusted keys.")
        accepted |= {HS256} if self._secret else set()
        raise _refused(f"its algorithm must be one of {', '.join(sorted(accepted))}.")


def load_jwks(path: Path) -> dict[str, VerificationKey]:
    """The signature keys of a JWK Set file, by `kid`; a SettingsError names what is wrong."""
    where = f"AUTH_JWKS_FILE={path}"
    document = read_json_file("AUTH_JWKS_FILE", path)
    entries = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise SettingsError(f"{where} must be a JWK Set: an object with a `keys` list.")
    keys: dict[str, VerificationKey] = {}
    for entry in entries:
        if isinstance(entry, dict) and entry.get("use") == "enc":
            continue  # an encryption key never verifies a signature
        kid, key = _verification_key(where, entry)
        if kid in keys:
            raise SettingsError(f"{where}: two keys share the key id `{kid}`.")
        keys[kid] = key
    if not keys:
        raise SettingsError(f"{where} holds no signature key.")
    return keys


def _verification_key(where: str, entry: object) -> tuple[str, VerificationKey]:
    if not isinstance(entry, dict) or not isinstance(entry.get("kid"), str) or not entry["kid"]:
        raise SettingsError(f"{where}: every key needs a `kid` (tokens pick their key by it).")
    kid: str = entry["kid"]
    if "d" in entry:
        raise SettingsError(f"{where}: key `{kid}` holds a private key; publish public keys only.")
    algorithm = ALGORITHM_FOR_KEY_TYPE.get((entry.get("kty"), entry.get("crv")))
    if algorithm is None:
        raise SettingsError(
            f"{where}: key `{kid}` is kty={entry.get('kty')!r}, crv={entry.get('crv')!r}; "
            "only RSA (RS256) and EC P-256 (ES256) public keys are accepted."
        )
    if entry.get("alg", algorithm) != algorithm:
        raise SettingsError(
            f"{where}: key `{kid}` says alg={entry['alg']!r}; it must be {algorithm}."
        )
    try:
        key = jwt.PyJWK(entry, algorithm).key
    except jwt.PyJWTError as error:
        raise SettingsError(f"{where}: key `{kid}` is not a valid JWK: {error}") from None
    if isinstance(key, rsa.RSAPublicKey) and key.key_size < MIN_RSA_BITS:
        raise SettingsError(f"{where}: key `{kid}` has {key.key_size} bits; use ≥ {MIN_RSA_BITS}.")
    return kid, VerificationKey(key, algorithm)


def subject_of(claims: dict[str, object], token: str) -> str:
    """Who the token speaks for, for rate limits: its `sub`, else the token's own digest."""
    subject = claims.get("sub")
    if isinstance(subject, str) and subject:
        return f"sub:{subject}"
    return "jwt:" + hashlib.sha256(token.encode("ascii", "replace")).hexdigest()[:16]
