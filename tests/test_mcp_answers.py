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
from mcpserver.answering import WORD_END_ROOM
from mcpserver.content import DESCRIPTION_CHARS, clipped
from mcpserver.quoting import name_words
from tests.conftest import TEST_DIMENSION, serving
from tests.support.graph_builder import GraphBuilder
from tests.support.mcp_sessions import error_of, http_session, stdio_session, structured, text_of

ALEX_MERCER = workspace_id("demo", "bbb2ad85-3d0b-4c26-b6f9-71ed76ee64bd", "entity")
TAYLOR_CRUZ = "35d054c3-46ee-5762-bca3-3d456396fabe"
DEMO_KEY = "demo-reader-1f2e3d4c5b6a79880a1b"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
QUERIES = ("Alex Mercer", "Taylor Cruz", "Dulce base", "Who is Sherlock Holmes?")
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


def passage_bodies(content: Any) -> list[str]:
    """The ids of every object in `content` that carries a passage's text (get_passage's
    answer is the one that may)."""
    found: list[str] = []
    if isinstance(content, dict):
        if "id" in content and "text" in content:
            found.append(content["id"])
        for value in content.values():
            found.extend(passage_bodies(value))
    elif isinstance(content, list):
        for item in content:
            found.extend(passage_bodies(item))
    return found


QUOTE = re.compile(rf'^\s*\[(\d+)\] "(.*)"(?: — .*)? \(passage ({UUID})\)$')


def quotes(text: str) -> list[tuple[str, str]]:
    """Each quote of a text: (passage id, the quoted words)."""
    found = [QUOTE.match(line) for line in text.splitlines()]
    return [(match.group(3), match.group(2)) for match in found if match]


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


ADVICE = ("More relations", "Cut at", "A hub", "This entity is a hub", "No relation in scope")


def advice_of(result: types.CallToolResult) -> list[str]:
    """The lines of a walk's text that say what its bounds mean."""
    return [line for line in text_of(result).splitlines() if line.startswith(ADVICE)]


# Point 1: the quote holds the mention ------------------------------------------------------


async def test_the_quote_holds_the_mention(demo: Demo, demo_session: Opener) -> None:
    texts = await demo.texts()
    async with demo_session(20_000) as session:
        result = await session.call_tool("search_entities", {"query": "Alex Mercer"})
    content = structured(result)
    cited_for: dict[str, list[str]] = {}
    for hit in content["hits"]:
        for passage_id in hit["evidenceIds"]:
            cited_for.setdefault(passage_id, []).append(hit["entity"]["name"])
    checked = 0
    for passage_id, quoted in quotes(text_of(result)):
        words = {word for name in cited_for[passage_id] for word in name_words(name)}
        if any(word in texts[passage_id].lower() for word in words):
            assert any(word in quoted.lower() for word in words), (cited_for[passage_id], quoted)
            checked += 1
    assert checked >= 3


# Point 2: each passage once per answer -----------------------------------------------------


