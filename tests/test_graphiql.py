"""GraphiQL served from local assets (contract §11), under a strict Content-Security-Policy, only
when enabled; and a real browser using it offline: headless Debian Chromium with every
non-loopback host blocked runs an entity search with evidence through the page. The
screenshot lands in `test-output/graphiql.png`."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from api.app import create_app
from api.graphiql import ASSETS
from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION
from tests.conftest import settings_for_tests as settings_for
from tests.support.graph_builder import GraphBuilder
from tests.support.node_tools import REPOSITORY, WEB_DIR, chromium, npm_packages, run_script
from tests.support.serving import Served, served_service

OUTPUT = REPOSITORY / "test-output"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.fixture
async def page_client(neo4j_uri: str) -> AsyncIterator[httpx.AsyncClient]:
    npm_packages(WEB_DIR)
    app = create_app(settings_for(neo4j_uri, GRAPHIQL_ENABLED="true"))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client


async def test_a_browser_gets_graphiql_from_local_assets_under_a_strict_policy(
    page_client: httpx.AsyncClient,
) -> None:
    page = await page_client.get("/graphql", headers={"accept": BROWSER})
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy and "http" not in policy
    assert "<script>" not in page.text and "<style" not in page.text  # nothing inline
    assert not re.search(r"(src|href)=\"(https?:)?//", page.text)  # nothing from another host
    referenced = re.findall(r"(?:src|href)=\"graphiql/assets/([^\"]+)\"", page.text)
    assert sorted(referenced) == sorted(ASSETS)
    for name in referenced:
        asset = await page_client.get(f"/graphiql/assets/{name}")
        assert asset.status_code == 200, name
        assert asset.headers["content-type"].startswith(("text/javascript", "text/css")), name


async def test_only_the_named_assets_are_served(page_client: httpx.AsyncClient) -> None:
    for name in ("package.json", "graphiql.min.js.map", "..%2Fpackage.json", "graphiql.html"):
        assert (await page_client.get(f"/graphiql/assets/{name}")).status_code == 404, name


async def test_the_page_and_assets_need_no_credentials_but_operations_do(
    page_client: httpx.AsyncClient,
) -> None:
    class Refuse:
        def authenticate(self, authorization: str | None) -> None:
            from contract.errors import Unauthenticated

            raise Unauthenticated("Credentials are required.")

    page_client.app.state.services.authenticator = Refuse()  # type: ignore[attr-defined]
    assert (await page_client.get("/graphql", headers={"accept": BROWSER})).status_code == 200
    assert (await page_client.get("/graphiql/assets/graphiql-start.js")).status_code == 200
    operation = await page_client.post(
        "/graphql",
        json={"query": "{ __typename }"},
        headers={"accept": "application/graphql-response+json"},
    )
    assert operation.status_code == 401


async def test_disabled_graphiql_answers_a_browser_with_406_and_serves_no_assets(
    neo4j_uri: str,
) -> None:
    app = create_app(settings_for(neo4j_uri))  # GRAPHQL_INTROSPECTION and GRAPHIQL_ENABLED off
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            page = await client.get("/graphql", headers={"accept": BROWSER})
            assert page.status_code == 406
            assert page.headers["content-type"].startswith("text/plain")
            assert "GRAPHIQL_ENABLED" in page.text
            asset = await client.get("/graphiql/assets/graphiql.min.js")
            assert asset.status_code == 404


def test_graphiql_follows_introspection_unless_set(neo4j_uri: str) -> None:
    assert settings_for(neo4j_uri).graphiql_enabled is False
    assert settings_for(neo4j_uri, GRAPHQL_INTROSPECTION="true").graphiql_enabled is True
    assert (
        settings_for(
            neo4j_uri, GRAPHQL_INTROSPECTION="true", GRAPHIQL_ENABLED="false"
        ).graphiql_enabled
        is False
    )


# The browser ---------------------------------------------------------------------------------

OPERATION = """query SearchWithEvidence($query: String!) {
  searchEntities(query: $query, limit: 3) {
    entity { name labels }
    status
    evidence { text document { title } }
  }
}"""


@pytest.fixture(scope="module")
def service(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served_service(neo4j_uri, tmp_path_factory.mktemp("graphiql")) as served:
        yield served


async def test_graphiql_runs_a_search_with_evidence_in_a_browser_offline(
    service: Served, builder: GraphBuilder, graph: Graph
) -> None:
    chromium()
    await builder.version(
        "acme",
        [
            "Ada Lovelace wrote the first published algorithm for the Analytical Engine.",
            "Charles Babbage designed the Analytical Engine.",
        ],
        title="Notes on the Analytical Engine",
        mentions={"Ada Lovelace": [0], "Charles Babbage": [1]},
    )
    await apply_schema(graph, TEST_DIMENSION)
    OUTPUT.mkdir(exist_ok=True)
    screenshot = OUTPUT / "graphiql.png"
    screenshot.unlink(missing_ok=True)
    report = run_script(
        "graphiql-browser.mjs",
        env={
            "PAGE_URL": service.url + "/graphql",
            "OPERATION": OPERATION,
            "VARIABLES": json.dumps({"query": "Ada Lovelace"}),
            "HEADERS": json.dumps({"Authorization": "Bearer demo-token"}),
            "EXPECT": json.dumps(
                ["Ada Lovelace", "wrote the first published algorithm", "SUPPORTED"]
            ),
            "SCREENSHOT": str(screenshot),
        },
        timeout=180,
    )
    assert "failure" not in report, report
    assert report["pageStatus"] == 200 and "default-src 'self'" in report["pageCsp"]
    # Nothing but loopback was even attempted, and nothing broke the policy.
    assert report["blocked"] == [], report["blocked"]
    assert all(entry.split(" ")[1].startswith("127.0.0.1:") for entry in report["requested"])
    assert report["csp"] == [] and report["pageErrors"] == [], report
    # What was typed is what the editors hold.
    assert report["typedOperation"] == OPERATION
    assert json.loads(report["typedHeaders"]) == {"Authorization": "Bearer demo-token"}
    # The search went out with the header the user set.
    searches = [r for r in report["graphqlRequests"] if r["operationName"] == "SearchWithEvidence"]
    assert len(searches) == 1, report["graphqlRequests"]
    assert searches[0]["authorization"] == "Bearer demo-token"
    assert "application/json" in searches[0]["accept"]  # GraphiQL 3 asks for JSON
    result = json.loads(report["result"])
    top = result["data"]["searchEntities"][0]
    assert top["entity"]["name"] == "Ada Lovelace"
    assert top["evidence"][0]["document"]["title"] == "Notes on the Analytical Engine"
    assert screenshot.stat().st_size > 10_000
