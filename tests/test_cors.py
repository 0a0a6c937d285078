"""CORS at `/graphql` (api/cors.py, docs/security.md): the origins in `CORS_ALLOW_ORIGINS`, and
only they, may call the API from a browser with a bearer token; unset, no CORS header at all.

In process: the preflight and actual answers, header by header. In a real browser: headless
Debian Chromium opens a page served from another loopback port, whose script calls
`evidencegraph serve` with `fetch()`: from the listed origin it reads data, from another port
(another origin) `fetch()` rejects, and the service's request log shows Chromium's own
preflights (one, cached, for the allowed page; refused for the other, whose requests never
leave the browser).
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from api.cors import ALLOWED_HEADERS, EXPOSED_HEADERS, MAX_AGE_SECONDS
from api.settings import Settings, SettingsError
from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support.graph_builder import GraphBuilder
from tests.support.node_tools import REPOSITORY, chromium, run_script
from tests.support.serving import LOOPBACK, served_process

APP = "http://127.0.0.1:5173"  # the web app's origin the tests allow
OTHER = "http://127.0.0.1:5174"  # another port: another origin
KEY = "acme-web-app-3c5e7a9b1d2f4a6c8e0b"
TYPENAME = {"query": "{ __typename }"}


@pytest.fixture
def keys_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({KEY: ["acme"]}))
    return path


def serving_apikeys(
    neo4j_uri: str, graph: Graph, keys_file: Path, **settings: str
) -> AbstractAsyncContextManager[Client]:
    """The app in process with `AUTH_MODE=apikeys` (the key `KEY`) and `settings`."""
    return serving(
        neo4j_uri, graph, AUTH_MODE="apikeys", AUTH_API_KEYS_FILE=str(keys_file), **settings
    )


def cors_headers(headers: Any) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name.startswith("access-control-")}


def preflight_from(
    origin: str, method: str = "POST", headers: str = "authorization,content-type"
) -> dict[str, str]:
    return {
        "origin": origin,
        "access-control-request-method": method,
        "access-control-request-headers": headers,
    }


# In process ----------------------------------------------------------------------------------


async def test_a_preflight_from_a_listed_origin_is_answered_with_the_rule(
    neo4j_uri: str, graph: Graph, keys_file: Path
) -> None:
    async with serving_apikeys(
        neo4j_uri, graph, keys_file, CORS_ALLOW_ORIGINS=f"https://app.example.com,{APP}"
    ) as client:
        answer = await client.http.options("/graphql", headers=preflight_from(APP))
        assert answer.status_code == 204, answer.text
        assert cors_headers(answer.headers) == {
            "access-control-allow-origin": APP,
            "access-control-allow-methods": "GET, POST",
            "access-control-allow-headers": ", ".join(ALLOWED_HEADERS),
            "access-control-max-age": str(MAX_AGE_SECONDS),
        }
        assert "access-control-allow-credentials" not in answer.headers
        assert "Origin" in answer.headers["vary"]
        # GET too, and the request id a web app may send.
        get = preflight_from(APP, "GET", "Authorization, X-Request-Id")
        assert (await client.http.options("/graphql", headers=get)).status_code == 204


@pytest.mark.parametrize(
    "origin, method, headers, refused",
    [
        (OTHER, "POST", "authorization,content-type", "origin 'http://127.0.0.1:5174'"),
        ("https://app.example.com.evil.test", "POST", "content-type", "origin"),
        ("null", "POST", "content-type", "origin 'null'"),
        (APP, "DELETE", "authorization", "method 'DELETE'"),
        (APP, "POST", "authorization,x-gateway-token", "headers ['x-gateway-token']"),
    ],
)
async def test_any_other_preflight_is_refused_with_no_allow_header(
    neo4j_uri: str,
    graph: Graph,
    keys_file: Path,
    origin: str,
    method: str,
    headers: str,
    refused: str,
) -> None:
    async with serving_apikeys(
        neo4j_uri, graph, keys_file, CORS_ALLOW_ORIGINS=f"https://app.example.com,{APP}"
    ) as client:
        answer = await client.http.options(
            "/graphql", headers=preflight_from(origin, method, headers)
        )
        assert answer.status_code == 400
        assert refused in answer.text, answer.text
        assert cors_headers(answer.headers) == {}


async def test_an_actual_request_from_a_listed_origin_gets_the_echo_and_a_token_decides(
    neo4j_uri: str, graph: Graph, keys_file: Path
) -> None:
    async with serving_apikeys(neo4j_uri, graph, keys_file, CORS_ALLOW_ORIGINS=APP) as client:
        answer = await client.http.post(
            "/graphql",
            json=TYPENAME,
            headers={"origin": APP, "authorization": f"Bearer {KEY}"},
        )
        assert answer.status_code == 200 and answer.json()["data"] == {"__typename": "Query"}
        assert cors_headers(answer.headers) == {
            "access-control-allow-origin": APP,
            "access-control-expose-headers": ", ".join(EXPOSED_HEADERS),
        }
        assert answer.headers["vary"] == "Origin"
        # A refusal is readable by the page too: it learns it needs a token.
        refused = await client.http.post(
            "/graphql",
            json=TYPENAME,
            headers={"origin": APP, "accept": "application/graphql-response+json"},
        )
        assert refused.status_code == 401
        assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert refused.headers["access-control-allow-origin"] == APP


async def test_another_origin_gets_no_cors_header_and_other_paths_none_at_all(
    neo4j_uri: str, graph: Graph, keys_file: Path
) -> None:
    async with serving_apikeys(neo4j_uri, graph, keys_file, CORS_ALLOW_ORIGINS=APP) as client:
        bearer = {"authorization": f"Bearer {KEY}"}
        other = await client.http.post(
            "/graphql", json=TYPENAME, headers={"origin": OTHER, **bearer}
        )
        assert other.status_code == 200  # answered; the browser withholds it from the page
        assert cors_headers(other.headers) == {}
        assert other.headers["vary"] == "Origin"
        no_origin = await client.http.post("/graphql", json=TYPENAME, headers=bearer)
        assert cors_headers(no_origin.headers) == {} and no_origin.headers["vary"] == "Origin"
        health = await client.http.get("/healthz", headers={"origin": APP})
        assert cors_headers(health.headers) == {} and "vary" not in health.headers


async def test_unset_means_no_cors_header_and_no_preflight_answer(
    neo4j_uri: str, graph: Graph, keys_file: Path
) -> None:
    async with serving_apikeys(neo4j_uri, graph, keys_file) as client:
        preflight = await client.http.options("/graphql", headers=preflight_from(APP))
        assert preflight.status_code == 405 and cors_headers(preflight.headers) == {}
        answer = await client.http.post(
            "/graphql", json=TYPENAME, headers={"origin": APP, "authorization": f"Bearer {KEY}"}
        )
        assert answer.status_code == 200
        assert cors_headers(answer.headers) == {} and "vary" not in answer.headers


@pytest.mark.parametrize(
    "value",
    [
        "*",
        "https://*.example.com",
        "https://app.example.com/",
        "https://app.example.com/app",
        "app.example.com",
        "null",
        "ftp://app.example.com",
        "https://App.Example.com",
        "https://app.example.com:443",
        "http://app.example.com:80",
        "https://app.example.com:port",
        "https://user@app.example.com",
        "https://app.example.com?x",
        "https://app.example.com,*",
    ],
)
def test_anything_but_exact_origins_stops_start_up_naming_the_setting(value: str) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_environ({"CORS_ALLOW_ORIGINS": value})
    assert "CORS_ALLOW_ORIGINS" in str(refused.value)


def test_exact_origins_are_accepted() -> None:
    value = "https://app.example.com, http://127.0.0.1:5173,http://[::1]:8080,https://a-b.test:8443"
    assert Settings.from_environ({"CORS_ALLOW_ORIGINS": value}).cors_allow_origins == (
        "https://app.example.com",
        "http://127.0.0.1:5173",
        "http://[::1]:8080",
        "https://a-b.test:8443",
    )


# In Chromium ---------------------------------------------------------------------------------

PAGE = """<!doctype html>
<title>A web app on another origin</title>
<script>
const params = new URLSearchParams(location.search);
const query = `query Search($query: String!) {
  searchEntities(query: $query, limit: 3) { entity { name } status }
}`;
async function call(headers) {
  try {
    const response = await fetch(params.get("service") + "/graphql", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/graphql-response+json",
        ...headers,
      },
      body: JSON.stringify({ query, variables: { query: "Ada Lovelace" } }),
    });
    return {
      status: response.status,
      requestId: response.headers.get("x-request-id"),
      body: await response.json(),
    };
  } catch (error) {
    return { error: `${error.name}: ${error.message}` };
  }
}
const bearer = { Authorization: "Bearer " + params.get("token") };
window.__report = (async () => ({
  withToken: await call(bearer),
  again: await call(bearer),
  withoutToken: await call({}),
}))();
</script>
"""


class _PageHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def page_server() -> Iterator[str]:
    """The page, served from 127.0.0.1 on a port of its own; yields its origin."""
    server = ThreadingHTTPServer((LOOPBACK, 0), _PageHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{LOOPBACK}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def graphql_requests(log: Path) -> list[tuple[str, int]]:
    """(method, status) of every `/graphql` request in the service's JSON request log."""
    lines = []
    for line in log.read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("event") == "request" and entry.get("path") == "/graphql":
            lines.append((entry["method"], entry["status"]))
    return lines


