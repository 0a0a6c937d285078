"""`evidencegraph demo` (contract §11): the README's first command brings up the demo data behind
GraphiQL, and the two example queries it prints answer with evidence, as printed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from commands.demo_command import DEMO_DATA
from commands.demo_examples import search_query, walk_query, walk_start
from contract.identifiers import workspace_id
from graph.driver import Graph
from ingest.graphrag import read_graphrag
from tests.conftest import TEST_DIMENSION
from tests.support.node_tools import REPOSITORY, WEB_DIR, explorer_built, npm_packages
from tests.support.serving import served_process

# The id Dulce's entities table gives him, made workspace demo's as the load makes it.
ALEX_MERCER = workspace_id("demo", "bbb2ad85-3d0b-4c26-b6f9-71ed76ee64bd", "entity")


def test_the_walk_starts_from_alex_mercer_of_the_demo_data() -> None:
    assert walk_start(read_graphrag(DEMO_DATA, "demo").versions) == ALEX_MERCER


def test_the_readme_shows_the_example_queries_the_demo_prints() -> None:
    readme = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    assert search_query() in readme
    assert walk_query(ALEX_MERCER) in readme


async def test_demo_serves_the_demo_data_and_its_printed_queries_answer_with_evidence(
    graph: Graph, neo4j_uri: str, tmp_path: Path
) -> None:
    npm_packages(WEB_DIR)  # GraphiQL's files, which the demo serves
    explorer_built()  # and the explorer
    environment = {
        "NEO4J_URI": neo4j_uri,
        "EMBEDDER": "hash",  # the demo's default is minilm; the test's data is small either way
        "EMBEDDER_DIM": str(TEST_DIMENSION),
    }
    command = [sys.executable, "-m", "commands.main", "demo", "--port", "{port}"]
    with served_process(
        command,
        name="demo",
        cwd=REPOSITORY,
        env=environment,
        probe_path="/healthz",
        log_dir=tmp_path,
    ) as served:
        url = f"{served.url}/graphql"
        printed = served.log.read_text()
        assert f"GraphiQL: {url}" in printed, printed
        assert f"Explorer: {served.url}/explore" in printed, printed
        for query in (search_query(), walk_query(ALEX_MERCER)):
            assert query in printed
        async with httpx.AsyncClient(timeout=30) as client:
            page = await client.get(url, headers={"accept": "text/html"})
            explorer = await client.get(f"{served.url}/explore")
            search = (await client.post(url, json={"query": search_query()})).json()
            walk = (await client.post(url, json={"query": walk_query(ALEX_MERCER)})).json()
        # The curl lines send the same operations.
        curl = [line for line in printed.splitlines() if line.startswith("curl -s ")]
        assert [json.loads(line.split(" -d ")[1].strip("'"))["query"] for line in curl] == [
            " ".join(search_query().split()),
            " ".join(walk_query(ALEX_MERCER).split()),
        ]
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    assert explorer.status_code == 200 and "Evidence explorer" in explorer.text
    assert "errors" not in search and "errors" not in walk, (search, walk)
    hits = search["data"]["searchEntities"]
    assert hits and all(h["status"] == "SUPPORTED" and h["evidence"] for h in hits), hits
    assert all(h["evidence"][0]["document"]["workspace"] == "demo" for h in hits)
    edges = walk["data"]["walk"]["edges"]
    assert walk["data"]["walk"]["start"]["name"] == "ALEX MERCER"
    assert len(edges) == 5 and all(e["kind"] == "ASSERTION" and e["evidence"] for e in edges)


def test_demo_refuses_a_port_in_use(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "commands.main", "demo", "--port", str(port)],
            cwd=REPOSITORY,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    assert f"port {port} on 127.0.0.1 is in use; choose another with --port" in done.stderr
