"""Keys, tokens and key files for the authentication tests: real RSA and EC keys, JWK Sets as
an identity provider publishes them, and tokens signed (or forged) the way an attacker would."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

HS_SECRET = "an-hs256-secret-of-at-least-32-bytes-for-tests"


@dataclass
class KeyPair:
    kid: str
    private: Any
    public: Any
    algorithm: str

    def jwk(self) -> dict[str, Any]:
        algorithm = jwt.get_algorithm_by_name(self.algorithm)
        entry: dict[str, Any] = json.loads(algorithm.to_jwk(self.public))
        return {**entry, "kid": self.kid, "use": "sig"}

    def public_pem(self) -> bytes:
        return bytes(
            self.public.public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )


def rsa_pair(kid: str, bits: int = 2048) -> KeyPair:
    private = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    return KeyPair(kid, private, private.public_key(), "RS256")


def ec_pair(kid: str) -> KeyPair:
    private = ec.generate_private_key(ec.SECP256R1())
    return KeyPair(kid, private, private.public_key(), "ES256")


def write_jwks(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"keys": entries}))
    return path


def claims(workspaces: Any = ("acme",), **extra: Any) -> dict[str, Any]:
    """Valid claims for five minutes; `extra` adds or overrides (None removes)."""
    now = int(time.time())
    values: dict[str, Any] = {"sub": "user-1", "iat": now, "exp": now + 300}
    if workspaces is not None:
        values["workspaces"] = list(workspaces) if isinstance(workspaces, tuple) else workspaces
    values.update(extra)
    return {key: value for key, value in values.items() if value is not None}


def hs256(payload: dict[str, Any], secret: str = HS_SECRET, **header: Any) -> str:
    return jwt.encode(payload, secret, algorithm="HS256", headers=header or None)


def signed(pair: KeyPair, payload: dict[str, Any], kid: str | None = "same") -> str:
    headers = {"kid": pair.kid if kid == "same" else kid} if kid is not None else None
    return jwt.encode(payload, pair.private, algorithm=pair.algorithm, headers=headers)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forged(header: dict[str, Any], payload: dict[str, Any], hmac_key: bytes | None) -> str:
    """A token built by hand: `alg: none` (no key), or HS256 over any bytes as the secret
    (the RSA public key, in the algorithm-confusion attack). PyJWT refuses to make these."""
    signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(payload).encode())}"
    if hmac_key is None:
        return signing_input + "."
    signature = hmac.new(hmac_key, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64(signature)}"


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}
