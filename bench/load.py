"""The load benchmark: the service against the floor and against the peer, at two scales.

    .venv/bin/python -m bench [--quick] [--scales S,L] [--seconds 15] [--soak 300] [--hubs 20]
        [--tree /path/to/other/checkout]
    make bench                      # installs wrk, the peer and matplotlib first

`--tree` runs the service of another checkout (say one of `main`, before a change) on the same
graphs, with that checkout's own `.venv` (bench/checkouts.py); the rest is this checkout's.

For each scale (bench/build_graph.py's S and L, each in a private Neo4j under --work, built
once and kept), in one run:

1. **Latency against the floor** (1 client, interleaved): every query is asked, in a rotating
   order, of the service over HTTP (`--workers 1`), of the floor (bench/handwritten_search.py's
   one statement, same driver, no HTTP) and of the fair peer over HTTP. p50/p95 and ratios.
2. **Throughput** with wrk (bench/wrk_graphql.lua) at 1, 8 and 32 concurrent connections
   (closed loop: each sends its next request when the last is answered, or, refused OVERLOADED,
   after the `Retry-After` it was given), `--seconds` each, against five targets started side by
   side on the same graph, level by level, the targets in a rotating order: the service with
   `--workers 1` and `--workers 2`, the service with `--workers 1` asked by persisted query
   (`service w1 APQ`: the hash and the variables, no document text; the hash registered once
   before), the naive peer and the fair peer (bench/peer/server.mjs). Requests/s, p50/p95/p99,
   errors (transport, non-200, GraphQL `errors`) and, apart, OVERLOADED refusals (the admission
   queue was full: api/front_door/admission.py), the server's RSS after the level, its CPU per
   request and Neo4j's.
3. **RSS over time** (first scale only): the service (`--workers 1`) under 8 clients for
   `--soak` seconds, its RSS sampled every few seconds.

Then `bench/report.py` writes docs/benchmarks.md and its plots from the JSON this leaves in
--out. Hub entities (bench/hub_entities.py: 100,000 mentions, 100,000 relations, against
ordinary entities) are measured on the first scale's graph, after its throughput levels (the
hubs are added to that graph once, and stay).

The service and both peers are asked the same queries (bench/vocabulary.py, distinct), in the
same order. What each is asked:
- service: `searchEntities(query, limit: 10)` (hybrid, every label, visibility) selecting
  `entity { id name labels } status score evidence { id text document { title } }`, hash
  embedder, no authentication;
- fair peer: `search(words, wordPatterns, required, queryWords, exactPattern, vector)` running
  the floor's statement in a @cypher field; the client sends what the floor computes in Python
  (the query's words, their regexes and the exact-name regex, its hash vector), so the peer
  does no embedding;
- naive peer: `personSearch(phrase, first: 10)` with each person's `mentions(limit: 3)` and
  their document's title: one label, full text only, no visibility.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as `evidencegraph` sets it

import argparse
import asyncio
import contextlib
import json
import platform
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import neo4j

from api.front_door.persisted_queries import sha256_hex
from bench import build_graph, checkouts, handwritten_search, hub_entities
from bench.handwritten_search import HandwrittenSearch, read_indexes
from bench.search_paths import service_environment
from bench.vocabulary import search_queries
from graph.driver import Graph
from localneo4j.server import free_port, start, stop

REPOSITORY = Path(__file__).resolve().parent.parent
PEER_DIR = REPOSITORY / "bench" / "peer"
WRK_SCRIPT = REPOSITORY / "bench" / "wrk_graphql.lua"
CLIENTS = (1, 8, 32)
# /readyz waits for every statement to be planned (docs/operations.md, "Plans: ready means
# ready"): on 2 loaded cores that took 160 s for the demo data alone.
READY_SECONDS = 900.0
LIMIT, SUPPORT_LIMIT = 10, 3

SERVICE_OPERATION = (
    "query Search($query: String!) { searchEntities(query: $query, limit: 10, supportLimit: 3)"
    " { entity { id name labels } status score evidence { id text document { title } } } }"
)
FAIR_OPERATION = (
    "query Search($words: String!, $wordPatterns: [String!]!, $required: Int!,"
    " $queryWords: Int!, $exactPattern: String!, $vector: [Float!]!, $workspaces: [String!],"
    " $documentIds: [String!]) {"
    " search(words: $words, wordPatterns: $wordPatterns, required: $required,"
    " queryWords: $queryWords, exactPattern: $exactPattern, vector: $vector,"
    " workspaces: $workspaces, documentIds: $documentIds)"
    " { id name labels score supported evidence { id text document { title } } } }"
)
NAIVE_OPERATION = (
    "query Search($phrase: String!) { personSearch(phrase: $phrase, first: 10) {"
    " edges { score node { id name mentions(limit: 3) { id text document(limit: 1) { title } }"
    " } } } }"
)

# The service's operation as a persisted query: its hash instead of its text.
PERSISTED = {"persistedQuery": {"version": 1, "sha256Hash": sha256_hex(SERVICE_OPERATION)}}


def register_persisted(url: str, query: str) -> None:
    """The service's operation sent once with its text, so its hash is known from then on."""
    body = {"query": SERVICE_OPERATION, "variables": {"query": query}, "extensions": PERSISTED}
    answer = httpx.post(url + "/graphql", json=body, timeout=60).json()
    if "errors" in answer:
        raise SystemExit(f"registering the persisted query failed: {answer['errors']}")


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- processes and what they cost ------------------------------------------------------------


