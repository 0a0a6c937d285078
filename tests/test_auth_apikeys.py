"""`AUTH_MODE=apikeys` (contract §8, api/auth_apikeys.py): a known key grants its workspaces, any
other is UNAUTHENTICATED after the same work, and no key ever reaches a log or a repr."""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
from pathlib import Path

import pytest

from api.auth_apikeys import ApiKeyAuthenticator, load_api_keys
from api.settings import Settings, SettingsError
from contract.errors import Unauthenticated
from contract.scope import Grant
from graph.driver import Graph
from tests.conftest import serving, without_request_ids
from tests.support.auth_material import bearer
from tests.support.graph_builder import GraphBuilder

ACME_KEY = "acme-reader-7f3c9a1e5b2d4c6f8a0b"
BOTH_KEY = "both-reader-0c1d2e3f4a5b6c7d8e9f"
NOTHING_KEY = "gateway-self-9e8d7c6b5a4f3e2d1c0b"
KEYS = {ACME_KEY: ["acme"], BOTH_KEY: ["acme", "globex"], NOTHING_KEY: []}


@pytest.fixture
def keys_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(KEYS))
    return path


def test_each_key_grants_its_workspaces(keys_file: Path) -> None:
    authenticator = ApiKeyAuthenticator(load_api_keys(keys_file))
    assert authenticator.authenticate(f"Bearer {ACME_KEY}") == Grant.of(["acme"])
    assert authenticator.authenticate(f"Bearer {BOTH_KEY}") == Grant.of(["acme", "globex"])
    assert authenticator.authenticate(f"Bearer {NOTHING_KEY}") == Grant.of([])


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        ACME_KEY,  # no scheme
        f"Basic {ACME_KEY}",
        f"Bearer {ACME_KEY[:-1]}",  # all but the last character
        f"Bearer {ACME_KEY}x",
        f"Bearer {ACME_KEY.upper()}",
        "Bearer " + "x" * 9000,
    ],
)
def test_anything_but_a_known_key_is_unauthenticated(
    keys_file: Path, authorization: str | None
) -> None:
    with pytest.raises(Unauthenticated):
        ApiKeyAuthenticator(load_api_keys(keys_file)).authenticate(authorization)


def test_every_stored_key_is_compared_whichever_matches(
    keys_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The constant-time path: each request compares its key's digest with every stored
    digest, with `hmac.compare_digest`, all of the same length, with no early exit. The work
    done is the same for the first key, the last one and an unknown one."""
    compared: list[tuple[int, int]] = []
    compare_digest = hmac.compare_digest

    def counting_compare(a: bytes, b: bytes) -> bool:
        compared.append((len(a), len(b)))
        return compare_digest(a, b)

    monkeypatch.setattr("api.auth_apikeys.hmac.compare_digest", counting_compare)
    authenticator = ApiKeyAuthenticator(load_api_keys(keys_file))
    for key in (ACME_KEY, NOTHING_KEY, "unknown-key-aaaaaaaaaaaaaaaa", "k"):
        compared.clear()
        with contextlib.suppress(Unauthenticated):
            authenticator.authenticate(f"Bearer {key}")
        assert compared == [(32, 32)] * len(KEYS), key


def test_keys_never_reach_logs_or_reprs(keys_file: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    settings = Settings.from_environ({"AUTH_MODE": "apikeys", "AUTH_API_KEYS_FILE": str(keys_file)})
    authenticator = ApiKeyAuthenticator.from_settings(settings)
    for key in (ACME_KEY, "guess-" + ACME_KEY):
        try:
            authenticator.authenticate(f"Bearer {key}")
        except Unauthenticated as refused:
            assert key not in refused.message
    shown = repr(authenticator) + repr(settings) + str(settings.public_summary()) + caplog.text
    assert not [key for key in KEYS if key in shown]
    assert repr(authenticator) == "ApiKeyAuthenticator(3 keys)"


@pytest.mark.parametrize(
    ("document", "complaint"),
    [
        ("{not json", "is not valid JSON"),
        ("[]", "must be a JSON object"),
        ("{}", "must be a JSON object"),
        ('{"short": ["acme"]}', "key #1 is too short"),
        ('{"a key with spaces in it": ["acme"]}', "holds characters a bearer token cannot"),
        ('{"a-key-with-a-quote\'-in-it": ["acme"]}', "holds characters a bearer token cannot"),
        (json.dumps({ACME_KEY: "acme"}), "key #1 must map to a list"),
        (json.dumps({ACME_KEY: ["acme"], BOTH_KEY: [1]}), "key #2 must map to a list"),
    ],
)
def test_a_keys_file_that_cannot_work_names_the_setting_but_no_key(
    tmp_path: Path, document: str, complaint: str
) -> None:
    path = tmp_path / "keys.json"
    path.write_text(document)
    with pytest.raises(SettingsError) as error:
        load_api_keys(path)
    assert f"AUTH_API_KEYS_FILE={path}" in str(error.value)
    assert complaint in str(error.value)
    assert ACME_KEY not in str(error.value) and BOTH_KEY not in str(error.value)


def test_missing_keys_settings_stop_start_up(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="AUTH_MODE=apikeys needs AUTH_API_KEYS_FILE"):
        ApiKeyAuthenticator.from_settings(Settings.from_environ({"AUTH_MODE": "apikeys"}))
    missing = tmp_path / "nope.json"
    with pytest.raises(SettingsError, match=f"AUTH_API_KEYS_FILE={missing} cannot be read"):
        load_api_keys(missing)


async def test_over_http_keys_grant_scope_and_unknown_keys_are_401(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, keys_file: Path
) -> None:
    acme = await builder.version("acme", ["Ada of acme."], mentions={"Ada": [0]})
    globex = await builder.version("globex", ["Grace of globex."], mentions={"Grace": [0]})
    query = (
        "{"
        f' a: passage(id: "{acme.passage_ids[0]}") {{ text }}'
        f' g: passage(id: "{globex.passage_ids[0]}") {{ text }} }}'
    )
    settings = {"AUTH_MODE": "apikeys", "AUTH_API_KEYS_FILE": str(keys_file)}
    async with serving(neo4j_uri, graph, **settings) as client:
        response = await client.post(query, headers=bearer("not-a-key"))
        assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        seen = {}
        for key in (ACME_KEY, BOTH_KEY, NOTHING_KEY):
            data = (await client.execute(query, headers=bearer(key)))["data"]
            seen[key] = {alias for alias, value in data.items() if value is not None}
        assert seen == {ACME_KEY: {"a"}, BOTH_KEY: {"a", "g"}, NOTHING_KEY: set()}
        forbidden = await client.execute(
            '{ searchEntities(query: "ada", scope: {workspaces: ["acme", "globex"]}) { score } }',
            headers=bearer(ACME_KEY),
        )
        assert without_request_ids(forbidden["errors"][0]["extensions"]) == {
            "code": "FORBIDDEN",
            "workspaces": ["globex"],
        }
        assert "globex" in forbidden["errors"][0]["message"]
