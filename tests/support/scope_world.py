"""Small random graphs for the scope properties (tests/test_scope_properties.py): the model
as plain Python, a hypothesis strategy that draws it, and the one statement that writes it.

A world holds 1–3 documents in workspaces w0–w2, each with 1–3 versions whose chunks were
written by a COMMITTED, RUNNING or FAILED job, by no job (`jobId` absent) or by a job that does
not exist; `currentVersion` is any of 0..versions, so it may point at an uncommitted version.
Some documents are retired (`evidencegraph delete`: a last version with no chunks, current and
listed in `retiredVersions`), some list a retirement that is not current (one under way).
Entities mention any chunks (of any document, version or workspace, or none); relations carry
`passageIds` absent, empty (a PATH), or any chunks, plus an id that exists nowhere.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, LiteralString

from hypothesis import strategies as st

WORKSPACES = ("w0", "w1", "w2")
JOB_KINDS = ("COMMITTED", "RUNNING", "FAILED", "NO_JOB", "MISSING_JOB")
# Weighted towards what the write path leaves (committed versions), so most worlds have
# something visible to hide.
JOB_KIND_DRAWS = ("COMMITTED", "COMMITTED", "COMMITTED", *JOB_KINDS[1:])
RELATION_TYPES = ("KNOWS", "WORKS_FOR")
LABELS = ("Person", "Org")
DIMENSION = 8
WORD = "alpha"  # in every name and text, so a search for it can find everything


@dataclass(frozen=True)
class Chunk:
    id: str
    document_id: str
    version: int
    position: int
    job_id: str | None

    @property
    def text(self) -> str:
        return f"{WORD} passage {self.version}.{self.position}"


@dataclass(frozen=True)
class Document:
    id: str
    workspace: str
    current_version: int
    retired_versions: tuple[int, ...] = ()

    @property
    def retired(self) -> bool:
        return self.current_version in self.retired_versions


@dataclass(frozen=True)
class Entity:
    id: str
    name: str
    labels: tuple[str, ...]
    mentions: tuple[str, ...]  # chunk ids


@dataclass(frozen=True)
class Relation:
    id: str
    type: str
    source: str
    target: str
    passage_ids: tuple[str, ...] | None  # None: the property is absent


@dataclass
class World:
    documents: dict[str, Document] = field(default_factory=dict)
    chunks: dict[str, Chunk] = field(default_factory=dict)
    jobs: dict[str, str] = field(default_factory=dict)  # job id -> status
    entities: dict[str, Entity] = field(default_factory=dict)
    relations: list[Relation] = field(default_factory=list)
    missing_id: str = ""  # an id that names nothing


def _vector(axis: int) -> list[float]:
    vector = [0.1] * DIMENSION
    vector[axis % DIMENSION] = 1.0
    return vector


@st.composite
def worlds(draw: st.DrawFn) -> World:
    pool = iter(draw(st.lists(st.uuids(), min_size=48, max_size=48, unique=True)))

    def new_id() -> str:
        return str(next(pool))

    world = World(missing_id=new_id())
    for _ in range(draw(st.integers(1, 3))):
        document_id, versions = new_id(), draw(st.integers(1, 3))
        workspace = draw(st.sampled_from(WORKSPACES))
        kinds = [draw(st.sampled_from(JOB_KIND_DRAWS)) for _ in range(versions)]
        committed = [v for v, kind in enumerate(kinds, start=1) if kind in ("COMMITTED", "NO_JOB")]
        # Mostly the latest committed version, as the write path leaves it; else any at all.
        latest = st.just(max(committed, default=0))
        current = draw(
            st.sampled_from([latest] * 4 + [st.integers(0, versions)]).flatmap(lambda x: x)
        )
        # A retirement is version versions + 1, with no chunks: current (the document was
        # deleted) or not (the deletion is under way).
        retirement = draw(st.sampled_from(("none", "none", "none", "retired", "under way")))
        retired_versions = () if retirement == "none" else (versions + 1,)
        if retirement == "retired":
            current = versions + 1
        world.documents[document_id] = Document(document_id, workspace, current, retired_versions)
        for version, kind in enumerate(kinds, start=1):
            job_id = None if kind == "NO_JOB" else new_id()
            if job_id is not None and kind != "MISSING_JOB":
                world.jobs[job_id] = kind
            for position in range(draw(st.sampled_from((1, 1, 2, 0)))):
                chunk = Chunk(new_id(), document_id, version, position, job_id)
                world.chunks[chunk.id] = chunk
    chunk_ids = sorted(world.chunks)
    # Mostly a few chunks, sometimes none at all (an entity no passage mentions).
    some_chunks = (
        st.sampled_from([1, 1, 2, 3, 0]).flatmap(
            lambda n: st.lists(
                st.sampled_from(chunk_ids), unique=True, min_size=min(n, len(chunk_ids)), max_size=n
            )
        )
        if chunk_ids
        else st.just([])
    )
    for number in range(draw(st.integers(1, 4))):
        entity_id = new_id()
        labels = draw(st.sampled_from([("Person",), ("Org",), ("Person", "Org")]))
        mentions = tuple(draw(some_chunks))
        world.entities[entity_id] = Entity(entity_id, f"{WORD} e{number}", labels, mentions)
    entity_ids = sorted(world.entities)
    if len(entity_ids) >= 2:
        for _ in range(draw(st.integers(0, 5))):
            source, target = draw(
                st.lists(st.sampled_from(entity_ids), min_size=2, max_size=2, unique=True)
            )
            support = draw(
                st.one_of(
                    st.none(),
                    st.just([]),
                    some_chunks.map(lambda ids: [*ids, world.missing_id] if len(ids) % 2 else ids),
                )
            )
            passage_ids = None if support is None else tuple(support)
            relation_type = draw(st.sampled_from(RELATION_TYPES))
            world.relations.append(Relation(new_id(), relation_type, source, target, passage_ids))
    return world


# A fixed ballast of nodes and relationships of the world's labels and types, written once
# per test, in workspace `wb` (granted to no key). Each example replaces a few dozen nodes; on
# an otherwise empty graph that swings Neo4j's statistics so far that it re-plans every
# statement every few seconds, which cost more than the examples themselves. The ballast is
# never returned: its texts and names lack the searched word, it has no embeddings, and no
# relationship joins it to the world.
BALLAST_SIZE = 1000
WRITE_BALLAST: LiteralString = """
UNWIND range(1, $size) AS i
CREATE (d:Ballast:Document {id: randomUUID(), workspace: 'wb', currentVersion: 1})
CREATE (d)-[:HAS_PART]->(c:Ballast:Chunk {id: randomUUID(), documentId: d.id, version: 1,
                                          position: 0, text: 'ballast'})
