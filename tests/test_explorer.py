"""The evidence explorer's page and files (api/explorer.py, docs/explorer.md): served at
`/explore` from the build only when EXPLORER_ENABLED is on, under a strict Content-Security-Policy,
with no credentials needed for the page (its GraphQL calls need them), and behind the same
loopback Host check as `/graphql`; and its trusted documents, the manifest its build writes."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    parse,
    print_ast,
)

from api.app import create_app
from api.explorer import EXPLORER_DIR, check_built, missing_build
from api.front_door.persisted_queries import sha256_hex
from api.front_door.trusted_documents import MANIFEST_NAME, load_manifest
from api.settings import SettingsError
from contract.errors import Unauthenticated
from retrieval.stop_words import STOP_WORDS
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
    # The script, the style sheet, and the favicon (issue 40 §4: "The favicon is served").
    assert {name.rsplit(".", 1)[1] for name in referenced} == {"js", "css", "svg"}
    assert re.search(r'<link rel="icon" type="image/svg\+xml" href="/explore/assets/', page.text)
    for path in referenced:
        asset = await explorer_client.get(path)
        assert asset.status_code == 200, path
        types = ("text/javascript", "text/css", "image/svg+xml")
        assert asset.headers["content-type"].startswith(types), path


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


def spread_names(selections: SelectionSetNode | None) -> set[str]:
    """The fragments a selection set spreads, at any depth (not through the fragments)."""
    names: set[str] = set()
    for selection in selections.selections if selections is not None else ():
        if isinstance(selection, FragmentSpreadNode):
            names.add(selection.name.value)
        elif isinstance(selection, FieldNode | InlineFragmentNode):
            names |= spread_names(selection.selection_set)
    return names


def operations_with_their_fragments(folder: Path) -> dict[str, list[str]]:
    """Each operation of `folder`'s *.graphql → its definition and every fragment it uses,
    printed by graphql-core and sorted: the document it is sent as, in any printer's layout."""
    sources = parse("\n".join(path.read_text() for path in sorted(folder.glob("*.graphql"))))
    fragments = {
        d.name.value: d for d in sources.definitions if isinstance(d, FragmentDefinitionNode)
    }
    documents = {}
    for definition in sources.definitions:
        if not isinstance(definition, OperationDefinitionNode) or definition.name is None:
            continue
        used, todo = set(), spread_names(definition.selection_set)
        while todo:
            name = todo.pop()
            used.add(name)
            todo |= spread_names(fragments[name].selection_set) - used
        definitions = [definition, *(fragments[name] for name in used)]
        documents[definition.name.value] = sorted(print_ast(d) for d in definitions)
    return documents


def test_the_explorer_manifest_covers_every_operation_and_each_id_is_its_body_hash() -> None:
    """explorer/persisted-query-manifest.json, written by the build
    (explorer/scripts/persisted-manifest.mjs), is the explorer's operations as they stand in
    src/operations/, each id the SHA-256 of its body; and the hashes the page sends
    (src/gql/persisted.ts) are its ids. Fails when a document changes and the explorer is not
    built again."""
    manifest_path = EXPLORER_DIR / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text())
    assert (manifest["format"], manifest["version"]) == ("apollo-persisted-query-manifest", 1)
    shipped = {operation["name"]: operation for operation in manifest["operations"]}
    assert len(shipped) == len(manifest["operations"])
    for operation in shipped.values():
        assert operation["id"] == sha256_hex(operation["body"]), operation["name"]
    assert len(load_manifest(manifest_path)) == len(shipped)  # as the service reads it

    expected = operations_with_their_fragments(EXPLORER_DIR / "src" / "operations")
    assert sorted(shipped) == sorted(expected), "build the explorer again: npm run build"
    for name, operation in shipped.items():
        body = parse(operation["body"])
        printed = sorted(print_ast(definition) for definition in body.definitions)
        assert printed == expected[name], f"{name} is stale: build the explorer again"
        assert operation["type"] == "query"

    bundled = (EXPLORER_DIR / "src" / "gql" / "persisted.ts").read_text()
    hashes = dict(re.findall(r'^  (\w+): "([0-9a-f]{64})",$', bundled, re.MULTILINE))
    assert hashes == {name: operation["id"] for name, operation in shipped.items()}


def test_the_page_leaves_out_the_same_function_words_as_the_search() -> None:
    """The page marks a query's words as the lexical search reads them (issue 40 §1, "The query
    highlighter marks fragments"): src/words.ts keeps its own copy of the function words, which
    must be retrieval/stop_words.py's, word for word."""
    source = (EXPLORER_DIR / "src" / "words.ts").read_text()
    block = re.search(r"const FUNCTION_WORDS = `([^`]*)`", source)
    assert block is not None
    assert frozenset(block.group(1).split()) == STOP_WORDS