def process_tree(root: int) -> list[int]:
    """`root` and every process under it (a uvicorn supervisor and its workers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def rss_mb(pids: Sequence[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def cpu_seconds(pids: Sequence[int]) -> float:
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def neo4j_pid(home: Path) -> int | None:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                command = (entry / "cmdline").read_bytes()
                if b"java" in command and str(home).encode() in command:
                    return int(entry.name)
    return None


def load_average() -> float:
    return os.getloadavg()[0]


@dataclass
class Server:
    name: str
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def pids(self) -> list[int]:
        return process_tree(self.process.pid)


def wait_ready(server: Server, path: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise SystemExit(f"{server.name} exited; see {server.log}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(server.url + path, timeout=2).status_code < 500:
                return
        time.sleep(0.2)
    raise SystemExit(f"{server.name} did not get ready in {seconds:g} s; see {server.log}")


def stop_server(server: Server) -> None:
    pids = server.pids()  # found while it is their parent: killed, it leaves them to init
    server.process.terminate()
    try:
        server.process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
        for pid in pids[1:]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def service(
    bolt_uri: str,
    workers: int,
    logs: Path,
    settings: Mapping[str, str] | None = None,
    log_name: str | None = None,
    tree: Path = REPOSITORY,
) -> Iterator[Server]:
    """`evidencegraph serve` of the checkout `tree` (bench/checkouts.py) with the bench's
    settings (plus `settings`), its JSON log in `logs` (`log_name`, or service-w<workers>.log)."""
    port = free_port()
    log = logs / (log_name or f"service-w{workers}.log")
    environment = checkouts.environment(
        tree, {**service_environment(bolt_uri), "LOG_FORMAT": "json", **(settings or {})}
    )
    evidencegraph = checkouts.executable(tree, "evidencegraph")
    command = [evidencegraph, "serve", "--port", str(port), "--workers", str(workers)]
    with log.open("wb") as output:
        process = subprocess.Popen(command, env=environment, stdout=output, stderr=output)
    server = Server(f"service --workers {workers}", f"http://127.0.0.1:{port}", process, log)
    try:
        wait_ready(server, "/readyz", READY_SECONDS)
        wait_answering(server)
        yield server
    finally:
        stop_server(server)


def wait_answering(server: Server, seconds: float = 600) -> None:
    """Until the service answers a search: this bench measures a warm service, and one that
    leaves Neo4j's plans to its first requests (a checkout from before issue 38) fails those
    BACKEND_UNAVAILABLE on a loaded machine while /readyz says ready."""
    body = {"query": SERVICE_OPERATION, "variables": {"query": "warm"}}
    deadline = time.monotonic() + seconds
    while True:
        answer = httpx.post(server.url + "/graphql", json=body, timeout=120)
        if answer.status_code == 200 and "errors" not in answer.json():
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"{server.name} did not answer in {seconds:g} s: {answer.text[:500]}")
        progress(f"{server.name}: not answering yet ({answer.text[:120]})")


@contextlib.contextmanager
def peer(bolt_uri: str, config: dict[str, Any], logs: Path) -> Iterator[Server]:
    port = free_port()
    log = logs / "peer.log"
    config_path = logs / "peer.json"
    config_path.write_text(json.dumps(config))
    environment = {
        **os.environ,
        "NEO4J_URI": bolt_uri,
        "PORT": str(port),
        "PEER_CONFIG": str(config_path),
        "NODE_ENV": "production",
    }
    with log.open("wb") as output:
        process = subprocess.Popen(
            ["node", "server.mjs"], cwd=PEER_DIR, env=environment, stdout=output, stderr=output
        )
    server = Server("peer", f"http://127.0.0.1:{port}", process, log)
    try:
        wait_ready(server, "/graphql?query=%7B__typename%7D")
        yield server
    finally:
        stop_server(server)


# --- the fair peer's statement ---------------------------------------------------------------


def cypher_literal(value: Any) -> str:
    """`value` written as Cypher; a string's characters other than printable ASCII as
    `\\uXXXX`, so that the statement survives inside the peer's GraphQL SDL (which refuses
    most control characters) and its block string's handling of line breaks."""
    if isinstance(value, list):
        return "[" + ", ".join(cypher_literal(item) for item in value) + "]"
    if isinstance(value, str):
        return "'" + "".join(_cypher_character(character) for character in value) + "'"
    return str(value)


