"""The MCP server (contract §12) with the SDK's own client, over Streamable HTTP at `/mcp` and over
stdio (`evidencegraph mcp`), against the real Neo4j: the read-only tools, the GraphQL
fields' arguments, defaults, scope rules and error codes, the size cut, and the same round
trips as the matching GraphQL queries."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import neo4j
import pytest
from mcp import ClientSession

from graph.driver import Graph
from graph.graph_schema import apply_schema
from mcpserver.server import INSTRUCTIONS
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support.failing_driver import deferred_graph_checks
from tests.support.graph_builder import GraphBuilder, unit_vector
from tests.support.mcp_sessions import (
    error_of,
    http_session,
    stdio_environment,
    stdio_session,
    structured,
    text_of,
)
from tests.support.node_tools import REPOSITORY

TOOLS = {
    "search_entities",
    "search_passages",
    "walk",
    "get_entity",
    "get_passage",
    "entity_labels",
    "describe_graph",
    "get_entities",
    "get_evidence",
    "walk_between",
}
ACME_KEY = "acme-reader-5e1f0a2b3c4d5e6f7a8b"
GLOBEX_KEY = "globex-reader-9a8b7c6d5e4f3a2b1c0d"
KEYS = {ACME_KEY: ["acme"], GLOBEX_KEY: ["globex"]}
QUERIES = ("ada lovelace", "analytical engine", "grace hopper", "first program", "ada")


class World:
    """Two workspaces: acme (Ada, Babbage, the Engine; an ASSERTION and a PATH) and globex."""

    def __init__(self, builder: GraphBuilder) -> None:
        self.builder = builder
        self.ada = builder.entity_id("Ada Lovelace")
        self.babbage = builder.entity_id("Charles Babbage")
        self.grace = builder.entity_id("Grace Hopper")
        self.acme_passages: list[str] = []
        self.globex_passages: list[str] = []
        self.acme_document = ""

    async def write(self, graph: Graph) -> None:
        acme = await self.builder.version(
            "acme",
            [
                "Ada Lovelace wrote the first program for the Analytical Engine.",
                "Charles Babbage designed the Analytical Engine.",
            ],
            title="Engine notes",
            mentions={"Ada Lovelace": [0], "Charles Babbage": [1], "Analytical Engine": [0, 1]},
            labels={"Analytical Engine": ["Machine"]},
            relations=[
                ("Ada Lovelace", "WROTE_FOR", "Analytical Engine", [0]),
                ("Charles Babbage", "DESIGNED", "Analytical Engine", [1]),
                ("Ada Lovelace", "KNEW", "Charles Babbage", None),
            ],
        )
        globex = await self.builder.version(
            "globex",
            ["Grace Hopper wrote the first compiler."],
            title="Compiler notes",
            mentions={"Grace Hopper": [0]},
        )
        self.acme_passages, self.globex_passages = acme.passage_ids, globex.passage_ids
        self.acme_document = acme.document_id
        await apply_schema(graph, TEST_DIMENSION)


@pytest.fixture
async def world(builder: GraphBuilder, graph: Graph) -> World:
    data = World(builder)
    await data.write(graph)
    return data


@pytest.fixture
def keys_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(KEYS))
    return path


@pytest.fixture
async def keyed(neo4j_uri: str, graph: Graph, keys_file: Path) -> AsyncIterator[Client]:
    """The app with two API keys, one per workspace; every test query scripted."""
    async with serving(
        neo4j_uri, graph, AUTH_MODE="apikeys", AUTH_API_KEYS_FILE=str(keys_file)
    ) as client:
        for n, query in enumerate(QUERIES):
            client.embedder.script(query, unit_vector(TEST_DIMENSION, n))
        yield client


Opener = Callable[[], AbstractAsyncContextManager[ClientSession]]


@pytest.fixture(params=["http", "stdio"])
def acme_session(
    request: pytest.FixtureRequest, keyed: Client, neo4j_uri: str, tmp_path: Path
) -> Opener:
    """A session granted workspace acme: its API key over HTTP, MCP_WORKSPACES over stdio."""

    @asynccontextmanager
    async def opened() -> AsyncIterator[ClientSession]:
        if request.param == "http":
            async with http_session(keyed, ACME_KEY) as session:
                yield session
        else:
            log = tmp_path / "mcp-stdio.log"
            async with stdio_session(neo4j_uri, log, MCP_WORKSPACES="acme") as session:
                yield session

    return opened


# Read-only: exactly the tools ------------------------------------------------------------


async def test_list_tools_shows_exactly_the_read_only_tools(acme_session: Opener) -> None:
    async with acme_session() as session:
        tools = (await session.list_tools()).tools
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert tool.annotations is not None and tool.annotations.readOnlyHint is True, tool.name
        assert tool.annotations.destructiveHint is False, tool.name
        assert tool.inputSchema["additionalProperties"] is False, tool.name
        assert tool.description and len(tool.description) > 80, tool.name
    search = next(tool for tool in tools if tool.name == "search_entities")
    assert search.inputSchema["properties"]["supportLimit"]["default"] == 3
    described = next(tool for tool in tools if tool.name == "describe_graph")
    assert "UNSUPPORTED" in (described.description or "")
    walk = next(tool for tool in tools if tool.name == "walk")
    assert "ASSERTION" in (walk.description or "") and "PATH" in (walk.description or "")


# Every tool ---------------------------------------------------------------------------------


async def test_every_tool_answers_with_structured_content_and_a_text_naming_the_evidence(
    acme_session: Opener, world: World
) -> None:
    async with acme_session() as session:
        found = structured(await session.call_tool("search_entities", {"query": "ada lovelace"}))
        hit = found["hits"][0]
        assert hit["entity"]["id"] == world.ada and hit["status"] == "SUPPORTED"
        assert hit["evidenceIds"] == [world.acme_passages[0]]
        cited = found["passages"][world.acme_passages[0]]
        assert found["documents"][cited["documentId"]]["title"] == "Engine notes"
        text = text_of(await session.call_tool("search_entities", {"query": "ada lovelace"}))
        assert "Ada Lovelace" in text and "SUPPORTED" in text
        assert '"Ada Lovelace wrote the first program' in text and "Engine notes" in text

        passages = structured(
            await session.call_tool(
                "search_passages", {"query": "first program", "mode": "LEXICAL"}
            )
        )
        first = passages["hits"][0]["passageId"]
        assert first == world.acme_passages[0]
        document = passages["documents"][passages["passages"][first]["documentId"]]
        assert document["title"] == "Engine notes"

        walked = await session.call_tool("walk", {"entityId": world.ada})
        kinds = {(e["type"], e["kind"]) for e in structured(walked)["edges"]}
        assert kinds == {("WROTE_FOR", "ASSERTION"), ("KNEW", "PATH")}
        engine = world.builder.entity_id("Analytical Engine")
        assert "WROTE_FOR:\n- → Analytical Engine (id " + engine + "): ASSERTION [1]" in text_of(
            walked
        )
        assert "Engine notes" in text_of(walked)

        entity = await session.call_tool("get_entity", {"id": world.ada})
        content = structured(entity)
        assert content["entity"]["name"] == "Ada Lovelace" and content["status"] == "SUPPORTED"
        assert content["evidenceIds"] == [world.acme_passages[0]]
        assert {e["type"] for e in content["relations"]["edges"]} == {"WROTE_FOR", "KNEW"}

        passage = structured(await session.call_tool("get_passage", {"id": world.acme_passages[1]}))
        assert passage["passage"]["text"] == "Charles Babbage designed the Analytical Engine."
        assert passage["passage"]["document"]["workspace"] == "acme"

        labels = structured(await session.call_tool("entity_labels", {}))
        assert {"label": "Machine", "fulltextIndex": "ONLINE", "vectorIndex": "ONLINE"} in labels[
            "labels"
        ]


async def test_defaults_are_the_graphql_fields_defaults(acme_session: Opener, world: World) -> None:
    async with acme_session() as session:
        found = structured(
            await session.call_tool("search_entities", {"query": "analytical engine"})
        )
    engine = next(h for h in found["hits"] if h["entity"]["name"] == "Analytical Engine")
    # supportLimit 3 by default: the engine has two passages, both shown.
    assert len(engine["evidenceIds"]) == 2


# Scope isolation ------------------------------------------------------------------------------


async def test_an_out_of_scope_id_gives_the_same_answer_as_a_missing_one(
    acme_session: Opener, world: World
) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    async with acme_session() as session:
        for tool, argument, hidden in (
            ("get_entity", "id", world.grace),
            ("get_passage", "id", world.globex_passages[0]),
            ("walk", "entityId", world.grace),
        ):
            out_of_scope = await session.call_tool(tool, {argument: hidden})
            absent = await session.call_tool(tool, {argument: missing})
            assert out_of_scope.isError == absent.isError, tool
            assert out_of_scope.structuredContent == absent.structuredContent, tool
            assert text_of(out_of_scope) == text_of(absent), tool
        found = structured(await session.call_tool("search_entities", {"query": "grace hopper"}))
        assert world.grace not in {hit["entity"]["id"] for hit in found["hits"]}


async def test_a_token_for_one_workspace_never_sees_the_other(keyed: Client, world: World) -> None:
    async with http_session(keyed, GLOBEX_KEY) as globex, http_session(keyed, ACME_KEY) as acme:
        seen_by_globex = structured(
            await globex.call_tool("search_entities", {"query": "grace hopper"})
        )
        assert [hit["entity"]["id"] for hit in seen_by_globex["hits"]] == [world.grace]
        assert structured(await globex.call_tool("get_entity", {"id": world.ada}))["entity"] is None
        assert structured(await acme.call_tool("get_entity", {"id": world.grace}))["entity"] is None
        # MCP names what the caller may read instead (issue 39); GraphQL says FORBIDDEN.
        refused = error_of(
            await acme.call_tool(
                "search_entities", {"query": "grace hopper", "scope": {"workspaces": ["globex"]}}
            )
        )
        assert (refused["code"], refused["argument"]) == ("MALFORMED", "scope.workspaces")
        assert "you may read: acme (1 document)" in refused["message"]


# describe_graph and get_entities (issue 29, point 7) ------------------------------------------


def counts(content: dict[str, Any], key: str) -> dict[str, int]:
    return {item["name"]: item["count"] for item in content[key]}


async def test_describe_graph_shows_only_what_the_callers_scope_holds(
    acme_session: Opener, keyed: Client, world: World
) -> None:
    builder = world.builder
    # globex: a relation type acme does not hold. acme: an entity whose only mention was
    # superseded (UNSUPPORTED: not counted) and a relation only that passage supported.
    await builder.version(
        "globex",
        ["Grace Hopper mentored Jean Sammet."],
        title="Mentors",
        mentions={"Grace Hopper": [0], "Jean Sammet": [0]},
        relations=[("Grace Hopper", "MENTORED", "Jean Sammet", [0])],
    )
    notes = "4f5f3c0e-0000-4000-8000-00000000a0a0"
    await builder.version(
        "acme",
        ["Luigi Menabrea described the Analytical Engine."],
        document_id=notes,
        title="Old notes",
        mentions={"Luigi Menabrea": [0], "Analytical Engine": [0]},
        labels={"Analytical Engine": ["Machine"]},
        relations=[("Luigi Menabrea", "DESCRIBED", "Analytical Engine", [0])],
    )
    await builder.version("acme", ["Rewritten."], document_id=notes, title="Old notes")
    async with acme_session() as session:
        result = await session.call_tool("describe_graph", {})
        acme = structured(result)
        narrowed = structured(
            await session.call_tool(
                "describe_graph", {"scope": {"documentIds": [world.acme_document]}}
            )
        )
    assert acme["grantedWorkspaces"] == ["acme"]
    assert counts(acme, "labels") == {"Person": 2, "Machine": 1}
    assert counts(acme, "relationTypes") == {"WROTE_FOR": 1, "DESIGNED": 1, "KNEW": 1}
    assert acme["labelsAtLeast"] is False and acme["relationTypesAtLeast"] is False
    assert "Person 2" in text_of(result) and "WROTE_FOR 1" in text_of(result)
    assert "MENTORED" not in text_of(result) and "globex" not in text_of(result)
    assert counts(narrowed, "labels") == {"Person": 2, "Machine": 1}
    assert narrowed["scope"]["documentIds"] == [world.acme_document]
    async with http_session(keyed, GLOBEX_KEY) as globex_session:
        globex = structured(await globex_session.call_tool("describe_graph", {}))
    assert globex["grantedWorkspaces"] == ["globex"]
    assert counts(globex, "labels") == {"Person": 2}
    assert counts(globex, "relationTypes") == {"MENTORED": 1}


async def test_get_entities_answers_each_id_in_order_a_hidden_one_like_a_missing_one(
    acme_session: Opener, world: World
) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    ids = [world.ada, world.grace, missing, world.ada, world.babbage]
    async with acme_session() as session:
        result = await session.call_tool("get_entities", {"ids": ids, "supportLimit": 1})
        empty = error_of(await session.call_tool("get_entities", {"ids": []}))
        bad = error_of(await session.call_tool("get_entities", {"ids": ["not-a-uuid"]}))
        many = error_of(await session.call_tool("get_entities", {"ids": [missing] * 51}))
    content = structured(result)
    entries = content["entities"]
    assert [entry["id"] for entry in entries] == [world.ada, world.grace, missing, world.babbage]
    assert entries[1] == {"id": world.grace, "entity": None}
    assert entries[2] == {"id": missing, "entity": None}
    assert entries[0]["status"] == "SUPPORTED"
    assert entries[0]["evidenceIds"] == [world.acme_passages[0]]
    assert entries[3]["evidenceIds"] == [world.acme_passages[1]]
    assert set(content["passages"]) == set(world.acme_passages)
    text = text_of(result)
    assert f"Ada Lovelace [Person] (id {world.ada}): SUPPORTED" in text
    assert f"id {world.grace}: not visible in your scope" in text
    assert "Engine notes" in text
    assert all(e["code"] == "MALFORMED" and e["argument"] == "ids" for e in (empty, bad, many))


# Errors: the GraphQL codes and messages -------------------------------------------------------


async def test_each_error_carries_the_graphql_code_and_message(
    acme_session: Opener, keyed: Client, world: World
) -> None:
    async with acme_session() as session:
        malformed = error_of(
            await session.call_tool("search_entities", {"query": "ada", "limit": 0})
        )
        assert malformed["code"] == "MALFORMED" and malformed["argument"] == "limit"
        body = await keyed.execute(
            '{ searchEntities(query: "ada", limit: 0) { score } }',
            headers={"authorization": f"Bearer {ACME_KEY}"},
        )
        assert malformed["message"] == body["errors"][0]["message"]

        assert error_of(await session.call_tool("walk", {"entityId": "not-a-uuid"}))["code"] == (
            "MALFORMED"
        )
        wrong_type = error_of(
            await session.call_tool("walk", {"entityId": world.ada, "depth": "2"})
        )
        assert (wrong_type["code"], wrong_type["argument"]) == ("MALFORMED", "depth")
        unknown = error_of(await session.call_tool("entity_labels", {"everything": True}))
        assert unknown["code"] == "MALFORMED"
        graph_owned = error_of(
            await session.call_tool("walk", {"entityId": world.ada, "relationTypes": ["HAS_PART"]})
        )
        assert graph_owned["code"] == "MALFORMED" and "graph-owned" in graph_owned["message"]

        unavailable = error_of(await session.call_tool("walk", {"entityId": world.grace}))
        assert unavailable["code"] == "UNAVAILABLE"

        # MCP (issue 39): a label the scope does not hold, a workspace outside the grant, are
        # MALFORMED naming the ones there are; GraphQL keeps INDEX_NOT_READY and FORBIDDEN.
        no_label = error_of(
            await session.call_tool("search_entities", {"query": "ada", "labels": ["Nowhere"]})
        )
        assert (no_label["code"], no_label["argument"]) == ("MALFORMED", "labels")
        assert "Machine (1), Person (2)" in no_label["message"]
        outside = error_of(
            await session.call_tool(
                "search_passages", {"query": "ada", "scope": {"workspaces": ["globex"]}}
            )
        )
        assert (outside["code"], outside["argument"]) == ("MALFORMED", "scope.workspaces")
    auth = {"authorization": f"Bearer {ACME_KEY}"}
    label = await keyed.execute(
        '{ searchEntities(query: "ada", labels: ["Nowhere"]) { score } }', headers=auth
    )
    assert label["errors"][0]["extensions"]["code"] == "INDEX_NOT_READY"
    granted = await keyed.execute(
        '{ searchPassages(query: "ada", scope: {workspaces: ["globex"]}) { score } }',
        headers=auth,
    )
    assert granted["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_what_to_do_after_each_error_is_said_once_in_the_instructions_and_in_each_error(
    acme_session: Opener, graph: Graph, world: World
) -> None:
    # An entity label the scope holds whose FULLTEXT index has gone: INDEX_NOT_READY.
    await graph.write("DROP INDEX entity_name_fulltext_Machine", {})
    async with acme_session() as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        not_ready = await session.call_tool(
            "search_entities", {"query": "analytical engine", "labels": ["Machine"]}
        )
        unavailable = await session.call_tool("walk", {"entityId": world.grace})
    # INDEX_NOT_READY: no `schema apply` for an agent, which cannot run it: drop `labels`.
    error = error_of(not_ready)
    assert (error["code"], error["label"]) == ("INDEX_NOT_READY", "Machine")
    assert "schema apply" not in text_of(not_ready) and "schema apply" not in error["message"]
    assert "without `labels`" in text_of(not_ready) and "without `labels`" in error["advice"]
    assert "never call again with the same id" in error_of(unavailable)["advice"]
    assert "What to do: " in text_of(unavailable)
    # Said once, in the server's instructions, not in every description (issue 39, point 6).
    for advice in ("retry once after a pause", "fix the argument the message names"):
        assert INSTRUCTIONS.count(advice) == 1, advice
        assert not any(advice in (tool.description or "") for tool in tools.values()), advice
    # The terms are defined once, in describe_graph's description.
    vocabulary = tools["describe_graph"].description or ""
    for term in ("Visible:", "UNSUPPORTED:", "ASSERTION:", "PATH:", "HYBRID,", "LEXICAL,"):
        assert term in vocabulary, term
    assert "SEMANTIC, the cosine similarity" in vocabulary
    others = [t.description or "" for name, t in tools.items() if name != "describe_graph"]
    assert not any("reciprocal rank fusion" in description for description in others)
    candidates = tools["walk"].inputSchema["properties"]["maxCandidates"]["description"]
    assert candidates.startswith("An internal read bound; leave it out")
    types = tools["walk"].inputSchema["properties"]["relationTypes"]["description"]
    assert "describe_graph" in types and "WORKS_FOR" not in types


async def test_backend_unavailable_over_stdio_when_neo4j_is_down(tmp_path: Path) -> None:
    closed = "bolt://127.0.0.1:9"  # discard port: nothing listens there
    async with stdio_session(closed, tmp_path / "down.log", MCP_WORKSPACES="acme") as session:
        down = error_of(await session.call_tool("entity_labels", {}))
    assert down["code"] == "BACKEND_UNAVAILABLE"
    assert "9" not in down["message"].replace("BACKEND_UNAVAILABLE", "")  # no driver detail


async def test_backend_unavailable_and_internal_over_http(
    keyed: Client, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver = neo4j.AsyncGraphDatabase.driver("bolt://127.0.0.1:9", connection_timeout=1.0)
    try:
        keyed.services.graph = Graph(driver, query_timeout=1.0)
        async with http_session(keyed, ACME_KEY) as session:
            down = error_of(await session.call_tool("get_passage", {"id": world.acme_passages[0]}))
        assert down["code"] == "BACKEND_UNAVAILABLE"
    finally:
        keyed.services.graph = keyed.graph
        await driver.close()

    async def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("secret detail of a bug")

    monkeypatch.setattr(keyed.graph, "read", broken)
    async with http_session(keyed, ACME_KEY) as session:
        result = await session.call_tool("entity_labels", {})
    internal = error_of(result)
    assert internal["code"] == "INTERNAL" and "secret" not in text_of(result)


async def test_a_tool_call_waits_for_the_start_checks_deferred_while_neo4j_was_down(
    keyed: Client, world: World
) -> None:
    """api/graph_checks.py: checks that could not run at start run at the next tool call, as
    at the next GraphQL request. Until they pass the call is BACKEND_UNAVAILABLE, never
    INTERNAL; once they pass it is answered; a mismatch they find is BACKEND_UNAVAILABLE."""
    passage = world.acme_passages[0]
    for dimension, fits in ((TEST_DIMENSION, True), (16, False)):
        checks = await deferred_graph_checks(dimension)
        keyed.services.graph_checks = checks
        async with http_session(keyed, ACME_KEY) as session:
            waiting = error_of(await session.call_tool("get_passage", {"id": passage}))
            assert waiting["code"] == "BACKEND_UNAVAILABLE" and not checks.passed
            checks.graph = keyed.graph  # Neo4j answers now
            result = await session.call_tool("get_passage", {"id": passage})
            if fits:
                assert structured(result)["passage"]["id"] == passage and checks.passed
            else:
                mismatch = error_of(result)
                assert mismatch["code"] == "BACKEND_UNAVAILABLE", mismatch
                assert "does not fit" in mismatch["message"] and not checks.passed


async def test_no_token_or_a_bad_one_is_401_before_any_tool_runs(keyed: Client) -> None:
    headers = {"accept": "application/json, text/event-stream"}
    for authorization in (None, "Bearer not-a-key"):
        sent = {**headers, **({"authorization": authorization} if authorization else {})}
        response = await keyed.http.post("/mcp", json=INITIALIZE, headers=sent)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"
        assert response.json()["error"]["code"] == "UNAUTHENTICATED"
    keyed.statements.clear()
    assert keyed.statements == []


def test_stdio_refuses_to_start_without_mcp_workspaces_unless_auth_mode_none(
    neo4j_uri: str,
) -> None:
    environment = stdio_environment(neo4j_uri)
    environment.pop("MCP_WORKSPACES", None)
    environment.pop("AUTH_MODE", None)
    done = subprocess.run(
        [sys.executable, "-m", "commands.main", "mcp"],
        env=environment,
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=120,
        input="",
        check=False,
    )
    assert done.returncode == 2
    assert "MCP_WORKSPACES" in done.stderr and done.stdout == ""


async def test_stdio_with_auth_mode_none_reads_every_workspace(
    neo4j_uri: str, world: World, tmp_path: Path
) -> None:
    async with stdio_session(neo4j_uri, tmp_path / "none.log", AUTH_MODE="none") as session:
        grace = structured(await session.call_tool("get_entity", {"id": world.grace}))
        ada = structured(await session.call_tool("get_entity", {"id": world.ada}))
    assert grace["entity"]["name"] == "Grace Hopper" and ada["entity"]["name"] == "Ada Lovelace"


# The size cut ---------------------------------------------------------------------------------


async def test_a_result_over_mcp_max_result_chars_is_cut_with_a_note(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, tmp_path: Path
) -> None:
    long_text = "Ada Lovelace " + "studied the engine at length. " * 60
    names: dict[str, Sequence[int]] = {f"Ada Lovelace {n}": [n] for n in range(12)}
    await builder.version("acme", [long_text] * 12, mentions=names, title="Long notes")
    await apply_schema(graph, TEST_DIMENSION)
    arguments = {"query": "ada lovelace", "mode": "LEXICAL", "limit": 12}
    async with (
        serving(neo4j_uri, graph, MCP_MAX_RESULT_CHARS="5000") as client,
        http_session(client) as session,
    ):
        over_http = await session.call_tool("search_entities", arguments)
    over_stdio_log = tmp_path / "cut.log"
    async with stdio_session(
        neo4j_uri, over_stdio_log, MCP_WORKSPACES="acme", MCP_MAX_RESULT_CHARS="5000"
    ) as session:
        over_stdio = await session.call_tool("search_entities", arguments)
    for result in (over_http, over_stdio):
        content = structured(result)
        text = text_of(result)
        # The budget is the text's, what a model reads (contract §12; issue 39): the structured
        # content holds the same hits, without passage bodies.
        assert len(text) <= 5000
        assert "text" not in json.dumps(content["passages"])
        assert 0 < len(content["hits"]) < 12
        assert f"{12 - len(content['hits'])} of 12 hits" in content["cut"]
        # The note names the call that reads the rest (issue 29, point 3).
        assert f'cursor "{content["nextCursor"]}"' in content["cut"]
        assert text.endswith(content["cut"])


# Round trips ------------------------------------------------------------------------------------

PASSAGE = "id text position version document { id workspace title uri currentVersion }"
ENTITY = "id name labels description"
EDGES = (
    "edges { id type kind depth source { id } target { id } evidenceIds description weight "
    f"evidence {{ {PASSAGE} }} }}"
)
ENTITY_QUERY = f"""query($q: String!) {{ searchEntities(query: $q) {{
  entity {{ {ENTITY} }} status score lexicalRank semanticRank evidenceIds
  evidence {{ {PASSAGE} }} }} }}"""
PASSAGE_QUERY = f"""query($q: String!) {{ searchPassages(query: $q) {{
  passage {{ {PASSAGE} }} score lexicalRank semanticRank }} }}"""
WALK_QUERY = f"""query($id: ID!) {{ walk(entityId: $id) {{
  start {{ {ENTITY} }} nodes {{ {ENTITY} }} truncatedBy {EDGES} }} }}"""
ENTITY_BY_ID = (
    f"""query($id: ID!) {{ entity(id: $id) {{ {ENTITY} evidence(limit: 3) {{ {PASSAGE} }} }} }}"""
)
ENTITY_WALK = f"""query($id: ID!) {{ walk(entityId: $id, maxNodes: 21, maxEdges: 20) {{
  start {{ id }} nodes {{ {ENTITY} }} truncatedBy {EDGES} }} }}"""
PASSAGE_BY_ID = f"""query($id: ID!) {{ passage(id: $id) {{ {PASSAGE} }} }}"""
LABELS_QUERY = "{ entityLabels { label fulltextIndex vectorIndex } }"
ENTITIES_BY_ID = f"""query($a: ID!, $b: ID!, $c: ID!) {{
  a: entity(id: $a) {{ {ENTITY} evidence(limit: 3) {{ {PASSAGE} }} }}
  b: entity(id: $b) {{ {ENTITY} evidence(limit: 3) {{ {PASSAGE} }} }}
  c: entity(id: $c) {{ {ENTITY} evidence(limit: 3) {{ {PASSAGE} }} }} }}"""


async def test_each_tool_costs_the_round_trips_of_the_matching_graphql_query(
    keyed: Client, world: World
) -> None:
    auth = {"authorization": f"Bearer {ACME_KEY}"}

    async def graphql(*operations: tuple[str, dict[str, Any]]) -> int:
        total = 0
        for operation, variables in operations:
            body = await keyed.execute(operation, variables, headers=auth)
            assert "errors" not in body, body
            total += len(keyed.statements)
        return total

    async def tool(session: ClientSession, name: str, arguments: dict[str, Any]) -> int:
        # Warms the client's tool list and the service's kept index catalog (contract §3: a
        # new service reads it on its first two searches).
        for _ in range(2):
            await session.call_tool(name, arguments)
        keyed.statements.clear()
        structured(await session.call_tool(name, arguments))
        return len(keyed.statements)

    engine = world.builder.entity_id("Analytical Engine")
    async with http_session(keyed, ACME_KEY) as session:
        pairs = {
            "search_entities": (
                await tool(session, "search_entities", {"query": "ada lovelace"}),
                await graphql((ENTITY_QUERY, {"q": "ada lovelace"})),
            ),
            "search_passages": (
                await tool(session, "search_passages", {"query": "first program"}),
                await graphql((PASSAGE_QUERY, {"q": "first program"})),
            ),
            "walk": (
                await tool(session, "walk", {"entityId": world.ada}),
                await graphql((WALK_QUERY, {"id": world.ada})),
            ),
            "get_entity": (
                await tool(session, "get_entity", {"id": world.ada}),
                await graphql((ENTITY_BY_ID, {"id": world.ada}), (ENTITY_WALK, {"id": world.ada})),
            ),
            "get_passage": (
                await tool(session, "get_passage", {"id": world.acme_passages[0]}),
                await graphql((PASSAGE_BY_ID, {"id": world.acme_passages[0]})),
            ),
            "entity_labels": (
                await tool(session, "entity_labels", {}),
                await graphql((LABELS_QUERY, {})),
            ),
            "get_entities": (
                await tool(
                    session, "get_entities", {"ids": [world.ada, world.babbage, world.grace]}
                ),
                await graphql(
                    (ENTITIES_BY_ID, {"a": world.ada, "b": world.babbage, "c": world.grace})
                ),
            ),
        }
        # MCP's own, with no GraphQL field: the stored relationship types, the counts, and
        # the workspaces and documents the scope holds;
        described = await tool(session, "describe_graph", {})
        # a depth-1 walk from each end (no DEPTH probe), then the connecting edges' passages;
        between = await tool(
            session, "walk_between", {"entityId": world.ada, "otherEntityId": engine}
        )
        # the entity, a page of its evidence, and its total.
        evidence = await tool(session, "get_evidence", {"entityId": world.ada})
    assert (described, between, evidence) == (3, 3, 3)
    assert set(pairs) == TOOLS - {"describe_graph", "walk_between", "get_evidence"}
    for name, (mcp_trips, graphql_trips) in pairs.items():
        assert mcp_trips == graphql_trips, (name, pairs)
    assert all(trips > 0 for trips, _ in pairs.values()), pairs


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
MCP_HEADERS = {
    "accept": "application/json, text/event-stream",
    "authorization": f"Bearer {ACME_KEY}",
}


async def test_a_foreign_origin_is_403_and_loopback_and_configured_origins_pass(
    neo4j_uri: str, graph: Graph, keys_file: Path
) -> None:
    """MCP Streamable HTTP: "If the Origin header is present and invalid, servers MUST respond
    with HTTP 403 Forbidden" (DNS rebinding)."""
    async with serving(
        neo4j_uri,
        graph,
        AUTH_MODE="apikeys",
        AUTH_API_KEYS_FILE=str(keys_file),
        CORS_ALLOW_ORIGINS="https://app.example.com",
    ) as client:
        for foreign in (
            "https://evil.example",
            "null",
            "https://app.example.com.evil.example",
            "http://localhost.evil.example",
            "http://app.example.com",
        ):
            response = await client.http.post(
                "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "origin": foreign}
            )
            assert response.status_code == 403, foreign
            assert response.json()["error"]["code"] == "FORBIDDEN"
        for origin in (
            None,
            "http://localhost:6274",
            "http://127.0.0.1",
            "http://[::1]:3000",
            "https://app.example.com",
        ):
            sent = {**MCP_HEADERS, **({"origin": origin} if origin else {})}
            response = await client.http.post("/mcp", json=INITIALIZE, headers=sent)
            assert response.status_code == 200, (origin, response.text)
            assert response.json()["result"]["serverInfo"]


