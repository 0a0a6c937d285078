"""Hub entities against ordinary ones (contract §5: "an entity with 100,000 relations or
100,000 mentions costs about what an ordinary one does").

    .venv/bin/python -m bench.build_graph --home /tmp/eg-bench/neo4j          # scale S, once
    git archive main | tar -x -C /tmp/eg-before                                 # the code before
    .venv/bin/python -m bench.hub_entities --home /tmp/eg-bench/neo4j --before /tmp/eg-before

What it adds to the scale-S graph of bench/build_graph.py (once; a `:BenchHubs` node records
it), written the way another pipeline writes contract §2's model, then made ready by
`order_mentions` (what `evidencegraph schema apply` runs; its time is reported):
- `Quillon Hubworth` (Person), mentioned in 100,000 passages: 10,000 documents of workspace
  acme, 10 passages each, one committed version; 3 relations, like an ordinary entity;
- `Quillon Farworth` (Person), mentioned in 100,000 passages of workspace `hubland`, which
  the scoped cases leave out (an out-of-scope hub);
- `Quillon Knotley` (Organization), mentioned in 3 passages, with 100,000 RELATED_TO relations
  (85% stated by one of its passages, 15% paths) to 1,000 entities of its own (`Quillon
  member n`, one passage each; 100 relations each), and `Quillon Knotwell` with 1,000
  relations to the same: both fill a walk's bounds. The members keep the graph's ordinary
  entities ordinary: a walk from one of them never meets a hub;
- `Quillon Pagewell`, not a hub: 60 relations to the members, just enough to fill a walk's
  `maxNodes` (50), so a walk from it returns a page of edges as large as a relation hub's.
  The walk cases compare a relation hub with it (what the degree costs) as well as with the
  ordinary entities, about 3 edges each (what the degree and the answer's size cost);
- ordinary entities: the graph's own, SUPPORTED in acme, with 3 to 8 mentions.

Each case is one GraphQL operation run in process (the app's schema, as bench/search_paths.py
does: no HTTP), by each side's code in a process of its own: `after` is this checkout, `before`
the checkout `--before` names. The sides and the cases take turns request by request, so load
from other processes falls on all alike. For each case and side: p50 and p95 of the request,
statements per request (of the timed requests), database hits (PROFILE of every statement
of one request, summed; the index catalog read is not profiled),
and whether both sides answered the same. `measure()` returns the figures; `main` prints them
as the table of bench/notebook.md. Milliseconds here are a shared machine's: compare ratios
within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, LiteralString

HERE = Path(__file__).resolve()
THIS_CHECKOUT = HERE.parents[1]

HUB_MENTIONS = 100_000
HUB_RELATIONS = 100_000
BOUND_RELATIONS = 1_000
PASSAGES_PER_DOCUMENT = 10
FORMAT = 3
MEMBERS = 1_000
HUB = "Quillon Hubworth"
FAR_HUB = "Quillon Farworth"
RELATION_HUB = "Quillon Knotley"
BOUND_HUB = "Quillon Knotwell"
# Not a hub: just enough relations to fill a walk's bounds (maxNodes 50), so a walk from it
# returns the same page of edges with evidence as one from a relation hub.
PAGE_ENTITY = "Quillon Pagewell"
PAGE_RELATIONS = 60
OTHER_WORKSPACE = "hubland"

SEARCH = """
query($query: String!, $scope: ScopeInput) {
  searchEntities(query: $query, limit: 10, scope: $scope) {
    entity { id name labels } status score lexicalRank semanticRank
    evidence { id text document { title } }
  }
}
"""
ENTITY = """
query($id: ID!, $scope: ScopeInput) {
  entity(id: $id, scope: $scope) {
    id name labels evidence(limit: 3) { id text document { title } }
  }
}
"""
WALK = """
query($id: ID!, $depth: Int!, $scope: ScopeInput) {
  walk(entityId: $id, depth: $depth, scope: $scope) {
    truncatedBy
    nodes { id name labels }
    edges { id type kind source { id } target { id } evidence { id text document { title } } }
  }
}
"""

# --- the hubs --------------------------------------------------------------------------------

READ_MARKER: LiteralString = "OPTIONAL MATCH (m:BenchHubs) RETURN m.format AS format"
WRITE_MARKER: LiteralString = "MERGE (m:BenchHubs {key: 'hubs'}) SET m.format = $format"

# One entity and `$documents` documents of `$workspace`, each one committed version of
# `$passages` passages, every passage mentioning the entity.
WRITE_HUB_ENTITY: LiteralString = (
    "CREATE (e:Entity {id: $id}) SET e:$($labels), e.name = $name, e.embedding = $embedding"
)
WRITE_MENTION_HUB: LiteralString = (
    "MATCH (e:Entity {id: $id}) UNWIND range(1, $documents) AS n"
    " CALL (e, n) {"
    "  CREATE (d:Document {id: randomUUID(), workspace: $workspace,"
    "   title: $name + ' report ' + n, currentVersion: 1})"
    "  CREATE (j:Job {id: randomUUID(), status: 'COMMITTED', documentId: d.id, version: 1,"
    "   startedAt: datetime(), finishedAt: datetime()})"
    "  WITH e, d, j UNWIND range(0, $passages - 1) AS position"
    "  CREATE (d)-[:HAS_PART]->(c:Chunk {id: randomUUID(), documentId: d.id, version: 1,"
    "   position: position, jobId: j.id,"
    "   text: $name + ' is named in line ' + position + ' of report ' + n})"
    "  CREATE (e)-[:MENTIONED_IN]->(c)"
    " } IN TRANSACTIONS OF 500 ROWS"
)

# Relations from the entity `$id` to the entities `$rows` name, with their `passageIds`.
WRITE_RELATIONS: LiteralString = (
    "MATCH (hub:Entity {id: $id}) UNWIND $rows AS row MATCH (other:Entity {id: row.target})"
    " CREATE (hub)-[:RELATED_TO {id: randomUUID(), passageIds: row.passageIds}]->(other)"
)
STATED: LiteralString = "MATCH (:Entity {id: $id})-[:MENTIONED_IN]->(c:Chunk) RETURN c.id AS id"
# Entities of one passage each, each in a document of its own.
WRITE_MEMBERS: LiteralString = (
    "UNWIND $members AS member"
    " CREATE (d:Document {id: randomUUID(), workspace: 'acme', title: member.name,"
    "  currentVersion: 1})"
    " CREATE (j:Job {id: randomUUID(), status: 'COMMITTED', documentId: d.id, version: 1,"
    "  startedAt: datetime(), finishedAt: datetime()})"
    " CREATE (d)-[:HAS_PART]->(c:Chunk {id: randomUUID(), documentId: d.id, version: 1,"
    "  position: 0, jobId: j.id, text: member.name + ' is named here'})"
    " CREATE (e:Entity:Person {id: member.id, name: member.name, embedding: member.embedding})"
    " CREATE (e)-[:MENTIONED_IN]->(c)"
)
ORDINARY_TARGETS: LiteralString = (
    "MATCH (e:Entity) WHERE NOT e.name STARTS WITH 'Quillon ' RETURN e.id AS id ORDER BY id LIMIT 3"
)

ORDINARY: LiteralString = (
    "MATCH (e:Entity) WHERE NOT e.name STARTS WITH 'Quillon'"
    " WITH e, COUNT { (e)-[:MENTIONED_IN]->() } AS mentions WHERE 3 <= mentions <= 8"
    " AND EXISTS { (e)-[:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document {workspace: 'acme'})"
    "  WHERE c.version = d.currentVersion }"
    " AND COUNT { (e)-[:RELATED_TO|WORKS_FOR|LOCATED_IN|PRODUCES|ATTENDED|PARTNER_OF]-() } >= 3"
    " WITH e ORDER BY e.id LIMIT $count"
    " RETURN e.id AS id, e.name AS name"
)
HUB_ID: LiteralString = "MATCH (e:Entity {name: $name}) RETURN e.id AS id"
# What an unfinished earlier build left: the hubs' documents (with their passages and jobs),
# then the hubs with their relationships.
REMOVE_PARTIAL_DOCUMENTS: LiteralString = (
    "MATCH (d:Document) WHERE d.title STARTS WITH 'Quillon '"
    " CALL (d) {"
    "  OPTIONAL MATCH (d)-[:HAS_PART]->(c:Chunk) OPTIONAL MATCH (j:Job {documentId: d.id})"
    "  DETACH DELETE c, j, d"
    " } IN TRANSACTIONS OF 200 ROWS"
)
REMOVE_PARTIAL_RELATIONSHIPS: LiteralString = (
    "MATCH (e:Entity)-[r]-() WHERE e.name STARTS WITH 'Quillon '"
    " CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS"
)
REMOVE_PARTIAL_HUBS: LiteralString = (
    "MATCH (e:Entity) WHERE e.name STARTS WITH 'Quillon ' DETACH DELETE e"
)


def _embedding(axis: int) -> list[float]:
    vector = [0.01] * 384
    vector[axis] = 1.0
    return vector


async def build_hubs(graph: Any) -> float | None:
    """Add the hubs (once) and order every mention; the seconds `order_mentions` took, or
    None when the hubs were already there."""
    from graph.mention_order import order_mentions

    [row] = await graph.read(READ_MARKER, {})
    if row["format"] == FORMAT:
        return None
    for statement in (REMOVE_PARTIAL_DOCUMENTS, REMOVE_PARTIAL_RELATIONSHIPS, REMOVE_PARTIAL_HUBS):
        await graph.auto_commit(statement, {})
    documents = HUB_MENTIONS // PASSAGES_PER_DOCUMENT
    for number, (name, workspace, count) in enumerate(
        [(HUB, "acme", documents), (FAR_HUB, OTHER_WORKSPACE, documents)]
    ):
        entity_id = f"00000000-0000-4000-8000-00000000000{number + 1}"
        await graph.write(
            WRITE_HUB_ENTITY,
            {"id": entity_id, "labels": ["Person"], "name": name, "embedding": _embedding(number)},
        )
        await graph.auto_commit(
            WRITE_MENTION_HUB,
            {
                "id": entity_id,
                "name": name,
                "workspace": workspace,
                "documents": count,
                "passages": PASSAGES_PER_DOCUMENT,
            },
        )
        _progress(f"{name}: {count * PASSAGES_PER_DOCUMENT:,} mentions in {workspace}")
    members = [
        {
            "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"quillon-member-{n}")),
            "name": f"Quillon member {n}",
            "embedding": _embedding(20 + n % 300),
        }
        for n in range(MEMBERS)
    ]
    for start in range(0, MEMBERS, 250):
        await graph.write(WRITE_MEMBERS, {"members": members[start : start + 250]})
    member_ids = [member["id"] for member in members]
    ordinary_ids = [row["id"] for row in await graph.read(ORDINARY_TARGETS, {})]
    for number, (name, count, relations, targets) in enumerate(
        [
            (RELATION_HUB, 1, HUB_RELATIONS, member_ids),
            (BOUND_HUB, 1, BOUND_RELATIONS, member_ids),
            (HUB, 0, 3, ordinary_ids),
            (PAGE_ENTITY, 1, PAGE_RELATIONS, member_ids),
        ]
    ):
        entity_id = f"00000000-0000-4000-8000-00000000001{number}"
        if name == HUB:
            [found] = await graph.read(HUB_ID, {"name": HUB})
            entity_id = found["id"]
        else:
            await graph.write(
                WRITE_HUB_ENTITY,
                {
                    "id": entity_id,
                    "labels": ["Organization"],
                    "name": name,
                    "embedding": _embedding(10 + number),
                },
            )
            await graph.auto_commit(
                WRITE_MENTION_HUB,
                {
                    "id": entity_id,
                    "name": name,
                    "workspace": "acme",
                    "documents": count,
                    "passages": 3,
                },
            )
        await write_relations(graph, entity_id, relations, targets)
        _progress(f"{name}: {relations:,} relations")
    started = time.perf_counter()
    report = await order_mentions(graph)
    seconds = time.perf_counter() - started
    _progress(f"order_mentions: {report} in {seconds:.1f} s")
    await graph.write(WRITE_MARKER, {"format": FORMAT})
    return seconds


async def write_relations(graph: Any, entity_id: str, count: int, targets: Sequence[str]) -> None:
    """`count` relations to `targets`, round robin; 85% stated by one of the entity's
    passages, the rest paths."""
    stated = [row["id"] for row in await graph.read(STATED, {"id": entity_id})]
    rows = [
        {
            "target": targets[i % len(targets)],
            "passageIds": [] if i % 20 < 3 else [stated[i % len(stated)]],
        }
        for i in range(count)
    ]
    for start in range(0, count, 5000):
        await graph.write(WRITE_RELATIONS, {"id": entity_id, "rows": rows[start : start + 5000]})


# --- the cases ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    name: str
    group: str  # cases of one group are compared with its `ordinary` case
    kind: str  # "hub", "ordinary"
    query: str
    variables: list[dict[str, Any]]  # one per request, used in turn


def cases(ids: Mapping[str, str], ordinary: Sequence[tuple[str, str]]) -> list[Case]:
    acme = {"workspaces": ["acme"]}
    everywhere = None
    found: list[Case] = []
    for scope_name, scope in (("", everywhere), (", scope acme", acme)):
        found += [
            Case(
                f"search with evidence{scope_name}: hub",
                f"search{scope_name}",
                "hub",
                SEARCH,
                [{"query": HUB, "scope": scope}],
            ),
            Case(
                f"search with evidence{scope_name}: ordinary",
                f"search{scope_name}",
                "ordinary",
                SEARCH,
                [{"query": name, "scope": scope} for _, name in ordinary],
            ),
            Case(
                f"entity evidence{scope_name}: hub",
                f"entity{scope_name}",
                "hub",
                ENTITY,
                [{"id": ids[HUB], "scope": scope}],
            ),
            Case(
                f"entity evidence{scope_name}: ordinary",
                f"entity{scope_name}",
                "ordinary",
                ENTITY,
                [{"id": i, "scope": scope} for i, _ in ordinary],
            ),
        ]
    found.append(
        Case(
            "search, scope acme: out-of-scope hub",
            "search, scope acme",
            "out-of-scope hub",
            SEARCH,
            [{"query": FAR_HUB, "scope": acme}],
        )
    )
    for depth in (1, 2):
        group = f"walk depth {depth}"
        for kind, name in (
            ("hub", HUB),
            ("relation hub (100,000)", RELATION_HUB),
            ("relation hub (1,000)", BOUND_HUB),
        ):
            found.append(
                Case(
                    f"walk depth {depth}: {kind}",
                    group,
                    kind,
                    WALK,
                    [{"id": ids[name], "depth": depth, "scope": acme}],
                )
            )
        found.append(
            Case(
                f"walk depth {depth}: ordinary",
                group,
                "ordinary",
                WALK,
                [{"id": i, "depth": depth, "scope": acme} for i, _ in ordinary],
            )
        )
        # The same answer size: a relation hub against an entity whose 60 relations fill
        # the walk's bounds too (the ordinary entities above have about 3 edges).
        for kind, name in (("relation hub (100,000)", RELATION_HUB), ("ordinary", PAGE_ENTITY)):
            found.append(
                Case(
                    f"walk depth {depth}, a full page: "
                    + (kind if name == RELATION_HUB else f"{PAGE_RELATIONS} relations"),
                    f"walk depth {depth}, a full page",
                    kind,
                    WALK,
                    [{"id": ids[name], "depth": depth, "scope": acme}],
                )
            )
    return found


# --- one side: the service's code of one checkout, in a process of its own ----------------------


def child_main(bolt_uri: str) -> None:
    """Answer commands on stdin, one JSON line each: run a GraphQL operation in process (timed,
    or with every statement PROFILEd); a JSON line back for each."""
    import uvloop

    uvloop.run(_child(bolt_uri))


async def _child(bolt_uri: str) -> None:
    import neo4j

    from bench.search_paths import in_process_service
    from graph.driver import Graph
    from resolvers.context import RequestContext

    class ProfiledGraph(Graph):
        """Runs every read with PROFILE and adds up its database hits."""

        def __init__(self, graph: Graph) -> None:
            super().__init__(graph.driver, graph.database, graph.query_timeout)
            self.db_hits = 0

        async def read(self, query: Any, parameters: Mapping[str, Any]) -> list[neo4j.Record]:
            self._observe(query, parameters)
            profiled = not query.lstrip().upper().startswith("SHOW")
            async with self.driver.session(database=self.database) as session:
                result = await session.run(
                    ("PROFILE " if profiled else "") + query, dict(parameters)
                )
                records = [record async for record in result]
                summary = await result.consume()
            if profiled and summary.profile is not None:
                self.db_hits += _db_hits(summary.profile)
            return records

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with in_process_service(bolt_uri) as service:
        timed = service.graph
        profiled = ProfiledGraph(timed)
        statements: list[str] = []
        for graph in (timed, profiled):
            graph.observers.append(lambda query, _: statements.append(query))
        _answer({"ready": True})
        while line := await reader.readline():
            command = json.loads(line)
            services = service.services
            services.graph = profiled if command["profile"] else timed
            profiled.db_hits = 0
            statements.clear()
            context = RequestContext(
                answers=services.answer_context(),
                grant=services.authenticator.authenticate(None),
            )
            started = time.perf_counter()
            cpu = time.process_time()
            result = await service.schema.execute(
                command["query"], variable_values=command["variables"], context_value=context
            )
            _answer(
                {
                    "ms": (time.perf_counter() - started) * 1000,
                    "cpu_ms": (time.process_time() - cpu) * 1000,
                    "statements": len(statements),
                    "db_hits": profiled.db_hits,
                    "data": result.data,
                    "errors": [str(error) for error in result.errors or []],
                }
            )


def _db_hits(plan: Any) -> int:
    children = plan.get("children", []) if isinstance(plan, dict) else plan.children
    own = plan.get("dbHits", 0) if isinstance(plan, dict) else plan.db_hits
    return int(own) + sum(_db_hits(child) for child in children)


def _answer(value: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


class Side:
    """A child process running one checkout's code."""

    def __init__(self, name: str, checkout: Path, bolt_uri: str) -> None:
        self.name = name
        environment = {
            **os.environ,
            "PYTHONPATH": str(checkout),
            "PYTHONDONTWRITEBYTECODE": "1",
            "NEO4J_QUERY_TIMEOUT_SECONDS": "600",
        }
        self.process = subprocess.Popen(
            [sys.executable, str(HERE), "--child", "--uri", bolt_uri],
            cwd=checkout,
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._read()

    def run(self, case: Case, variables: dict[str, Any], profile: bool) -> dict[str, Any]:
        assert self.process.stdin is not None
        command = {"query": case.query, "variables": variables, "profile": profile}
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        return self._read()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.name} side stopped")
        answer: dict[str, Any] = json.loads(line)
        if answer.get("errors"):
            raise SystemExit(f"the {self.name} side answered with errors: {answer['errors']}")
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


