"""The front door is one for every door (contract §7, issue 38 §1): a tool call at `/mcp` takes
`/graphql`'s admission slot, is priced by what it reads, spends the same caller's rate budget,
is refused with the same codes in MCP's error form (`isError`, the code, `Retry-After`, advice
a model can follow), and its refusals are paced with the caller's others. Event streams (GET)
are bounded in time and per caller; under trusted documents `/mcp` is off unless allowed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphql import parse
from starlette.types import Message

from api.front_door.query_cost import operation_cost
from api.front_door.rate_limit import caller_of
from api.front_door.trusted_documents import MANIFEST_NAME
from api.schema import create_schema
from graph.driver import Graph
from graph.graph_schema import apply_schema
from mcpserver.tool_costs import tool_cost
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support.graph_builder import GraphBuilder
from tests.support.mcp_sessions import error_of, http_session, structured

ACME_KEY = "mcp-door-acme-0f1e2d3c4b5a6978"
OTHER_KEY = "mcp-door-other-8796a5b4c3d2e1f0"
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
GRAPHQL_RESPONSE = {"accept": "application/graphql-response+json"}
# The GraphQL operation the `walk` tool stands for (mcpserver/tool_costs.py prices it so).
DEPTH_2_WALK = (
    "query ($id: ID!) { walk(entityId: $id, depth: 2) { start { id } nodes { id }"
    " edges { id source { id } target { id } evidence { id document { id } } } } }"
)
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def keys_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({ACME_KEY: ["acme"], OTHER_KEY: ["acme"]}))
    return path


# The first plans of a statement on a busy shared machine may take longer than the default
# limits; these tests are not about those limits.
UNHURRIED = {"NEO4J_QUERY_TIMEOUT_SECONDS": "300", "REQUEST_TIMEOUT_SECONDS": "600"}


def keyed(keys_file: Path, **settings: str) -> dict[str, str]:
    return {"AUTH_MODE": "apikeys", "AUTH_API_KEYS_FILE": str(keys_file), **settings}


async def ada(builder: GraphBuilder, graph: Graph) -> str:
    await builder.version(
        "acme",
        ["Ada Lovelace met Charles Babbage.", "Babbage built the engine."],
        mentions={"Ada Lovelace": [0], "Charles Babbage": [0, 1], "Engine": [1]},
        relations=[
            ("Ada Lovelace", "MET", "Charles Babbage", [0]),
            ("Charles Babbage", "BUILT", "Engine", [1]),
        ],
    )
    await apply_schema(graph, TEST_DIMENSION)
    return builder.entity_id("Ada Lovelace")


async def call(client: Client, key: str | None, name: str, arguments: dict[str, Any]) -> Any:
    """One `tools/call` as a JSON-RPC POST (the transport is stateless: no session needed),
    so that the answer's HTTP headers can be read."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    message["params"] = {"name": name, "arguments": arguments}
    headers = {**MCP_HEADERS, **({"authorization": f"Bearer {key}"} if key else {})}
    return await client.http.post("/mcp", json=message, headers=headers)


def tool_error(response: httpx.Response) -> dict[str, Any]:
    """The tool error of a `tools/call` answer, in MCP's error form: the text starts with the
    code and says what to do."""
    result = response.json()["result"]
    assert result["isError"] is True, result
    error: dict[str, Any] = result["structuredContent"]["error"]
    assert result["content"][0]["text"].startswith(f"{error['code']}: ")
    assert "What to do: " in result["content"][0]["text"]
    return error


def graphql_cost(query: str, variables: dict[str, Any]) -> int:
    return operation_cost(create_schema([])._schema, parse(query), None, variables)


class Pauses:
    """The admission's `sleep`: records each pause and lets the client's clock pass it."""

    def __init__(self, client: Client) -> None:
        self.seconds: list[float] = []
        self.client = client

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)
        self.client.clock.advance(seconds)


# The rate budget -------------------------------------------------------------------------------


