"""MCP answers sized, quoted and navigable for a model (issue 29), with the SDK's own client over
both transports against the demo data (data/graphrag-operation-dulce, passages of about 5,900
characters), loaded as `evidencegraph demo` loads it, beside a second workspace whose passage
names the same people: the quote holds the mention, each passage is sent once per answer, a
cursor reaches every hit and edge of a cut answer (and nothing outside the caller's scope),
get_passage reads a long passage in parts, every entity in the text carries its id, DEPTH is told
apart from a cut, and each tool's structured content meets the outputSchema it declares."""

from __future__ import annotations

import json
import math
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import ClientSession, types

from api.settings import Settings
from commands.demo_command import load_demo
from contract.graph_owned import GRAPH_OWNED_LABELS
from contract.identifiers import workspace_id
from embedding.hashing import HashEmbedder
from graph.driver import Graph
from graph.graph_schema import apply_schema
from mcpserver.rendering import DESCRIPTION_CHARS, clipped
from tests.conftest import TEST_DIMENSION, serving
from tests.support.graph_builder import GraphBuilder
from tests.support.mcp_sessions import http_session, stdio_session, structured, text_of

ALEX_MERCER = workspace_id("demo", "bbb2ad85-3d0b-4c26-b6f9-71ed76ee64bd", "entity")
DEMO_KEY = "demo-reader-1f2e3d4c5b6a79880a1b"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
QUERIES = ("Alex Mercer", "Taylor Cruz", "Dulce base")
UNCUT = 10_000_000  # MCP_MAX_RESULT_CHARS at its maximum: nothing is cut
# What is checked is the answers, not their time: a busy 2-core machine can take more than the
# default 10 s for a search (as tests/test_mcp_inspector.py allows too).
SLOW_MACHINE_SECONDS = "120"


class Demo:
    """The demo data in workspace demo, and workspace other, whose one passage names Alex
    Mercer and Taylor Cruz and relates them: never part of a demo caller's answers."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.other_entities: set[str] = set()
        self.other_passages: set[str] = set()

    async def texts(self) -> dict[str, str]:
        """Every passage's whole text, by id, read from the graph itself."""
        rows = await self.graph.read("MATCH (c:Chunk) RETURN c.id AS id, c.text AS text", {})
        return {row["id"]: row["text"] for row in rows}


@pytest.fixture(scope="module")
async def demo(module_graph: Graph, neo4j_uri: str) -> Demo:
    """Loaded once for the module (the load takes a while on a busy machine); every test here
    only reads it."""
    graph = module_graph
    environment = {"NEO4J_URI": neo4j_uri, "EMBEDDER": "hash", "EMBEDDER_DIM": str(TEST_DIMENSION)}
    assert await load_demo(Settings.from_environ(environment)) == ALEX_MERCER
    builder = GraphBuilder(graph, dimension=TEST_DIMENSION)
    other = await builder.version(
        "other",
        ["Alex Mercer met Taylor Cruz at the Dulce base, said the other workspace."],
        title="Other notes",
        mentions={"Alex Mercer": [0], "Taylor Cruz": [0]},
        relations=[("Alex Mercer", "MET", "Taylor Cruz", [0])],
    )
    await apply_schema(graph, TEST_DIMENSION)
    data = Demo(graph)
    data.other_entities = {builder.entity_id("Alex Mercer"), builder.entity_id("Taylor Cruz")}
    data.other_passages = set(other.passage_ids)
    return data


Opener = Callable[[int], AbstractAsyncContextManager[ClientSession]]


@pytest.fixture(params=["http", "stdio"])
def demo_session(
    request: pytest.FixtureRequest, demo: Demo, neo4j_uri: str, tmp_path: Path
) -> Opener:
    """A session granted workspace demo (its API key over HTTP, MCP_WORKSPACES over stdio),
    its results cut at `max_chars`."""
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({DEMO_KEY: ["demo"]}))

    @asynccontextmanager
    async def opened(max_chars: int) -> AsyncIterator[ClientSession]:
        limit = str(max_chars)
        if request.param == "http":
            async with serving(
                neo4j_uri,
                demo.graph,
                AUTH_MODE="apikeys",
                AUTH_API_KEYS_FILE=str(keys),
                MCP_MAX_RESULT_CHARS=limit,
                NEO4J_QUERY_TIMEOUT_SECONDS=SLOW_MACHINE_SECONDS,
                # Above the statement limit, or a slow statement is cut at 30 s (503) anyway.
                REQUEST_TIMEOUT_SECONDS=str(int(SLOW_MACHINE_SECONDS) + 30),
            ) as client:
                # The query vectors the stdio process's hash embedder makes, so that both
                # transports answer alike.
                vectors = HashEmbedder(TEST_DIMENSION).embed(list(QUERIES))
                for query, vector in zip(QUERIES, vectors, strict=True):
                    client.embedder.script(query, vector)
                try:
                    async with http_session(client, DEMO_KEY) as session:
                        yield session
                finally:
                    demo.graph.observers.clear()  # the module's graph outlives this client
        else:
            log = tmp_path / f"mcp-{limit}.log"
            async with stdio_session(
                neo4j_uri,
                log,
                MCP_WORKSPACES="demo",
                MCP_MAX_RESULT_CHARS=limit,
                NEO4J_QUERY_TIMEOUT_SECONDS=SLOW_MACHINE_SECONDS,
            ) as session:
                yield session

    return opened