CREATE (j:Ballast:Job {id: randomUUID(), status: 'COMMITTED'})
CREATE (e:Ballast:Entity:Person:Org {id: randomUUID(), name: 'ballast'})-[:MENTIONED_IN]->(c)
CREATE (e)-[:KNOWS {id: randomUUID(), passageIds: [c.id]}]->(e)
CREATE (e)-[:WORKS_FOR {id: randomUUID()}]->(e)
"""
WIPE_WORLD: LiteralString = "MATCH (n) WHERE NOT n:Ballast DETACH DELETE n"

WRITE_WORLD: LiteralString = """
UNWIND $documents AS doc
CREATE (:Document {id: doc.id, workspace: doc.workspace, title: doc.id,
                   currentVersion: doc.currentVersion, retiredVersions: doc.retiredVersions})
WITH count(*) AS documents
UNWIND $jobs AS job
CREATE (:Job {id: job.id, status: job.status, startedAt: datetime()})
WITH count(*) AS jobs
UNWIND $chunks AS chunk
MATCH (d:Document {id: chunk.documentId})
CREATE (d)-[:HAS_PART]->(:Chunk {id: chunk.id, documentId: chunk.documentId,
        version: chunk.version, position: chunk.position, text: chunk.text,
        jobId: chunk.jobId, embedding: chunk.embedding})
WITH count(*) AS chunks
UNWIND $entities AS entity
CREATE (e:Entity {id: entity.id, name: entity.name, embedding: entity.embedding})
SET e:$(entity.labels)
WITH count(*) AS entities
UNWIND $mentions AS mention
MATCH (e:Entity {id: mention.entity}), (c:Chunk {id: mention.chunk})
CREATE (e)-[:MENTIONED_IN]->(c)
WITH count(*) AS mentions
UNWIND $relations AS rel
MATCH (a:Entity {id: rel.source}), (b:Entity {id: rel.target})
FOREACH (_ IN CASE rel.type WHEN 'KNOWS' THEN [1] ELSE [] END |
  CREATE (a)-[:KNOWS {id: rel.id, passageIds: rel.passageIds}]->(b))
FOREACH (_ IN CASE rel.type WHEN 'WORKS_FOR' THEN [1] ELSE [] END |
  CREATE (a)-[:WORKS_FOR {id: rel.id, passageIds: rel.passageIds}]->(b))
"""


def write_parameters(world: World) -> dict[str, Any]:
    """WRITE_WORLD's parameters; a null `passageIds` or `jobId` leaves the property absent."""
    return {
        "documents": [
            {
                "id": d.id,
                "workspace": d.workspace,
                "currentVersion": d.current_version,
                "retiredVersions": list(d.retired_versions) or None,
            }
            for d in world.documents.values()
        ],
        "jobs": [{"id": job_id, "status": status} for job_id, status in world.jobs.items()],
        "chunks": [
            {
                "id": c.id,
                "documentId": c.document_id,
                "version": c.version,
                "position": c.position,
                "text": c.text,
                "jobId": c.job_id,
                "embedding": _vector(i),
            }
            for i, c in enumerate(world.chunks.values())
        ],
        "entities": [
            {"id": e.id, "name": e.name, "labels": list(e.labels), "embedding": _vector(i)}
            for i, e in enumerate(world.entities.values())
        ],
        "mentions": [
            {"entity": e.id, "chunk": chunk}
            for e in world.entities.values()
            for chunk in e.mentions
        ],
        "relations": [
            {
                "id": r.id,
                "type": r.type,
                "source": r.source,
                "target": r.target,
                "passageIds": None if r.passage_ids is None else list(r.passage_ids),
            }
            for r in world.relations
        ],
    }


def query_vector() -> list[float]:
    return _vector(3)


def fresh_id() -> str:
    return str(uuid.uuid4())
