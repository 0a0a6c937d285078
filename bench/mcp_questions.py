"""Eight agent questions asked through the official MCP SDK client, as a model would ask them
(issue 39, "Must show"): how many calls, how many characters of text and of structured content
it takes until the answer is fully cited.

    .venv/bin/python -m bench.mcp_questions --neo4j bolt://127.0.0.1:7687 [--source DIR]
        [--load] [--json-out FILE]

The graph must hold the demo data in workspace `demo` and A Christmas Carol in workspace
`carol`, both loaded with `evidencegraph load --format graphrag` (`--load` does it). The MCP
server is `evidencegraph mcp` over stdio, run from `--source` (default: this checkout), so the
same script measures another release: `git archive main | tar -x -C /tmp/main` and
`--source /tmp/main` for the figures before a change. It is granted both workspaces and uses the
configured embedder (MiniLM by default, as the data was loaded).

The client is scripted, not a model, but it does what the issue's model did: it reads the tool
list and uses what is there; it finds entities by searching their names; it follows every
cursor and every piece of advice the answers give (a walk cut by `maxNodes` or `maxEdges` is
walked again with them at their maximum); it decides from the text when the text says enough
(a search that says nothing matched by name). Ids, cursors and `truncatedBy` it takes from the
structured content, which holds what the text holds.

"Fully cited" is checked against the graph itself (the walk of answers/walk.py at its largest
bounds; the passages an event entity is mentioned in):
- relations: every relation of the entity is in the text read, with the ids of both ends, and
  every passage the walk cites for it (up to three) is quoted there (`passage <id>`);
- connection: the same for every relation on a path of at most two steps between the two;
- event: the passage the event is mentioned in was read whole (every character of it);
- entity: a quote of the entity's evidence in the text holds a word of its name;
- absent: the answer says nothing matched the name, or a lexical-only search finds nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import neo4j
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from answers import walk as answers_walk
from answers.context import AnswerContext, AnswerSettings
from api.settings import Settings
from contract.scope import Grant, effective_scope
from graph.driver import Graph

REPOSITORY = Path(__file__).resolve().parents[1]
DATASETS = {
    "demo": REPOSITORY / "data" / "graphrag-operation-dulce",
    "carol": REPOSITORY / "data" / "graphrag-christmas-carol",
}
LARGEST_WALK = {"maxNodes": 500, "maxEdges": 1000}
MOST_PAGES = 60  # a cursor that never ends is a defect, not a long answer


@dataclass(frozen=True)
class Question:
    key: str
    workspace: str
    asked: str
    kind: str  # relations | connection | event | entity | absent
    query: str = ""
    names: tuple[str, ...] = ()  # the entities the answer is about, as the graph names them
    event: str = ""  # the event entity whose passage holds the answer


QUESTIONS = (
    Question(
        "dulce-relations",
        "demo",
        "Who are Taylor Cruz's relations and what does the source say about each?",
        "relations",
        names=("TAYLOR CRUZ",),
    ),
    Question(
        "dulce-connection",
        "demo",
        "What is the connection between Alex Mercer and Taylor Cruz?",
        "connection",
        names=("ALEX MERCER", "TAYLOR CRUZ"),
    ),
    Question(
        "dulce-event",
        "demo",
        "What happens when the team meets the drone in Dulce base?",
        "event",
        query="drone encounter",
        event="DRONE ENCOUNTER IN DULCE BASE",
    ),
    Question("dulce-absent", "demo", "Who is Sherlock Holmes?", "absent", query="Sherlock Holmes"),
    Question(
        "carol-relations",
        "carol",
        "Who are Scrooge's relations and what does the source say about each?",
        "relations",
        names=("SCROOGE", "EBENEZER SCROOGE"),
    ),
    Question(
        "carol-connection",
        "carol",
        "What is the connection between Scrooge and Tiny Tim?",
        "connection",
        names=("SCROOGE", "TINY TIM"),
    ),
    Question(
        "carol-event",
        "carol",
        "What happens at Fezziwig's party?",
        "event",
        query="Fezziwig's party",
        event="CHRISTMAS EVE PARTY AT FEZZIWIG'S",
    ),
    Question("carol-entity", "carol", "Who is Jacob Marley?", "entity", names=("JACOB MARLEY",)),
)


@dataclass
class Transcript:
    """What one question cost: each call with the characters of its text and its JSON."""

    calls: list[tuple[str, int, int]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)

    @property
    def text_chars(self) -> int:
        return sum(text for _, text, _ in self.calls)

    @property
    def structured_chars(self) -> int:
        return sum(structured for _, _, structured in self.calls)


class Client:
    """The SDK session, counting what every call returns."""

    def __init__(self, session: ClientSession, tools: dict[str, types.Tool]) -> None:
        self.session = session
        self.tools = tools
        self.transcript = Transcript()
        self.seen: dict[str, str] = {}  # entity name -> id, from every answer read so far

    def takes(self, tool: str, argument: str) -> bool:
        return tool in self.tools and argument in self.tools[tool].inputSchema["properties"]

    async def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        result = await self.session.call_tool(tool, arguments)
        block = result.content[0]
        text = block.text if isinstance(block, types.TextContent) else ""
        content = result.structuredContent or {}
        structured = len(json.dumps(content, ensure_ascii=False)) if content else 0
        self.transcript.calls.append((tool, len(text), structured))
        self.transcript.text.append(text)
        _entities_in(content, self.seen)
        if result.isError:
            raise RuntimeError(f"{tool} {arguments}: {text}")
        return text, content

    async def pages(self, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        """Every page of one answer, following `nextCursor`."""
        _, content = await self.call(tool, arguments)
        answered = [content]
        while "nextCursor" in answered[-1]:
            if len(answered) >= MOST_PAGES:
                raise RuntimeError(f"{tool}: the cursor does not end")
            _, content = await self.call(tool, {**arguments, "cursor": answered[-1]["nextCursor"]})
            answered.append(content)
        return answered

    async def find(self, name: str) -> str:
        """The id of the entity named `name`: from an answer already read, else found by
        searching its name."""
        if name in self.seen:
            return self.seen[name]
        arguments: dict[str, Any] = {"query": name.title()}
        for _ in range(MOST_PAGES):
            _, page = await self.call("search_entities", arguments)
            for hit in page["hits"]:
                if hit["entity"]["name"] == name:
                    return str(hit["entity"]["id"])
            if "nextCursor" not in page:
                break
            arguments = {**arguments, "cursor": page["nextCursor"]}
        raise RuntimeError(f"search_entities did not find {name}")

    async def walked(self, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        """A walk read whole: every page, and again at the largest bounds when a bound cut it
        (the advice says which to raise)."""
        pages = await self.pages(tool, arguments)
        cut = {bound for page in pages for bound in _truncated(page)}
        if cut & {"NODES", "EDGES"}:
            pages = await self.pages(tool, {**arguments, **LARGEST_WALK})
        return pages


def _entities_in(content: Any, seen: dict[str, str]) -> None:
    """Every entity an answer names (an object with `id`, `name` and `labels`), by name."""
    if isinstance(content, dict):
        if {"id", "name", "labels"} <= set(content) and isinstance(content["name"], str):
            seen.setdefault(content["name"], content["id"])
        for value in content.values():
            _entities_in(value, seen)
    elif isinstance(content, list):
        for item in content:
            _entities_in(item, seen)


def _truncated(page: dict[str, Any]) -> list[str]:
    if "truncatedBy" in page:
        return list(page["truncatedBy"])
    return [bound for side in page.get("walks", []) for bound in side.get("truncatedBy", [])]


# The strategies: what a model does for each kind of question -----------------------------------


async def relations(client: Client, question: Question) -> None:
    for name in question.names:
        await client.walked("walk", {"entityId": await client.find(name)})


async def connection(client: Client, question: Question) -> None:
    one, other = [await client.find(name) for name in question.names]
    if "walk_between" in client.tools:
        await client.walked("walk_between", {"entityId": one, "otherEntityId": other})
    else:  # the relations around each end, to be matched up by the reader
        await client.walked("walk", {"entityId": one})
        await client.walked("walk", {"entityId": other})


async def event(client: Client, question: Question, truth: Truth) -> None:
    _, found = await client.call("search_passages", {"query": question.query})
    for hit in found["hits"][:3]:
        await read_whole(client, hit["passageId"])
        if truth.passages_read_whole(client) >= truth.event_passages:
            return


async def read_whole(client: Client, passage_id: str) -> None:
    offset: int | None = 0
    while offset is not None:
        arguments: dict[str, Any] = {"id": passage_id}
        if offset:
            arguments["offset"] = offset
        _, content = await client.call("get_passage", arguments)
        offset = content["passage"]["nextOffset"]


async def entity(client: Client, question: Question, truth: Truth) -> None:
    entity_id = await client.find(question.names[0])
    _, content = await client.call("get_entity", {"id": entity_id})
    if not truth.entity_quoted(client):
        await read_whole(client, content["evidenceIds"][0])  # find the mention by reading


async def absent(client: Client, question: Question) -> None:
    text, _ = await client.call("search_entities", {"query": question.query})
    if "nothing matched" in text.lower() or "by meaning only" in text.lower():
        return
    await client.call("search_entities", {"query": question.query, "mode": "LEXICAL"})


# What "fully cited" means, read from the graph ----------------------------------------------------


PASSAGE_HEADER = r"Passage ([0-9a-f-]{36})\b.*?characters (\d+)[–-](\d+) of (\d+)"


@dataclass
class Truth:
    question: Question
    edges: list[tuple[str, str, list[str]]] = field(default_factory=list)  # ends, passages
    event_passages: frozenset[str] = frozenset()
    name_words: tuple[str, ...] = ()
    entity_evidence: frozenset[str] = frozenset()

    def passages_read_whole(self, client: Client) -> frozenset[str]:
        read: dict[str, set[int]] = {}
        lengths: dict[str, int] = {}
        for text in client.transcript.text:
            header = re.match(PASSAGE_HEADER, text)
            if header:
                pid, start, end, length = header.group(1), *map(int, header.groups()[1:])
                read.setdefault(pid, set()).update(range(start, end))
                lengths[pid] = length
        return frozenset(pid for pid, seen in read.items() if len(seen) == lengths[pid])

    def entity_quoted(self, client: Client) -> bool:
        for text in client.transcript.text:
            for line in text.splitlines():
                cited = re.search(r"passage ([0-9a-f-]{36})", line)
                quote = re.search(r"\"(.*)\"", line)
                if (
                    cited
                    and quote
                    and cited.group(1) in self.entity_evidence
                    and any(word in quote.group(1).lower() for word in self.name_words)
                ):
                    return True
        return False

    def cited(self, client: Client) -> bool:
        text = "\n".join(client.transcript.text)
        kind = self.question.kind
        if kind in ("relations", "connection"):
            quoted = set(re.findall(r"passage ([0-9a-f-]{36})", text))
            return all(
                source in text and target in text and set(passages) <= quoted
                for source, target, passages in self.edges
            )
        if kind == "event":
            return self.event_passages <= self.passages_read_whole(client)
        if kind == "entity":
            return self.entity_quoted(client)
        lowered = text.lower()
        if "nothing matched" in lowered or "by meaning only" in lowered:
            return True
        return len(client.transcript.calls) > 1 and "0 entities" in client.transcript.text[-1]


async def truth_of(question: Question, graph: Graph, settings: Settings) -> Truth:
    truth = Truth(question)
    ids = {}
    for name in question.names or ((question.event,) if question.event else ()):
        rows = await graph.read(
            "MATCH (e:Entity {name: $name})-[:MENTIONED_IN]->(:Chunk)<-[:HAS_PART]-"
            "(d:Document {workspace: $workspace}) RETURN DISTINCT e.id AS id",
            {"name": name, "workspace": question.workspace},
        )
        ids[name] = rows[0]["id"]
    context = AnswerContext(
        graph=graph,
        settings=AnswerSettings(
            settings.lexical, settings.rrf_k, settings.graph_owned_relation_types
        ),
        query_embedder=None,  # type: ignore[arg-type]  # no search runs here
    )
    scope = effective_scope(Grant.of(["demo", "carol"]))

    async def around(entity_id: str) -> list[tuple[str, str, str, list[str]]]:
        request = answers_walk.walk_request(
            context, entity_id, 1, None, (500, 1000, 5000), with_evidence=False
        )
        record = await answers_walk.walk(context, scope, request)
        return [
            (edge.id, edge.source_id, edge.target_id, list(edge.evidence_ids))
            for edge, _ in record.edges
        ]

    if question.kind == "relations":
        for name in question.names:
            truth.edges += [(s, t, p) for _, s, t, p in await around(ids[name])]
    elif question.kind == "connection":
        one, other = (ids[name] for name in question.names)
        first, second = await around(one), await around(other)

        def far(edges: list[tuple[str, str, str, list[str]]], end: str) -> set[str]:
            return {t if s == end else s for _, s, t, _ in edges}

        shared = far(first, one) & far(second, other)
        keep = {other} | shared
        truth.edges = [(s, t, p) for _, s, t, p in first if (t if s == one else s) in keep]
        truth.edges += [(s, t, p) for _, s, t, p in second if (t if s == other else s) in shared]
    elif question.kind == "event":
        rows = await graph.read(
            "MATCH (:Entity {id: $id})-[:MENTIONED_IN]->(c:Chunk) RETURN collect(c.id) AS ids",
            {"id": ids[question.event]},
        )
        truth.event_passages = frozenset(rows[0]["ids"])
    elif question.kind == "entity":
        rows = await graph.read(
            "MATCH (:Entity {id: $id})-[:MENTIONED_IN]->(c:Chunk) RETURN collect(c.id) AS ids",
            {"id": ids[question.names[0]]},
        )
        truth.entity_evidence = frozenset(rows[0]["ids"])
        words = re.findall(r"\w+", question.names[0].lower())
        truth.name_words = tuple(word for word in words if len(word) > 2)
    return truth


# The run ---------------------------------------------------------------------------------------


def server(source: Path, neo4j_uri: str) -> StdioServerParameters:
    environment = {
        **os.environ,
        "NEO4J_URI": neo4j_uri,
        "MCP_WORKSPACES": "demo,carol",
        # A shared 2-core machine can take more than the default 10 s for a statement; what is
        # measured here is characters and calls, not time.
        "NEO4J_QUERY_TIMEOUT_SECONDS": "120",
        "PYTHONPATH": str(source),
    }
    return StdioServerParameters(
        command=sys.executable, args=["-m", "commands.main", "mcp"], env=environment, cwd=source
    )


async def ask(client: Client, question: Question, truth: Truth) -> None:
    if question.kind == "relations":
        await relations(client, question)
    elif question.kind == "connection":
        await connection(client, question)
    elif question.kind == "event":
        await event(client, question, truth)
    elif question.kind == "entity":
        await entity(client, question, truth)
    else:
        await absent(client, question)


async def default_calls(client: Client, graph: Graph) -> list[tuple[str, str, int, bool]]:
    """Each tool called with its defaults on the larger entities and passages of both data
    sets: (tool, what, characters of text, cut)."""
    rows = await graph.read(
        "MATCH (d:Document)-[:HAS_PART]->(c:Chunk) WITH d.workspace AS w, c"
        " ORDER BY size(c.text) DESC WITH w, collect(c.id)[0] AS longest"
        " RETURN w, longest ORDER BY w",
        {},
    )
    longest = {row["w"]: row["longest"] for row in rows}
    hubs = {}
    for workspace, name in (("demo", "ALEX MERCER"), ("carol", "SCROOGE")):
        found = await graph.read("MATCH (e:Entity {name: $name}) RETURN e.id AS id", {"name": name})
        hubs[workspace] = found[0]["id"]
    other = {"demo": "TAYLOR CRUZ", "carol": "TINY TIM"}
    calls: list[tuple[str, str, dict[str, Any]]] = []
    for workspace, query in (("demo", "Alex Mercer"), ("carol", "Scrooge")):
        hub = hubs[workspace]
        calls += [
            ("search_entities", query, {"query": query}),
            ("search_passages", query, {"query": query}),
            ("walk", query, {"entityId": hub}),
            ("get_entity", query, {"id": hub}),
            ("get_passage", f"longest {workspace} passage", {"id": longest[workspace]}),
        ]
        if "walk_between" in client.tools:
            partner = (
                await graph.read(
                    "MATCH (e:Entity {name: $name}) RETURN e.id AS id", {"name": other[workspace]}
                )
            )[0]["id"]
            calls.append(
                (
                    "walk_between",
                    f"{query}, {other[workspace].title()}",
                    {"entityId": hub, "otherEntityId": partner},
                )
            )
        if "get_evidence" in client.tools:
            calls.append(("get_evidence", query, {"entityId": hub}))
    calls += [("entity_labels", "", {}), ("describe_graph", "", {})]
    measured = []
    for tool, what, arguments in calls:
        try:
            text, content = await client.call(tool, arguments)
        except RuntimeError as error:  # reported in the table, not hidden
            text, content = f"failed: {error}", {"cut": "failed"}
        measured.append((tool, what, len(text), "cut" in content))
    return measured


async def run(source: Path, neo4j_uri: str) -> dict[str, Any]:
    settings = Settings.from_environ({**os.environ, "NEO4J_URI": neo4j_uri})
    driver = neo4j.AsyncGraphDatabase.driver(neo4j_uri, auth=None)
    graph = Graph(driver)
    results: dict[str, Any] = {"source": str(source), "questions": []}
    try:
        async with (
            stdio_client(server(source, neo4j_uri), errlog=sys.stderr) as (read, write),
            ClientSession(read, write) as session,
        ):
            initialized = await session.initialize()
            listed = await session.list_tools()
            tools = {tool.name: tool for tool in listed.tools}
            results["tool_list_chars"] = len(
                json.dumps([t.model_dump(exclude_none=True, by_alias=True) for t in listed.tools])
            )
            results["instructions_chars"] = len(initialized.instructions or "")
            for question in QUESTIONS:
                truth = await truth_of(question, graph, settings)
                client = Client(session, tools)
                try:
                    await ask(client, question, truth)
                    failure = ""
                except RuntimeError as error:
                    failure = str(error)[:200]
                transcript = client.transcript
                results["questions"].append(
                    {
                        "key": question.key,
                        "question": question.asked,
                        "calls": len(transcript.calls),
                        "text": transcript.text_chars,
                        "structured": transcript.structured_chars,
                        "cited": truth.cited(client) and not failure,
                        "failure": failure,
                        "tools": [tool for tool, _, _ in transcript.calls],
                        "each": transcript.calls,
                    }
                )
            client = Client(session, tools)
            results["defaults"] = [
                {"tool": tool, "what": what, "text": chars, "cut": cut}
                for tool, what, chars, cut in await default_calls(client, graph)
            ]
    finally:
        await driver.close()
    return results


def table(results: dict[str, Any]) -> str:
    lines = [
        f"source: {results['source']}; tool list {results['tool_list_chars']:,} characters, "
        f"server instructions {results['instructions_chars']:,}",
        "",
        "| question | calls | text | structured | together | fully cited |",
        "|---|---|---|---|---|---|",
    ]
    for row in results["questions"]:
        together = row["text"] + row["structured"]
        cited = "yes" if row["cited"] else "no" + (f" ({row['failure']})" if row["failure"] else "")
        lines.append(
            f"| {row['question']} | {row['calls']} | {row['text']:,} | {row['structured']:,} | "
            f"{together:,} | {cited} |"
        )
    lines += ["", "| default call | of | text | cut |", "|---|---|---|---|"]
    for row in results["defaults"]:
        lines.append(
            f"| {row['tool']} | {row['what']} | {row['text']:,} | {'cut' if row['cut'] else 'no'} |"
        )
    return "\n".join(lines)


def load(neo4j_uri: str) -> None:
    command = REPOSITORY / ".venv" / "bin" / "evidencegraph"
    environment = {**os.environ, "NEO4J_URI": neo4j_uri}
    for workspace, folder in DATASETS.items():
        subprocess.run(
            [str(command), "load", "--format", "graphrag", "--workspace", workspace, str(folder)],
            env=environment,
            check=True,
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--neo4j", required=True, help="the Bolt URI of the loaded graph")
    parser.add_argument("--source", type=Path, default=REPOSITORY, help="the server's checkout")
    parser.add_argument("--load", action="store_true", help="load both data sets first")
    parser.add_argument("--json-out", type=Path, help="write the figures here as JSON")
    arguments = parser.parse_args(argv)
    if arguments.load:
        load(arguments.neo4j)
    results = asyncio.run(run(arguments.source.resolve(), arguments.neo4j))
    print(table(results))
    if arguments.json_out:
        arguments.json_out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