def passage_objects(content: Any) -> list[str]:
    """The ids of every object in `content` that carries a passage's text."""
    found: list[str] = []
    if isinstance(content, dict):
        if "id" in content and "text" in content:
            found.append(content["id"])
        for value in content.values():
            found.extend(passage_objects(value))
    elif isinstance(content, list):
        for item in content:
            found.extend(passage_objects(item))
    return found


async def pages(
    session: ClientSession, tool: str, arguments: dict[str, Any], items: str
) -> list[dict[str, Any]]:
    """Every page of one answer, following `nextCursor` until there is none."""
    answered = [structured(await session.call_tool(tool, arguments))]
    while "nextCursor" in answered[-1]:
        assert len(answered) < 200, "the cursor does not advance"
        following = {**arguments, "cursor": answered[-1]["nextCursor"]}
        answered.append(structured(await session.call_tool(tool, following)))
        assert answered[-1][items], "a page that follows a cursor holds at least one item"
    return answered


def advice_of(result: types.CallToolResult) -> list[str]:
    """The lines after a walk's edges and their evidence: what its bounds mean."""
    lines = text_of(result).splitlines()
    last_edge = max(n for n, line in enumerate(lines) if line.startswith(("- ", "    ")))
    return lines[last_edge + 1 :]


# Point 1: the quote holds the mention ------------------------------------------------------


async def test_the_quote_holds_the_mention(demo: Demo, demo_session: Opener) -> None:
    texts = await demo.texts()
    async with demo_session(20_000) as session:
        result = await session.call_tool("search_entities", {"query": "Alex Mercer"})
    names = {hit["entity"]["id"]: hit["entity"]["name"] for hit in structured(result)["hits"]}
    name, checked = None, 0
    for line in text_of(result).splitlines():
        hit_line = re.match(rf"\d+\. .* \(id ({UUID})\)", line)
        if hit_line:
            name = names[hit_line.group(1)]
        elif line.strip().startswith("evidence:") and name is not None:
            cited = re.search(rf"\(passage ({UUID})\)$", line)
            assert cited, line
            if name.lower() in texts[cited.group(1)].lower():
                assert name.lower() in line.lower(), (name, line)
                checked += 1
    assert checked >= 3


# Point 2: each passage once per answer -----------------------------------------------------


async def test_each_passage_appears_once_per_answer(demo: Demo, demo_session: Opener) -> None:
    async with demo_session(20_000) as session:
        answers = {
            "search_entities": await session.call_tool("search_entities", {"query": "Alex Mercer"}),
            "walk": await session.call_tool("walk", {"entityId": ALEX_MERCER}),
            "get_entity": await session.call_tool("get_entity", {"id": ALEX_MERCER}),
        }
    for tool, result in answers.items():
        sent = passage_objects(structured(result))
        assert sent, tool
        assert len(sent) == len(set(sent)), (tool, sorted(sent))


# Point 3: a cursor for searches and walks, an offset for get_passage ------------------------


async def test_a_cursor_reaches_every_hit_and_edge_once_and_only_in_scope(
    demo: Demo, demo_session: Opener
) -> None:
    search = {"query": "Alex Mercer", "limit": 40}
    walk = {"entityId": ALEX_MERCER, "depth": 2, "maxEdges": 150}
    async with demo_session(UNCUT) as session:
        whole_search = structured(await session.call_tool("search_entities", search))
        whole_walk = structured(await session.call_tool("walk", walk))
    async with demo_session(4_000) as session:
        search_pages = await pages(session, "search_entities", search, "hits")
        walk_pages = await pages(session, "walk", walk, "edges")
    assert len(search_pages) > 2 and len(walk_pages) > 2
    paged_hits = [hit["entity"]["id"] for page in search_pages for hit in page["hits"]]
    assert paged_hits == [hit["entity"]["id"] for hit in whole_search["hits"]]
    paged_edges = [edge["id"] for page in walk_pages for edge in page["edges"]]
    assert paged_edges == [edge["id"] for edge in whole_walk["edges"]]
    for page in [*search_pages, *walk_pages]:
        assert {d["workspace"] for d in page["documents"].values()} <= {"demo"}
        assert not set(page["passages"]) & demo.other_passages
        cited = {hit["entity"]["id"] for hit in page.get("hits", [])}
        cited |= {node["id"] for node in page.get("nodes", [])}
        assert cited and not cited & demo.other_entities