async def test_a_key_spending_its_rate_through_mcp_is_rate_limited_there_and_then_at_graphql(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, keys_file: Path
) -> None:
    """The issue's case: a key of 2,000 points a minute runs depth-2 walks through /mcp."""
    start = await ada(builder, graph)
    limits = {"GRAPHQL_RATE_LIMIT_PER_MINUTE": "2000", "GRAPHQL_MAX_COST": "2000"}
    async with serving(neo4j_uri, graph, **UNHURRIED, **keyed(keys_file, **limits)) as client:
        front_door = client.app.state.front_door
        front_door.rate_limits.clock = client.clock  # no point comes back during the test
        front_door.admission.sleep = Pauses(client)
        front_door.admission.clock = client.clock
        # GraphQL's default bounds (MCP's own defaults are larger: mcpserver/tools.py).
        walk = {"entityId": start, "depth": 2, "maxNodes": 50, "maxEdges": 100}
        assert tool_cost("walk", walk) == graphql_cost(DEPTH_2_WALK, {"id": start})
        assert tool_cost("walk", walk) * 2 > 2000  # the second walk is over the minute's points
        first = await call(client, ACME_KEY, "walk", walk)
        assert first.json()["result"]["isError"] is False
        refused = await call(client, ACME_KEY, "walk", walk)
        error = tool_error(refused)
        assert error["code"] == "RATE_LIMITED"
        assert error["retryAfter"] >= 1
        assert refused.headers["retry-after"] == str(error["retryAfter"])
        assert "retryAfter" in error["advice"] and "make no call" in error["advice"]
        # The same caller's budget: /graphql refuses it too, and another key is untouched.
        answer = await client.http.post(
            "/graphql",
            json={"query": DEPTH_2_WALK, "variables": {"id": start}},
            headers={"authorization": f"Bearer {ACME_KEY}", **GRAPHQL_RESPONSE},
        )
        assert answer.status_code == 429
        assert answer.json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
        other = await call(client, OTHER_KEY, "walk", walk)
        assert other.json()["result"]["isError"] is False


async def test_a_tool_call_is_charged_what_it_reads(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, keys_file: Path
) -> None:
    start = await ada(builder, graph)
    limits = {"GRAPHQL_RATE_LIMIT_PER_MINUTE": "100000"}
    async with serving(neo4j_uri, graph, **UNHURRIED, **keyed(keys_file, **limits)) as client:
        rate_limits = client.app.state.front_door.rate_limits
        rate_limits.clock = client.clock
        acme = caller_of(client.services.authenticator.authenticate(f"Bearer {ACME_KEY}"))
        for name, arguments in [
            ("walk", {"entityId": start, "depth": 2}),
            ("describe_graph", {}),
            ("search_passages", {"query": "engine", "limit": 20, "mode": "LEXICAL"}),
        ]:
            before = rate_limits.available(acme)
            answer = await call(client, ACME_KEY, name, arguments)
            assert answer.json()["result"]["isError"] is False, answer.json()
            assert before - rate_limits.available(acme) == tool_cost(name, arguments), name


# Admission -------------------------------------------------------------------------------------


async def test_a_tool_call_holds_an_admission_slot_while_it_reads(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder
) -> None:
    start = await ada(builder, graph)
    async with serving(neo4j_uri, graph, **UNHURRIED) as client:
        admission = client.app.state.front_door.admission
        executing: list[int] = []
        graph.observers.append(lambda query, parameters: executing.append(admission.executing))
        answer = await call(client, None, "walk", {"entityId": start})
        assert answer.json()["result"]["isError"] is False
        assert executing and set(executing) == {1}, executing  # every statement inside its slot
        assert admission.executing == 0  # and given back


