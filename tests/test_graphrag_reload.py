"""Loading GraphRAG output again after GraphRAG re-indexed it (issue 30 §1, contract §10): the
re-indexed output keeps its text unit ids, yet a document whose entities changed is a new
version: it loads as one, all or nothing for every reader at every instant (contract §2), with
no purge and no hand-made ids first, and `purge` then leaves what a fresh load of the new
output leaves. The same output loaded twice is unchanged: no new version."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graph import lookups, walk
from graph.driver import Graph
from ingest.graphrag import read_graphrag
from retrieval.walk_bookkeeping import WalkBounds
from tests.support.graphrag_reindex import reindexed
from tests.support.job_stress import SCOPE, Document, StressWorld, read_lookups
from tests.support.load_helpers import Cli, graph_counts

DATA = Path(__file__).resolve().parent.parent / "data"
DULCE = DATA / "graphrag-operation-dulce"
TWO_DOCUMENTS = DATA / "graphrag-v1-two-documents"
WORKSPACE = "acme"  # the stress readers' scope (tests/support/job_stress.SCOPE)
ALEX_MERCER = "bbb2ad85-3d0b-4c26-b6f9-71ed76ee64bd"  # his id in Dulce's entities table
NEW_DESCRIPTION = "Alex Mercer, as GraphRAG describes him after a re-index."


async def load(cli: Cli, folder: Path) -> str:
    run = await cli.run("load", "--format", "graphrag", "--workspace", WORKSPACE, str(folder))
    assert run.code == 0, run.err
    return run.out


async def read_alex(world: StressWorld, committed: dict[str, int], alex: str) -> None:
    """Alex's evidence and the walk around him: each shows passages of one version only."""
    [evidence] = await lookups.evidence_by_entity_id(world.graph, SCOPE, [(alex, 10)])
    world.check("evidence of Alex", [p.id for p in evidence], committed)
    found = await walk.walk(
        world.graph,
        SCOPE,
        walk.WalkRequest(
            start_id=alex,
            depth=1,
            relation_types=None,
            bounds=WalkBounds(max_nodes=500, max_edges=1000, max_candidates=5000),
            graph_owned_types=(),
        ),
    )
    if found is None:
        world.report("walk", "the start was unavailable", committed, "no answer")
        return
    cited = [pid for edge, _ in found.edges for pid in edge.evidence_ids]
    world.check("walk", cited, committed, whole=False)
    if any(edge.kind != "ASSERTION" for edge, _ in found.edges):
        world.report("walk", "an edge that is no ASSERTION", committed, world.versions_of(cited))


async def stored(graph: Graph) -> dict[str, Any]:
    """What a reader could tell two graphs apart by, job ids and version numbers aside."""
    chunks = await graph.read("MATCH (c:Chunk) RETURN c.id AS id ORDER BY id", {})
    entities = await graph.read(
        "MATCH (e:Entity) RETURN e.id AS id, e.name AS name, e.description AS description"
        " ORDER BY id",
        {},
    )
    relations = await graph.read(
        "MATCH (s)-[r:RELATED_TO]->(t) RETURN r.id AS id, s.id AS source, t.id AS target,"
        " r.description AS description, r.weight AS weight, r.passageIds AS support ORDER BY id",
        {},
    )
    return {
        "counts": await graph_counts(graph),
        "chunks": [row["id"] for row in chunks],
        "entities": [dict(row) for row in entities],
        "relations": [{**dict(row), "support": sorted(row["support"])} for row in relations],
    }


