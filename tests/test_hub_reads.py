"""Hubs cost what ordinary entities cost (contract §5), and reading mentions in order changes no
answer (contract §2: what the service keeps for speed "its absence must not change an answer").

- The read stops early: PROFILE's database hits for an entity's evidence, returnability, support
  and search hit are the same for 100 and 1,000 mentions, in every shape of scope
  (graph/mention_reads.py), and an out-of-scope hub costs a scoped read nothing.
- The same answers: the scope properties (tests/test_scope_properties.py) hold with every
  entity read in order, and the all-or-nothing stress (tests/test_write_path.py) too.
- The order is kept by the service's writers, filled by `schema apply`, and a mention written
  without it sends its entity the plain way, with the same answer.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any, LiteralString

import neo4j
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contract.scope import Scope
from graph import entity_search, jobs, lookups, mention_order, walk
from graph.driver import Graph
from graph.graph_schema import apply_schema, vector_index_name
from graph.lexical_index import fulltext_index_name
from graph.purge import purge
from ingest.deletion import delete_documents
from retrieval.lexical_rule import lexical_request
from retrieval.walk_bookkeeping import WalkBounds
from tests.support.graph_builder import GraphBuilder, new_id
from tests.support.job_stress import run_stress
from tests.support.plan_statistics import settle_plans
from tests.support.scope_callers import Callers, scope_callers
from tests.support.scope_checks import (
    check_federation,
    check_forbidden,
    check_scoped_fields,
    check_walk,
)
from tests.support.scope_oracle import ForbiddenScope, Oracle, effective
from tests.support.scope_world import WIPE_WORLD, WRITE_WORLD, World, worlds, write_parameters
from tests.test_scope_properties import requests

OUTPUT = Path(__file__).resolve().parents[1] / "test-output" / "hub-reads-properties.json"


@pytest.fixture
def every_entity_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every entity with an ordered mention is read in order, however few it has."""
    monkeypatch.setattr(mention_order, "DENSE_MENTIONS", 0)


# --- the same answers -------------------------------------------------------------------------


@pytest.fixture
async def callers(neo4j_uri: str, graph: Graph, tmp_path: Path) -> AsyncIterator[Callers]:
    async with scope_callers(neo4j_uri, graph, tmp_path) as both:
        yield both


IN_ORDER: LiteralString = (
    "MATCH (e:Entity) WHERE NOT e:Ballast AND COUNT { (e)-[:MENTIONED_IN]->() } > 0"
    " RETURN count(e) AS mentioned,"
    " count(CASE WHEN " + mention_order.in_order("e") + " THEN 1 END) AS inOrder"
)

STATS: dict[str, float] = dict.fromkeys(("examples", "seconds", "entities_in_order"), 0)


@settings(
    settings.get_profile("scope-ci"),
    max_examples=int(os.environ.get("HUB_PROPERTIES_EXAMPLES", "60")),
)
@given(data=st.data(), world=worlds())
async def test_every_field_returns_only_what_the_scope_allows_when_mentions_are_read_in_order(
    every_entity_in_order: None, callers: Callers, graph: Graph, world: World, data: st.DataObject
) -> None:
    """tests/test_scope_properties.py's property, every mentioned entity read through the order
    indexes (written by `order_mentions`, as `schema apply` does for another pipeline's graph)."""
    started = time.monotonic()
    request = data.draw(requests(world))
    await graph.write(WIPE_WORLD, {})
    await graph.write(WRITE_WORLD, write_parameters(world))
    await mention_order.order_mentions(graph)
    [counted] = await graph.read(IN_ORDER, mention_order.mention_parameters())
    assert counted["inOrder"] == counted["mentioned"], counted
    client, headers = callers.for_grant(request["grant"])
    scope = {"workspaces": request["workspaces"], "documentIds": request["documentIds"]}
    try:
        oracle = Oracle(world, effective(request["grant"], *scope.values()))
    except ForbiddenScope:
        await check_forbidden(client, headers, world, scope)
    else:
        await check_scoped_fields(client, headers, world, scope, oracle, request["mode"])
        available = [e for e in world.entities if oracle.supported(e)]
        start = data.draw(
            st.sampled_from([*available, *available, *world.entities, world.missing_id])
        )
        await check_walk(client, headers, world, scope, oracle, start, request["depth"])
    await check_federation(
        client, headers, world, Oracle(world, effective(request["grant"], None, None))
    )
    STATS["examples"] += 1
    STATS["entities_in_order"] += counted["inOrder"]
    STATS["seconds"] += time.monotonic() - started
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text(json.dumps(STATS, indent=2))


