"""Soak: the service under mixed traffic while loads run and Neo4j stops and starts twice.

    .venv/bin/python bench/soak.py --duration 600 --clients 16 --out soak-report
    (needs the `bench` extra for the plot: pip install -e '.[bench]')

It owns everything it runs: a private Neo4j on 127.0.0.1 (a fresh home under a temporary
folder, a free port), a generated data set loaded with `evidencegraph load`, and
`evidencegraph serve` on a free port (hash embedder, JSON logs, metrics on). Then, for
`--duration` seconds:
- `--clients` clients send entity searches, passage searches, walks and `entity`/`passage`
  look-ups, one after another, as fast as they are answered;
- a loader writes a new version of a document of another workspace every few seconds
  (`evidencegraph load`), and retires one with `evidencegraph delete` when that command
  exists;
- at one third and two thirds of the run, Neo4j is stopped for `--outage` seconds and
  started again.
Searches run in LEXICAL and HYBRID mode. A sample of the answers is checked against the
answers read before anything started: the workspace they read is one no load touches, and the
loader's documents use words and numbers of their own, so no lexical search, walk or look-up
of it may change. HYBRID answers are sent but not checked: a semantic read takes a fixed number
of candidates across every workspace before it keeps the caller's (contract §3), so entities
loaded elsewhere may change which of the scope's it finds. The report (JSON and the printed
summary) gives requests served, errors by code (and which fell outside the outages: a request
under way at any moment from a stop command to ready again is inside), answers checked by
kind, the service's RSS and its open connections to Neo4j at start and end, the time back to
ready after each start, and a plot of latency over time with the outages marked
(`latency.png`); `samples.csv` holds every request, `mismatches.json` the first checked
answers that differed. docs/operations.md shows a run.

Not part of the test suite: it takes minutes and its figures depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from localneo4j.server import free_port, start, stop

EVIDENCEGRAPH = str(Path(sys.executable).parent / "evidencegraph")
REFERENCE_WORKSPACE = "soak-ref"  # read by the checked sample; no load writes it
LOADED_WORKSPACE = "soak-load"
WORDS = [
    "river",
    "stone",
    "lantern",
    "harbour",
    "signal",
    "archive",
    "engine",
    "garden",
    "falcon",
    "copper",
    "meadow",
    "orbit",
    "ledger",
    "violet",
    "summit",
    "canal",
    "beacon",
    "tundra",
    "quartz",
    "willow",
]
# The loader's documents use words and numbers of their own: a lexical search of the reference
# words can then find nothing they add, so its answer must not change while they load.
LOAD_WORDS = [f"load{word}" for word in WORDS]
LOAD_NUMBERS_FROM = 100_000
DIMENSION = 16


def new_id() -> str:
    return str(uuid.uuid4())


def document_line(
    workspace: str,
    document_id: str,
    number: int,
    version: int,
    entity_ids: list[str],
    words: list[str] = WORDS,
) -> dict[str, Any]:
    """One bundle line: 4 passages, 6 entities (named from `words`), relations in a ring."""
    rng = random.Random(number * 1000 + version)
    passages = [
        {"id": new_id(), "position": i, "text": " ".join(rng.choices(words, k=30))}
        for i in range(4)
    ]
    entities = [
        {
            "id": entity_id,
            "labels": ["Thing"],
            "name": " ".join(
                (
                    words[(number + i) % len(words)],
                    words[(number * 7 + i) % len(words)],
                    str(number),
                )
            ),
            "mentions": [passages[i % 4]["id"]],
        }
        for i, entity_id in enumerate(entity_ids)
    ]
    relations = [
        {
            "id": new_id(),
            "type": "NEXT_TO",
            "source": entity_ids[i],
            "target": entity_ids[(i + 1) % len(entity_ids)],
            "passageIds": [passages[i % 4]["id"]] if i % 3 else [],
        }
        for i in range(len(entity_ids))
    ]
    return {
        "document": {
            "id": document_id,
            "workspace": workspace,
            "title": f"doc {number} v{version}",
        },
        "passages": passages,
        "entities": entities,
        "relations": relations,
    }


@dataclass
class Sample:
    at: float  # seconds since the run started
    kind: str
    ms: float
    code: str | None  # None: answered without error


@dataclass
class Report:
    duration_s: float = 0
    clients: int = 0
    requests: int = 0
    errors_by_code: dict[str, int] = field(default_factory=dict)
    errors_outside_outages: dict[str, int] = field(default_factory=dict)
    checked: int = 0
    matched: int = 0
    checked_by_kind: dict[str, list[int]] = field(default_factory=dict)  # [checked, matched]
    loads_by_exit_code: dict[str, int] = field(default_factory=dict)
    deletes_by_exit_code: dict[str, int] | None = None  # None: no `evidencegraph delete`
    outages: list[dict[str, float]] = field(default_factory=list)
    rss_kib: dict[str, int] = field(default_factory=dict)
    neo4j_connections: dict[str, int] = field(default_factory=dict)
    p50_ms: float = 0
    p99_ms: float = 0


class Soak:
    def __init__(self, args: argparse.Namespace, root: Path) -> None:
        self.args = args
        self.root = root
        self.home = root / "neo4j"
        self.home.mkdir()
        self.neo4j_port = free_port()
        self.service_port = free_port()
        self.url = f"http://127.0.0.1:{self.service_port}"
        self.env = {
            **os.environ,
            "NEO4J_URI": f"bolt://127.0.0.1:{self.neo4j_port}",
            "EMBEDDER": "hash",
            "EMBEDDER_DIM": str(DIMENSION),
            "AUTH_MODE": "none",
            "LOG_FORMAT": "json",
            "METRICS_ENABLED": "true",
            # A busy machine plans a statement slowly the first time; the soak is about
            # outages, not about these limits.
            "NEO4J_QUERY_TIMEOUT_SECONDS": "60",
            "REQUEST_TIMEOUT_SECONDS": "120",
        }
        self.samples: list[Sample] = []
        self.mismatches: list[dict[str, Any]] = []  # the first checked answers that differed
        self.report = Report(clients=args.clients)
        self.entities: list[str] = []
        self.passages: list[str] = []
        self.reference: dict[str, Any] = {}
        self.started = 0.0
        self.stopping = False
        self.service: subprocess.Popen[bytes] | None = None

    # Set-up ---------------------------------------------------------------------------------

    def cli(self, *arguments: str, timeout: float | None = None) -> int | str:
        """The command's exit code, or `timeout` when it ran past `timeout` s (then killed)."""
        try:
            done = subprocess.run(
                [EVIDENCEGRAPH, *arguments],
                env=self.env,
                capture_output=True,
                check=False,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return "timeout"
        if done.returncode != 0:
            with (self.root / "commands.log").open("ab") as log:
                log.write(f"$ evidencegraph {' '.join(arguments)} -> {done.returncode}\n".encode())
                log.write(done.stderr[-2000:] + b"\n")
        return done.returncode

    def load_reference_data(self) -> None:
        lines = []
        for number in range(self.args.documents):
            ids = [new_id() for _ in range(6)]
            line = document_line(REFERENCE_WORKSPACE, new_id(), number, 1, ids)
            lines.append(line)
            self.entities += ids
            self.passages += [p["id"] for p in line["passages"]]
        bundle = self.root / "reference.jsonl"
        bundle.write_text("".join(json.dumps(line) + "\n" for line in lines))
        assert self.cli("load", str(bundle)) == 0, "loading the reference data failed"

    def start_service(self) -> None:
        log = (self.root / "serve.log").open("wb")
        self.service = subprocess.Popen(
            [EVIDENCEGRAPH, "serve", "--port", str(self.service_port)],
            env=self.env,
            stdout=log,
            stderr=log,
        )
        self.wait_ready()

    def wait_ready(self) -> float:
        """Seconds until /readyz says ready."""
        began = time.monotonic()
        while True:
            try:
                if httpx.get(f"{self.url}/readyz", timeout=5).status_code == 200:
                    return time.monotonic() - began
            except httpx.TransportError:
                pass
            time.sleep(0.2)

    # The traffic ----------------------------------------------------------------------------

    def operation(self, rng: random.Random) -> tuple[str, str, dict[str, Any]]:
        """One request: its kind (a search's kind names its mode), text and variables."""
        scope = {"workspaces": [REFERENCE_WORKSPACE]}
        choice = rng.random()
        mode = rng.choice(("LEXICAL", "HYBRID"))
        if choice < 0.35:
            number = rng.randrange(self.args.documents)
            return (
                f"searchEntities {mode}",
                "query($q: String!, $s: ScopeInput, $m: SearchMode!) { searchEntities(query: $q,"
                " scope: $s, mode: $m, limit: 5) { entity { id name } status"
                " evidence { id document { title } } } }",
                {"q": f"{WORDS[number % len(WORDS)]} {number}", "s": scope, "m": mode},
            )
        if choice < 0.5:
            return (
                f"searchPassages {mode}",
                "query($q: String!, $s: ScopeInput, $m: SearchMode!) { searchPassages(query: $q,"
                " scope: $s, mode: $m, limit: 5) { passage { id position } } }",
                {"q": " ".join(rng.sample(WORDS, 2)), "s": scope, "m": mode},
            )
        if choice < 0.8:
            return (
                "walk",
                "query($id: ID!, $s: ScopeInput) { walk(entityId: $id, scope: $s, depth: 2) {"
                " nodes { id } edges { id kind evidenceIds } truncatedBy } }",
                {"id": rng.choice(self.entities), "s": scope},
            )
        if choice < 0.9:
            return (
                "entity",
                "query($id: ID!) { entity(id: $id) { id name evidence { id } } }",
                {"id": rng.choice(self.entities)},
            )
        return (
            "passage",
            "query($id: ID!) { passage(id: $id) { id text document { id } } }",
            {"id": rng.choice(self.passages)},
        )

    async def ask(
        self, http: httpx.AsyncClient, query: str, variables: dict[str, Any]
    ) -> tuple[str | None, Any]:
        try:
            response = await http.post("/graphql", json={"query": query, "variables": variables})
            body = response.json()
        except (httpx.TransportError, ValueError):
            return "TRANSPORT", None
        if body.get("errors"):
            return str(body["errors"][0].get("extensions", {}).get("code")), None
        return None, body["data"]

    async def client(self, number: int) -> None:
        # Client 0 draws the reference's sequence again, so its checked answers have one.
        rng = random.Random(-1 if number == 0 else number)
        checker = random.Random(number)
        async with httpx.AsyncClient(base_url=self.url, timeout=60) as http:
            while not self.stopping:
                kind, query, variables = self.operation(rng)
                began = time.monotonic()
                code, data = await self.ask(http, query, variables)
                self.samples.append(
                    Sample(began - self.started, kind, (time.monotonic() - began) * 1000, code)
                )
                key = json.dumps([query, variables], sort_keys=True)
                if code is None and checker.random() < self.args.check_share:
                    if key not in self.reference:
                        continue  # only answers read before the run are a reference
                    if kind.endswith("HYBRID"):
                        # contract §3: a semantic read takes a fixed number of candidates
                        # from every workspace, then keeps the caller's, so entities the
                        # loader adds elsewhere may change which of the scope's it finds.
                        continue
                    matched = data == self.reference[key]
                    self.report.checked += 1
                    self.report.matched += matched
                    tally = self.report.checked_by_kind.setdefault(kind, [0, 0])
                    tally[0] += 1
                    tally[1] += matched
                    if not matched and len(self.mismatches) < 20:
                        self.mismatches.append(
                            {
                                "request": variables,
                                "kind": kind,
                                "reference": self.reference[key],
                                "answer": data,
                            }
                        )

    async def read_reference(self) -> None:
        """The answers before anything else runs: what every checked sample must equal."""
        rng = random.Random(-1)
        async with httpx.AsyncClient(base_url=self.url, timeout=60) as http:
            for _ in range(self.args.reference_reads):
                _, query, variables = self.operation(rng)
                for _attempt in range(3):  # the first plans of a statement may time out
                    code, data = await self.ask(http, query, variables)
                    if code is None:
                        break
                assert code is None, f"the reference read failed: {code}"
                self.reference[json.dumps([query, variables], sort_keys=True)] = data

    async def loader(self) -> None:
        """New versions of documents of another workspace, and deletes if the command exists."""
        can_delete = self.cli("delete", "--help") == 0
        deletes: Counter[str] = Counter()
        documents = [new_id() for _ in range(4)]
        versions: Counter[str] = Counter()
        loads: Counter[str] = Counter()
        round_number = 0
        while not self.stopping:
            document = documents[round_number % len(documents)]
            versions[document] += 1
            line = document_line(
                LOADED_WORKSPACE,
                document,
                LOAD_NUMBERS_FROM + round_number,
                versions[document],
                [new_id() for _ in range(6)],
                LOAD_WORDS,
            )
            bundle = self.root / f"load-{round_number}.jsonl"
            bundle.write_text(json.dumps(line) + "\n")
            code = await asyncio.to_thread(
                self.cli, "load", str(bundle), timeout=self.args.command_timeout
            )
            loads[str(code)] += 1
            if can_delete and round_number % 3 == 2:
                retire = ("delete", "--document", documents[0])
                code = await asyncio.to_thread(self.cli, *retire, timeout=self.args.command_timeout)
                deletes[str(code)] += 1
            round_number += 1
            await asyncio.sleep(self.args.load_every)
        self.report.loads_by_exit_code = dict(loads)
        self.report.deletes_by_exit_code = dict(deletes) if can_delete else None

    async def outages(self) -> None:
        for fraction in (1 / 3, 2 / 3):
            await asyncio.sleep(
                max(0.0, self.started + fraction * self.args.duration - time.monotonic())
            )
            down = time.monotonic() - self.started
            await asyncio.to_thread(stop, self.home)
            stopped = time.monotonic() - self.started
            await asyncio.sleep(self.args.outage)
            restarting = time.monotonic()
            await asyncio.to_thread(start, self.home, self.neo4j_port, 600, lambda _: None)
            neo4j_up = time.monotonic() - restarting
            service_ready = neo4j_up + await asyncio.to_thread(self.wait_ready)
            self.report.outages.append(
                {
                    "stop_at_s": round(down, 1),
                    "stopped_at_s": round(stopped, 1),
                    "start_at_s": round(restarting - self.started, 1),
                    "neo4j_up_after_s": round(neo4j_up, 1),
                    "service_ready_after_s": round(service_ready, 1),
                    "ready_at_s": round(restarting - self.started + service_ready, 1),
                }
            )

    # Measures -------------------------------------------------------------------------------

    def rss_kib(self) -> int:
        assert self.service is not None
        for line in Path(f"/proc/{self.service.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return -1

    def neo4j_connections(self) -> int:
        """Established TCP connections from the service to Neo4j's port."""
        assert self.service is not None
        fds = Path(f"/proc/{self.service.pid}/fd")
        inodes = set()
        for fd in fds.iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
        count = 0
        for table in ("tcp", "tcp6"):
            for line in Path(f"/proc/{self.service.pid}/net/{table}").read_text().splitlines()[1:]:
                parts = line.split()
                remote_port = int(parts[2].rsplit(":", 1)[1], 16)
                if remote_port == self.neo4j_port and parts[3] == "01" and parts[9] in inodes:
                    count += 1
        return count

    # The run --------------------------------------------------------------------------------

    async def run(self) -> Report:
        await self.read_reference()
        self.report.rss_kib["start"] = self.rss_kib()
        self.report.neo4j_connections["start"] = self.neo4j_connections()
        self.started = time.monotonic()
        tasks = [asyncio.create_task(self.client(n)) for n in range(self.args.clients)]
        tasks += [asyncio.create_task(self.loader())]
        outages = asyncio.create_task(self.outages())
        await asyncio.sleep(self.args.duration)
        await outages  # the second start may still be under way on a slow machine
        # Traffic goes on after the last recovery, so the run shows the service answering again.
        await asyncio.sleep(self.args.after)
        self.stopping = True
        await asyncio.gather(*tasks)
        self.report.duration_s = round(time.monotonic() - self.started, 1)
        self.report.rss_kib["end"] = self.rss_kib()
        self.report.neo4j_connections["end"] = self.neo4j_connections()
        self.summarise()
        return self.report

    def in_outage(self, sample: Sample) -> bool:
        """The request was under way at some point between a stop command and the service
        being ready again (one sent just before the stop fails when the database goes)."""
        ended = sample.at + sample.ms / 1000
        return any(
            sample.at <= o["ready_at_s"] and ended >= o["stop_at_s"] for o in self.report.outages
        )

    def summarise(self) -> None:
        self.report.requests = len(self.samples)
        codes = Counter(s.code for s in self.samples if s.code)
        self.report.errors_by_code = dict(codes)
        outside = Counter(s.code for s in self.samples if s.code and not self.in_outage(s))
        self.report.errors_outside_outages = dict(outside)
        latencies = sorted(s.ms for s in self.samples if s.code is None)
        if latencies:
            self.report.p50_ms = round(latencies[len(latencies) // 2], 1)
            self.report.p99_ms = round(latencies[int(len(latencies) * 0.99)], 1)

    def plot(self, path: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, axes = plt.subplots(figsize=(10, 4))
        ok = [s for s in self.samples if s.code is None]
        failed = [s for s in self.samples if s.code is not None]
        axes.scatter([s.at for s in ok], [s.ms for s in ok], s=2, label="answered")
        axes.scatter([s.at for s in failed], [s.ms for s in failed], s=4, c="red", label="error")
        for number, outage in enumerate(self.report.outages):
            axes.axvspan(
                outage["stop_at_s"],
                outage["ready_at_s"],
                color="grey",
                alpha=0.25,
                label="Neo4j stopped → service ready" if number == 0 else None,
            )
        axes.set_yscale("log")
        axes.set_xlabel("seconds since start")
        axes.set_ylabel("latency (ms)")
        axes.set_title(f"soak: {self.args.clients} clients, {self.report.requests} requests")
        axes.legend(loc="upper right")
        figure.tight_layout()
        figure.savefig(path, dpi=100)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=600, help="seconds of traffic (600)")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--outage", type=float, default=20, help="seconds Neo4j stays down (20)")
    parser.add_argument(
        "--after", type=float, default=30, help="seconds of traffic after the last recovery"
    )
    parser.add_argument("--documents", type=int, default=40, help="reference documents (40)")
    parser.add_argument("--load-every", type=float, default=3, help="seconds between loads")
    parser.add_argument("--check-share", type=float, default=0.2, help="answers checked")
    parser.add_argument("--reference-reads", type=int, default=300, help="answers read first")
    parser.add_argument(
        "--command-timeout", type=float, default=120, help="a load or delete past it is killed"
    )
    parser.add_argument("--out", type=Path, default=Path("soak-report"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="evidencegraph-soak-") as folder:
        soak = Soak(args, Path(folder))
        try:
            start(soak.home, soak.neo4j_port, 600, print)
            soak.load_reference_data()
            soak.start_service()
            report = asyncio.run(soak.run())
            soak.plot(args.out / "latency.png")
        finally:
            if soak.service is not None:
                soak.service.terminate()
                soak.service.wait(60)
            stop(soak.home)
            for kept in ("serve.log", "commands.log"):  # the folder goes; the logs stay
                if (soak.root / kept).exists():
                    (args.out / kept).write_bytes((soak.root / kept).read_bytes())
    (args.out / "report.json").write_text(json.dumps(asdict(report), indent=2) + "\n")
    (args.out / "mismatches.json").write_text(json.dumps(soak.mismatches, indent=1) + "\n")
    with (args.out / "samples.csv").open("w") as samples:  # every request: when, what, how long
        samples.write("at_s,kind,ms,code\n")
        for sample in soak.samples:
            samples.write(f"{sample.at:.3f},{sample.kind},{sample.ms:.1f},{sample.code or ''}\n")
    print(json.dumps(asdict(report), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
