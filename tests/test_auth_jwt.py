"""`AUTH_MODE=jwt` (contract §8, api/auth_jwt.py): every way a token can be wrong is refused with
UNAUTHENTICATED, and every setting that cannot work stops start-up naming itself."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from api.auth_jwt import JwtAuthenticator, load_jwks
from api.settings import Settings, SettingsError
from contract.errors import Unauthenticated
from contract.scope import Grant
from graph.driver import Graph
from tests.conftest import serving, without_request_ids
from tests.support.auth_material import (
    HS_SECRET,
    KeyPair,
    bearer,
    claims,
    ec_pair,
    forged,
    hs256,
    rsa_pair,
    signed,
    write_jwks,
)
from tests.support.graph_builder import GraphBuilder


@pytest.fixture(scope="module")
def rsa_key() -> KeyPair:
    return rsa_pair("rsa-1")


@pytest.fixture(scope="module")
def ec_key() -> KeyPair:
    return ec_pair("ec-1")


@pytest.fixture
def jwks_file(tmp_path: Path, rsa_key: KeyPair, ec_key: KeyPair) -> Path:
    return write_jwks(tmp_path / "jwks.json", [rsa_key.jwk(), ec_key.jwk()])


@pytest.fixture
def both(jwks_file: Path) -> JwtAuthenticator:
    """HS256 by secret and RS256/ES256 by kid, as a deployment may accept during a migration."""
    return JwtAuthenticator(secret=HS_SECRET.encode(), keys=load_jwks(jwks_file))


def refusal(authenticator: JwtAuthenticator, token: str) -> str:
    with pytest.raises(Unauthenticated) as refused:
        authenticator.authenticate(f"Bearer {token}")
    return refused.value.message


def test_valid_tokens_of_each_key_grant_their_workspaces(
    both: JwtAuthenticator, rsa_key: KeyPair, ec_key: KeyPair
) -> None:
    assert both.authenticate(f"Bearer {hs256(claims(['acme', 'globex']))}") == Grant.of(
        ["acme", "globex"]
    )
    assert both.authenticate(f"Bearer {signed(rsa_key, claims(['acme']))}") == Grant.of(["acme"])
    assert both.authenticate(f"bearer {signed(ec_key, claims(['b']))}") == Grant.of(["b"])
    # An empty list is a valid grant of nothing (a gateway's own credential, for example).
    assert both.authenticate(f"Bearer {hs256(claims([]))}") == Grant.of([])


def test_time_claims_are_enforced_with_a_small_leeway(both: JwtAuthenticator) -> None:
    now = int(time.time())
    assert "expired" in refusal(both, hs256(claims(exp=now - 120)))
    assert "not valid yet" in refusal(both, hs256(claims(nbf=now + 120)))
    assert "not valid yet" in refusal(both, hs256(claims(iat=now + 120)))
    assert "no `exp` claim" in refusal(both, hs256(claims(exp=None)))
    # Within the 30 s leeway, clocks that disagree a little still agree.
    assert both.authenticate(f"Bearer {hs256(claims(exp=now - 10, nbf=now + 10))}")


def test_a_bad_signature_is_refused(both: JwtAuthenticator, rsa_key: KeyPair) -> None:
    other_secret = "another-secret-of-32-bytes-or-more!"
    assert "signature" in refusal(both, hs256(claims(), secret=other_secret))
    header, _, signature = hs256(claims(["acme"])).split(".")
    widened = hs256(claims(["acme", "globex"])).split(".")[1]
    assert "signature" in refusal(both, f"{header}.{widened}.{signature}")
    impostor = rsa_pair(rsa_key.kid)  # a key of its own under a trusted kid
    assert "signature" in refusal(both, signed(impostor, claims()))


def test_alg_none_is_refused(both: JwtAuthenticator, rsa_key: KeyPair) -> None:
    for header in ({"alg": "none"}, {"alg": "None"}, {"alg": "none", "kid": "rsa-9"}):
        assert "algorithm must be one of ES256, HS256, RS256" in refusal(
            both, forged(header, claims(), None)
        )
    unsigned = forged({"alg": "none", "kid": rsa_key.kid}, claims(), None)
    assert "key `rsa-1` accepts only RS256" in refusal(both, unsigned)


def test_hs_rs_algorithm_confusion_is_refused(jwks_file: Path, rsa_key: KeyPair) -> None:
    """The attack: sign HS256 with the RSA *public* key as the HMAC secret, hoping the server
    checks HS256 with whatever key the `kid` names."""
    token = forged({"alg": "HS256", "kid": rsa_key.kid}, claims(), rsa_key.public_pem())
    jwks_only = JwtAuthenticator(keys=load_jwks(jwks_file))
    assert "key `rsa-1` accepts only RS256" in refusal(jwks_only, token)
    # With a secret configured too, HS256 is checked against the secret only.
    with_secret = JwtAuthenticator(secret=HS_SECRET.encode(), keys=load_jwks(jwks_file))
    assert "signature" in refusal(with_secret, token)
    # And the other way: an HS256-only service never takes RS256.
    hs_only = JwtAuthenticator(secret=HS_SECRET.encode())
    assert "algorithm must be one of HS256" in refusal(hs_only, signed(rsa_key, claims()))


def test_keys_are_picked_by_kid_and_pinned_to_their_algorithm(
    both: JwtAuthenticator, rsa_key: KeyPair, ec_key: KeyPair
) -> None:
    assert "names none of the trusted keys" in refusal(both, signed(rsa_key, claims(), "rsa-9"))
    assert "names none of the trusted keys" in refusal(both, signed(rsa_key, claims(), None))
    # An EC key's kid on an RS256 token: the key decides the algorithm, not the token.
    assert "key `ec-1` accepts only ES256" in refusal(both, signed(rsa_key, claims(), "ec-1"))
    assert "key `rsa-1` accepts only RS256" in refusal(
        both, forged({"alg": "PS256", "kid": "rsa-1"}, claims(), None)
    )
    assert "algorithm must be one of" in refusal(both, forged({"alg": "PS256"}, claims(), None))


@pytest.mark.parametrize(
    "workspaces",
    [None, "acme", ["acme", 1], [""], {"acme": True}, [["acme"]]],
    ids=["missing", "string", "non-string item", "empty name", "object", "nested list"],
)
def test_the_workspaces_claim_is_required_and_a_list_of_names(
    both: JwtAuthenticator, workspaces: Any
) -> None:
    assert "`workspaces` claim" in refusal(both, hs256(claims(workspaces)))


def test_audience_and_issuer_are_checked_when_configured() -> None:
    checked = JwtAuthenticator(secret=HS_SECRET.encode(), audience="evidencegraph", issuer="idp")
    good = claims(aud="evidencegraph", iss="idp")
    assert checked.authenticate(f"Bearer {hs256(good)}") == Grant.of(["acme"])
    assert "audience" in refusal(checked, hs256({**good, "aud": "another-api"}))
    assert "no `aud` claim" in refusal(checked, hs256({**good, "aud": None} | claims(iss="idp")))
    assert "issuer" in refusal(checked, hs256({**good, "iss": "somebody-else"}))
    assert "no `iss` claim" in refusal(checked, hs256(claims(aud="evidencegraph")))
    # Not configured: a token meant for another audience is still refused (RFC 7519 §4.1.3).
    unconfigured = JwtAuthenticator(secret=HS_SECRET.encode())
    assert "audience" in refusal(unconfigured, hs256(claims(aud="another-api")))


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer a b", "Token abc", "Bearer x"],
)
def test_missing_or_malformed_credentials_are_refused(
    both: JwtAuthenticator, authorization: str | None
) -> None:
    with pytest.raises(Unauthenticated):
        both.authenticate(authorization)


def test_an_oversized_header_is_refused_before_decoding(both: JwtAuthenticator) -> None:
    with pytest.raises(Unauthenticated, match="too long"):
        both.authenticate("Bearer " + "a" * 10_000)


def jwt_settings(**environ: str) -> Settings:
    return Settings.from_environ({"AUTH_MODE": "jwt", **environ})


@pytest.mark.parametrize(
    ("document", "complaint"),
    [
        ("{not json", "is not valid JSON"),
        ('{"keys": {}}', "must be a JWK Set"),
        ('{"keys": []}', "holds no signature key"),
        ('{"keys": [{"kty": "RSA", "n": "AQAB", "e": "AQAB"}]}', "every key needs a `kid`"),
        ('{"keys": [{"kty": "oct", "kid": "s", "k": "c2VjcmV0"}]}', "only RSA (RS256) and EC"),
        ('{"keys": [{"kty": "RSA", "kid": "r", "n": "!", "e": "AQAB"}]}', "is not a valid JWK"),
    ],
)
def test_a_jwks_file_that_cannot_work_names_the_setting(
    tmp_path: Path, document: str, complaint: str
) -> None:
    path = tmp_path / "jwks.json"
    path.write_text(document)
    with pytest.raises(SettingsError) as error:
        JwtAuthenticator.from_settings(jwt_settings(AUTH_JWKS_FILE=str(path)))
    assert f"AUTH_JWKS_FILE={path}" in str(error.value)
    assert complaint in str(error.value)


def test_jwks_keys_that_would_weaken_verification_are_refused(
    tmp_path: Path, rsa_key: KeyPair
) -> None:
    weak = rsa_pair("weak", bits=1024)
    private = {**rsa_key.jwk(), "d": "AQAB"}
    for entries, complaint in (
        ([weak.jwk()], "has 1024 bits"),
        ([private], "holds a private key"),
        ([{**rsa_key.jwk(), "alg": "HS256"}], "it must be RS256"),
        ([rsa_key.jwk(), rsa_key.jwk()], "two keys share the key id `rsa-1`"),
    ):
        path = write_jwks(tmp_path / "jwks.json", entries)
        with pytest.raises(SettingsError, match="AUTH_JWKS_FILE") as error:
            load_jwks(path)
        assert complaint in str(error.value)
    # Encryption keys are skipped, not used to verify.
    path = write_jwks(tmp_path / "jwks.json", [{**weak.jwk(), "use": "enc"}, rsa_key.jwk()])
    assert sorted(load_jwks(path)) == ["rsa-1"]


def test_jwt_settings_that_cannot_work_stop_start_up(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"AUTH_JWT_SECRET .* or AUTH_JWKS_FILE"):
        JwtAuthenticator.from_settings(jwt_settings())
    with pytest.raises(SettingsError, match="AUTH_JWT_SECRET must be at least 32 bytes"):
        JwtAuthenticator.from_settings(jwt_settings(AUTH_JWT_SECRET="short"))
    missing = tmp_path / "missing.json"
    with pytest.raises(SettingsError, match=f"AUTH_JWKS_FILE={missing} cannot be read"):
        JwtAuthenticator.from_settings(jwt_settings(AUTH_JWKS_FILE=str(missing)))
    with pytest.raises(SettingsError, match="AUTH_JWT_LEEWAY_SECONDS"):
        jwt_settings(AUTH_JWT_LEEWAY_SECONDS="3600")


def test_the_secret_never_shows_in_a_repr(both: JwtAuthenticator) -> None:
    settings = jwt_settings(AUTH_JWT_SECRET=HS_SECRET)
    assert HS_SECRET not in repr(both) + repr(settings) + str(settings.public_summary())


SEARCH_SCOPED = '{ searchEntities(query: "ada", scope: {workspaces: ["globex"]}) { score } }'


async def test_over_http_bad_tokens_are_401_and_ungranted_workspaces_forbidden(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder
) -> None:
    version = await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    passage = f'{{ passage(id: "{version.passage_ids[0]}") {{ text }} }}'
    accept = {"accept": "application/graphql-response+json"}
    async with serving(neo4j_uri, graph, AUTH_MODE="jwt", AUTH_JWT_SECRET=HS_SECRET) as client:
        expired = hs256(claims(exp=int(time.time()) - 3600))
        for headers in ({}, bearer(expired), bearer(forged({"alg": "none"}, claims(), None))):
            response = await client.post(passage, headers={**accept, **headers})
            assert response.status_code == 401
            assert without_request_ids(response.json()["errors"][0]["extensions"]) == {
                "code": "UNAUTHENTICATED"
            }
        acme = bearer(hs256(claims(["acme"])))
        assert (await client.execute(passage, headers=acme))["data"]["passage"]["text"] == "Ada."
        globex = bearer(hs256(claims(["globex"])))
        assert (await client.execute(passage, headers=globex))["data"]["passage"] is None
        body = await client.execute(SEARCH_SCOPED, headers=acme)
        assert without_request_ids(body["errors"][0]["extensions"]) == {
            "code": "FORBIDDEN",
            "workspaces": ["globex"],
        }