async def test_a_job_is_all_or_nothing_for_readers_of_entities_read_in_order(
    every_entity_in_order: None, graph: Graph
) -> None:
    """The stress of tests/test_write_path.py with every entity read in order: the first look
    at a hub's passages and the read of their versions may straddle a commit."""
    world = await run_stress(graph, documents=2, commits=4, copies=2, redescribed=2000)
    assert world.anomalies == [], (world.anomalies[:20], len(world.anomalies))
    assert set(world.reads) >= {"evidence of Ada", "entity search", "walk"}, world.reads


# --- the read stops early ---------------------------------------------------------------------

# Another pipeline's hub: documents of `$workspace`, each a superseded version 1 and a current
# version 2 of passages at the same positions, every passage of both mentioning the entity.
WRITE_HUB: LiteralString = (
    "MERGE (e:Entity:Person {id: $id}) SET e.name = $name, e.embedding = $embedding"
    " WITH e UNWIND $documents AS document"
    " CREATE (d:Document {id: document.id, workspace: $workspace, title: $name,"
    "  currentVersion: 2})"
    " WITH e, d, document UNWIND document.versions AS version"
    " CREATE (j:Job {id: version.job, status: 'COMMITTED', documentId: d.id,"
    "  version: version.number})"
    " WITH e, d, j, version UNWIND version.passages AS passage"
    " CREATE (d)-[:HAS_PART]->(c:Chunk {id: passage.id, documentId: d.id,"
    "  version: version.number, position: passage.position, jobId: j.id,"
    "  text: $name + ' is named here'})"
    " CREATE (e)-[:MENTIONED_IN]->(c)"
)
FIRST_DOCUMENT: LiteralString = (
    "MATCH (:Entity {id: $id})-[:MENTIONED_IN]->(:Chunk)<-[:HAS_PART]-(d:Document)"
    " RETURN d.id AS id ORDER BY id LIMIT 1"
)