# --- the run -----------------------------------------------------------------------------------


@dataclass
class Figures:
    case: str
    group: str
    kind: str
    side: str
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    statements: int = 0
    db_hits: int = 0

    @property
    def p50(self) -> float:
        return percentile(self.ms, 0.5)

    @property
    def p95(self) -> float:
        return percentile(self.ms, 0.95)


@dataclass
class HubReport:
    rows: list[Figures]
    same_answers: dict[str, bool]  # case -> before and after answered alike (when both ran)
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    order_seconds: float | None

    def ratio(self, case: Figures, measure: str = "p50") -> float:
        """`case`'s figure over its group's ordinary case on the same side."""
        ordinary = next(
            row
            for row in self.rows
            if row.group == case.group and row.kind == "ordinary" and row.side == case.side
        )
        mine, theirs = (
            (case.p50, ordinary.p50) if measure == "p50" else (case.db_hits, ordinary.db_hits)
        )
        return mine / theirs if theirs else math.inf


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1)]


async def measure(
    bolt_uri: str, before: Path | None = None, requests: int = 20, warmup: int = 3
) -> HubReport:
    """Build the hubs if need be, then run every case on each side; see the module docstring."""
    import neo4j

    from graph.driver import Graph

    load_before = os.getloadavg()
    async with neo4j.AsyncGraphDatabase.driver(
        bolt_uri, auth=None, notifications_min_severity="OFF"
    ) as driver:
        graph = Graph(driver)
        order_seconds = await build_hubs(graph)
        ids = {
            name: (await graph.read(HUB_ID, {"name": name}))[0]["id"]
            for name in (HUB, FAR_HUB, RELATION_HUB, BOUND_HUB, PAGE_ENTITY)
        }
        ordinary = [(row["id"], row["name"]) for row in await graph.read(ORDINARY, {"count": 20})]
    checkouts = [("after", THIS_CHECKOUT)] + ([("before", before)] if before else [])
    sides = [Side(name, checkout, bolt_uri) for name, checkout in checkouts]
    try:
        every = cases(ids, ordinary)
        rows = {
            (c.name, s.name): Figures(c.name, c.group, c.kind, s.name) for c in every for s in sides
        }
        answers: dict[tuple[str, str], Any] = {}
        for case in every:  # warm-up, one PROFILEd request (db hits), answers compared
            for side in sides:
                for n in range(warmup):
                    side.run(case, case.variables[n % len(case.variables)], profile=False)
                profiled = side.run(case, case.variables[0], profile=True)
                figures = rows[(case.name, side.name)]
                figures.db_hits = profiled["db_hits"]
                answers[(case.name, side.name)] = profiled["data"]
            _progress(f"warmed up: {case.name}")
        for n in range(requests):  # cases and sides take turns
            for offset in range(len(every)):
                case = every[(n + offset) % len(every)]
                for side in sides[n % len(sides) :] + sides[: n % len(sides)]:
                    timed = side.run(case, case.variables[n % len(case.variables)], profile=False)
                    rows[(case.name, side.name)].ms.append(timed["ms"])
                    rows[(case.name, side.name)].cpu_ms.append(timed["cpu_ms"])
                    rows[(case.name, side.name)].statements = timed["statements"]
            _progress(f"round {n + 1} of {requests}")
    finally:
        for side in sides:
            side.close()
    same = (
        {c.name: answers[(c.name, "after")] == answers[(c.name, "before")] for c in every}
        if before
        else {}
    )
    return HubReport(list(rows.values()), same, load_before, os.getloadavg(), order_seconds)