def _cypher_character(character: str) -> str:
    if character in "\\'":
        return "\\" + character
    if " " <= character <= "~":
        return character
    return "".join(f"\\u{unit:04x}" for unit in _utf16_units(character))


def _utf16_units(character: str) -> list[int]:
    encoded = character.encode("utf-16-be")
    return [int.from_bytes(encoded[i : i + 2], "big") for i in range(0, len(encoded), 2)]


def fair_statement(parameters: dict[str, Any]) -> str:
    """The floor's statement as a @cypher field's: its per-client constants written in (the
    field's arguments are the query's own words and vector), one map a row in column `hit`."""
    constants = (
        "fulltextIndexes",
        "vectorIndexes",
        "graphOwnedLabels",
        "capK",
        "k",
        "limit",
        "supportLimit",
        "evidenceK",
        "rrfK",
        "separators",
        "functionWords",
    )
    statement = handwritten_search.SEARCH
    for name in constants:
        # A replacement string's backslashes are re.sub's escapes: doubled, they stay.
        literal = cypher_literal(parameters[name]).replace("\\", "\\\\")
        statement = re.sub(rf"\${name}\b", literal, statement)
    return (
        f"CALL () {{ {statement} }}"
        " RETURN {id: id, name: name, labels: labels, score: score, lexicalRank: lexicalRank,"
        " semanticRank: semanticRank, supported: supported, evidence: [e IN evidence |"
        " {id: e.id, text: e.text, document: {title: e.title}}]} AS hit"
    )


def fair_variables(parameters: dict[str, Any]) -> dict[str, Any]:
    return {
        "words": parameters["words"],
        "wordPatterns": parameters["wordPatterns"],
        "required": parameters["required"],
        "queryWords": parameters["queryWords"],
        "exactPattern": parameters["exactPattern"],
        "vector": [round(x, 7) for x in parameters["vector"]],
        "workspaces": None,
        "documentIds": None,
    }


# --- 1. latency against the floor ------------------------------------------------------------


@dataclass
class FloorRun:
    scale: str
    queries: int
    load_average: list[float] = field(default_factory=list)
    ms: dict[str, list[float]] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        figures: dict[str, Any] = {"scale": self.scale, "queries": self.queries}
        for path, values in self.ms.items():
            figures[path] = {"p50": percentile(values, 0.5), "p95": percentile(values, 0.95)}
        floor = figures["floor"]
        for path in ("service", "fair_peer"):
            figures[path]["ratio_p50"] = figures[path]["p50"] / floor["p50"]
            figures[path]["ratio_p95"] = figures[path]["p95"] / floor["p95"]
        figures["load_average"] = self.load_average
        return figures


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def latency_against_floor(
    scale: str,
    bolt_uri: str,
    service_url: str,
    peer_url: str,
    floor: HandwrittenSearch,
    queries: Sequence[str],
    warmup: int,
) -> dict[str, Any]:
    run = FloorRun(scale, len(queries), ms={"service": [], "floor": [], "fair_peer": []})
    run.load_average.append(load_average())
    async with httpx.AsyncClient(timeout=60) as http:

        async def ask_service(query: str) -> None:
            body = {"query": SERVICE_OPERATION, "variables": {"query": query}}
            answer = await http.post(service_url + "/graphql", json=body)
            if answer.status_code != 200 or "errors" in answer.json():
                raise SystemExit(f"the service failed: {answer.text[:500]}")

        async def ask_peer(query: str) -> None:
            variables = fair_variables(floor.parameters(query, limit=LIMIT))
            body = {"query": FAIR_OPERATION, "variables": variables}
            answer = await http.post(peer_url + "/graphql", json=body)
            if answer.status_code != 200 or "errors" in answer.json():
                raise SystemExit(f"the fair peer failed: {answer.text[:500]}")

        async def ask_floor(query: str) -> None:
            await floor.search(query, limit=LIMIT, support_limit=SUPPORT_LIMIT)

        paths = [("service", ask_service), ("floor", ask_floor), ("fair_peer", ask_peer)]
        for query in queries[:warmup]:
            for _, ask in paths:
                await ask(query)
        for n, query in enumerate(queries[warmup:]):
            order = paths[n % 3 :] + paths[: n % 3]
            for name, ask in order:
                started = time.perf_counter()
                await ask(query)
                run.ms[name].append((time.perf_counter() - started) * 1000)
    run.load_average.append(load_average())
    return run.summary()