async def test_a_tool_call_with_no_slot_free_is_overloaded_with_retry_after_and_reads_nothing(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder
) -> None:
    start = await ada(builder, graph)
    limits = {"GRAPHQL_MAX_CONCURRENT_OPERATIONS": "1", "GRAPHQL_QUEUE_LENGTH": "0"}
    async with serving(neo4j_uri, graph, **UNHURRIED, **limits) as client:
        admission = client.app.state.front_door.admission
        admission.sleep = Pauses(client)
        async with admission.slot(client="someone else"):  # the process's one slot
            client.statements.clear()
            refused = await call(client, None, "walk", {"entityId": start})
        assert client.statements == []
        error = tool_error(refused)
        assert (error["code"], error["retryAfter"]) == ("OVERLOADED", 1)
        assert refused.headers["retry-after"] == "1"
        assert "nothing of this call ran" in error["advice"]
        # The SDK's own client sees the same tool error.
        async with admission.slot(client="someone else"), http_session(client) as session:
            sdk = error_of(await session.call_tool("walk", {"entityId": start}))
        assert sdk["code"] == "OVERLOADED" and sdk["retryAfter"] == 1


# Pacing ----------------------------------------------------------------------------------------


async def test_a_callers_refusals_are_paced_across_mcp_and_graphql_alike(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder, keys_file: Path
) -> None:
    """A cost bomb sent again at once is refused after a pause, longer each time, whichever
    door it comes through: the caller's turns are one."""
    start = await ada(builder, graph)
    async with serving(
        neo4j_uri, graph, **UNHURRIED, **keyed(keys_file, GRAPHQL_MAX_COST="2000")
    ) as client:
        admission = client.app.state.front_door.admission
        admission.sleep = pauses = Pauses(client)
        admission.clock = client.clock
        bomb = {"entityId": start, "depth": 2, "maxCandidates": 5000, "maxEdges": 1000}
        assert tool_cost("walk", bomb) > 2000
        first = tool_error(await call(client, ACME_KEY, "walk", bomb))
        assert first["code"] == "COST_LIMIT_EXCEEDED" and first["cost"] == tool_cost("walk", bomb)
        assert "asking for less" in first["advice"]
        graphql_bomb = DEPTH_2_WALK.replace("depth: 2", "depth: 2, maxCandidates: 5000")
        refused = await client.http.post(
            "/graphql",
            json={"query": graphql_bomb, "variables": {"id": start}},
            headers={"authorization": f"Bearer {ACME_KEY}", **GRAPHQL_RESPONSE},
        )
        assert refused.json()["errors"][0]["extensions"]["code"] == "COST_LIMIT_EXCEEDED"
        third = tool_error(await call(client, ACME_KEY, "walk", bomb))
        assert third["code"] == "COST_LIMIT_EXCEEDED"
        pause = admission.refusal_pause
        assert pauses.seconds == [pause, 2 * pause]  # the first at once, then further apart
        small = {"entityId": start, "maxNodes": 50, "maxEdges": 100}  # within the 2,000 points
        answer = await call(client, ACME_KEY, "walk", small)
        assert answer.json()["result"]["isError"] is False
        assert len(pauses.seconds) == 2  # an answer is never paused


# Event streams ---------------------------------------------------------------------------------


class Stream:
    """One GET /mcp asking for an event stream, driven as its ASGI server would: the client
    stays until `leave()`."""

    def __init__(self, client: Client, key: str | None) -> None:
        headers = [(b"host", b"127.0.0.1"), (b"accept", b"text/event-stream")]
        if key:
            headers.append((b"authorization", f"Bearer {key}".encode()))
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": "/mcp",
            "raw_path": b"/mcp",
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50100),
            "server": ("127.0.0.1", 8000),
        }
        self.left = asyncio.Event()
        self.requested = False
        self.started = asyncio.Event()
        self.messages: list[Message] = []
        self.task = asyncio.create_task(client.app(self.scope, self.receive, self.send))

    async def receive(self) -> Message:
        if not self.requested:  # a GET's request, without a body, as a server hands it over
            self.requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.left.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        self.messages.append(message)
        if message["type"] == "http.response.start":
            self.started.set()

    def leave(self) -> None:
        self.left.set()

    @property
    def status(self) -> int:
        return int(self.messages[0]["status"])

    @property
    def headers(self) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in self.messages[0]["headers"]}

    def body(self) -> Any:
        return json.loads(b"".join(m.get("body", b"") for m in self.messages[1:]))


