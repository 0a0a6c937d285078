"""The OpenAI-compatible client against a real HTTP server on 127.0.0.1 playing the endpoint.

The fake answers from a script (429, 500, wrong dimensions, ...) and otherwise like a
well-behaved server, with its `data` in reverse order so the client must use `index`.
Waits between retries go to a recorder instead of the clock.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from contract.errors import BackendUnavailable
from embedding.base import EmbedderConfigError, EmbedderRequestError
from embedding.hashing import HashEmbedder
from embedding.openai_compatible import (
    OpenAICompatibleEmbedder,
    endpoint_for,
    retry_after_seconds,
)

DIMENSION = 12
KEY = "sk-test-not-a-real-key-5f2c"
SECRET = "hunter2-in-the-url"


@dataclass
class Reply:
    status: int
    body: Any = None  # JSON-encoded unless bytes
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeEndpoint:
    """An embeddings server on 127.0.0.1: scripted replies first, then good answers."""

    def __init__(self) -> None:
        self.script: list[Reply] = []
        self.received: list[Received] = []
        self.dimension = DIMENSION
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                endpoint.received.append(Received(self.path, dict(self.headers), body))
                reply = endpoint.script.pop(0) if endpoint.script else endpoint.good(body)
                time.sleep(reply.delay)
                raw = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body)
                payload = raw if isinstance(raw, bytes) else raw.encode()
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output quiet

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def expected(self, texts: list[str]) -> list[list[float]]:
        return HashEmbedder(self.dimension).embed(texts)

    def good(self, body: dict[str, Any]) -> Reply:
        vectors = HashEmbedder(self.dimension).embed(body["input"])
        data = [
            # Scaled by 3: the client must normalise what it gets.
            {"object": "embedding", "index": i, "embedding": [3 * x for x in vector]}
            for i, vector in enumerate(vectors)
        ]
        return Reply(200, {"object": "list", "data": data[::-1], "model": body["model"]})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    server = FakeEndpoint()
    yield server
    server.close()


class Waits(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client(endpoint: FakeEndpoint, waits: Waits, **options: Any) -> OpenAICompatibleEmbedder:
    settings: dict[str, Any] = {
        "url": endpoint.base + "/v1",
        "model": "fake-embed",
        "dimension": DIMENSION,
        "sleep": waits,
        "backoff": 0.1,
    }
    return OpenAICompatibleEmbedder(**(settings | options))


def test_vectors_follow_input_order_and_are_normalised(endpoint: FakeEndpoint) -> None:
    texts = ["alpha beta", "gamma", "delta epsilon zeta", ""]
    with_client = client(endpoint, Waits())
    got = with_client.embed(texts)
    assert np.allclose(got, endpoint.expected(texts), atol=1e-6)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0)
    request = endpoint.received[0]
    assert request.path == "/v1/embeddings"
    assert request.body == {"model": "fake-embed", "input": texts}
    with_client.close()


def test_batches_of_batch_size(endpoint: FakeEndpoint) -> None:
    texts = [f"text number {i}" for i in range(150)]
    got = client(endpoint, Waits(), batch_size=64).embed(texts)
    assert [len(r.body["input"]) for r in endpoint.received] == [64, 64, 22]
    assert np.allclose(got, endpoint.expected(texts), atol=1e-6)
    assert client(endpoint, Waits()).embed([]) == []


def test_key_is_sent_as_bearer_only_when_set(endpoint: FakeEndpoint) -> None:
    client(endpoint, Waits(), api_key=KEY).embed(["a"])
    client(endpoint, Waits()).embed(["b"])
    assert endpoint.received[0].headers["Authorization"] == f"Bearer {KEY}"
    assert "Authorization" not in endpoint.received[1].headers


def test_429_is_retried_after_the_servers_retry_after(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(429, {"error": "slow down"}, {"Retry-After": "2"})]
    waits = Waits()
    assert len(client(endpoint, waits).embed(["a", "b"])) == 2
    assert waits == [2.0]
    assert len(endpoint.received) == 2


def test_5xx_is_retried_with_growing_jittered_backoff(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(500, {}), Reply(503, {}), Reply(502, b"<html>bad gateway</html>")]
    waits = Waits()
    client(endpoint, waits, backoff=0.1).embed(["a"])
    assert len(waits) == 3
    for attempt, wait in enumerate(waits):
        bound = 0.1 * 2**attempt
        assert bound / 2 <= wait <= bound


def test_gives_up_with_a_client_safe_error(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(503, {})] * 10
    waits = Waits()
    url = endpoint.base.replace("http://", f"http://user:{SECRET}@") + "/v1"
    with pytest.raises(BackendUnavailable) as raised:
        client(endpoint, waits, url=url, api_key=KEY, attempts=3).embed(["a"])
    assert len(endpoint.received) == 3
    assert len(waits) == 2
    message = raised.value.message
    assert "HTTP 503 after 3 attempts" in message
    for leak in (KEY, SECRET, "127.0.0.1", "http"):
        assert leak not in message


def test_unreachable_endpoint_is_unavailable() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    waits = Waits()
    embedder = OpenAICompatibleEmbedder(
        url=f"http://127.0.0.1:{port}", model="m", dimension=4, attempts=2, sleep=waits
    )
    with pytest.raises(BackendUnavailable, match="ConnectError after 2 attempts"):
        embedder.embed(["a"])
    assert len(waits) == 1


def test_slow_answer_times_out_and_is_retried(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(200, {}, delay=1.0)]
    waits = Waits()
    got = client(endpoint, waits, timeout=0.2).embed(["a"])
    assert np.allclose(got, endpoint.expected(["a"]), atol=1e-6)
    assert len(waits) == 1


@pytest.mark.parametrize("status", [401, 403])
def test_refused_key_names_the_setting_and_is_not_retried(
    endpoint: FakeEndpoint, status: int
) -> None:
    endpoint.script = [Reply(status, {"error": {"message": "Incorrect API key"}})]
    with pytest.raises(EmbedderConfigError, match=r"refused the key.*EMBEDDER_API_KEY") as raised:
        client(endpoint, Waits(), api_key=KEY).embed(["a"])
    assert KEY not in str(raised.value)
    assert len(endpoint.received) == 1


def test_404_says_the_url_or_model_is_wrong(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(404, {"error": "model not found"})]
    with pytest.raises(EmbedderConfigError, match=r"404.*EMBEDDER_URL.*EMBEDDER_MODEL"):
        client(endpoint, Waits()).embed(["a"])


def test_other_dimension_names_the_setting(endpoint: FakeEndpoint) -> None:
    endpoint.dimension = 7  # the server's model makes 7 numbers; the client expects 12
    with pytest.raises(EmbedderConfigError, match=r"7-dimensional.*EMBEDDER_DIM is 12.*=7"):
        client(endpoint, Waits()).embed(["a", "b"])


def test_other_client_errors_are_not_retried(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(413, {"error": "input is too long: 9000 tokens"})]
    with pytest.raises(EmbedderRequestError, match=r"HTTP 413.*input is too long"):
        client(endpoint, Waits()).embed(["a"])
    assert len(endpoint.received) == 1


@pytest.mark.parametrize(
    "body",
    [
        b"<html>hello</html>",
        {"data": [{"index": 0, "embedding": [0.1] * DIMENSION}]},  # one vector for two inputs
        {"data": [{"index": 0, "embedding": "AAAA"}, {"index": 1, "embedding": "AAAA"}]},
        {"data": [{"index": i, "embedding": ["x"] * DIMENSION} for i in range(2)]},
        {"result": []},
    ],
)
def test_answers_that_are_not_embeddings_are_request_errors(
    endpoint: FakeEndpoint, body: Any
) -> None:
    endpoint.script = [Reply(200, body)]
    with pytest.raises(EmbedderRequestError):
        client(endpoint, Waits()).embed(["a", "b"])


@pytest.mark.parametrize(
    ("url", "route"),
    [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/embeddings"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1/embeddings"),
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/embeddings"),
        ("http://127.0.0.1:8080/v1/embeddings", "http://127.0.0.1:8080/v1/embeddings"),
        ("https://localhost/proxy/openai/v1/", "https://localhost/proxy/openai/v1/embeddings"),
    ],
)
def test_url_may_name_the_server_its_v1_or_the_route(url: str, route: str) -> None:
    assert str(endpoint_for(url)) == route


@pytest.mark.parametrize("url", ["", "127.0.0.1:8080", "ftp://127.0.0.1/v1", "http://"])
def test_bad_urls_name_the_setting(url: str) -> None:
    with pytest.raises(EmbedderConfigError, match="EMBEDDER_URL"):
        OpenAICompatibleEmbedder(url=url, model="m", dimension=4)


def test_repr_hides_credentials() -> None:
    embedder = OpenAICompatibleEmbedder(
        url=f"http://me:{SECRET}@127.0.0.1:9/v1?token={SECRET}",
        model="m",
        dimension=4,
        api_key=KEY,
    )
    assert repr(embedder) == (
        "OpenAICompatibleEmbedder(openai m (4 dimensions) at http://127.0.0.1:9/v1/embeddings)"
    )
    embedder.close()


def test_retry_after_as_seconds_or_http_date() -> None:
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds("-1") == 0.0
    assert retry_after_seconds("soon") is None
    in_ten = retry_after_seconds(formatdate(time.time() + 10, usegmt=True))
    assert in_ten is not None and 8 <= in_ten <= 10