async def test_each_passage_is_quoted_once_per_answer_and_never_sent_whole(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(20_000) as session:
        answers = {
            "search_entities": await session.call_tool("search_entities", {"query": "Alex Mercer"}),
            "walk": await session.call_tool("walk", {"entityId": ALEX_MERCER}),
            "get_entity": await session.call_tool("get_entity", {"id": ALEX_MERCER}),
        }
    for tool, result in answers.items():
        content = structured(result)
        assert content["passages"] and not passage_bodies(content), tool
        quoted = [passage_id for passage_id, _ in quotes(text_of(result))]
        assert sorted(quoted) == sorted(content["passages"]), tool  # each once
        for passage in content["passages"].values():
            assert 0 <= passage["quoteStart"] < passage["quoteEnd"] <= passage["length"]


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
    endings: list[str] = []
    async with demo_session(20_000) as session:
        offset: int | None = 0
        while offset is not None:
            part = structured(
                await session.call_tool(
                    "get_passage", {"id": longest, "offset": offset, "length": 1_500}
                )
            )["passage"]
            assert part["offset"] == offset and part["length"] == len(texts[longest])
            assert len(part["text"]) <= 1_500
            parts.append(part["text"])
            offset = part["nextOffset"]
            if offset is not None:
                endings.append(texts[longest][offset - 1 : offset + 1])
    assert "".join(parts) == texts[longest]
    assert len(parts) <= math.ceil(len(texts[longest]) / (1_500 - WORD_END_ROOM))
    # Each part ends at a word's end, never inside one (issue 39, point 6).
    assert endings and all(not ending.isalnum() for ending in endings), endings


# Issue 30 §2: what GraphRAG says about each relation, quoted as a claim ---------------------


async def test_get_entity_quotes_each_relations_description_and_weight(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        result = await session.call_tool("get_entity", {"id": ALEX_MERCER, "maxEdges": 100})
    edges = structured(result)["relations"]["edges"]
    assert len(edges) > 10
    assert all(edge["description"] and isinstance(edge["weight"], float) for edge in edges)
    lines = text_of(result).splitlines()
    # Edges are written in their order, one `- ` line each (a pair may be related twice).
    edge_lines = [n for n, line in enumerate(lines) if line.startswith("- ")]
    assert len(edge_lines) == len(edges)
    for edge, at in zip(edges, edge_lines, strict=True):
        other = edge["targetId"] if edge["sourceId"] == ALEX_MERCER else edge["sourceId"]
        assert f"(id {other}): ASSERTION, weight {edge['weight']:g} [" in lines[at], lines[at]
        assert (
            lines[at + 1] == f"    description: {clipped(edge['description'], DESCRIPTION_CHARS)}"
        )


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
        assert f"(id {ALEX_MERCER})" in text_of(result).splitlines()[0]
        for edge, line in zip(edges, edge_lines, strict=True):
            other = edge["targetId"] if edge["sourceId"] == ALEX_MERCER else edge["sourceId"]
            assert f"(id {other})" in line
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
        ("walk", {"entityId": ALEX_MERCER, "evidence": "IDS"}),
        ("walk_between", {"entityId": ALEX_MERCER, "otherEntityId": TAYLOR_CRUZ}),
        ("get_entity", {"id": ALEX_MERCER}),
        ("get_entity", {"id": ALEX_MERCER, "evidence": "NONE"}),
        ("get_evidence", {"entityId": ALEX_MERCER, "limit": 2}),
        ("get_evidence", {"entityId": missing}),
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
    # MCP: an output schema is an object's (the Inspector's CLI refuses the list otherwise).
    assert {name: schema["type"] for name, schema in schemas.items() if schema} == dict.fromkeys(
        schemas, "object"
    )
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


# Issue 39, point 1: the text is budgeted, the structured content lean, the defaults fit ------


async def test_default_calls_of_every_tool_fit_uncut_on_the_demo_data(
    demo: Demo, demo_session: Opener
) -> None:
    texts = await demo.texts()
    longest = max((pid for pid in texts if pid not in demo.other_passages), key=texts.__getitem__)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search_entities", {"query": "Alex Mercer"}),
        ("search_passages", {"query": "Dulce base"}),
        ("walk", {"entityId": ALEX_MERCER}),
        ("walk_between", {"entityId": ALEX_MERCER, "otherEntityId": TAYLOR_CRUZ}),
        ("get_entity", {"id": ALEX_MERCER}),
        ("get_entities", {"ids": [ALEX_MERCER, TAYLOR_CRUZ]}),
        ("get_evidence", {"entityId": ALEX_MERCER}),
        ("get_passage", {"id": longest}),
        ("entity_labels", {}),
        ("describe_graph", {}),
    ]
    async with demo_session(20_000) as session:  # MCP_MAX_RESULT_CHARS' default
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        results = [(tool, await session.call_tool(tool, arguments)) for tool, arguments in calls]
    assert {tool for tool, _ in results} == set(tools)
    for tool, result in results:
        assert "cut" not in structured(result), tool
        assert len(text_of(result)) <= 20_000, tool
    # get_passage's default reads a whole GraphRAG text unit (the longest, 5,991 characters).
    passage = structured(results[7][1])["passage"]
    assert passage["text"] == texts[longest] and passage["nextOffset"] is None
    # Each tool's schema states its defaults.
    for declared in tools.values():
        for name, argument in declared.inputSchema["properties"].items():
            if argument.get("type") == "integer" or name == "evidence":
                assert "default" in argument, (declared.name, name)


async def test_a_walk_of_every_edge_the_demo_reaches_fits_one_answer_one_line_each(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(20_000) as session:
        result = await session.call_tool(
            "walk", {"entityId": ALEX_MERCER, "depth": 2, "maxEdges": 1000}
        )
    content = structured(result)
    assert "cut" not in content and len(content["edges"]) > 90  # 95 in the demo data
    lines = [line for line in text_of(result).splitlines() if line.startswith("- ")]
    # One line each, both ends' ids on a depth-2 edge's.
    assert len(lines) == len(content["edges"]) and all(len(line) < 180 for line in lines)


async def test_the_size_cut_budgets_the_text_the_model_reads(
    demo: Demo, demo_session: Opener
) -> None:
    walk = {"entityId": ALEX_MERCER, "depth": 2, "maxEdges": 150}
    async with demo_session(3_000) as session:
        first = await session.call_tool("walk", walk)
        following = await session.call_tool(
            "walk", {**walk, "cursor": structured(first)["nextCursor"]}
        )
    for result in (first, following):
        assert len(text_of(result)) <= 3_000
        assert structured(result)["edges"] and not passage_bodies(structured(result))


async def test_evidence_ids_gives_the_passage_ids_alone_and_none_gives_neither(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        ids = await session.call_tool("walk", {"entityId": ALEX_MERCER, "evidence": "IDS"})
        none = await session.call_tool("walk", {"entityId": ALEX_MERCER, "evidence": "NONE"})
        quoted = await session.call_tool("walk", {"entityId": ALEX_MERCER})
    assert quotes(text_of(quoted)) and not quotes(text_of(ids)) and not quotes(text_of(none))
    cited = {pid for edge in structured(ids)["edges"] for pid in edge["evidenceIds"]}
    assert cited and all(f"passage {pid}" in text_of(ids) for pid in cited)
    assert all("quoteStart" not in p for p in structured(ids)["passages"].values())
    assert structured(none)["passages"] == {}
    assert all(edge["evidenceIds"] == [] for edge in structured(none)["edges"])
    assert "passage " not in text_of(none)
    kinds = [edge["kind"] for edge in structured(none)["edges"]]
    assert kinds == [edge["kind"] for edge in structured(quoted)["edges"]]


# Issue 39, point 2: relevance and completeness said aloud -------------------------------------


async def test_a_name_not_in_the_graph_says_nothing_matched_by_name(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        holmes = await session.call_tool("search_entities", {"query": "Who is Sherlock Holmes?"})
        lexical = await session.call_tool(
            "search_entities", {"query": "Sherlock Holmes", "mode": "LEXICAL"}
        )
        mercer = await session.call_tool("search_entities", {"query": "Alex Mercer"})
    assert structured(holmes)["hits"], "found by meaning: there are always some"
    assert structured(holmes)["matchedByName"] is False
    assert all(hit["lexicalRank"] is None for hit in structured(holmes)["hits"])
    said = text_of(holmes).splitlines()[1]
    assert said.startswith("Nothing matched by name:") and "probably not in the graph" in said
    assert "`mode` LEXICAL" in said
    assert structured(lexical)["hits"] == []
    assert "Nothing matched by name" in text_of(lexical)
    assert structured(mercer)["matchedByName"] is True
    assert "Nothing matched" not in text_of(mercer)


async def test_each_hit_says_its_score_and_ranks_and_the_limit_when_the_hits_reach_it(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        three = await session.call_tool("search_entities", {"query": "Alex Mercer", "limit": 3})
        few = await session.call_tool(
            "search_entities", {"query": "Alex Mercer", "mode": "LEXICAL", "limit": 100}
        )
    hits = structured(three)["hits"]
    assert len(hits) == 3 and structured(three)["limitReached"] is True
    assert "Limit reached: more may match; raise `limit` (now 3" in text_of(three)
    for n, hit in enumerate(hits, 1):
        line = next(line for line in text_of(three).splitlines() if line.startswith(f"{n}. "))
        assert f"score {hit['score']:.4g}" in line
        lexical = hit["lexicalRank"]
        assert (f"lexical rank {lexical}" if lexical else "no lexical rank") in line
    assert len(structured(few)["hits"]) < 100 and structured(few)["limitReached"] is False
    assert "Limit reached" not in text_of(few)


async def test_evidence_says_its_total_and_get_evidence_reads_the_rest(
    demo: Demo, demo_session: Opener
) -> None:
    rows = await demo.graph.read(
        "MATCH (:Entity {id: $id})-[:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)"
        " WHERE d.workspace = 'demo' AND c.version = d.currentVersion"
        " RETURN c.id AS id ORDER BY d.id, c.position, c.id",
        {"id": ALEX_MERCER},
    )
    visible = [row["id"] for row in rows]
    assert len(visible) > 2
    async with demo_session(UNCUT) as session:
        found = structured(
            await session.call_tool("search_entities", {"query": "Alex Mercer", "supportLimit": 1})
        )
        hit = next(h for h in found["hits"] if h["entity"]["id"] == ALEX_MERCER)
        read = list(hit["evidenceIds"])
        cursor = hit["evidenceCursor"]
        while cursor:
            page = structured(
                await session.call_tool("get_evidence", {"cursor": cursor, "limit": 1})
            )
            assert page["first"] == len(read) and page["evidenceTotal"] == len(visible)
            read += page["evidenceIds"]
            cursor = page.get("evidenceCursor")
        text = text_of(await session.call_tool("get_entity", {"id": ALEX_MERCER}))
    assert hit["evidenceTotal"] == len(visible)
    assert read == visible  # every passage once, in evidence order
    assert f"evidence (3 of {len(visible)} passages; the rest: get_evidence with cursor" in text


# Issue 39, point 3: scope that can be found --------------------------------------------------


async def test_describe_graph_names_the_workspaces_and_documents_with_counts(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        result = await session.call_tool("describe_graph", {})
    content = structured(result)
    assert content["workspaces"] == [{"name": "demo", "documents": 1}]
    [document] = content["documents"]
    assert (document["workspace"], document["title"], document["passages"]) == (
        "demo",
        "dulce.txt",
        5,
    )
    assert content["moreDocuments"] == 0
    assert "demo (1 document)" in text_of(result) and "dulce.txt" in text_of(result)
    assert "other" not in text_of(result).replace("another", "")


async def test_a_misspelt_or_unreadable_workspace_is_malformed_naming_the_readable_ones(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        misspelt = await session.call_tool(
            "search_entities", {"query": "Alex Mercer", "scope": {"workspaces": ["dulce"]}}
        )
        not_granted = await session.call_tool(
            "walk", {"entityId": ALEX_MERCER, "scope": {"workspaces": ["other"]}}
        )
    for result in (misspelt, not_granted):
        error = error_of(result)
        assert (error["code"], error["argument"]) == ("MALFORMED", "scope.workspaces")
        assert error["message"].endswith("the workspaces you may read: demo (1 document)")
    # A workspace another caller holds is refused exactly as one that does not exist.
    assert (
        error_of(misspelt)["message"].replace("'dulce'", "'other'")
        == error_of(not_granted)["message"]
    )


async def test_a_label_the_scope_does_not_hold_is_malformed_naming_the_labels_it_holds(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        result = await session.call_tool(
            "search_entities", {"query": "Alex Mercer", "labels": ["Wizard"]}
        )
        person = await session.call_tool(
            "search_entities", {"query": "Alex Mercer", "labels": ["Person"]}
        )
    error = error_of(result)
    assert (error["code"], error["argument"]) == ("MALFORMED", "labels")
    assert "Wizard" in error["message"]
    assert "Event (11), Geo (13), Organization (8), Person (7)" in error["message"]
    assert structured(person)["hits"]


async def test_an_unknown_argument_is_refused_naming_the_tools_arguments(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        result = await session.call_tool("walk", {"entityId": ALEX_MERCER, "workspace": "demo"})
    error = error_of(result)
    assert (error["code"], error["argument"]) == ("MALFORMED", "workspace")
    takes = ", ".join(tools["walk"].inputSchema["properties"])
    assert error["message"].endswith(f"it takes: {takes}")


# Issue 39, point 4: the edges between two entities ---------------------------------------------


async def test_walk_between_gives_the_direct_and_two_step_edges_the_walks_from_each_end_give(
    demo: Demo, demo_session: Opener
) -> None:
    widest = {"maxNodes": 500, "maxEdges": 1000}
    async with demo_session(UNCUT) as session:
        between = structured(
            await session.call_tool(
                "walk_between", {"entityId": ALEX_MERCER, "otherEntityId": TAYLOR_CRUZ}
            )
        )
        direct = structured(
            await session.call_tool(
                "walk_between",
                {"entityId": ALEX_MERCER, "otherEntityId": TAYLOR_CRUZ, "depth": 1},
            )
        )
        around = [
            structured(await session.call_tool("walk", {"entityId": end, **widest}))["edges"]
            for end in (ALEX_MERCER, TAYLOR_CRUZ)
        ]

    def far(edge: dict[str, Any], near: str) -> str:
        return str(edge["targetId"] if edge["sourceId"] == near else edge["sourceId"])

    shared = {far(e, ALEX_MERCER) for e in around[0]} & {far(e, TAYLOR_CRUZ) for e in around[1]}
    expected = {e["id"] for e in around[0] if far(e, ALEX_MERCER) == TAYLOR_CRUZ}
    assert expected, "the demo's two agents are related directly"
    assert {edge["id"] for edge in direct["edges"]} == expected and direct["via"] == []
    expected |= {e["id"] for e in around[0] if far(e, ALEX_MERCER) in shared}
    expected |= {e["id"] for e in around[1] if far(e, TAYLOR_CRUZ) in shared}
    assert {edge["id"] for edge in between["edges"]} == expected
    assert {node["id"] for node in between["via"]} == shared
    # The same walk rules: workspace other's MET relation of the two is not theirs to see.
    assert "MET" not in {edge["type"] for edge in between["edges"]}
    assert between["truncatedBy"] == []


async def test_walk_between_an_entity_missing_or_hidden_is_unavailable(
    demo: Demo, demo_session: Opener
) -> None:
    hidden = next(iter(demo.other_entities))
    async with demo_session(UNCUT) as session:
        results = [
            await session.call_tool(
                "walk_between", {"entityId": ALEX_MERCER, "otherEntityId": other}
            )
            for other in (hidden, "00000000-0000-4000-8000-000000000000")
        ]
    assert error_of(results[0]) == error_of(results[1])
    assert error_of(results[0])["code"] == "UNAVAILABLE"
    assert error_of(results[0])["message"].startswith("The other entity is not available")


# Issue 39, point 6: the smaller defects -----------------------------------------------------


async def test_an_upper_case_uuid_is_read_in_lower_case(demo: Demo, demo_session: Opener) -> None:
    async with demo_session(UNCUT) as session:
        upper = await session.call_tool("get_entity", {"id": ALEX_MERCER.upper()})
        lower = await session.call_tool("get_entity", {"id": ALEX_MERCER})
    assert structured(upper) == structured(lower) and text_of(upper) == text_of(lower)


async def test_an_error_text_ends_its_message_with_a_full_stop_before_what_to_do(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        result = await session.call_tool("walk", {"entityId": 3})
    assert text_of(result) == (
        "MALFORMED: Argument `entityId` is invalid: a string is required. What to do: "
        + error_of(result)["advice"]
        + "."
    )


async def test_each_description_says_only_what_its_tool_takes(
    demo: Demo, demo_session: Opener
) -> None:
    async with demo_session(UNCUT) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    support = tools["get_entity"].inputSchema["properties"]["supportLimit"]["description"]
    assert "per hit" not in support and "of the entity" in support
    assert "scope" not in (tools["entity_labels"].description or "")
    for name, tool in tools.items():  # the advice about errors is said once, elsewhere
        assert "What to do" not in (tool.description or ""), name
        assert "retry" not in (tool.description or ""), name
    listed = [t.model_dump(exclude_none=True, by_alias=True) for t in tools.values()]
    assert len(json.dumps(listed)) < 33_000  # 35,847 with the advice in every description
