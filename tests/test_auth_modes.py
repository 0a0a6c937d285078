"""Which AUTH_MODE applies, and what happens while it is unset (contract §8): `none` on loopback
only, enforced when `serve` starts and, for `uvicorn --factory`, on every request."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from api.auth import auth_mode_for, is_loopback
from api.settings import Settings, SettingsError
from commands import serve_command
from commands.exit_codes import EXIT_USAGE
from contract.scope import Grant
from tests.conftest import TEST_DIMENSION, Client, without_request_ids


def unset_auth(neo4j_uri: str, **environ: str) -> Settings:
    """Test settings without AUTH_MODE, as a developer's shell would have them (without plan
    warming, as every test app: tests/conftest.py)."""
    return Settings.from_environ(
        {
            "NEO4J_URI": neo4j_uri,
            "EMBEDDER": "hash",
            "EMBEDDER_DIM": str(TEST_DIMENSION),
            "PLAN_WARMING": "false",
            **environ,
        }
    )


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"]
)
def test_none_is_the_default_on_loopback(host: str) -> None:
    assert is_loopback(host)
    assert auth_mode_for(Settings.from_environ({}), host) == "none"


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "192.168.1.20", "::ffff:10.0.0.1", "example.org", "", None]
)
def test_anything_else_is_not_loopback(host: str | None) -> None:
    assert not is_loopback(host)


def test_serve_on_a_public_address_without_auth_mode_refuses_to_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        pytest.fail("serve started uvicorn on a public address without AUTH_MODE")

    monkeypatch.setattr("commands.serve_command.uvicorn.run", never)
    for host in ("0.0.0.0", "::", "10.1.2.3"):
        assert serve_command.serve(host, 8000, Settings.from_environ({})) == EXIT_USAGE
        assert "Set AUTH_MODE=jwt or AUTH_MODE=apikeys" in capsys.readouterr().err
    # Chosen explicitly, even `none` is the operator's call (and is warned about).
    with pytest.raises(SettingsError):
        auth_mode_for(Settings.from_environ({}), "0.0.0.0")
    assert auth_mode_for(Settings.from_environ({"AUTH_MODE": "none"}), "0.0.0.0") == "none"


def test_none_warns_at_start(neo4j_uri: str, caplog: pytest.LogCaptureFixture) -> None:
    create_app(unset_auth(neo4j_uri))
    assert "AUTH_MODE=none: every caller can read every workspace" in caplog.text
    assert [r.levelno for r in caplog.records if "AUTH_MODE=none" in r.message] == [logging.WARNING]


@asynccontextmanager
async def arriving_on(settings: Settings, server: str) -> AsyncIterator[httpx.AsyncClient]:
    """The app in-process; `server` is the local address requests arrive on (ASGI
    `scope["server"]`, which httpx takes from the URL's host)."""
    app = create_app(settings)  # as `uvicorn --factory api.app:create_app` builds it
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=f"http://{server}") as http:
            yield http


TYPENAME = {"query": "{ __typename }"}


@pytest.mark.parametrize("server", ["10.0.0.7", "[2001:db8::1]", "testserver"])
async def test_unset_auth_mode_refuses_requests_arriving_on_other_addresses(
    neo4j_uri: str, server: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with arriving_on(unset_auth(neo4j_uri), server) as http:
        for response in (
            await http.post("/graphql", json=TYPENAME),
            await http.get("/graphql", params=TYPENAME),
            await http.get("/readyz"),
            await http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ):
            assert response.status_code == 403
            assert "AUTH_MODE is not set" in response.text
    assert "refused a request that arrived on" in caplog.text


@pytest.mark.parametrize("server", ["127.0.0.1", "[::1]", "localhost"])
async def test_unset_auth_mode_answers_on_loopback(neo4j_uri: str, server: str) -> None:
    async with arriving_on(unset_auth(neo4j_uri), server) as http:
        response = await http.post("/graphql", json=TYPENAME)
        assert (response.status_code, response.json()["data"]) == (200, {"__typename": "Query"})


async def test_an_explicit_auth_mode_removes_the_address_guard(neo4j_uri: str) -> None:
    async with arriving_on(unset_auth(neo4j_uri, AUTH_MODE="none"), "10.0.0.7") as http:
        loopback_host = {"host": "127.0.0.1:8000"}  # e.g. a proxy on the same host
        response = await http.post("/graphql", json=TYPENAME, headers=loopback_host)
        assert response.status_code == 200


@pytest.mark.parametrize("mode", [None, "none"])
@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "10.0.0.7", "", "x:"]
)
async def test_without_authentication_a_request_for_a_host_that_is_not_loopback_is_refused(
    neo4j_uri: str, mode: str | None, host: str, caplog: pytest.LogCaptureFixture
) -> None:
    """DNS rebinding (contract §8): the page's own name resolves to 127.0.0.1, so the request
    arrives on loopback, but its `Host` is still the page's name."""
    settings = unset_auth(neo4j_uri, **({"AUTH_MODE": mode} if mode else {}))
    async with arriving_on(settings, "127.0.0.1") as http:
        for response in (
            await http.post("/graphql", json=TYPENAME, headers={"host": host}),
            await http.get("/graphql", params=TYPENAME, headers={"host": host}),
            await http.get("/readyz", headers={"host": host}),
        ):
            assert response.status_code == 421, response.text
            assert "loopback name or address" in response.text
    assert "refused a request for host" in caplog.text


@pytest.mark.parametrize("mode", [None, "none"])
@pytest.mark.parametrize(
    "host", ["localhost", "LOCALHOST:8000", "127.0.0.1", "127.0.0.2:1", "[::1]:8000", "[::1]"]
)
async def test_without_authentication_a_request_for_a_loopback_host_is_answered(
    neo4j_uri: str, mode: str | None, host: str
) -> None:
    settings = unset_auth(neo4j_uri, **({"AUTH_MODE": mode} if mode else {}))
    async with arriving_on(settings, "127.0.0.1") as http:
        response = await http.post("/graphql", json=TYPENAME, headers={"host": host})
        assert (response.status_code, response.json()["data"]) == (200, {"__typename": "Query"})


async def test_with_authentication_any_host_is_answered(neo4j_uri: str, tmp_path: Path) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text('{"key-0123456789abcdef0123": ["acme"]}')
    settings = unset_auth(neo4j_uri, AUTH_MODE="apikeys", AUTH_API_KEYS_FILE=str(keys))
    async with arriving_on(settings, "10.0.0.7") as http:
        headers = {"host": "api.example", "authorization": "Bearer key-0123456789abcdef0123"}
        response = await http.post("/graphql", json=TYPENAME, headers=headers)
        assert response.json()["data"] == {"__typename": "Query"}


class BrokenAuthenticator:
    def authenticate(self, authorization: str | None) -> Grant:
        raise RuntimeError("a detail of the key store that must stay inside")


async def test_an_authenticator_that_fails_fails_closed(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    client.services.authenticator = BrokenAuthenticator()
    response = await client.post(
        "{ __typename }", headers={"accept": "application/graphql-response+json"}
    )
    assert response.status_code == 500
    assert without_request_ids(response.json()["errors"]) == [
        {"message": "Internal error; it has been logged.", "extensions": {"code": "INTERNAL"}}
    ]
    assert "key store" in caplog.text and "authentication failed unexpectedly" in caplog.text