class ProfiledGraph(Graph):
    """Runs every read with PROFILE and adds up its database hits."""

    def __init__(self, graph: Graph) -> None:
        super().__init__(graph.driver)
        self.db_hits = 0

    async def read(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[neo4j.Record]:
        async with self.driver.session() as session:
            result = await session.run("PROFILE " + query, dict(parameters))
            records = [record async for record in result]
            summary = await result.consume()
        assert summary.profile is not None
        self.db_hits += sum(op.get("dbHits", 0) for op in operators(summary.profile))
        return records


def operators(plan: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield plan
    for child in plan.get("children", []):
        yield from operators(child)


async def search_people(
    graph: Graph, scope: Scope, name: str
) -> list[entity_search.EntityHitRecord]:
    """A LEXICAL search of the Person label for `name`, with evidence text: the search hit the
    tests read a hub through."""
    result = await entity_search.search_entities(
        graph,
        scope,
        targets=[
            entity_search.SearchTarget(
                "Person", fulltext_index_name("Person"), vector_index_name("Person")
            )
        ],
        mode="LEXICAL",
        lexical=lexical_request(name),
        vector=None,
        limit=10,
        support_limit=3,
        rrf_k=60,
        lexical_k=20,
        semantic_k=20,
        cap_k=1000,
        with_text=True,
    )
    return result.records


async def costs(graph: Graph, entity_id: str, name: str, scope: Scope) -> dict[str, Any]:
    """Each read of one entity: (what it answered, its database hits)."""
    found: dict[str, Any] = {}

    async def measured(key: str, read: Any) -> None:
        profiled = ProfiledGraph(graph)
        answer = await read(profiled)
        found[key] = (answer, profiled.db_hits)

    await measured(
        "evidence",
        lambda g: lookups.evidence_by_entity_id(g, scope, [(entity_id, 3)]),
    )
    await measured("returnable", lambda g: lookups.entities_by_id(g, scope, [entity_id]))

    await measured("search", lambda g: search_people(g, scope, name))
    await measured(
        "walk start",
        lambda g: walk.walk(
            g,
            scope,
            walk.WalkRequest(
                start_id=entity_id,
                depth=1,
                relation_types=None,
                bounds=WalkBounds(max_nodes=50, max_edges=100, max_candidates=500),
                graph_owned_types=("HAS_PART", "MENTIONED_IN"),
            ),
        ),
    )
    return found


async def write_hub(graph: Graph, number: int, name: str, workspace: str, documents: int) -> str:
    """Hub `number`'s ids put, at every position of every document, the superseded passage
    before the current one in evidence order: every hub's first three visible passages come
    after the same number of superseded ones, however many mentions it has."""

    def uuid(document: int, version: int = 0, position: int = 0) -> str:
        return f"{number:02x}{document:06x}-{version:04x}-4000-8000-{position:012x}"

    rows = [
        {
            "id": uuid(n),
            "versions": [
                {
                    "number": v,
                    "job": new_id(),
                    "passages": [{"id": uuid(n, v, p), "position": p} for p in range(5)],
                }
                for v in (1, 2)
            ],
        }
        for n in range(1, documents + 1)
    ]
    entity_id = new_id()
    for start in range(0, documents, 200):
        await graph.write(
            WRITE_HUB,
            {
                "id": entity_id,
                "name": name,
                "embedding": [1.0] + [0.0] * 7,
                "workspace": workspace,
                "documents": rows[start : start + 200],
            },
        )
    return entity_id


# A hub needs a hub's shape, not a hub's size: every hub here is above DENSE_MENTIONS (the
# report counts three dense entities, each read in order), and the large one has ten times the
# small one's mentions, so a read that went through every mention would cost hundreds of
# database hits more where the assertions allow 10.
async def test_a_hubs_reads_cost_the_same_at_a_hundred_and_at_a_thousand_mentions(
    graph: Graph,
) -> None:
    """Evidence, returnability, the start of a walk and a search hit read the same number of
    records for an entity mentioned 100 or 1,000 times, in every shape of scope; an entity
    mentioned 1,000 times in another workspace costs a scoped read no more."""
    small = await write_hub(graph, 1, "Vesna Smallhub", "w0", 10)  # 100 mentions
    large = await write_hub(graph, 2, "Vesna Largehub", "w0", 100)  # 1,000 mentions
    away = await write_hub(graph, 3, "Vesna Farhub", "w2", 100)  # 1,000 elsewhere
    await apply_schema(graph, 8, labels=["Person"])
    report = await mention_order.order_mentions(graph)
    assert (report.dense, report.in_order) == (3, 3)
    # Every read below is planned once, from the statistics of this graph, not from an earlier
    # test's tiny one or a sample that lands between the small hub's read and the large one's.
    await settle_plans(graph)
    first = {
        hub: (await graph.read(FIRST_DOCUMENT, {"id": hub}))[0]["id"] for hub in (small, large)
    }

    def scope_of(shape: str, hub: str) -> Scope:
        if shape == "everywhere":
            return Scope(None)
        return Scope(("w0", "w1")) if shape == "workspaces" else Scope(("w0",), (first[hub],))

    for shape in ("everywhere", "workspaces", "documents"):
        cheap = await costs(graph, small, "Vesna Smallhub", scope_of(shape, small))
        dense = await costs(graph, large, "Vesna Largehub", scope_of(shape, large))
        print(f"\n{shape}: 100 mentions", {k: v[1] for k, v in cheap.items()})
        print(f"{shape}: 1,000 mentions", {k: v[1] for k, v in dense.items()})
        for read in cheap:
            assert dense[read][1] <= cheap[read][1] + 10, (shape, read, cheap, dense)
        [evidence] = dense["evidence"][0]
        assert [p.position for p in evidence] == [0, 1, 2]
        assert all(p.version == 2 and p.document.id == first[large] for p in evidence)
        assert dense["returnable"][0][0] is not None
        assert dense["walk start"][0] is not None
        [hit] = [h for h in dense["search"][0] if h.entity.id == large]
        assert hit.supported and list(hit.evidence_ids) == [p.id for p in evidence]
    # The same reads of the entity mentioned only in w2, in w0's scope: it is hidden, and
    # nothing of its 1,000 mentions is read.
    hidden = await costs(graph, away, "Vesna Farhub", Scope(("w0",)))
    seen = await costs(graph, small, "Vesna Smallhub", Scope(("w0",)))
    print("\nout of scope:", {k: v[1] for k, v in hidden.items()})
    assert hidden["returnable"] == ([None], hidden["returnable"][1])
    assert hidden["evidence"][0] == [[]] and hidden["walk start"][0] is None
    assert hidden["returnable"][1] < 30 and hidden["evidence"][1] < 60
    assert all(h.entity.id != away for h in hidden["search"][0])
    assert hidden["search"][1] <= seen["search"][1] + 10


# --- the order is kept, and its absence changes no answer ---------------------------------------

MENTIONS: LiteralString = (
    "MATCH (e:Entity {id: $id})-[m:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)"
    " RETURN e.orderedMentions AS counted, collect([m.orderEntityId = e.id,"
    " m.orderDocumentId = d.id, m.orderPosition = c.position, m.orderPassageId = c.id,"
    " m.orderEntityWorkspace = e.id + ' ' + d.workspace]) AS checks"
)
IN_ORDER_ONE: LiteralString = (
    "MATCH (e:Entity {id: $id}) RETURN " + mention_order.in_order("e") + " AS inOrder"
)


async def read_in_order(graph: Graph, entity_id: str) -> bool:
    [row] = await graph.read(IN_ORDER_ONE, {"id": entity_id, **mention_order.mention_parameters()})
    return bool(row["inOrder"])


async def test_a_commit_writes_each_mention_in_order_and_counts_it(
    graph: Graph, builder: GraphBuilder
) -> None:
    await builder.version("w0", ["Ada one.", "Ada two."], mentions={"Ada": [0, 1]})
    again = await builder.version("w1", ["Ada three."], mentions={"Ada": [0]})
    [row] = await graph.read(MENTIONS, {"id": builder.entity_id("Ada")})
    assert row["counted"] == 3
    assert row["checks"] == [[True] * 5] * 3
    # A passage named twice by one line is one mention, counted once.
    await builder.version(
        "w1", ["Ada four."], document_id=again.document_id, mentions={"Ada": [0, 0]}
    )
    [row] = await graph.read(MENTIONS, {"id": builder.entity_id("Ada")})
    assert row["counted"] == 4 and len(row["checks"]) == 4


async def test_recovery_counts_down_the_mentions_of_a_failed_jobs_passages(
    graph: Graph, builder: GraphBuilder
) -> None:
    unfinished = await builder.version("w0", ["Bo, unfinished."], commit=False)
    await builder.version(
        "w0",
        ["Bo, committed."],
        mentions={"Bo": [0]},
        external_mentions={"Bo": unfinished.passage_ids},
    )
    [row] = await graph.read(MENTIONS, {"id": builder.entity_id("Bo")})
    assert row["counted"] == 2
    await jobs.fail_job(graph, unfinished.job.id)
    [row] = await graph.read(MENTIONS, {"id": builder.entity_id("Bo")})
    assert row["counted"] == 1 and len(row["checks"]) == 1


async def test_a_mention_written_without_its_order_sends_the_entity_the_plain_way(
    every_entity_in_order: None, graph: Graph, builder: GraphBuilder
) -> None:
    """Another pipeline adds a mention without the order properties: the entity is read
    from its mentions, and the new passage, first in evidence order, is its first evidence;
    `schema apply` orders it, and the answer stays the same."""
    later = await builder.version(
        "w0",
        ["Cy one.", "Cy two."],
        document_id="ffffffff-ffff-4fff-8fff-ffffffffffff",
        mentions={"Cy": [0, 1]},
    )
    earlier = await builder.version("w0", ["Cy, said first."], document_id=new_id())
    entity_id = builder.entity_id("Cy")
    assert await read_in_order(graph, entity_id)
    await graph.write(
        "MATCH (e:Entity {id: $id}), (c:Chunk {id: $chunk}) CREATE (e)-[:MENTIONED_IN]->(c)",
        {"id": entity_id, "chunk": earlier.passage_ids[0]},
    )
    expected = [earlier.passage_ids[0], *later.passage_ids]
    for scope in (Scope(None), Scope(("w0",)), Scope(("w0",), (earlier.document_id,))):
        [evidence] = await lookups.evidence_by_entity_id(graph, scope, [(entity_id, 3)])
        assert [p.id for p in evidence] == [
            p for p in expected if scope.document_ids is None or p == expected[0]
        ]
    assert not await read_in_order(graph, entity_id)
    await mention_order.order_mentions(graph)
    assert await read_in_order(graph, entity_id)
    [evidence] = await lookups.evidence_by_entity_id(graph, Scope(None), [(entity_id, 3)])
    assert [p.id for p in evidence] == expected


# --- a walk decides what it can take -----------------------------------------------------------

# Another writer's hub: it knows `$degree` entities, each stated by the hub's own passage.
WRITE_RELATION_HUB: LiteralString = (
    "MATCH (hub:Entity {id: $hub}), (c:Chunk {id: $chunk})"
    " UNWIND range(1, $degree) AS i"
    " CREATE (n:Entity:Person {id: randomUUID(), name: 'Member ' + i})"
    " CREATE (n)-[:MENTIONED_IN]->(c)"
    " CREATE (hub)-[:KNOWS {id: randomUUID(), passageIds: [c.id]}]->(n)"
)


async def walk_db_hits(graph: Graph, hub: str, max_edges: int) -> tuple[int, int]:
    """(db hits of a depth-1 walk from `hub` with `max_edges`, edges it returned)."""
    profiled = ProfiledGraph(graph)
    request = walk.WalkRequest(
        start_id=hub,
        depth=1,
        relation_types=("KNOWS",),
        bounds=WalkBounds(max_nodes=500, max_edges=max_edges, max_candidates=500),
        graph_owned_types=("HAS_PART", "MENTIONED_IN"),
        with_evidence=True,
    )
    found = await walk.walk(profiled, Scope(("w0",)), request)
    assert found is not None
    return profiled.db_hits, len(found.edges)


async def test_a_walk_step_decides_no_more_relationships_than_it_can_take(
    graph: Graph, builder: GraphBuilder
) -> None:
    """Around a hub with 400 stated relationships, a step that may take 5 edges reads all 400
    but decides (far end, passages, versions) about 6, not 400: its database hits fall with
    `maxEdges`, and the answer is the first edges in candidate order either way."""
    hub = await builder.version("w0", ["The hub is stated here."], mentions={"Hub": [0]})
    await graph.write(
        WRITE_RELATION_HUB,
        {"hub": builder.entity_id("Hub"), "chunk": hub.passage_ids[0], "degree": 400},
    )
    await walk.walk(  # the stored types, learnt once per graph
        graph,
        Scope(("w0",)),
        walk.WalkRequest(
            start_id=builder.entity_id("Hub"),
            depth=1,
            relation_types=("KNOWS",),
            bounds=WalkBounds(max_nodes=500, max_edges=5, max_candidates=500),
            graph_owned_types=("HAS_PART", "MENTIONED_IN"),
        ),
    )
    few, few_edges = await walk_db_hits(graph, builder.entity_id("Hub"), 5)
    many, many_edges = await walk_db_hits(graph, builder.entity_id("Hub"), 400)
    print(f"\nmaxEdges 5: {few} db hits, {few_edges} edges; maxEdges 400: {many}, {many_edges}")
    assert (few_edges, many_edges) == (5, 400)
    assert few * 3 < many


# --- a dense entity: read in order, the same answers as the plain read ---------------------------


class PlanGraph(Graph):
    """Runs every read with PROFILE and adds up the rows its order-index seeks produced."""

    def __init__(self, graph: Graph) -> None:
        super().__init__(graph.driver)
        self.order_index_rows = 0

    async def read(self, query: LiteralString, parameters: Mapping[str, Any]) -> list[neo4j.Record]:
        async with self.driver.session() as session:
            result = await session.run("PROFILE " + query, dict(parameters))
            records = [record async for record in result]
            summary = await result.consume()
        assert summary.profile is not None
        for op in operators(summary.profile):
            details = str(op.get("args", {}).get("Details", ""))
            if "RelationshipIndex" in str(op.get("operatorType", "")) and (
                "orderEntityId" in details or "orderEntityWorkspace" in details
            ):
                self.order_index_rows += int(op.get("rows", 0))
        return records


async def every_read(graph: Graph, ids: Mapping[str, str], scope: Scope) -> dict[str, Any]:
    """What each read that collects mentions answers about the dense entity (and its
    neighbours) in `scope`: evidence, returnability, a search hit, walks from and to it."""

    def walk_from(name: str) -> walk.WalkRequest:
        return walk.WalkRequest(
            start_id=ids[name],
            depth=2,
            relation_types=None,
            bounds=WalkBounds(max_nodes=50, max_edges=100, max_candidates=500),
            graph_owned_types=("HAS_PART", "MENTIONED_IN"),
            with_evidence=True,
        )

    # The entity only a deleted document mentions, when the world has one.
    gone = [ids[GONE]] if GONE in ids else []
    found = {
        "evidence": await lookups.evidence_by_entity_id(
            graph,
            scope,
            [(ids["Dora Densely"], 3), (ids["Dora Densely"], 60), (ids["Finn"], 3)]
            + [(entity, 3) for entity in gone],
        ),
        "returnable": await lookups.entities_by_id(
            graph, scope, [ids["Dora Densely"], ids["Finn"], ids["Eve"], *gone]
        ),
        "search": await search_people(graph, scope, "Dora Densely"),
        "walk from the dense entity": await walk.walk(graph, scope, walk_from("Dora Densely")),
        "walk to the dense entity": await walk.walk(graph, scope, walk_from("Finn")),
    }
    if gone:
        found["search for the deleted one"] = await search_people(graph, scope, GONE)
        found["walk from the deleted one"] = await walk.walk(graph, scope, walk_from(GONE))
    return found


GONE = "Gus Gonewell"


async def write_dense_entity(builder: GraphBuilder, *, deleted: bool = False) -> dict[str, str]:
    """`Dora Densely`, mentioned 52 times by the service's commits: a superseded version and
    the current one of a document in w0, another w0 document, a w1 document, and the passages
    of a job still RUNNING; `Finn` KNOWS her and she KNOWS `Eve`. The document ids by name.

    `deleted`: also a w0 document deleted (`evidencegraph delete`) that mentions Dora 12
    times, first of all in evidence order, and `Gus Gonewell`, mentioned 40 times only by
    another deleted w0 document (Finn KNOWS him, by a passage of a document still there)."""
    dora = "Dora Densely"
    extra: dict[str, str] = {}
    if deleted:
        dropped = await builder.version(
            "w0",
            [f"Dora gone {n}." for n in range(12)],
            document_id="00000000-0000-4000-8000-000000000001",
            mentions={dora: range(12)},
        )
        gone = await builder.version(
            "w0", [f"Gus gone {n}." for n in range(40)], mentions={GONE: range(40)}
        )
        await builder.version(
            "w0",
            ["Finn knows Gus."],
            mentions={"Finn": [0]},
            relations=[("Finn", "KNOWS", GONE, [0])],
        )
        await delete_documents(builder.graph, [dropped.document_id, gone.document_id])
        extra = {GONE: builder.entity_id(GONE), "dropped": dropped.document_id}
        extra["gone"] = gone.document_id
    first = await builder.version(
        "w0", [f"Dora old {n}." for n in range(12)], mentions={dora: range(12)}
    )
    current = await builder.version(
        "w0",
        [f"Dora now {n}." for n in range(12)],
        document_id=first.document_id,
        mentions={dora: range(12), "Eve": [0], "Finn": [1]},
        relations=[(dora, "KNOWS", "Eve", [0]), ("Finn", "KNOWS", dora, [1])],
    )
    other = await builder.version(
        "w0", [f"Dora b {n}." for n in range(12)], mentions={dora: range(12)}
    )
    away = await builder.version(
        "w1", [f"Dora c {n}." for n in range(10)], mentions={dora: range(10)}
    )
    running = await builder.version("w0", [f"Dora d {n}." for n in range(5)], commit=False)
    await builder.version(
        "w1", ["Dora e."], mentions={dora: [0]}, external_mentions={dora: running.passage_ids}
    )
    return {
        "Dora Densely": builder.entity_id(dora),
        "Eve": builder.entity_id("Eve"),
        "Finn": builder.entity_id("Finn"),
        "current": current.document_id,
        "other": other.document_id,
        "away": away.document_id,
        **extra,
    }


def dense_scopes(ids: Mapping[str, str]) -> list[Scope]:
    deleted = (
        [
            Scope(None, (ids["dropped"],)),
            Scope(("w0",), (ids["dropped"], ids["gone"])),
            Scope(("w0", "w1"), (ids["dropped"], ids["other"])),
        ]
        if "dropped" in ids
        else []
    )
    return [
        Scope(None),
        Scope(("w0",)),
        Scope(("w1",)),
        Scope(("w0", "w1")),
        Scope(("w2",)),
        Scope(("w0",), (ids["other"],)),
        Scope(("w0", "w1"), (ids["current"], ids["away"])),
        Scope(None, (ids["away"],)),
        *deleted,
    ]


async def answers_and_index_rows(
    graph: Graph, ids: Mapping[str, str]
) -> tuple[dict[Scope, dict[str, Any]], int]:
    profiled = PlanGraph(graph)
    found = {scope: await every_read(profiled, ids, scope) for scope in dense_scopes(ids)}
    return found, profiled.order_index_rows


async def test_a_dense_entity_is_read_in_order_and_answers_what_the_plain_read_answers(
    graph: Graph, builder: GraphBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With more than DENSE_MENTIONS mentions, all written by the service's commits, an entity
    is read in order (its order-index seeks produce rows); forced the plain way (the threshold
    raised above its degree), every read answers exactly the same, in every shape of scope.
    Deleted documents count for nothing either way: neither a deleted document's mentions of
    the dense entity, nor an entity (read in order too) that only deleted documents mention."""
    ids = await write_dense_entity(builder, deleted=True)
    await apply_schema(graph, 8, labels=["Person"])
    [row] = await graph.read(MENTIONS, {"id": ids["Dora Densely"]})
    assert row["counted"] == len(row["checks"]) == 64 > mention_order.DENSE_MENTIONS
    [row] = await graph.read(MENTIONS, {"id": ids[GONE]})
    assert row["counted"] == len(row["checks"]) == 40 > mention_order.DENSE_MENTIONS
    assert await read_in_order(graph, ids["Dora Densely"])
    assert await read_in_order(graph, ids[GONE])
    in_order, in_order_rows = await answers_and_index_rows(graph, ids)
    monkeypatch.setattr(mention_order, "DENSE_MENTIONS", 1_000_000)
    assert not await read_in_order(graph, ids["Dora Densely"])
    plain, plain_rows = await answers_and_index_rows(graph, ids)
    assert in_order_rows > 0 and plain_rows == 0, (in_order_rows, plain_rows)
    for scope in in_order:
        assert in_order[scope] == plain[scope], scope
    # The answers are not empty ones: evidence in w0 is the current version's first passages.
    [first_three, _, _, _] = in_order[Scope(("w0",))]["evidence"]
    assert [(p.document.id, p.version) for p in first_three] in (
        [(ids["current"], 2)] * 3,
        [(ids["other"], 1)] * 3,
    )
    assert in_order[Scope(("w2",))]["returnable"] == [None, None, None, None]
    # The deleted documents: Dora is returned through the others alone, the entity only they
    # mention in no scope at all, and their passages are nobody's evidence.
    dropped = {ids["dropped"], ids["gone"]}
    for scope, answers in in_order.items():
        assert answers["returnable"][3] is None, scope
        assert answers["evidence"][3] == [], scope
        assert answers["search for the deleted one"] == [], scope
        assert answers["walk from the deleted one"] is None, scope
        assert all(
            p.document.id not in dropped for evidence in answers["evidence"] for p in evidence
        ), scope
        walked = answers["walk to the dense entity"]
        if walked is not None:
            assert ids[GONE] not in {node.id for node in walked.nodes}, scope
            assert ids[GONE] not in {edge.target_id for edge, _ in walked.edges}, scope
    assert in_order[Scope(None, (ids["dropped"],))]["returnable"][0] is None
    assert in_order[Scope(("w0",))]["returnable"][0] is not None
    assert in_order[Scope(("w0",))]["walk to the dense entity"] is not None


async def test_a_mention_from_another_pipeline_sends_a_dense_entity_the_plain_way_alike(
    graph: Graph, builder: GraphBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another pipeline links the dense entity to a passage without the order properties:
    the counter no longer equals the degree, no read seeks the order indexes, and every read
    answers what the forced plain read answers, the new passage included; `schema apply`
    (`order_mentions`) orders it and the in-order reads answer the same again."""
    ids = await write_dense_entity(builder)
    await apply_schema(graph, 8, labels=["Person"])
    earlier = await builder.version(
        "w0", ["Dora, said first."], document_id="00000000-0000-4000-8000-000000000000"
    )
    await graph.write(
        "MATCH (e:Entity {id: $id}), (c:Chunk {id: $chunk}) CREATE (e)-[:MENTIONED_IN]->(c)",
        {"id": ids["Dora Densely"], "chunk": earlier.passage_ids[0]},
    )
    assert not await read_in_order(graph, ids["Dora Densely"])
    fallen_back, fallen_back_rows = await answers_and_index_rows(graph, ids)
    assert fallen_back_rows == 0
    [first_three, _, _] = fallen_back[Scope(None)]["evidence"]
    assert first_three[0].id == earlier.passage_ids[0]
    with monkeypatch.context() as forced:
        forced.setattr(mention_order, "DENSE_MENTIONS", 1_000_000)
        plain, _ = await answers_and_index_rows(graph, ids)
    assert fallen_back == plain
    await mention_order.order_mentions(graph)
    assert await read_in_order(graph, ids["Dora Densely"])
    ordered, ordered_rows = await answers_and_index_rows(graph, ids)
    assert ordered_rows > 0 and ordered == plain


async def test_jobs_recover_leaves_each_counter_equal_to_its_ordered_mentions(
    graph: Graph, builder: GraphBuilder
) -> None:
    """`jobs recover` (graph/jobs.py: finish a commit stopped between its steps, fail stale
    RUNNING jobs): a dense entity's counter again equals its degree, so it is read in order."""
    ids = await write_dense_entity(builder)
    dora = ids["Dora Densely"]
    # A commit stopped after its first step, mentioning Dora in its own passages and in a
    # passage of another document: the second step, run by recovery, links and counts that one.
    elsewhere = await builder.version("w0", ["No one is named here."])
    stopped = await builder.version(
        "w1",
        ["Dora f.", "Dora g."],
        mentions={"Dora Densely": [0, 1]},
        external_mentions={"Dora Densely": elsewhere.passage_ids},
        commit=False,
    )
    await jobs.commit_first_step(graph, stopped.job)
    [row] = await graph.read(MENTIONS, {"id": dora})
    assert row["counted"] == len(row["checks"]) == 54
    assert await jobs.publish_committed_jobs(graph) == [stopped.job.id]
    [row] = await graph.read(MENTIONS, {"id": dora})
    assert row["counted"] == len(row["checks"]) == 55
    assert row["checks"] == [[True] * 5] * 55
    # The RUNNING job's five mentioned passages go with it.
    assert len(await jobs.recover_stale_jobs(graph, timedelta(seconds=0))) == 1
    [row] = await graph.read(MENTIONS, {"id": dora})
    assert row["counted"] == len(row["checks"]) == 50
    assert await read_in_order(graph, dora)


COUNTER: LiteralString = (
    "MATCH (e:Entity {id: $id})"
    " RETURN e.orderedMentions AS counted, COUNT { (e)-[:MENTIONED_IN]->() } AS degree"
)


async def test_purge_keeps_a_hub_read_in_order_with_the_same_answers(
    graph: Graph, builder: GraphBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`evidencegraph purge` removes 24 of the dense entity's 64 mentions (its superseded
    version's, and a deleted document's) and all 40 of the entity only a deleted document
    mentions, counting each down as it goes: the dense entity's counter still equals its
    degree, so it is still read in order, and every read answers as before the purge, and as
    the plain read does."""
    ids = await write_dense_entity(builder, deleted=True)
    await apply_schema(graph, 8, labels=["Person"])
    dora = ids["Dora Densely"]
    before, before_rows = await answers_and_index_rows(graph, ids)
    assert before_rows > 0
    report = await purge(graph, timedelta(seconds=0))
    assert report.superseded_passages == 12 + 12 + 40
    assert report.entities_skipped_for_jobs == 1  # the RUNNING job: Gus stays, unmentioned
    [row] = await graph.read(MENTIONS, {"id": dora})
    assert row["counted"] == len(row["checks"]) == 40 > mention_order.DENSE_MENTIONS
    assert row["checks"] == [[True] * 5] * 40
    [row] = await graph.read(COUNTER, {"id": ids[GONE]})
    assert (row["counted"], row["degree"]) == (0, 0)
    assert await read_in_order(graph, dora)
    after, after_rows = await answers_and_index_rows(graph, ids)
    assert after_rows > 0
    assert after == before
    monkeypatch.setattr(mention_order, "DENSE_MENTIONS", 1_000_000)
    plain, plain_rows = await answers_and_index_rows(graph, ids)
    assert plain_rows == 0 and plain == before
