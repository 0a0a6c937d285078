"""SIGTERM stops `evidencegraph serve` gracefully (docs/operations.md): the request in flight is
answered, new connections are refused, the lifespan closes the driver after it, and the
process exits 0.

The request is held in flight by the embedder: an OpenAI-compatible endpoint of the test's
own that answers only when the test says so. Every step waits for an event (the embedding
call arriving, a log line), never for a fixed time.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from embedding.hashing import HashEmbedder
from graph.driver import Graph
from tests.conftest import TEST_DIMENSION
from tests.support.graph_builder import GraphBuilder
from tests.support.operations_app import SEARCH, three_people
from tests.support.serving import LOOPBACK, PROCESS_WAIT, free_port, log_messages, wait_for

WAIT = PROCESS_WAIT


class HeldEmbedder:
    """An `/v1/embeddings` endpoint that signals each call and answers once released."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.release = threading.Event()
        held = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                held.arrived.set()
                held.release.wait(WAIT)
                vectors = HashEmbedder(TEST_DIMENSION).embed(body["input"])
                data = [{"index": i, "embedding": v} for i, v in enumerate(vectors)]
                reply = json.dumps({"data": data, "model": body["model"]}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((LOOPBACK, 0), Handler)
        self.url = f"http://{LOOPBACK}:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def held_embedder() -> Iterator[HeldEmbedder]:
    endpoint = HeldEmbedder()
    yield endpoint
    endpoint.close()


def listening(url: str) -> bool:
    try:
        httpx.get(f"{url}/healthz", timeout=2.0)
        return True
    except httpx.TransportError:
        return False


def serve_search_and_stop(
    neo4j_uri: str, held_embedder: HeldEmbedder, log: Path
) -> tuple[httpx.Response, int]:
    """Serve, start a search, SIGTERM while it is in flight, let it finish: its answer and
    the exit code."""
    port = free_port()
    url = f"http://{LOOPBACK}:{port}"
    environ = {
        **os.environ,
        "NEO4J_URI": neo4j_uri,
        "EMBEDDER": "openai",
        "EMBEDDER_URL": held_embedder.url,
        "EMBEDDER_MODEL": "held",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
        "AUTH_MODE": "none",
        "LOG_FORMAT": "json",
        "NEO4J_QUERY_TIMEOUT_SECONDS": "300",
        "REQUEST_TIMEOUT_SECONDS": "300",
    }
    command = [str(Path(sys.executable).parent / "evidencegraph"), "serve", "--port", str(port)]
    with log.open("wb") as output:
        process = subprocess.Popen(command, env=environ, stdout=output, stderr=output)
    try:
        wait_for(lambda: listening(url), "answer on /healthz", log)
        answers: list[httpx.Response] = []
        request = threading.Thread(
            target=lambda: answers.append(
                httpx.post(
                    f"{url}/graphql",
                    json={"query": SEARCH, "variables": {"query": "ada lovelace"}},
                    timeout=WAIT * 2,
                )
            )
        )
        request.start()
        assert held_embedder.arrived.wait(WAIT), log.read_text()[-4000:]

        process.send_signal(signal.SIGTERM)
        wait_for(
            lambda: any("Waiting for connections to close" in m for m in log_messages(log)),
            "sign that uvicorn waits for the request in flight",
            log,
        )
        assert not listening(url)  # no new connection is taken meanwhile
        assert process.poll() is None

        held_embedder.release.set()
        request.join(WAIT)
        returncode = process.wait(WAIT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    [answer] = answers
    return answer, returncode


async def test_sigterm_finishes_the_request_in_flight_then_the_process_exits_0(
    neo4j_uri: str,
    builder: GraphBuilder,
    graph: Graph,
    held_embedder: HeldEmbedder,
    tmp_path: Path,
) -> None:
    await three_people(builder, graph)
    log = tmp_path / "serve.log"
    answer, returncode = await asyncio.to_thread(
        serve_search_and_stop, neo4j_uri, held_embedder, log
    )
    assert returncode == 0, log.read_text()[-4000:]
    assert answer.status_code == 200
    body = answer.json()
    assert "errors" not in body, body
    assert "Ada Lovelace" in [hit["entity"]["name"] for hit in body["data"]["searchEntities"]]
    messages = log_messages(log)
    # The request was answered and logged before the lifespan closed the driver.
    assert messages.index("request") < messages.index("Application shutdown complete.")
    assert any(m.startswith("Finished server process") for m in messages)