async def test_chromium_on_another_origin_reads_with_a_token_only_when_allowed(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph, tmp_path: Path, keys_file: Path
) -> None:
    chromium()
    await builder.version(
        "acme",
        ["Ada Lovelace wrote the first published algorithm for the Analytical Engine."],
        title="Notes on the Analytical Engine",
        mentions={"Ada Lovelace": [0]},
    )
    await apply_schema(graph, TEST_DIMENSION)
    with page_server() as allowed, page_server() as other:
        environment = {
            "NEO4J_URI": neo4j_uri,
            "EMBEDDER": "hash",
            "EMBEDDER_DIM": str(TEST_DIMENSION),
            "AUTH_MODE": "apikeys",
            "AUTH_API_KEYS_FILE": str(keys_file),
            "CORS_ALLOW_ORIGINS": allowed,
            "LOG_FORMAT": "json",
            # The machine may be busy; what is tested here is not how fast a search is.
            "NEO4J_QUERY_TIMEOUT_SECONDS": "120",
            "REQUEST_TIMEOUT_SECONDS": "150",
        }
        command = [str(Path(sys.executable).parent / "evidencegraph"), "serve", "--port", "{port}"]
        with served_process(
            command,
            name="evidencegraph",
            cwd=REPOSITORY,
            env=environment,
            probe_path="/healthz",
            log_dir=tmp_path,
        ) as service:
            query = urlencode({"service": service.url, "token": KEY})
            result = run_script(
                "cors-browser.mjs",
                env={"PAGES": json.dumps([f"{allowed}/?{query}", f"{other}/?{query}"])},
                timeout=180,
            )
            requests = graphql_requests(service.log)
            service_log = service.log.read_text()[-4000:]
    assert "failure" not in result, result
    allowed_page, other_page = result["pages"]
    assert allowed_page["pageErrors"] == [] and other_page["pageErrors"] == []

    # The listed origin: data with the token, in its scope; the refusal readable without it.
    report = allowed_page["report"]
    for call in (report["withToken"], report["again"]):
        assert call["status"] == 200, report
        hits = (call["body"].get("data") or {}).get("searchEntities")
        assert hits and hits[0] == {"entity": {"name": "Ada Lovelace"}, "status": "SUPPORTED"}, (
            call,
            service_log,
        )
        assert call["requestId"]  # an exposed header
    assert report["withoutToken"]["status"] == 401
    assert report["withoutToken"]["body"]["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"

    # Another port is another origin: every call rejects, and Chromium says why.
    for call in other_page["report"].values():
        assert call == {"error": "TypeError: Failed to fetch"}, other_page
    assert any("CORS policy" in line for line in other_page["console"]), other_page["console"]

    # The service's side: one preflight for the allowed page, reused for its three calls
    # (Access-Control-Max-Age); the other page's preflights refused, and nothing else sent.
    one_preflight = [("OPTIONS", 204), ("POST", 200), ("POST", 200), ("POST", 401)]
    assert requests[:4] == one_preflight, requests
    assert requests[4:] and set(requests[4:]) == {("OPTIONS", 400)}, requests
