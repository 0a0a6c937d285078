"""Build the benchmark graph: contract §2's model at scale, written directly with UNWIND batches.

    .venv/bin/python -m bench.build_graph --home /tmp/eg-bench/neo4j [--scale S|L] [--seed 7]

S = 10,000 entities / 50,000 passages (default), L = 100,000 / 500,000. What it writes, as
other pipelines may write the model (contract §2: the service must answer correctly on any graph
that follows it):
- 3 workspaces (skewed 50/30/20), documents with 1–3 committed versions: every version is a
  COMMITTED `Job`, its chunks carry the job's id and version, `currentVersion` names the
  last one, so older versions are superseded;
- about 2% of passages written by unfinished jobs (RUNNING or FAILED), a quarter of them as
  the first version of a document whose `currentVersion` is still 0;
- 5 entity labels (about 1% of entities carry two), names from `bench/vocabulary.py`, 40%
  with a description, 384-d vectors from the `hash` embedder of `name` (or `name:
  description`, contract §10), so `EMBEDDER=hash` queries meet them semantically too;
- 1–20 mentions per entity (mean about 4.5), mostly current passages, some superseded or
  unfinished, clustered in a few documents, so some entities come back UNSUPPORTED;
- about 3 relations per entity, 15% of them paths (no `passageIds`: absent or empty).
Then `apply_schema(graph, 384)`: constraints and both indexes of every label.

Idempotent: a `:BenchGraph` marker node (not an entity label: it has no vector index) records
the seed, scale and generator format. Same → only `apply_schema` (it replaces an index the
current settings define otherwise); other or unfinished → the graph
is wiped and rebuilt; a non-empty graph without a marker is not ours, and is left alone
unless `--wipe` says otherwise. Passages carry no embedding (optional in contract §2; passage
search is not what this benchmark measures).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, LiteralString

import neo4j

from bench import target
from bench.vocabulary import LABELS, entity_name, passage_text
from embedding.hashing import HashEmbedder
from graph.driver import Graph
from graph.graph_schema import CONSTRAINTS, apply_schema

DIMENSION = 384
# Bump when what the generator writes changes, so an old graph is rebuilt rather than reused.
FORMAT = 1
WORKSPACES = ("acme", "globex", "initech")
WORKSPACE_WEIGHTS = (0.5, 0.3, 0.2)
LABEL_WEIGHTS = (0.35, 0.25, 0.15, 0.15, 0.10)
UNFINISHED_DOCUMENT_SHARE = 0.04  # of documents; ≈ 2% of passages
PATH_SHARE = 0.15
RELATION_TYPES = ("RELATED_TO", "WORKS_FOR", "LOCATED_IN", "PRODUCES", "ATTENDED", "PARTNER_OF")
ROLES = ("inspector", "broker", "director", "auditor", "captain", "engineer", "clerk")
BATCH = 5000
VECTOR_BATCH = 1000  # entity rows carry 384 floats each


@dataclass(frozen=True)
class Scale:
    name: str
    entities: int
    passages: int


SCALES = {"S": Scale("S", 10_000, 50_000), "L": Scale("L", 100_000, 500_000)}


@dataclass
class DocumentPlan:
    id: str
    workspace: str
    title: str
    committed: int  # committed versions 1..committed; currentVersion = committed
    unfinished: str | None  # status of a job writing version committed + 1, if any
    versions: list[list[str]] = field(default_factory=list)  # chunk ids per version
    jobs: list[str] = field(default_factory=list)  # job id per version


@dataclass
class EntityPlan:
    id: str
    labels: list[str]
    name: str
    description: str | None
    mentions: list[str]


@dataclass
class Plan:
    documents: list[DocumentPlan]
    entities: list[EntityPlan]
    relations: list[dict[str, Any]]

    @property
    def passages(self) -> int:
        return sum(len(v) for d in self.documents for v in d.versions)

    @property
    def unfinished_passages(self) -> int:
        return sum(len(d.versions[-1]) for d in self.documents if d.unfinished)


def new_id(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def plan(scale: Scale, seed: int) -> Plan:
    """Everything but passage texts and vectors (made per batch, to keep memory small)."""
    rng = random.Random(seed)
    documents: list[DocumentPlan] = []
    passages = 0
    while passages < scale.passages:
        unfinished = None
        committed = rng.randint(1, 3)
        if rng.random() < UNFINISHED_DOCUMENT_SHARE:
            unfinished = rng.choice(("RUNNING", "FAILED"))
            if rng.random() < 0.25:
                committed = 0  # a new document whose first version is still being written
        number = len(documents) + 1
        document = DocumentPlan(
            id=new_id(rng),
            workspace=rng.choices(WORKSPACES, WORKSPACE_WEIGHTS)[0],
            title=f"Harbour report {number}: {rng.choice(ROLES)} notes",
            committed=committed,
            unfinished=unfinished,
        )
        size = rng.randint(5, 15)
        for _ in range(committed + (1 if unfinished else 0)):
            count = max(1, size + rng.randint(-2, 2))
            document.versions.append([new_id(rng) for _ in range(count)])
            document.jobs.append(new_id(rng))
            passages += count
        documents.append(document)

    with_current = [d for d in documents if d.committed]
    entities = []
    for _ in range(scale.entities):
        labels = [rng.choices(LABELS, LABEL_WEIGHTS)[0]]
        if rng.random() < 0.01:
            labels.append(rng.choice([label for label in LABELS if label != labels[0]]))
        name = entity_name(labels[0], rng)
        description = (
            f"{rng.choice(ROLES)} named in the harbour records" if rng.random() < 0.4 else None
        )
        mentions: dict[str, None] = {}
        homes: list[DocumentPlan] = []
        for _ in range(min(20, 1 + int(rng.expovariate(0.25)))):
            if homes and rng.random() < 0.6:
                document = rng.choice(homes)
            else:
                document = rng.choice(documents if rng.random() < 0.05 else with_current)
                homes.append(document)
            roll = rng.random()
            if document.unfinished and (roll < 0.05 or not document.committed):
                version = document.versions[-1]
            elif document.committed > 1 and roll < 0.25:
                version = document.versions[rng.randrange(document.committed - 1)]
            else:
                version = document.versions[document.committed - 1]
            mentions.setdefault(rng.choice(version), None)
        entities.append(EntityPlan(new_id(rng), labels, name, description, list(mentions)))

    relations = []
    for source in entities:
        for _ in range(rng.choice((1, 2, 3, 3, 4, 5))):
            other = rng.choice(entities)
            if other is source:
                continue
            relation: dict[str, Any] = {
                "id": new_id(rng),
                "type": rng.choice(RELATION_TYPES),
                "source": source.id,
                "target": other.id,
            }
            if rng.random() >= PATH_SHARE:
                support = list(dict.fromkeys(source.mentions + other.mentions))
                relation["passageIds"] = rng.sample(support, min(len(support), rng.randint(1, 2)))
            elif rng.random() < 0.5:
                relation["passageIds"] = []  # a path, written as an empty list
            relations.append(relation)  # else a path with no passageIds at all
    return Plan(documents, entities, relations)


# --- writing -------------------------------------------------------------------------------

WRITE_DOCUMENTS: LiteralString = (
    "UNWIND $rows AS row CREATE (:Document {id: row.id, workspace: row.workspace,"
    " title: row.title, uri: row.uri, currentVersion: row.currentVersion})"
)
WRITE_JOBS: LiteralString = (
    "UNWIND $rows AS row CREATE (:Job {id: row.id, status: row.status,"
    " documentId: row.documentId, version: row.version, startedAt: datetime(row.startedAt),"
    " finishedAt: CASE WHEN row.finishedAt IS NULL THEN null ELSE datetime(row.finishedAt) END})"
)
WRITE_CHUNKS: LiteralString = (
    "UNWIND $rows AS row MATCH (d:Document {id: row.documentId})"
    " CREATE (d)-[:HAS_PART]->(:Chunk {id: row.id, documentId: row.documentId,"
    " version: row.version, position: row.position, text: row.text, jobId: row.jobId})"
)
WRITE_ENTITIES: LiteralString = (
    "UNWIND $rows AS row CREATE (e:Entity {id: row.id, name: row.name,"
    " description: row.description, embedding: row.embedding}) SET e:$(row.labels)"
)
WRITE_MENTIONS: LiteralString = (
    "UNWIND $rows AS row MATCH (e:Entity {id: row.entity}) MATCH (c:Chunk {id: row.chunk})"
    " CREATE (e)-[:MENTIONED_IN]->(c)"
)
WRITE_RELATIONS: LiteralString = (
    "UNWIND $rows AS row MATCH (s:Entity {id: row.source}) MATCH (t:Entity {id: row.target})"
    " CREATE (s)-[r:$(row.type)]->(t) SET r.id = row.id, r.passageIds = row.passageIds"
)
READ_MARKER: LiteralString = (
    "OPTIONAL MATCH (m:BenchGraph) WITH m LIMIT 1"
    " CALL () { MATCH (n) RETURN count(n) > 0 AS populated }"
    " RETURN m {.seed, .scale, .format, .state} AS marker, populated"
)
WRITE_MARKER: LiteralString = (
    "MERGE (m:BenchGraph {key: 'benchmark'})"
    " SET m.seed = $seed, m.scale = $scale, m.format = $format, m.state = $state,"
    " m.entities = $entities, m.passages = $passages, m.relations = $relations,"
    " m.builtAt = datetime()"
)
WIPE_RELATIONSHIPS: LiteralString = (
    "MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 20000 ROWS"
)
WIPE_NODES: LiteralString = "MATCH (n) CALL (n) { DELETE n } IN TRANSACTIONS OF 20000 ROWS"

EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


def batches(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


async def write_all(
    graph: Graph, statement: LiteralString, rows: Sequence[dict[str, Any]], what: str
) -> None:
    started = time.perf_counter()
    for batch in batches(rows, BATCH):
        await graph.write(statement, {"rows": list(batch)})
    progress(f"{len(rows):>9,} {what} in {time.perf_counter() - started:.1f} s")


def document_rows(documents: Sequence[DocumentPlan]) -> list[dict[str, Any]]:
    return [
        {
            "id": d.id,
            "workspace": d.workspace,
            "title": d.title,
            "uri": f"file:///reports/{d.id}.txt",
            "currentVersion": d.committed,
        }
        for d in documents
    ]


def job_rows(documents: Sequence[DocumentPlan]) -> list[dict[str, Any]]:
    rows = []
    for n, document in enumerate(documents):
        for index, job_id in enumerate(document.jobs):
            version = index + 1
            started = EPOCH + timedelta(days=n % 300, hours=version)
            status = "COMMITTED" if version <= document.committed else document.unfinished
            rows.append(
                {
                    "id": job_id,
                    "status": status,
                    "documentId": document.id,
                    "version": version,
                    "startedAt": started.isoformat(),
                    "finishedAt": None
                    if status == "RUNNING"
                    else (started + timedelta(minutes=5)).isoformat(),
                }
            )
    return rows


async def write_chunks(graph: Graph, built: Plan, seed: int) -> None:
    """Chunk texts name the entities that mention them (five at most), made per batch."""
    rng = random.Random(seed + 1)
    names: dict[str, list[str]] = {}
    for entity in built.entities:
        for chunk_id in entity.mentions:
            names.setdefault(chunk_id, []).append(entity.name)
    started = time.perf_counter()
    batch: list[dict[str, Any]] = []
    for document in built.documents:
        for index, chunk_ids in enumerate(document.versions):
            for position, chunk_id in enumerate(chunk_ids):
                batch.append(
                    {
                        "id": chunk_id,
                        "documentId": document.id,
                        "version": index + 1,
                        "position": position,
                        "text": passage_text(rng, names.get(chunk_id, [])[:5]),
                        "jobId": document.jobs[index],
                    }
                )
                if len(batch) == BATCH:
                    await graph.write(WRITE_CHUNKS, {"rows": batch})
                    batch = []
    if batch:
        await graph.write(WRITE_CHUNKS, {"rows": batch})
    progress(f"{built.passages:>9,} passages in {time.perf_counter() - started:.1f} s")


async def write_entities(graph: Graph, entities: Sequence[EntityPlan]) -> None:
    embedder = HashEmbedder(DIMENSION)
    started = time.perf_counter()
    for batch in batches(entities, VECTOR_BATCH):
        texts = [f"{e.name}: {e.description}" if e.description else e.name for e in batch]
        vectors = embedder.embed(texts)
        rows = [
            {
                "id": e.id,
                "labels": e.labels,
                "name": e.name,
                "description": e.description,
                "embedding": vector,
            }
            for e, vector in zip(batch, vectors, strict=True)
        ]
        await graph.write(WRITE_ENTITIES, {"rows": rows})
    progress(f"{len(entities):>9,} entities in {time.perf_counter() - started:.1f} s")


async def build(graph: Graph, scale: Scale, seed: int, wipe: bool) -> None:
    [row] = await graph.read(READ_MARKER, {})
    marker = row["marker"]
    wanted = {"seed": seed, "scale": scale.name, "format": FORMAT, "state": "complete"}
    if marker == wanted:
        # The indexes still follow the service's current settings (an analyzer may have
        # changed since the build): apply_schema replaces only what differs.
        report = await apply_schema(graph, DIMENSION)
        changed = f"; indexes replaced: {', '.join(report.created)}" if report.created else ""
        progress(f"the graph is already built (scale {scale.name}, seed {seed}){changed}")
        return
    if row["populated"]:
        if marker is None and not wipe:
            raise SystemExit(
                "The database holds a graph this script did not build (no :BenchGraph "
                "marker); point it at an empty database, or pass --wipe to delete everything."
            )
        progress(f"replacing the graph there ({marker or 'no marker'})")
        await graph.auto_commit(WIPE_RELATIONSHIPS, {})
        await graph.auto_commit(WIPE_NODES, {})

    started = time.perf_counter()
    built = plan(scale, seed)
    progress(f"planned in {time.perf_counter() - started:.1f} s")
    for statement in CONSTRAINTS:  # unique ids: the MATCHes below are index seeks
        await graph.write(statement, {})
    counts = {
        "entities": len(built.entities),
        "passages": built.passages,
        "relations": len(built.relations),
    }
    await graph.write(WRITE_MARKER, {**wanted, "state": "building", **counts})
    await write_all(graph, WRITE_DOCUMENTS, document_rows(built.documents), "documents")
    await write_all(graph, WRITE_JOBS, job_rows(built.documents), "jobs")
    await write_chunks(graph, built, seed)
    await write_entities(graph, built.entities)
    mentions = [{"entity": e.id, "chunk": c} for e in built.entities for c in e.mentions]
    await write_all(graph, WRITE_MENTIONS, mentions, "mentions")
    relations = [{"passageIds": None, **r} for r in built.relations]
    await write_all(graph, WRITE_RELATIONS, relations, "relations")
    started = time.perf_counter()
    report = await apply_schema(graph, DIMENSION)
    progress(
        f"indexes of {', '.join(report.labels)} online in {time.perf_counter() - started:.1f} s"
    )
    await graph.write(WRITE_MARKER, {**wanted, **counts})
    share = built.unfinished_passages / built.passages
    progress(
        f"built scale {scale.name}: {counts['entities']:,} entities, {counts['passages']:,} "
        f"passages ({share:.1%} unfinished), {len(built.documents):,} documents, "
        f"{len(mentions):,} mentions, {counts['relations']:,} relations"
    )


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


async def main_async(arguments: argparse.Namespace) -> None:
    uri = target.bolt_uri(arguments)
    async with neo4j.AsyncGraphDatabase.driver(
        uri, auth=None, notifications_min_severity="OFF"
    ) as driver:
        await build(Graph(driver), SCALES[arguments.scale], arguments.seed, arguments.wipe)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target.add_arguments(parser)
    parser.add_argument("--scale", choices=sorted(SCALES), default="S")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--wipe", action="store_true", help="delete a graph this script did not build"
    )
    arguments = parser.parse_args()
    try:
        asyncio.run(main_async(arguments))
    finally:
        target.finish(arguments)


if __name__ == "__main__":
    main()