# --- 2. throughput with wrk ------------------------------------------------------------------


def write_bodies(path: Path, bodies: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(body, separators=(",", ":")) + "\n" for body in bodies))
    return path


def run_wrk(
    url: str, bodies: Path, clients: int, seconds: float, authorization: str | None = None
) -> dict[str, Any]:
    """wrk's figures for `clients` connections sending `bodies` for `seconds`; `authorization`,
    when given, goes out as every request's Authorization header."""
    # One thread per connection: wrk's script sees threads, not connections, so this is what
    # makes a refused connection the one that waits its Retry-After (bench/wrk_graphql.lua).
    # Threads cost nothing while they wait for answers.
    threads = clients
    command = [
        "wrk",
        f"-t{threads}",
        f"-c{clients}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "60s",
        "-s",
        str(WRK_SCRIPT),
        url + "/graphql",
    ]
    environment = {**os.environ, "WRK_BODIES": str(bodies)}
    if authorization is not None:
        environment["WRK_AUTHORIZATION"] = authorization
    done = subprocess.run(command, env=environment, capture_output=True, text=True)
    for line in done.stdout.splitlines():
        if line.startswith("WRK_JSON "):
            figures: dict[str, Any] = json.loads(line.removeprefix("WRK_JSON "))
            return figures
    raise SystemExit(f"wrk gave no figures:\n{done.stdout}\n{done.stderr}")


def throughput_level(
    target_name: str,
    server: Server,
    bodies: Path,
    clients: int,
    seconds: float,
    neo4j_process: int | None,
) -> dict[str, Any]:
    pids = server.pids()
    cpu_before = cpu_seconds(pids)
    neo4j_before = cpu_seconds([neo4j_process]) if neo4j_process else 0.0
    load_before = load_average()
    figures = run_wrk(server.url, bodies, clients, seconds)
    cpu = cpu_seconds(pids) - cpu_before
    neo4j_cpu = (cpu_seconds([neo4j_process]) - neo4j_before) if neo4j_process else 0.0
    requests = max(1, figures["requests"])
    duration = figures["duration_us"] / 1e6
    errors = (
        figures["graphql_errors"]
        + figures["connect_errors"]
        + figures["read_errors"]
        + figures["write_errors"]
        + figures["timeouts"]
    )
    return {
        "target": target_name,
        "clients": clients,
        "requests": figures["requests"],
        "rps": figures["requests"] / duration,
        "p50_ms": figures["p50_us"] / 1000,
        "p95_ms": figures["p95_us"] / 1000,
        "p99_ms": figures["p99_us"] / 1000,
        "errors": errors,
        "overloaded": figures.get("overloaded", 0),
        "non_200": figures["status_errors"],
        "rss_mb": rss_mb(pids),
        "processes": len(pids),
        "cpu_ms_per_request": cpu * 1000 / requests,
        "neo4j_cpu_ms_per_request": neo4j_cpu * 1000 / requests,
        "load_average": [load_before, load_average()],
    }


def soak(
    server: Server, bodies: Path, clients: int, seconds: float, every: float
) -> dict[str, Any]:
    """`clients` wrk connections for `seconds`; the server's RSS every `every` seconds."""
    samples: list[tuple[float, float]] = []
    finished = threading.Event()
    started = time.monotonic()

    def sample() -> None:
        while not finished.wait(every):
            samples.append((time.monotonic() - started, rss_mb(server.pids())))

    samples.append((0.0, rss_mb(server.pids())))
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    figures = run_wrk(server.url, bodies, clients, seconds)
    finished.set()
    sampler.join()
    samples.append((time.monotonic() - started, rss_mb(server.pids())))
    return {
        "target": server.name,
        "clients": clients,
        "seconds": seconds,
        "requests": figures["requests"],
        "errors": figures["graphql_errors"] + figures["timeouts"] + figures["read_errors"],
        "rss": samples,
    }


