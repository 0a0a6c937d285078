"""The MCP Inspector's CLI (`@modelcontextprotocol/inspector`, pinned in tests/node/) against
`/mcp` of `evidencegraph serve` over the demo data, loaded as `evidencegraph demo` loads it: it
lists the tools and an agent-style exchange (search_entities → get_entity → walk →
describe_graph → a depth-2 walk, then its cursor) answers with evidence from the demo data. The
transcript it writes is the one docs/mcp.md shows."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from api.settings import Settings
from commands.demo_command import load_demo
from contract.identifiers import workspace_id
from graph.driver import Graph
from tests.conftest import TEST_DIMENSION
from tests.support.node_tools import NODE_DIR, REPOSITORY, node, npm_packages
from tests.support.serving import served_process
from tests.test_mcp import TOOLS

# The id Dulce's entities table gives him, made workspace demo's as the load makes it.
ALEX_MERCER = workspace_id("demo", "bbb2ad85-3d0b-4c26-b6f9-71ed76ee64bd", "entity")
CLI = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "inspector" / "cli" / "build" / "cli.js"


async def inspector(url: str, transcript: list[str], *arguments: str) -> dict[str, Any]:
    """Run the Inspector's CLI once; its JSON answer, also appended to `transcript` as printed."""
    command = [node(), str(CLI), "--cli", url, "--transport", "http", *arguments]
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, stderr.decode()
    printed = stdout.decode()
    transcript.append("$ mcp-inspector --cli " + " ".join(arguments[0:]) + "\n" + printed)
    answer: dict[str, Any] = json.loads(printed[printed.index("{") :])
    return answer


async def test_the_inspector_cli_lists_the_tools_and_searches_the_demo_data(
    graph: Graph, neo4j_uri: str, tmp_path: Path
) -> None:
    npm_packages(NODE_DIR)
    environment = {
        "NEO4J_URI": neo4j_uri,
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
        # What is checked is the answers, not their time; a busy 2-core machine can take more
        # than the default 10 s for a first search on a cold page cache.
        "NEO4J_QUERY_TIMEOUT_SECONDS": "120",
        # Above the statement limit, or a slow statement is cut at 30 s (503) anyway.
        "REQUEST_TIMEOUT_SECONDS": "150",
        # Small enough that a walk to depth 2 is cut, so the session follows its cursor.
        "MCP_MAX_RESULT_CHARS": "8000",
    }
    # Loaded here rather than by `demo`, so the server's start is not timed with the load.
    assert await load_demo(Settings.from_environ(environment)) == ALEX_MERCER
    command = [sys.executable, "-m", "commands.main", "serve", "--port", "{port}"]
    transcript: list[str] = []
    with served_process(
        command,
        name="serve",
        cwd=REPOSITORY,
        env=environment,
        probe_path="/healthz",
        log_dir=tmp_path,
    ) as served:
        url = f"{served.url}/mcp"
        listed = await inspector(url, transcript, "--method", "tools/list")
        found = await inspector(
            url,
            transcript,
            *("--method", "tools/call", "--tool-name", "search_entities"),
            *("--tool-arg", "query=Alex Mercer", "--tool-arg", "limit=3"),
            *("--tool-arg", "supportLimit=1"),
        )
        entity = await inspector(
            url,
            transcript,
            *("--method", "tools/call", "--tool-name", "get_entity"),
            *("--tool-arg", f"id={ALEX_MERCER}", "--tool-arg", "maxEdges=2"),
            *("--tool-arg", "supportLimit=1"),
        )
        walked = await inspector(
            url,
            transcript,
            *("--method", "tools/call", "--tool-name", "walk"),
            *("--tool-arg", f"entityId={ALEX_MERCER}", "--tool-arg", "maxEdges=2"),
        )
        shape = await inspector(
            url, transcript, *("--method", "tools/call", "--tool-name", "describe_graph")
        )
        cut = await inspector(
            url,
            transcript,
            *("--method", "tools/call", "--tool-name", "walk"),
            *("--tool-arg", f"entityId={ALEX_MERCER}", "--tool-arg", "depth=2"),
        )
        cursor = cut["structuredContent"]["nextCursor"]
        following = await inspector(
            url,
            transcript,
            *("--method", "tools/call", "--tool-name", "walk"),
            *("--tool-arg", f"entityId={ALEX_MERCER}", "--tool-arg", "depth=2"),
            *("--tool-arg", f"cursor={cursor}"),
        )
    (tmp_path / "transcript.txt").write_text("\n".join(transcript))
    assert {tool["name"] for tool in listed["tools"]} == TOOLS
    # The demo's GraphRAG relationships all load as RELATED_TO (contract §10).
    assert [t["name"] for t in shape["structuredContent"]["relationTypes"]] == ["RELATED_TO"]
    assert "RELATED_TO" in shape["content"][0]["text"]
    hits = found["structuredContent"]["hits"]
    assert hits[0]["entity"]["id"] == ALEX_MERCER and hits[0]["status"] == "SUPPORTED"
    cited = found["structuredContent"]["passages"][hits[0]["evidenceIds"][0]]
    assert found["structuredContent"]["documents"][cited["documentId"]]["workspace"] == "demo"
    assert "ALEX MERCER" in found["content"][0]["text"]
    assert entity["structuredContent"]["entity"]["name"] == "ALEX MERCER"
    # Two relations, each with its description (a claim) and evidence, fit MCP_MAX_RESULT_CHARS.
    assert len(entity["structuredContent"]["relations"]["edges"]) == 2
    edges = walked["structuredContent"]["edges"]
    assert len(edges) == 2 and all(e["kind"] == "ASSERTION" and e["evidenceIds"] for e in edges)
    assert "EDGES" in walked["structuredContent"]["truncatedBy"]
    first_page = [edge["id"] for edge in cut["structuredContent"]["edges"]]
    next_page = [edge["id"] for edge in following["structuredContent"]["edges"]]
    assert first_page and next_page and not set(first_page) & set(next_page)
    assert f'cursor "{cursor}"' in cut["content"][0]["text"]
