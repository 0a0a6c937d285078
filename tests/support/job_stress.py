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

`run_stress` returns every anomaly found, as text; the test asserts there are none.
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


@dataclass
class StressWorld:
    graph: Graph
    documents: dict[str, Document] = field(default_factory=dict)
    document_of: dict[str, str] = field(default_factory=dict)  # passage id -> document id
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

    def check(
        self, kind: str, seen: Iterable[str], committed: dict[str, int], whole: bool = True
    ) -> None:
        """`seen`: the passage ids one answer showed; `committed`: each document's committed
        count when the read began. With `whole`, each document must show a version entire;
        otherwise (a limited evidence list) a part of one version."""
        self.reads[kind] += 1
        by_document: dict[str, set[str]] = defaultdict(set)
        for passage_id in seen:
            by_document[self.document_of.get(passage_id, "?")].add(passage_id)
        if "?" in by_document:
            self.anomalies.append(f"{kind}: passages of no version {sorted(by_document['?'])}")
        for document in self.documents.values():
            shown = by_document.get(document.id, set())
            before = committed[document.id]
            if before and not shown:
                self.anomalies.append(f"{kind}: neither version of {document.id}")
                continue
            matches = [
                number
                for number, version in enumerate(document.versions, start=1)
                if (shown == version if whole else shown <= version)
            ]
            if shown and not matches:
                self.anomalies.append(
                    f"{kind}: a mix of versions of {document.id}: {len(shown)} passages"
                )
            elif matches and max(matches) < before:
                self.anomalies.append(
                    f"{kind}: version {max(matches)} of {document.id} after {before} committed"
                )


Reader = Callable[[StressWorld, dict[str, int]], Awaitable[None]]


async def read_lookups(world: StressWorld, committed: dict[str, int]) -> None:
    records = await lookups.passages_by_id(world.graph, SCOPE, list(world.document_of))
    world.check("lookup", (r.id for r in records if r is not None), committed)


async def read_evidence(world: StressWorld, committed: dict[str, int]) -> None:
    documents = list(world.documents.values())
    keys = [(entity, 10) for d in documents for entity in (d.ada, d.bo)]
    found = await lookups.evidence_by_entity_id(world.graph, SCOPE, keys)
    world.check("evidence", (p.id for p in found[0] + found[2]), committed)
    # One statement, every key: Ada's and Bo's evidence show one version of their document.
    world.check("evidence of many entities", {p.id for ps in found for p in ps}, committed)


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
    expected = {entity for d in world.documents.values() for entity in (d.ada, d.bo)}
    if {hit.entity.id for hit in hits} != expected:
        world.anomalies.append(f"entity search: hits {[hit.entity.name for hit in hits]}")
    for hit in hits:
        if not hit.supported:
            world.anomalies.append(f"entity search: {hit.entity.name} UNSUPPORTED")
        if [p.id for p in hit.passages] != list(hit.evidence_ids):
            world.anomalies.append("entity search: evidence text of other passages")
    world.check("entity search", {pid for hit in hits for pid in hit.evidence_ids}, committed)


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
        world.anomalies.append("walk: the start was unavailable")
        return
    for edge, _ in found.edges:
        if edge.kind != "ASSERTION":
            world.anomalies.append(f"walk: an edge of kind {edge.kind}")
    evidence = [pid for edge, _ in found.edges for pid in edge.evidence_ids]
    first = next(iter(world.documents))
    # The walk from the first document's Ada meets only that document.
    only_first = {d: (n if d == first else 0) for d, n in committed.items()}
    world.check("walk", evidence, only_first, whole=False)
    if len(found.edges) != 1:
        world.anomalies.append(f"walk: {len(found.edges)} edges")


READERS: tuple[Reader, ...] = (
    read_lookups,
    read_evidence,
    read_entity_search,
    read_passage_search,
    read_walk,
)


async def run_stress(graph: Graph, *, documents: int, commits: int, copies: int) -> StressWorld:
    """`documents` documents, each with one committed version, then `commits` more versions
    each written concurrently with `copies` readers of every kind; returns the world, whose
    `anomalies` lists everything a reader saw that the rule forbids."""
    world = StressWorld(graph)
    for _ in range(documents):
        document = Document(new_id())
        world.documents[document.id] = document
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