async def test_a_tool_call_over_the_request_time_limit_ends_with_a_coded_503(
    neo4j_uri: str, graph: Graph, keys_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/mcp runs under REQUEST_TIMEOUT_SECONDS as /graphql does (api/request_timeout.py)."""
    never = asyncio.Event()

    async def hanging_read(*_: Any, **__: Any) -> Any:
        await never.wait()  # only the time limit ends it

    async with serving(
        neo4j_uri,
        graph,
        AUTH_MODE="apikeys",
        AUTH_API_KEYS_FILE=str(keys_file),
        REQUEST_TIMEOUT_SECONDS="0.2",
    ) as client:
        monkeypatch.setattr(client.services.graph, "read", hanging_read)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "entity_labels", "arguments": {}},
        }
        async with asyncio.timeout(60):  # without the limit it never ends: fail, not hang
            response = await client.http.post("/mcp", json=call, headers=MCP_HEADERS)
        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert error["code"] == "BACKEND_UNAVAILABLE"
        assert "REQUEST_TIMEOUT_SECONDS" in error["message"]


# Evidence totals and the cursor to the rest (issue 39, point 2) -------------------------------


async def test_an_edge_with_more_passages_than_it_shows_says_its_total_and_reads_on(
    acme_session: Opener, graph: Graph, world: World
) -> None:
    builder = world.builder
    texts = [f"Ada Lovelace wrote to Charles Babbage, letter {n}." for n in range(5)]
    letters = await builder.version(
        "acme",
        texts,
        title="Letters",
        mentions={"Ada Lovelace": range(5), "Charles Babbage": range(5)},
        relations=[("Ada Lovelace", "WROTE_TO", "Charles Babbage", range(5))],
    )
    await apply_schema(graph, TEST_DIMENSION)
    async with acme_session() as session:
        walked = await session.call_tool("walk", {"entityId": world.ada})
        edge = next(e for e in structured(walked)["edges"] if e["type"] == "WROTE_TO")
        rest = structured(
            await session.call_tool("get_evidence", {"cursor": edge["evidenceCursor"]})
        )
    assert (len(edge["evidenceIds"]), edge["evidenceTotal"]) == (3, 5)
    assert "(3 of 5 passages; the rest: get_evidence with cursor" in text_of(walked)
    assert (rest["first"], rest["evidenceTotal"], rest["edgeId"]) == (3, 5, edge["id"])
    assert edge["evidenceIds"] + rest["evidenceIds"] == letters.passage_ids
    assert "evidenceCursor" not in rest


# A walk, one line per edge (issue 39, point 1) ------------------------------------------------


async def test_a_default_walk_of_a_hundred_edges_on_long_passages_fits_one_answer(
    acme_session: Opener, graph: Graph, world: World
) -> None:
    """GraphRAG-sized text units (about 5,000 characters), each supporting five relations of
    a hub: every edge and every passage's quote in one answer, uncut at 20,000 characters."""
    filler = "The engine turned through the night while the notes piled up on the desk. " * 66
    names = [f"Correspondent {n}" for n in range(100)]
    texts = [
        filler + " ".join(f"Ada Lovelace wrote to {name}." for name in names[n : n + 5])
        for n in range(0, 100, 5)
    ]
    await world.builder.version(
        "acme",
        texts,
        title="Correspondence",
        mentions={"Ada Lovelace": range(20), **{name: [n // 5] for n, name in enumerate(names)}},
        relations=[("Ada Lovelace", "WROTE_TO", name, [n // 5]) for n, name in enumerate(names)],
    )
    await apply_schema(graph, TEST_DIMENSION)
    async with acme_session() as session:
        result = await session.call_tool("walk", {"entityId": world.ada})
    content = structured(result)
    assert "cut" not in content and len(text_of(result)) <= 20_000
    wrote = [edge for edge in content["edges"] if edge["type"] == "WROTE_TO"]
    assert len(wrote) == 100 and len(content["passages"]) == 21
    lines = text_of(result).splitlines()
    assert sum(line.startswith("- ") for line in lines) == len(content["edges"])
    # Each passage quoted once, where it names an end of the edges it supports.
    quoted = [line for line in lines if line.startswith("[")]
    assert len(quoted) == len(content["passages"])
    assert all("Ada Lovelace" in line or "Correspondent" in line for line in quoted)