async def test_a_cursor_from_other_arguments_is_malformed(demo: Demo, demo_session: Opener) -> None:
    search = {"query": "Alex Mercer", "limit": 40}
    async with demo_session(4_000) as session:
        first = structured(await session.call_tool("search_entities", search))
        moved = {**search, "limit": 39, "cursor": first["nextCursor"]}
        refused = await session.call_tool("search_entities", moved)
        other_tool = await session.call_tool(
            "walk", {"entityId": ALEX_MERCER, "cursor": first["nextCursor"]}
        )
    for result in (refused, other_tool):
        assert result.isError and result.structuredContent is not None
        error = result.structuredContent["error"]
        assert (error["code"], error["argument"]) == ("MALFORMED", "cursor")


async def test_get_passage_reads_a_long_passage_in_parts(demo: Demo, demo_session: Opener) -> None:
    texts = await demo.texts()
    longest = max((pid for pid in texts if pid not in demo.other_passages), key=texts.__getitem__)
    assert len(texts[longest]) > 4_000
    parts: list[str] = []
    async with demo_session(20_000) as session:
        offset: int | None = 0
        while offset is not None:
            part = structured(
                await session.call_tool(
                    "get_passage", {"id": longest, "offset": offset, "length": 1_500}
                )
            )["passage"]
            assert part["offset"] == offset and part["length"] == len(texts[longest])
            parts.append(part["text"])
            offset = part["nextOffset"]
    assert "".join(parts) == texts[longest]
    assert len(parts) == math.ceil(len(texts[longest]) / 1_500)


# Issue 30 §2: what GraphRAG says about each relation, quoted as a claim ---------------------


