"""The first requests after the service's plans went cold (issue 38, §7 "Ready means ready").

    .venv/bin/python -m bench.first_requests [--home /tmp/eg-bench/first-requests/TREE] [--burn 2]
        [--tree /path/to/other/checkout] [--json-out bench/first_requests.jsonl] [--prepare]

Against a private Neo4j in `--home` holding the demo data and A Christmas Carol (loaded on the
home's first use by `evidencegraph load`), `evidencegraph serve` runs from `--tree` (this
checkout by default; another one, say of `main`, to compare: with its own `.venv`, see
bench/checkouts.py; its own `load` writes the graph, so give each checkout its own `--home`)
in three situations where Neo4j holds no plan for the service's statements:

- `serve starts`: Neo4j's query caches are cleared (`db.clearQueryCaches()`, as a new
  deployment or a load meets them), then `serve` starts; the clock starts with the process;
- `load adds a label`: `serve` is running and has answered; `evidencegraph load` writes a
  bundle with a label never seen before (its indexes are created: Neo4j plans every
  statement again); the clock starts when the load returns;
- `Neo4j restarts`: `serve` is running and has answered; Neo4j is stopped and started; the
  clock starts when Neo4j answers again.

Each time a client waits until `/readyz` says ready (a load balancer does), then sends the
same 20 requests, one of each kind (`first_requests()`: searches in each mode, with labels and
scopes, passage searches, walks of depth 1 and 2, lookups, and MCP tool calls), one after the
other. It reports the seconds to the first successful answer (from the clock's start), the
p95 of the 20 requests' latencies, how many failed and with which code, and the time `/readyz`
took to say ready. `--burn N` runs N busy processes beside it (a loaded machine).
`--prepare` only loads the home's data, so that two checkouts are then measured back to back.
The service's own settings are its defaults (NEO4J_QUERY_TIMEOUT_SECONDS 10,
REQUEST_TIMEOUT_SECONDS 30); the machine is shared: compare figures of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import neo4j
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from bench import checkouts
from localneo4j.server import LocalServer, free_port, start, stop

REPOSITORY = checkouts.REPOSITORY
DATA = (
    (REPOSITORY / "data" / "graphrag-operation-dulce", "demo"),
    (REPOSITORY / "data" / "graphrag-christmas-carol", "carol"),
)
READY_DEADLINE = 900.0  # seconds: a service that is not ready by then is reported as such
ENVIRONMENT = {"EMBEDDER": "hash", "EMBEDDER_DIM": "384", "AUTH_MODE": "none"}

ENTITY = "entity { id name } status evidence { id text document { title } }"
SEARCH = "query($q: String!, $mode: SearchMode!, $labels: [String!], $scope: ScopeInput) {"
SEARCH += " searchEntities(query: $q, mode: $mode, labels: $labels, scope: $scope) { " + ENTITY
SEARCH += " } }"
PASSAGES = "query($q: String!, $mode: SearchMode!) { searchPassages(query: $q, mode: $mode) {"
PASSAGES += " passage { id text document { title } } score } }"
WALK = "query($id: ID!, $depth: Int!, $scope: ScopeInput) { walk(entityId: $id, depth: $depth,"
WALK += " scope: $scope) { nodes { id name } edges { type kind evidence { id } } truncatedBy } }"
LOOKUP = "query($id: ID!) { entity(id: $id) { id name evidence { id text }"
LOOKUP += " evidencePage(first: 2) { nodes { id } pageInfo { endCursor hasNextPage } } } }"
PASSAGE = "query($id: ID!) { passage(id: $id) { id text document { id title passages(first: 2)"
PASSAGE += " { nodes { id } } } mentions { id name } } }"
LABELS = "{ entityLabels { label fulltextIndex vectorIndex } }"


@dataclass(frozen=True)
class Request:
    kind: str
    door: str  # graphql | mcp
    body: dict[str, Any]


def graphql(kind: str, query: str, **variables: Any) -> Request:
    return Request(kind, "graphql", {"query": query, "variables": variables})


def tool(kind: str, name: str, **arguments: Any) -> Request:
    return Request(kind, "mcp", {"name": name, "arguments": arguments})


def first_requests(ids: dict[str, str]) -> list[Request]:
    """One request of each kind, 20 in all (`ids`: a known entity, passage and document)."""
    carol = {"workspaces": ["carol"]}
    document = {"documentIds": [ids["document"]]}
    entity = ids["entity"]
    return [
        graphql("search hybrid", SEARCH, q="scrooge", mode="HYBRID"),
        graphql("search lexical", SEARCH, q="jacob marley", mode="LEXICAL"),
        graphql("search semantic", SEARCH, q="ghost of christmas past", mode="SEMANTIC"),
        graphql("search with a label", SEARCH, q="bob cratchit", mode="HYBRID", labels=["Person"]),
        graphql("search in a workspace", SEARCH, q="fred", mode="HYBRID", scope=carol),
        graphql("search in a document", SEARCH, q="scrooge", mode="HYBRID", scope=document),
        graphql("search by function words", SEARCH, q="the who", mode="LEXICAL"),
        graphql("passages hybrid", PASSAGES, q="counting house", mode="HYBRID"),
        graphql("passages lexical", PASSAGES, q="tiny tim", mode="LEXICAL"),
        graphql("passages semantic", PASSAGES, q="christmas", mode="SEMANTIC"),
        graphql("walk depth 1", WALK, id=entity, depth=1),
        graphql("walk depth 2", WALK, id=entity, depth=2),
        graphql("walk in a workspace", WALK, id=entity, depth=1, scope=carol),
        graphql("entity", LOOKUP, id=entity),
        graphql("passage", PASSAGE, id=ids["passage"]),
        graphql("entity labels", LABELS),
        tool("mcp search_entities", "search_entities", query="marley"),
        tool("mcp walk", "walk", entityId=entity, depth=2),
        tool("mcp get_entity", "get_entity", id=entity),
        tool("mcp describe_graph", "describe_graph"),
    ]


@dataclass
class Answered:
    kind: str
    seconds: float
    ok: bool
    code: str | None = None
    finished: float = 0.0  # the clock (time.monotonic) when the answer came


@dataclass
class Situation:
    name: str
    tree: str
    burn: int
    at: str  # UTC, when the 20 requests were answered
    load_average: tuple[float, float, float]  # 1, 5 and 15 minutes, then
    ready_seconds: float | None  # from the clock's start until /readyz said ready
    first_success_seconds: float | None  # from the clock's start until the first good answer
    p95_seconds: float
    failed: dict[str, int] = field(default_factory=dict)  # code -> count
    answers: list[Answered] = field(default_factory=list)


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def load_average() -> tuple[float, float, float]:
    return os.getloadavg()


def burn() -> None:
    while True:
        pass


@contextmanager
def burning(processes: int) -> Iterator[None]:
    workers = [multiprocessing.Process(target=burn, daemon=True) for _ in range(processes)]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        for worker in workers:
            worker.terminate()
            worker.join()


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def load(
    tree: Path, server: LocalServer, path: Path, format_: str, workspace: str | None = None
) -> None:
    """`evidencegraph load` of `tree` (its own loader writes the graph its service reads)."""
    command = [checkouts.executable(tree, "evidencegraph"), "load", "--format", format_]
    if workspace is not None:
        command += ["--workspace", workspace]
    settings = {**ENVIRONMENT, "NEO4J_URI": server.bolt_uri}
    done = subprocess.run(
        [*command, str(path)], env=checkouts.environment(tree, settings), capture_output=True
    )
    if done.returncode != 0:
        raise SystemExit(f"loading {path} failed ({done.returncode}): {done.stderr.decode()}")


def load_once(
    tree: Path, home: Path, server: LocalServer, data: Sequence[tuple[Path, str]]
) -> None:
    """`data` loaded into the Neo4j of `home` the first time a bench uses that home."""
    if (home / "loaded").exists():
        return
    for path, workspace in data:
        progress(f"loading {path.name} (once for this home)")
        load(tree, server, path, "graphrag", workspace)
    (home / "loaded").touch()


async def read_ids(uri: str, name: str = "SCROOGE") -> dict[str, str]:
    """A known entity (by its name), a passage mentioning it and that passage's document."""
    async with neo4j.AsyncGraphDatabase.driver(uri, auth=None) as driver:
        records, _, _ = await driver.execute_query(
            "MATCH (e:Entity)-[:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)"
            " WHERE e.name = $name RETURN e.id AS entity, c.id AS passage,"
            " d.id AS document LIMIT 1",
            name=name,
        )
        if not records:
            raise SystemExit(f"no entity named {name!r} with a passage in {uri}")
        return dict(records[0])