async def test_a_reindexed_output_loads_as_a_new_version_all_or_nothing_and_purge_leaves_nothing(
    graph: Graph, cli: Cli, tmp_path: Path, reset_graph: Callable[[], None]
) -> None:
    await load(cli, DULCE)
    folder = reindexed(DULCE, tmp_path / "reindexed", entities={ALEX_MERCER: NEW_DESCRIPTION})
    [old] = read_graphrag(DULCE, WORKSPACE).versions
    [new] = read_graphrag(folder, WORKSPACE).versions
    alex = next(e.id for e in new.entities if e.source_id == ALEX_MERCER)
    # Readers of every passage id either version has, of Alex's evidence and of his walk.
    world = StressWorld(graph)
    document = Document(
        old.document.id,
        versions=[frozenset(p.id for p in old.passages), frozenset(p.id for p in new.passages)],
        committed=1,
    )
    world.documents[document.id] = document
    world.document_of.update(
        dict.fromkeys((p.id for v in (old, new) for p in v.passages), old.document.id)
    )
    loading = True

    async def reader() -> None:
        while True:  # at least once after the load returned
            done = not loading
            committed = world.now()
            await read_lookups(world, committed)
            await read_alex(world, committed, alex)
            if done:
                return

    async def reload() -> str:
        nonlocal loading
        try:
            out = await load(cli, folder)
            document.committed = 2
            return out
        finally:
            loading = False

    out, *_ = await asyncio.gather(reload(), reader(), reader())
    assert "documents: 1 loaded, 0 unchanged, 0 rejected (of 1)" in out
    assert world.anomalies == [], "\n".join(world.anomalies[:20])
    assert world.reads["lookup"] >= 2 and world.reads["walk"] >= 2
    versions = await graph.read(
        "MATCH (d:Document {id: $id}) RETURN d.currentVersion AS version", {"id": old.document.id}
    )
    assert versions[0]["version"] == 2
    [entity] = await lookups.entities_by_id(graph, SCOPE, [alex])
    assert entity is not None and entity.description == NEW_DESCRIPTION
    # The passages keep their text units' ids as `sourceId`.
    rows = await graph.read(
        "MATCH (c:Chunk {version: 2}) RETURN c.sourceId AS sourceId ORDER BY c.position", {}
    )
    assert [row["sourceId"] for row in rows] == [p.source_id for p in old.passages]

    run = await cli.run("purge", "--older-than", "0s")
    assert run.code == 0, run.err
    purged = await stored(graph)
    leftovers = await graph.read(
        "MATCH (n) WHERE n:StagedEntity OR n:StagedRelation"
        " OR (n:Job AND n.status <> 'COMMITTED') OR (n:Chunk AND n.version <> 2)"
        " RETURN count(n) AS n",
        {},
    )
    assert leftovers[0]["n"] == 0
    reset_graph()
    await load(cli, folder)
    assert purged == await stored(graph), "purge left something a fresh load does not hold"


async def test_loading_the_same_output_twice_is_unchanged_and_writes_no_version(
    graph: Graph, cli: Cli
) -> None:
    await load(cli, DULCE)
    before = await stored(graph)
    out = await load(cli, DULCE)
    assert "documents: 0 loaded, 1 unchanged, 0 rejected (of 1)" in out
    assert await stored(graph) == before
    jobs = await graph.read("MATCH (j:Job) RETURN count(j) AS n", {})
    assert jobs[0]["n"] == 1


async def test_only_the_reindexed_document_whose_entity_changed_gets_a_new_version(
    graph: Graph, cli: Cli, tmp_path: Path
) -> None:
    export = read_graphrag(TWO_DOCUMENTS, WORKSPACE)
    first = {e.id for e in export.versions[0].entities}
    changed = next(e for e in export.versions[1].entities if e.id not in first)
    folder = reindexed(
        TWO_DOCUMENTS, tmp_path / "reindexed", entities={str(changed.source_id): "Anew."}
    )
    await load(cli, TWO_DOCUMENTS)
    out = await load(cli, folder)
    assert "documents: 1 loaded, 1 unchanged, 0 rejected (of 2)" in out
    rows = await graph.read(
        "MATCH (d:Document) RETURN d.sourceId AS source, d.currentVersion AS version", {}
    )
    versions = {row["source"]: row["version"] for row in rows}
    assert versions == {
        export.versions[0].document.source_id: 1,
        export.versions[1].document.source_id: 2,
    }
    [entity] = await lookups.entities_by_id(graph, SCOPE, [changed.id])
    assert entity is not None and entity.description == "Anew."