async def test_the_walk_quotes_each_edges_description_and_weight(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        result = await session.call_tool("walk", {"entityId": ALEX_MERCER, "maxEdges": 1000})
    edges = structured(result)["edges"]
    assert len(edges) > 10
    assert all(edge["description"] and isinstance(edge["weight"], float) for edge in edges)
    lines = text_of(result).splitlines()
    # Edges are written in their order, one `- ` line each (a pair may be related twice).
    edge_lines = [n for n, line in enumerate(lines) if line.startswith("- ")]
    assert len(edge_lines) == len(edges)
    for edge, at in zip(edges, edge_lines, strict=True):
        assert f"(id {edge['sourceId']})" in lines[at] and f"(id {edge['targetId']})" in lines[at]
        assert lines[at].endswith(f"ASSERTION, depth 1, weight {edge['weight']:g}"), lines[at]
        quoted = clipped(edge["description"], DESCRIPTION_CHARS)
        assert lines[at + 1] == f"    description: {quoted}"


# Points 4 and 5: advice that can be followed, ids where the next call needs them ------------


async def test_every_entity_in_the_text_carries_its_id(demo: Demo, demo_session: Opener) -> None:
    async with demo_session(20_000) as session:
        walked = await session.call_tool("walk", {"entityId": ALEX_MERCER})
        entity = await session.call_tool("get_entity", {"id": ALEX_MERCER})
        found = await session.call_tool("search_entities", {"query": "Taylor Cruz"})
    for result in (walked, entity):
        content = structured(result)
        edges = content.get("edges") or content["relations"]["edges"]
        edge_lines = [line for line in text_of(result).splitlines() if line.startswith("- ")]
        assert len(edge_lines) == len(edges) > 0
        for edge, line in zip(edges, edge_lines, strict=True):
            assert f"(id {edge['sourceId']})" in line and f"(id {edge['targetId']})" in line
    for hit in structured(found)["hits"]:
        assert f"(id {hit['entity']['id']})" in text_of(found)
        if hit["entity"]["description"]:
            assert " ".join(hit["entity"]["description"].split())[:60] in text_of(found)


async def test_depth_is_told_apart_from_a_cut_the_caller_can_lift(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        shallow = await session.call_tool("walk", {"entityId": ALEX_MERCER, "maxEdges": 1000})
        deep = await session.call_tool(
            "walk", {"entityId": ALEX_MERCER, "depth": 2, "maxEdges": 1000, "maxNodes": 500}
        )
        entity = await session.call_tool("get_entity", {"id": ALEX_MERCER, "maxEdges": 100})
    assert structured(shallow)["truncatedBy"] == ["DEPTH"]
    assert advice_of(shallow) == [
        "More relations lie beyond depth 1 (not a cut): walk again with `depth` 2, or walk from "
        "a neighbour's id."
    ]
    for result in (deep, entity):
        assert not any("raise" in line or "walk again" in line for line in advice_of(result))
    if "DEPTH" in structured(deep)["truncatedBy"]:
        assert "`depth` is at most 2" in " ".join(advice_of(deep))
    assert "DEPTH" in structured(entity)["relations"]["truncatedBy"]
    assert "walk from a neighbour's id" in " ".join(advice_of(entity))


# Point 6: outputSchema ------------------------------------------------------------------------


async def test_each_tool_declares_the_output_schema_its_structured_content_meets(
    demo: Demo, demo_session: Opener
) -> None:
    texts = await demo.texts()
    passage = next(pid for pid in texts if pid not in demo.other_passages)
    missing = "00000000-0000-4000-8000-000000000000"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search_entities", {"query": "Alex Mercer", "limit": 30}),
        ("search_passages", {"query": "Dulce base"}),
        ("walk", {"entityId": ALEX_MERCER, "depth": 2}),
        ("get_entity", {"id": ALEX_MERCER}),
        ("get_entity", {"id": missing}),
        ("get_passage", {"id": passage}),
        ("get_passage", {"id": missing}),
        ("entity_labels", {}),
        ("describe_graph", {}),
        ("get_entities", {"ids": [ALEX_MERCER, missing, *demo.other_entities]}),
    ]
    results: list[tuple[str, types.CallToolResult]] = []
    for max_chars in (UNCUT, 3_000):  # whole answers, and cut ones
        async with demo_session(max_chars) as session:
            schemas = {tool.name: tool.outputSchema for tool in (await session.list_tools()).tools}
            results.extend([(tool, await session.call_tool(tool, args)) for tool, args in calls])
    assert all(schema is not None for schema in schemas.values()), schemas
    assert any("cut" in structured(result) for _, result in results)
    for tool, result in results:
        jsonschema.validate(structured(result), schemas[tool])
    assert {tool for tool, _ in results} == set(schemas)  # every tool's answers are checked


# Point 7: describe_graph counts exactly what the caller's scope holds ------------------------


async def test_describe_graph_counts_what_a_demo_caller_may_see(
    demo: Demo, demo_session: Opener
) -> None:
    """The counts equal a plain count of the demo workspace's visible mentions and of its
    relations (GraphRAG's are all RELATED_TO, all supported by demo passages); workspace
    other's entities and its MET relation are not counted."""
    rows = await demo.graph.read(
        "MATCH (d:Document {workspace: 'demo'})-[:HAS_PART]->(c:Chunk)<-[:MENTIONED_IN]-(e)"
        " WHERE c.version = d.currentVersion"
        " UNWIND [label IN labels(e) WHERE NOT label IN $owned] AS label"
        " WITH label, count(DISTINCT e) AS entities RETURN label, entities",
        {"owned": list(GRAPH_OWNED_LABELS)},
    )
    expected = {row["label"]: row["entities"] for row in rows}
    relations = await demo.graph.read(
        "MATCH (:Entity)-[r:RELATED_TO]->(:Entity) WHERE r.workspace = 'demo' RETURN count(r) AS n",
        {},
    )
    async with demo_session(20_000) as session:
        result = await session.call_tool("describe_graph", {})
    content = structured(result)
    assert content["grantedWorkspaces"] == ["demo"]
    assert {c["name"]: c["count"] for c in content["labels"]} == expected
    assert content["relationTypes"] == [{"name": "RELATED_TO", "count": relations[0]["n"]}]
    assert "MET" not in text_of(result)


async def test_a_relation_type_no_relation_in_scope_has_is_named_with_the_types_there_are(
    demo: Demo, demo_session: Opener
) -> None:
    # MET is stored, but only in workspace other; KNOWS nowhere.
    async with demo_session(UNCUT) as session:
        unknown = await session.call_tool(
            "walk", {"entityId": ALEX_MERCER, "relationTypes": ["MET", "KNOWS"]}
        )
        described = await session.call_tool("describe_graph", {})
        known = await session.call_tool(
            "walk", {"entityId": ALEX_MERCER, "relationTypes": ["RELATED_TO"]}
        )
    assert structured(unknown)["edges"] == []
    in_scope = structured(described)["relationTypes"]
    assert [item["name"] for item in in_scope] == ["RELATED_TO"]
    listed = ", ".join(f"{item['name']} ({item['count']})" for item in in_scope)
    assert (
        f"No relation in scope has types MET, KNOWS; its types: {listed}. Name one of those in "
        "`relationTypes`, or omit it to follow every type."
    ) in text_of(unknown).splitlines()
    assert structured(known)["edges"]
    assert "No relation in scope" not in text_of(known)