# --- one scale -------------------------------------------------------------------------------


async def prepare_graph(home: Path, scale: str) -> str:
    bolt_uri = start(home=home, port=0, log=progress).bolt_uri
    async with neo4j.AsyncGraphDatabase.driver(
        bolt_uri, auth=None, notifications_min_severity="OFF"
    ) as driver:
        started = time.monotonic()
        await build_graph.build(Graph(driver), build_graph.SCALES[scale], seed=7, wipe=False)
        progress(f"scale {scale}: graph ready after {time.monotonic() - started:.0f} s")
    return bolt_uri


async def run_scale(arguments: argparse.Namespace, scale: str, first: bool) -> dict[str, Any]:
    home = arguments.work / f"neo4j-{scale}"
    logs = arguments.work / f"logs-{scale}"
    logs.mkdir(parents=True, exist_ok=True)
    bolt_uri = await prepare_graph(home, scale)
    result: dict[str, Any] = {"scale": scale}
    queries = search_queries(arguments.queries, seed=11)
    async with neo4j.AsyncGraphDatabase.driver(
        bolt_uri, auth=None, notifications_min_severity="OFF"
    ) as driver:
        floor = HandwrittenSearch(driver, await read_indexes(driver), build_graph.DIMENSION)
        parameters = [
            floor.parameters(q, limit=LIMIT, support_limit=SUPPORT_LIMIT) for q in queries
        ]
        config = {
            "statement": fair_statement(parameters[0]),
            "personIndex": "entity_name_fulltext_Person",
        }
        bodies = {
            "service": write_bodies(
                logs / "service.jsonl",
                [{"query": SERVICE_OPERATION, "variables": {"query": q}} for q in queries],
            ),
            "fair peer": write_bodies(
                logs / "fair.jsonl",
                [{"query": FAIR_OPERATION, "variables": fair_variables(p)} for p in parameters],
            ),
            "service APQ": write_bodies(
                logs / "service-apq.jsonl",
                [{"extensions": PERSISTED, "variables": {"query": q}} for q in queries],
            ),
            "naive peer": write_bodies(
                logs / "naive.jsonl",
                [{"query": NAIVE_OPERATION, "variables": {"phrase": q}} for q in queries],
            ),
        }
        with (
            service(bolt_uri, 1, logs, tree=arguments.tree) as one,
            service(bolt_uri, 2, logs, tree=arguments.tree) as two,
            peer(bolt_uri, config, logs) as node,
        ):
            progress(
                f"scale {scale}: latency against the floor ({arguments.floor_queries} queries)"
            )
            result["floor"] = await latency_against_floor(
                scale,
                bolt_uri,
                one.url,
                node.url,
                floor,
                queries[: arguments.floor_queries + 30],
                warmup=30,
            )
            progress(f"scale {scale}: {json.dumps(result['floor'])}")
            targets = [
                ("service w1", one, bodies["service"]),
                ("service w2", two, bodies["service"]),
                ("service w1 APQ", one, bodies["service APQ"]),
                ("naive peer", node, bodies["naive peer"]),
                ("fair peer", node, bodies["fair peer"]),
            ]
            register_persisted(one.url, queries[0])
            neo4j_process = neo4j_pid(home)
            for _name, server, body in targets:  # warm every target's plans and JITs
                run_wrk(server.url, body, 2, min(5.0, arguments.seconds))
            levels = []
            for n, clients in enumerate(CLIENTS):
                order = targets[n % len(targets) :] + targets[: n % len(targets)]
                for name, server, body in order:
                    level = throughput_level(
                        name, server, body, clients, arguments.seconds, neo4j_process
                    )
                    progress(
                        f"scale {scale} {name:10} c={clients:2}: {level['rps']:6.1f} req/s"
                        f" p50 {level['p50_ms']:7.1f} ms p99 {level['p99_ms']:7.1f} ms"
                        f" errors {level['errors']} rss {level['rss_mb']:.0f} MB"
                        f" cpu {level['cpu_ms_per_request']:.1f} ms/req"
                    )
                    levels.append(level)
            result["throughput"] = levels
            if first and arguments.hubs > 0:
                progress(f"scale {scale}: hub entities against ordinary ones")
                result["hubs"] = await hub_entities.figures(bolt_uri, arguments.hubs)
            if first and arguments.soak > 0:
                progress(f"scale {scale}: RSS over {arguments.soak:g} s at 8 clients")
                result["soak"] = soak(one, bodies["service"], 8, arguments.soak, every=5.0)
    if arguments.stop:
        stop(home)
    return result