@asynccontextmanager
async def streams_of(client: Client) -> AsyncIterator[Callable[[str | None], Stream]]:
    """Opens the test's streams (`open(key)`); each is left and ended before the app stops."""
    opened: list[Stream] = []

    def open_stream(key: str | None) -> Stream:
        opened.append(Stream(client, key))
        return opened[-1]

    try:
        yield open_stream
    finally:
        for stream in opened:
            stream.leave()
        await asyncio.gather(*(stream.task for stream in opened), return_exceptions=True)


async def test_an_event_stream_ends_after_mcp_max_stream_seconds(
    neo4j_uri: str, graph: Graph
) -> None:
    lifetime = {"MCP_MAX_STREAM_SECONDS": "0.5"}
    async with (
        serving(neo4j_uri, graph, **UNHURRIED, **lifetime) as client,
        streams_of(client) as open_stream,
    ):
        stream = open_stream(None)
        await stream.started.wait()
        assert stream.status == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        await stream.task  # ends by itself: its client never leaves
        assert not stream.left.is_set()
        last = stream.messages[-1]  # and ends properly: the client sees it close
        assert last["type"] == "http.response.body" and not last.get("more_body")


async def test_a_caller_holds_at_most_mcp_max_streams_per_caller(
    neo4j_uri: str, graph: Graph, keys_file: Path
) -> None:
    limits = {"MCP_MAX_STREAMS_PER_CALLER": "2", "MCP_MAX_STREAM_SECONDS": "3600"}
    async with (
        serving(neo4j_uri, graph, **UNHURRIED, **keyed(keys_file, **limits)) as client,
        streams_of(client) as open_stream,
    ):
        client.app.state.mcp_streams.clock = client.clock  # time stands still
        first, second = open_stream(ACME_KEY), open_stream(ACME_KEY)
        await first.started.wait()
        await second.started.wait()
        third = open_stream(ACME_KEY)
        await third.task  # refused at once
        assert third.status == 429
        error = third.body()["error"]
        assert error["code"] == "RATE_LIMITED"
        assert third.headers["retry-after"] == str(error["retryAfter"])
        assert error["retryAfter"] == 3600  # when its first stream ends
        other = open_stream(OTHER_KEY)  # another caller is not held to acme's streams
        await other.started.wait()
        assert other.status == 200
        first.leave()
        await first.task
        again = open_stream(ACME_KEY)  # a stream that ended frees its place
        await again.started.wait()
        assert again.status == 200


async def test_no_event_stream_is_offered_when_mcp_max_streams_per_caller_is_zero(
    neo4j_uri: str, graph: Graph
) -> None:
    none_offered = {"MCP_MAX_STREAMS_PER_CALLER": "0"}
    async with (
        serving(neo4j_uri, graph, **UNHURRIED, **none_offered) as client,
        streams_of(client) as open_stream,
    ):
        stream = open_stream(None)
        await stream.task
        assert stream.status == 405
        assert stream.body()["error"]["code"] == "MALFORMED"


# Trusted documents -----------------------------------------------------------------------------


async def test_under_trusted_documents_mcp_answers_only_when_mcp_http_enabled_says_so(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder
) -> None:
    start = await ada(builder, graph)
    manifest = str(EXAMPLES / MANIFEST_NAME)
    async with serving(neo4j_uri, graph, **UNHURRIED, GRAPHQL_TRUSTED_DOCUMENTS=manifest) as client:
        assert (await call(client, None, "walk", {"entityId": start})).status_code == 404
    trusted_and_mcp = {"GRAPHQL_TRUSTED_DOCUMENTS": manifest, "MCP_HTTP_ENABLED": "true"}
    async with serving(neo4j_uri, graph, **UNHURRIED, **trusted_and_mcp) as client:
        async with http_session(client) as session:
            walked = structured(await session.call_tool("walk", {"entityId": start}))
        assert walked["start"]["id"] == start
