"""Readers against writers (contract §2: "A job is all or nothing, for every reader, at every
instant ... a reader sees the old version or the new one, never neither and never a mix").

Writers commit a fixed number of versions of their own documents through graph/jobs.py, each
version written in several statements so that partial states exist. Every passage of every
version mentions the entities Ada and Bo and supports the document's Ada-KNOWS->Bo relation.
Readers of every kind that applies the visibility rule (lookups by id, evidence, entity
search, passage search lexical and semantic, walk) run in a loop until the writers are done,
and every answer is checked per document:

- neither: a document with a committed version showed no passage of any version;
- mix: its passages are not exactly one version (within one answer);
- stale: the version shown is older than the one committed before the read began.

`run_stress` returns every anomaly found, as text: the reader kind (and the entity, for a
reader of one entity's evidence), what broke the rule, what the answer held per entity
(`doc 1a2b3c: v2 x4` = four passages of that document's version 2), and each document's
committed versions when the read began and when it was checked. The test asserts there are
none.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

from contract.scope import Scope
from graph import entity_search, jobs, lookups, passage_search, walk
from graph.driver import Graph
from graph.graph_schema import (
    PASSAGE_FULLTEXT_INDEX,
    PASSAGE_VECTOR_INDEX,
    apply_schema,
    vector_index_name,
)
from graph.lexical_index import fulltext_index_name
from retrieval.lexical_rule import lexical_request
from retrieval.walk_bookkeeping import WalkBounds
from tests.support.graph_builder import new_id, unit_vector

SCOPE = Scope(("acme",))
PASSAGES = 4  # per version; two documents' versions fit in one evidence list of 10
DIMENSION = 8
VECTOR = unit_vector(DIMENSION, 0)


@dataclass
class Document:
    """A document with its own Ada and Bo (two writers merging one entity would deadlock and
    wait for the driver's retry)."""

    id: str
    ada: str = field(default_factory=new_id)
    bo: str = field(default_factory=new_id)
    relation_id: str = field(default_factory=new_id)
    versions: list[frozenset[str]] = field(default_factory=list)  # [n] = version n + 1
    committed: int = 0  # versions whose commit has returned
    others: list[str] = field(default_factory=list)  # re-described by each version


@dataclass
class StressWorld:
    graph: Graph
    documents: dict[str, Document] = field(default_factory=dict)
    document_of: dict[str, str] = field(default_factory=dict)  # passage id -> document id
    document_of_entity: dict[str, str] = field(default_factory=dict)  # entity id -> document id
    anomalies: list[str] = field(default_factory=list)
    reads: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    async def write_version(self, document: Document, number: int) -> None:
        """One version of `document` as one job, in several statements, then its commit."""
        graph = self.graph
        job = await jobs.begin_job(graph, document.id, "acme", "stress", None)
        ids = [new_id() for _ in range(PASSAGES)]
        document.versions.append(frozenset(ids))  # may be seen from its commit on
        self.document_of.update(dict.fromkeys(ids, document.id))
        for start in range(0, PASSAGES, 2):
            await jobs.write_passages(
                graph,
                job,
                [
                    {
                        "id": pid,
                        "position": start + i,
                        "text": f"stress passage {number}",
                        "embedding": VECTOR,
                    }
                    for i, pid in enumerate(ids[start : start + 2])
                ],
            )
        await jobs.write_entities(
            graph,
            job,
            [
                {
                    "id": entity,
                    "labels": ["Person"],
                    "name": name,
                    "embedding": VECTOR,
                    "mentions": ids,
                }
                for entity, name in ((document.ada, "Ada"), (document.bo, "Bo"))
            ]
            + [
                {"id": entity, "labels": ["Other"], "name": "other", "description": f"v{number}"}
                for entity in document.others
            ],
        )
        await jobs.write_relations(
            graph,
            job,
            [
                {
                    "id": document.relation_id,
                    "type": "KNOWS",
                    "source": document.ada,
                    "target": document.bo,
                    "passageIds": ids,
                }
            ],
        )
        await jobs.commit_job(graph, job)
        document.committed += 1

    def versions_of(self, passage_ids: Iterable[str]) -> str:
        """What `passage_ids` hold, per document and version: `doc 1a2b3c: v2 x4, v3 x1`."""
        counts: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        for passage_id in passage_ids:
            document = self.documents.get(self.document_of.get(passage_id, "?"))
            number = (
                next((n for n, v in enumerate(document.versions, 1) if passage_id in v), 0)
                if document
                else 0
            )
            counts[document.id[:6] if document else "?"][number] += 1
        if not counts:
            return "nothing"
        return "; ".join(
            f"doc {d}: " + ", ".join(f"v{n} x{k}" for n, k in sorted(by_version.items()))
            for d, by_version in sorted(counts.items())
        )

    def now(self) -> dict[str, int]:
        """Each document's committed count now."""
        return {d.id: d.committed for d in self.documents.values()}

    def check(
        self,
        kind: str,
        seen: Iterable[str],
        committed: dict[str, int],
        whole: bool = True,
        detail: str = "",
    ) -> None:
        """`seen`: the passage ids one answer showed; `committed`: each document's committed
        count when the read began. With `whole`, each document must show a version entire;
        otherwise (a limited evidence list) a part of one version. `detail` says what the
        answer held (per entity, say), for the report of an anomaly."""
        self.reads[kind] += 1
        seen = list(seen)
        by_document: dict[str, set[str]] = defaultdict(set)
        for passage_id in seen:
            by_document[self.document_of.get(passage_id, "?")].add(passage_id)
        found: list[str] = []
        if "?" in by_document:
            found.append(f"passages of no version {sorted(by_document['?'])}")
        for document in self.documents.values():
            shown = by_document.get(document.id, set())
            before = committed[document.id]
            if before and not shown:
                found.append(f"neither version of doc {document.id[:6]}")
                continue
            matches = [
                number
                for number, version in enumerate(document.versions, start=1)
                if (shown == version if whole else shown <= version)
            ]
            if shown and not matches:
                found.append(f"a mix of versions of doc {document.id[:6]}")
            elif matches and max(matches) < before:
                found.append(
                    f"version {max(matches)} of doc {document.id[:6]} after {before} committed"
                )
        if found:
            self.report(kind, "; ".join(found), committed, detail or self.versions_of(seen))

    def report(self, kind: str, what: str, committed: dict[str, int], detail: str) -> None:
        """One anomaly: the reader kind, what broke the rule, what the answer held, and the
        versions committed when the read began and when its answer was checked."""
        began = ", ".join(f"{d[:6]}={n}" for d, n in committed.items())
        ended = ", ".join(f"{d[:6]}={n}" for d, n in self.now().items())
        self.anomalies.append(
            f"{kind}: {what} | answer: {detail} | committed at start {began}, at check {ended}"
        )


Reader = Callable[[StressWorld, dict[str, int]], Awaitable[None]]


def only(committed: dict[str, int], document_id: str) -> dict[str, int]:
    """`committed` for an answer about one document: the others count as never committed."""
    return {d: (n if d == document_id else 0) for d, n in committed.items()}


async def read_lookups(world: StressWorld, committed: dict[str, int]) -> None:
    records = await lookups.passages_by_id(world.graph, SCOPE, list(world.document_of))
    world.check("lookup", [r.id for r in records if r is not None], committed)


async def read_evidence(world: StressWorld, committed: dict[str, int]) -> None:
    documents = list(world.documents.values())
    names = [(name, d) for d in documents for name in ("Ada", "Bo")]
    keys = [(d.ada if name == "Ada" else d.bo, 10) for name, d in names]
    found = await lookups.evidence_by_entity_id(world.graph, SCOPE, keys)
    detail = " / ".join(
        f"{name} of doc {d.id[:6]}: {world.versions_of(p.id for p in passages)}"
        for (name, d), passages in zip(names, found, strict=True)
    )
    # Each entity's evidence alone shows one version of its document, whole.
    for (name, document), passages in zip(names, found, strict=True):
        world.check(
            f"evidence of {name}",
            (p.id for p in passages),
            only(committed, document.id),
            detail=detail,
        )
    # One statement, every key: Ada's and Bo's evidence show one version of their document.
    world.check(
        "evidence of many entities", {p.id for ps in found for p in ps}, committed, detail=detail
    )


async def read_entity_search(world: StressWorld, committed: dict[str, int]) -> None:
    searched = await entity_search.search_entities(
        world.graph,
        SCOPE,
        targets=[
            entity_search.SearchTarget(
                "Person", fulltext_index_name("Person"), vector_index_name("Person")
            )
        ],
        mode="HYBRID",
        lexical=lexical_request("Ada Bo"),
        vector=VECTOR,
        limit=10,
        support_limit=10,
        rrf_k=60,
        lexical_k=20,
        semantic_k=20,
        cap_k=1000,
        with_text=True,
    )
    hits = searched.records
    detail = " / ".join(
        f"{hit.entity.name} {hit.entity.id[:6]}"
        f" {'SUPPORTED' if hit.supported else 'UNSUPPORTED'}: {world.versions_of(hit.evidence_ids)}"
        for hit in hits
    )
    expected = {entity for d in world.documents.values() for entity in (d.ada, d.bo)}
    if {hit.entity.id for hit in hits} != expected:
        world.report("entity search", "not every entity is a hit", committed, detail)
    for hit in hits:
        if not hit.supported:
            world.report("entity search", f"{hit.entity.name} UNSUPPORTED", committed, detail)
        if [p.id for p in hit.passages] != list(hit.evidence_ids):
            world.report("entity search", "evidence text of other passages", committed, detail)
        world.check(
            f"entity search, {hit.entity.name}",
            hit.evidence_ids,
            only(committed, world.document_of_entity[hit.entity.id]),
            detail=detail,
        )
    world.check(
        "entity search", {pid for hit in hits for pid in hit.evidence_ids}, committed, detail=detail
    )


async def read_passage_search(world: StressWorld, committed: dict[str, int]) -> None:
    for mode in ("LEXICAL", "SEMANTIC"):
        searched = await passage_search.search_passages(
            world.graph,
            SCOPE,
            mode=mode,
            fulltext_index=PASSAGE_FULLTEXT_INDEX if mode == "LEXICAL" else None,
            vector_index=PASSAGE_VECTOR_INDEX if mode == "SEMANTIC" else None,
            lexical_query="stress passage",
            vector=VECTOR,
            limit=20,
            rrf_k=60,
            # Lexical: every stored passage is a candidate. Semantic: a first read full of
            # superseded passages, so the search reads again at the cap.
            candidates=1000 if mode == "LEXICAL" else 10,
            cap=1000,
        )
        hits = searched.records
        world.check(f"passage search {mode}", (hit.passage.id for hit in hits), committed)


async def read_walk(world: StressWorld, committed: dict[str, int]) -> None:
    found = await walk.walk(
        world.graph,
        SCOPE,
        walk.WalkRequest(
            start_id=next(iter(world.documents.values())).ada,
            depth=1,
            relation_types=None,
            bounds=WalkBounds(max_nodes=50, max_edges=100, max_candidates=500),
            graph_owned_types=(),
            with_evidence=True,
        ),
    )
    if found is None:
        world.report("walk", "the start was unavailable", committed, "no answer")
        return
    evidence = [pid for edge, _ in found.edges for pid in edge.evidence_ids]
    detail = f"{len(found.edges)} edges: " + " / ".join(
        f"{edge.kind} {world.versions_of(edge.evidence_ids)}" for edge, _ in found.edges
    )
    for edge, _ in found.edges:
        if edge.kind != "ASSERTION":
            world.report("walk", f"an edge of kind {edge.kind}", committed, detail)
    # The walk from the first document's Ada meets only that document.
    first = next(iter(world.documents))
    world.check("walk", evidence, only(committed, first), whole=False, detail=detail)
    if len(found.edges) != 1:
        world.report("walk", f"{len(found.edges)} edges", committed, detail)


READERS: tuple[Reader, ...] = (
    read_lookups,
    read_evidence,
    read_entity_search,
    read_passage_search,
    read_walk,
)


async def run_stress(
    graph: Graph, *, documents: int, commits: int, copies: int, redescribed: int = 0
) -> StressWorld:
    """`documents` documents, each with one committed version, then `commits` more versions
    each written concurrently with `copies` readers of every kind; returns the world, whose
    `anomalies` lists everything a reader saw that the rule forbids.

    With `redescribed`, each version also re-describes that many entities of its document
    that no passage mentions (label `Other`, which no reader searches): a larger commit, whose
    application to the store takes longer, for experiments that need its half-applied
    instants more often (the suite leaves it 0)."""
    world = StressWorld(graph)
    for _ in range(documents):
        document = Document(new_id(), others=[new_id() for _ in range(redescribed)])
        world.documents[document.id] = document
        world.document_of_entity.update(dict.fromkeys((document.ada, document.bo), document.id))
        await world.write_version(document, 1)
    await apply_schema(graph, DIMENSION)
    writing = True

    async def reader(read: Reader) -> None:
        while True:  # at least once, however the loop schedules the writers
            done = not writing
            await read(world, {d.id: d.committed for d in world.documents.values()})
            if done:
                return

    async def writer(document: Document) -> None:
        for number in range(2, commits + 2):
            await world.write_version(document, number)

    async def writers() -> None:
        nonlocal writing
        await asyncio.gather(*(writer(d) for d in world.documents.values()))
        writing = False

    await asyncio.gather(writers(), *(reader(read) for read in READERS for _ in range(copies)))
    return world