def versions() -> dict[str, str]:
    from importlib.metadata import version

    found = {"python": platform.python_version()}
    for package in ("neo4j", "strawberry-graphql", "graphql-core", "uvicorn", "starlette"):
        with contextlib.suppress(Exception):
            found[package] = version(package)
    with contextlib.suppress(Exception):
        found["node"] = subprocess.run(
            ["node", "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()
    with contextlib.suppress(Exception):
        lock = json.loads((PEER_DIR / "package-lock.json").read_text())["packages"]
        for package in ("@neo4j/graphql", "@apollo/server", "graphql", "neo4j-driver"):
            found[package] = lock[f"node_modules/{package}"]["version"]
    with contextlib.suppress(Exception):
        found["wrk"] = subprocess.run(
            ["wrk", "--version"], capture_output=True, text=True
        ).stdout.split(" Copyright")[0]
    return found


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory = 0
    with contextlib.suppress(OSError):
        memory = int(Path("/proc/meminfo").read_text().split()[1]) // 1024
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_mb": memory,
        "kernel": platform.release(),
    }


async def run_all(arguments: argparse.Namespace) -> dict[str, Any]:
    started = time.monotonic()
    results: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%d %H:%M %Z"),
        "machine": machine(),
        "versions": versions(),
        "load_average_start": list(os.getloadavg()),
        "settings": {
            "seconds": arguments.seconds,
            "floor_queries": arguments.floor_queries,
            "soak": arguments.soak,
            "hubs": arguments.hubs,
            "queries": arguments.queries,
            "clients": list(CLIENTS),
            "tree": str(arguments.tree),
        },
        "scales": [],
    }
    for n, scale in enumerate(arguments.scales):
        results["scales"].append(await run_scale(arguments, scale, first=n == 0))
    results["hubs"] = next((s.pop("hubs") for s in results["scales"] if "hubs" in s), None)
    results["load_average_end"] = list(os.getloadavg())
    results["minutes"] = (time.monotonic() - started) / 60
    return results


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="S only, 5 s levels, no soak")
    parser.add_argument("--scales", default="S,L", help="comma-separated: S, L (S,L)")
    parser.add_argument(
        "--seconds",
        type=float,
        default=float(os.environ.get("BENCH_SECONDS", 15)),
        help="each throughput level (BENCH_SECONDS, 15)",
    )
    parser.add_argument("--soak", type=float, default=300.0, help="RSS run, seconds (300)")
    parser.add_argument(
        "--hubs", type=int, default=20, help="requests per hub case, first scale (20; 0: none)"
    )
    parser.add_argument("--floor-queries", type=int, default=200, help="per path (200)")
    parser.add_argument("--queries", type=int, default=2000, help="distinct queries (2000)")
    parser.add_argument(
        "--work", type=Path, default=Path("/tmp/evidencegraph-bench"), help="Neo4j homes"
    )
    parser.add_argument(
        "--out", type=Path, default=REPOSITORY / "docs" / "benchmarks", help="results, plots"
    )
    parser.add_argument(
        "--tree",
        type=Path,
        default=REPOSITORY,
        help="the checkout whose service is measured (bench/checkouts.py; this one)",
    )
    parser.add_argument("--stop", action="store_true", help="stop each Neo4j after its scale")
    parser.add_argument("--no-report", action="store_true", help="results.json only")
    arguments = parser.parse_args(argv)
    arguments.scales = [s.strip() for s in arguments.scales.split(",") if s.strip()]
    if arguments.quick:
        arguments.scales, arguments.seconds, arguments.soak = ["S"], 5.0, 0.0
        arguments.hubs = min(arguments.hubs, 5)
        arguments.floor_queries = min(arguments.floor_queries, 60)
    for tool in ("wrk", "node"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not installed: run `make bench` (it installs it)")
    if not (PEER_DIR / "node_modules").is_dir():
        raise SystemExit("the peer is not installed: npm ci --prefix bench/peer")
    arguments.out.mkdir(parents=True, exist_ok=True)
    results = asyncio.run(run_all(arguments))
    (arguments.out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    progress(f"results in {arguments.out / 'results.json'} ({results['minutes']:.1f} min)")
    if not arguments.no_report:
        from bench import report

        report.write(results, arguments.out)


if __name__ == "__main__":
    main()