async def clear_plans(uri: str) -> None:
    async with neo4j.AsyncGraphDatabase.driver(uri, auth=None) as driver:
        await driver.execute_query("CALL db.clearQueryCaches()")


def new_label_bundle(directory: Path) -> Path:
    """A bundle line with a label no load has written before."""
    label = "Venue" + uuid.uuid4().hex[:8]
    document, passage, entity = (str(uuid.uuid4()) for _ in range(3))
    line = {
        "document": {"id": document, "workspace": "venues", "title": "A venue"},
        "passages": [{"id": passage, "position": 0, "text": "The Fezziwig warehouse held a ball."}],
        "entities": [
            {"id": entity, "labels": [label], "name": "Fezziwig warehouse", "mentions": [passage]}
        ],
        "relations": [],
    }
    path = directory / f"{label}.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


class Service:
    """`evidencegraph serve` from `tree`, on a free loopback port."""

    def __init__(
        self,
        tree: Path,
        bolt_uri: str,
        log_path: Path,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        environment = checkouts.environment(
            tree,
            {
                **ENVIRONMENT,
                "NEO4J_URI": bolt_uri,
                "GRAPHIQL_ENABLED": "false",  # another checkout may not have its web files built
                "EXPLORER_ENABLED": "false",
                **(settings or {}),
            },
        )
        python = checkouts.executable(tree, "python")
        command = [python, "-m", "commands.main", "serve", "--port", str(self.port)]
        self.log = log_path.open("wb")
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            command, cwd=tree, env=environment, stdout=self.log, stderr=subprocess.STDOUT
        )

    async def ready(self, since: float) -> float | None:
        """Seconds from `since` until /readyz said 200 (None: not within READY_DEADLINE)."""
        async with httpx.AsyncClient(timeout=5) as http:
            while time.monotonic() - since < READY_DEADLINE:
                if self.process.poll() is not None:
                    raise SystemExit(f"the service exited; see {self.log.name}")
                try:
                    if (await http.get(f"{self.url}/readyz")).status_code == 200:
                        return time.monotonic() - since
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
        return None

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


