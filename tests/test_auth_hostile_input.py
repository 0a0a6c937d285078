"""Whatever arrives in `Authorization`, an authenticator answers with a grant or with
UNAUTHENTICATED, never with another exception (which would be a 500), and grants only what a
correctly signed, valid token or a known key says."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.auth_apikeys import ApiKeyAuthenticator
from api.auth_jwt import JwtAuthenticator, load_jwks
from contract.errors import Unauthenticated
from contract.scope import Grant
from tests.support.auth_material import HS_SECRET, claims, ec_pair, forged, rsa_pair, write_jwks

KEY = "known-key-0123456789abcdef"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
headers = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"alg": st.sampled_from(["HS256", "RS256", "ES256", "none", "PS256"]) | json_values},
        optional={"kid": st.sampled_from(["rsa-1", "ec-1"]) | json_values, "typ": json_values},
    ),
)
payloads = st.one_of(
    json_values,
    st.builds(
        lambda base, extra: {**base, **extra},
        st.builds(claims, st.one_of(json_values, st.lists(st.text(), max_size=3))),
        st.dictionaries(st.sampled_from(["exp", "nbf", "iat", "aud", "iss"]), json_values),
    ),
)


@pytest.fixture(scope="module")
def authenticator(tmp_path_factory: pytest.TempPathFactory) -> JwtAuthenticator:
    path = tmp_path_factory.mktemp("jwks") / "jwks.json"
    write_jwks(path, [rsa_pair("rsa-1").jwk(), ec_pair("ec-1").jwk()])
    return JwtAuthenticator(secret=HS_SECRET.encode(), keys=load_jwks(path))


@settings(max_examples=500, deadline=None)
@given(header=headers, payload=payloads, signed_with_the_secret=st.booleans())
def test_any_token_is_refused_cleanly_unless_signed_and_valid(
    authenticator: JwtAuthenticator, header: Any, payload: Any, signed_with_the_secret: bool
) -> None:
    key = HS_SECRET.encode() if signed_with_the_secret else b"not-the-secret"
    token = forged(header, payload, key)
    try:
        grant = authenticator.authenticate(f"Bearer {token}")
    except Unauthenticated:
        return
    # Accepted: only an HS256 token signed with the secret, whose claims hold up.
    assert signed_with_the_secret and isinstance(header, dict) and header["alg"] == "HS256"
    assert isinstance(payload, dict) and grant == Grant.of(payload["workspaces"])


@settings(max_examples=500, deadline=None)
@given(authorization=st.one_of(st.text(), st.text().map(lambda t: f"Bearer {t}")))
def test_any_header_text_is_refused_cleanly(
    authenticator: JwtAuthenticator, authorization: str
) -> None:
    keys = ApiKeyAuthenticator({KEY: ["acme"]})
    for each in (authenticator, keys):
        with pytest.raises(Unauthenticated):
            each.authenticate(authorization)
