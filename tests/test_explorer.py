"""The evidence explorer's page and files (api/explorer.py, docs/explorer.md): served at
`/explore` from the build only when EXPLORER_ENABLED is on, under a strict Content-Security-Policy,
with no credentials needed for the page (its GraphQL calls need them), and behind the same
loopback Host check as `/graphql`."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from api.explorer import check_built, missing_build
from api.settings import SettingsError
from contract.errors import Unauthenticated
from tests.conftest import settings_for_tests as settings_for
from tests.support.node_tools import explorer_built


@pytest.fixture
async def explorer_client(neo4j_uri: str) -> AsyncIterator[httpx.AsyncClient]:
    explorer_built()
    app = create_app(settings_for(neo4j_uri, EXPLORER_ENABLED="true"))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client


async def test_the_page_loads_only_its_own_built_files_under_a_strict_policy(
    explorer_client: httpx.AsyncClient,
) -> None:
    page = await explorer_client.get("/explore")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "http" not in policy and "data:" not in policy
    assert "<style" not in page.text and not re.search(r"<script(?![^>]*\bsrc=)", page.text)
    assert not re.search(r"(src|href)=\"(https?:)?//", page.text)  # nothing from another host
    referenced = re.findall(r"(?:src|href)=\"(/explore/assets/[^\"]+)\"", page.text)
    assert {name.rsplit(".", 1)[1] for name in referenced} == {"js", "css"}
    for path in referenced:
        asset = await explorer_client.get(path)
        assert asset.status_code == 200, path
        assert asset.headers["content-type"].startswith(("text/javascript", "text/css")), path


async def test_only_the_files_the_build_wrote_are_served(
    explorer_client: httpx.AsyncClient,
) -> None:
    for name in ("package.json", "..%2Fpackage.json", "index.html", "..%2F..%2Fapi%2Fapp.py"):
        assert (await explorer_client.get(f"/explore/assets/{name}")).status_code == 404, name


async def test_the_page_needs_no_credentials_but_its_operations_do(
    explorer_client: httpx.AsyncClient,
) -> None:
    class Refuse:
        def authenticate(self, authorization: str | None) -> None:
            raise Unauthenticated("Credentials are required.")

    explorer_client.app.state.services.authenticator = Refuse()  # type: ignore[attr-defined]
    page = await explorer_client.get("/explore")
    assert page.status_code == 200
    script = re.findall(r"src=\"(/explore/assets/[^\"]+)\"", page.text)[0]
    assert (await explorer_client.get(script)).status_code == 200
    operation = await explorer_client.post(
        "/graphql",
        json={"query": "{ entityLabels { label } }"},
        headers={"accept": "application/graphql-response+json"},
    )
    assert operation.status_code == 401


async def test_the_page_refuses_a_foreign_host_name_like_graphql(
    explorer_client: httpx.AsyncClient,
) -> None:
    refused = await explorer_client.get("/explore", headers={"host": "attacker.example"})
    graphql = await explorer_client.get("/graphql", headers={"host": "attacker.example"})
    assert refused.status_code == graphql.status_code and refused.status_code >= 400


async def test_the_explorer_is_off_unless_enabled(neo4j_uri: str) -> None:
    settings = settings_for(neo4j_uri, GRAPHQL_INTROSPECTION="true")
    assert settings.explorer_enabled is False
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            assert (await client.get("/explore")).status_code == 404
            assert (await client.get("/explore/assets/index.js")).status_code == 404


def test_an_enabled_explorer_that_is_not_built_stops_start_up_with_the_fix(
    tmp_path: Path,
) -> None:
    with pytest.raises(SettingsError, match="make setup"):
        check_built(tmp_path)
    explorer_built()
    assert missing_build() is None
    check_built()  # built: no error