async def answer_of(
    http: httpx.AsyncClient, session: ClientSession, request: Request
) -> str | None:
    """Sends `request`; None when it was answered, else its error code (a GraphQL error's
    `extensions.code`, an MCP error result's leading code, or what went wrong on the way)."""
    try:
        if request.door == "graphql":
            response = await http.post("/graphql", json=request.body)
            if response.headers.get("content-type", "").startswith("application/json"):
                errors = response.json().get("errors") or []
                if errors:
                    return str(errors[0].get("extensions", {}).get("code", "ERROR"))
            return None if response.status_code == 200 else f"HTTP {response.status_code}"
        result = await session.call_tool(request.body["name"], request.body["arguments"])
    except (httpx.HTTPError, McpError) as error:
        return type(error).__name__
    if result.isError:
        return tool_error_code("".join(getattr(part, "text", "") for part in result.content))
    return None


def tool_error_code(text: str) -> str:
    """The code an MCP error result's text starts with (`RATE_LIMITED: …`)."""
    return text.split(":", 1)[0].split()[0] if text.strip() else "ERROR"


def counted(codes: dict[str, int]) -> str:
    """`{"X": 2}` as "2 X" (a table's cell; "0" for none)."""
    return ", ".join(f"{n} {code}" for code, n in codes.items()) or "0"