async def figures(bolt_uri: str, requests: int = 20) -> dict[str, Any]:
    """What `make bench` reports (bench/load.py, docs/benchmarks.md "Hub entities"): this
    checkout's side only, on the graph at `bolt_uri` (bench/load.py's scale S)."""
    report = await measure(bolt_uri, None, requests)
    return {
        "requests": requests,
        "load_before": list(report.load_before),
        "load_after": list(report.load_after),
        "order_seconds": report.order_seconds,
        "rows": [
            {
                "case": row.case,
                "kind": row.kind,
                "p50_ms": row.p50,
                "p95_ms": row.p95,
                "cpu_ms": percentile(row.cpu_ms, 0.5),
                "statements": row.statements,
                "db_hits": row.db_hits,
                "p50_ratio": report.ratio(row),
                "db_hits_ratio": report.ratio(row, "db_hits"),
            }
            for row in report.rows
        ],
    }


def table(report: HubReport) -> str:
    lines = [
        "| case | side | p50 ms | p95 ms | CPU ms (service, p50) | statements | db hits |"
        " p50 / ordinary | db hits / ordinary |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in report.rows:
        lines.append(
            f"| {row.case} | {row.side} | {row.p50:.1f} | {row.p95:.1f}"
            f" | {percentile(row.cpu_ms, 0.5):.1f} | {row.statements} | {row.db_hits:,}"
            f" | {report.ratio(row):.2f}× | {report.ratio(row, 'db_hits'):.2f}× |"
        )
    return "\n".join(lines)


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--json-out", type=Path)
    if "--child" in sys.argv:
        parser.add_argument("--uri")
        child_main(parser.parse_args().uri)
        return
    from bench import target

    target.add_arguments(parser)
    arguments = parser.parse_args()
    try:
        report = asyncio.run(
            measure(target.bolt_uri(arguments), arguments.before, arguments.requests)
        )
    finally:
        target.finish(arguments)
    print(
        f"load average {report.load_before[0]:.2f} before, {report.load_after[0]:.2f} after;"
        f" order_mentions: {report.order_seconds}"
    )
    print(table(report))
    if report.same_answers:
        print("same answers before and after:", report.same_answers)
    if arguments.json_out:
        with arguments.json_out.open("a") as out:
            out.write(json.dumps({**asdict(report), "rows": [asdict(r) for r in report.rows]}))
            out.write("\n")


if __name__ == "__main__":
    main()