@asynccontextmanager
async def mcp_session(url: str) -> AsyncIterator[ClientSession]:
    """An initialized MCP session with the service at `url`, over its /mcp door."""
    async with (
        httpx.AsyncClient(timeout=120) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def ask(service: Service, requests: Sequence[Request]) -> list[Answered]:
    answered: list[Answered] = []
    async with (
        httpx.AsyncClient(base_url=service.url, timeout=120) as http,
        mcp_session(service.url) as session,
    ):
        for request in requests:
            started = time.monotonic()
            code = await answer_of(http, session, request)
            finished = time.monotonic()
            answered.append(
                Answered(request.kind, finished - started, code is None, code, finished)
            )
    return answered


def summary(
    name: str, tree: Path, burn: int, clock: float, ready: float | None, answers: list[Answered]
) -> Situation:
    first = next((answer.finished - clock for answer in answers if answer.ok), None)
    failed: dict[str, int] = {}
    for answer in answers:
        if not answer.ok:
            failed[answer.code or "ERROR"] = failed.get(answer.code or "ERROR", 0) + 1
    return Situation(
        name=name,
        tree=str(tree),
        burn=burn,
        at=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        load_average=load_average(),
        ready_seconds=ready,
        first_success_seconds=first,
        p95_seconds=percentile([a.seconds for a in answers], 0.95),
        failed=failed,
        answers=answers,
    )


async def prepare(home: Path, tree: Path) -> None:
    """Only the data loaded into `home` (so that checkouts compared are measured back to back)."""
    server = start(home, port=0, log=progress)
    try:
        load_once(tree, home, server, DATA)
    finally:
        stop(home)


async def measure(home: Path, tree: Path, burn: int, logs: Path) -> list[Situation]:
    server = start(home, port=0, log=progress)
    try:
        load_once(tree, home, server, DATA)
        ids = await read_ids(server.bolt_uri)
        with burning(burn):
            return await situations(home, server, tree, burn, logs, first_requests(ids))
    finally:
        stop(home)


async def situations(
    home: Path,
    server: LocalServer,
    tree: Path,
    burn: int,
    logs: Path,
    requests: Sequence[Request],
) -> list[Situation]:
    measured = []
    progress("serve starts, Neo4j's plans cleared")
    await clear_plans(server.bolt_uri)
    service = Service(tree, server.bolt_uri, logs / "serve.log")
    try:
        ready = await service.ready(service.started)
        answers = await ask(service, requests)
        measured.append(summary("serve starts", tree, burn, service.started, ready, answers))
        progress(table(measured[-1:]))

        progress("load adds a label")
        with tempfile.TemporaryDirectory() as directory:
            load(tree, server, new_label_bundle(Path(directory)), "bundle")
        loaded = time.monotonic()
        ready = await service.ready(loaded)
        answers = await ask(service, requests)
        measured.append(summary("load adds a label", tree, burn, loaded, ready, answers))
        progress(table(measured[-1:]))

        progress("Neo4j restarts")
        stop(home)
        server = start(home, port=server.port, log=progress)
        back = time.monotonic()
        ready = await service.ready(back)
        answers = await ask(service, requests)
        measured.append(summary("Neo4j restarts", tree, burn, back, ready, answers))
        progress(table(measured[-1:]))
    finally:
        service.close()
    return measured


def table(situations: Sequence[Situation]) -> str:
    lines = [
        "| tree | situation | at | load avg 1/5/15 min | ready (s) | first answer (s)"
        " | p95 of 20 (s) | failed |",
        "|---|---|---|---|---:|---:|---:|---|",
    ]
    for s in situations:
        failed = counted(s.failed)
        ready = "never" if s.ready_seconds is None else f"{s.ready_seconds:.1f}"
        first = "none" if s.first_success_seconds is None else f"{s.first_success_seconds:.1f}"
        loads = ", ".join(f"{value:.1f}" for value in s.load_average)
        lines.append(
            f"| {Path(s.tree).name} | {s.name} | {s.at} | {loads} | {ready} | {first}"
            f" | {s.p95_seconds:.2f} | {failed} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--home", type=Path, default=None, help="Neo4j home (/tmp/eg-bench/first-requests/TREE)"
    )
    parser.add_argument("--tree", type=Path, default=REPOSITORY)
    parser.add_argument("--burn", type=int, default=0, help="busy processes beside it")
    parser.add_argument("--logs", type=Path, default=None)
    parser.add_argument("--json-out", type=Path, default=None)
    parser.add_argument("--prepare", action="store_true", help="only load the home's data")
    arguments = parser.parse_args()
    logs = arguments.logs or Path(tempfile.mkdtemp(prefix="eg-first-requests-"))
    tree = arguments.tree.resolve()
    home = arguments.home or Path("/tmp/eg-bench/first-requests") / tree.name
    if arguments.prepare:
        asyncio.run(prepare(home, tree))
        return
    situations = asyncio.run(measure(home, tree, arguments.burn, logs))
    print(table(situations))
    for situation in situations:
        slow = sorted(situation.answers, key=lambda a: -a.seconds)[:3]
        print(
            f"{situation.name}: slowest "
            + ", ".join(f"{a.kind} {a.seconds:.1f} s {a.code or 'ok'}" for a in slow)
        )
    if arguments.json_out is not None:
        with arguments.json_out.open("a", encoding="utf-8") as out:
            for situation in situations:
                out.write(json.dumps(asdict(situation)) + "\n")
    progress(f"service logs in {logs}")


if __name__ == "__main__":
    main()
