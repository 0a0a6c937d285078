"""Pages cost what the page holds, not what the graph holds (contract §5 "costs about what an
ordinary one does"): PROFILE's database hits of a page read at two sizes ten times apart.

- an entity mentioned by 500 or 5,000 passages: its first page and a page from the middle, in
  every shape of scope (graph/mention_reads.py), seek the mention order indexes from the key;
- a document of 500 or 5,000 passages (and as many superseded): its first page and a page from
  the middle seek `chunk_document_order` from the key;
- a passage mentioned by 500 or 5,000 entities: see the last test for what it costs.

PAGE_HUB_SIZES=5000,50000 runs the same at larger sizes.
"""

from __future__ import annotations

import os
from typing import Any, LiteralString

from contract.page_cursor import DocumentKey, EvidenceKey
from contract.scope import Scope
from graph import mention_order, passage_mentions, passage_pages
from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.passage_pages import PageRequest
from tests.support.graph_builder import new_id
from tests.support.plan_statistics import settle_plans
from tests.test_hub_reads import ProfiledGraph, write_hub

SIZES = tuple(int(size) for size in os.environ.get("PAGE_HUB_SIZES", "500,5000").split(","))
# Each hub document holds 10 of the entity's mentions: 5 positions, 2 versions (1 superseded).
MENTIONS_PER_DOCUMENT = 10
# What a page may cost more at ten times the size: a read that went through every mention or
# passage would cost thousands of hits more.
SLACK = 20


async def page_hits(graph: Graph, read: Any, *arguments: Any) -> tuple[Any, int]:
    counting = ProfiledGraph(graph)
    answer = await read(counting, *arguments)
    return answer, counting.db_hits


FIRST_DOCUMENT: LiteralString = (
    "MATCH (:Entity {id: $id})-[:MENTIONED_IN]->(:Chunk)<-[:HAS_PART]-(d:Document)"
    " RETURN d.id AS id ORDER BY id LIMIT 1"
)


async def test_an_entity_page_costs_the_same_at_500_and_5000_mentions(graph: Graph) -> None:
    hubs = {
        size: await write_hub(graph, n + 1, f"Hub {size}", "w0", size // MENTIONS_PER_DOCUMENT)
        for n, size in enumerate(SIZES)
    }
    await apply_schema(graph, 8, labels=["Person"])
    report = await mention_order.order_mentions(graph)
    assert report.in_order == len(SIZES)
    await settle_plans(graph)
    hits: dict[tuple[str, str, int], int] = {}
    for size, hub in hubs.items():
        [first_document] = await graph.read(FIRST_DOCUMENT, {"id": hub})
        scopes = {
            "everywhere": Scope(None),
            "workspaces": Scope(("w0", "w1")),
            "documents": Scope(("w0",), (first_document["id"],)),
        }
        whole, _ = await page_hits(
            graph,
            passage_pages.entity_evidence_pages,
            Scope(None),
            [PageRequest(hub, 100, None)],
        )
        middle = whole[0][50]
        key: EvidenceKey = (middle.document.id, middle.position, middle.id)
        for shape, scope in scopes.items():
            for where, after in (("first page", None), ("middle", key)):
                if shape == "documents" and after is not None:
                    after = (first_document["id"], 0, whole[0][0].id)
                [page], cost = await page_hits(
                    graph,
                    passage_pages.entity_evidence_pages,
                    scope,
                    [PageRequest(hub, 3, after)],
                )
                hits[(shape, where, size)] = cost
                assert len(page) == 4 and all(p.version == 2 for p in page)
                if after is not None:
                    assert (page[0].document.id, page[0].position, page[0].id) > after
    print("\nentity page database hits:", hits)
    small, large = SIZES
    for shape, where, size in hits:
        if size == small:
            assert hits[(shape, where, large)] <= hits[(shape, where, small)] + SLACK, hits


WRITE_DOCUMENT: LiteralString = (
    "CREATE (d:Document {id: $id, workspace: 'w0', title: 'Long', currentVersion: 2})"
    " WITH d UNWIND [1, 2] AS version"
    " CREATE (j:Job {id: randomUUID(), status: 'COMMITTED', documentId: d.id, version: version})"
    " WITH d, j, version UNWIND range(0, $size - 1) AS position"
    " CREATE (d)-[:HAS_PART]->(:Chunk {id: randomUUID(), documentId: d.id, version: version,"
    " position: position, jobId: j.id, text: 'line ' + position})"
)


async def test_a_document_page_costs_the_same_at_500_and_5000_passages(graph: Graph) -> None:
    documents = {}
    for size in SIZES:
        documents[size] = new_id()
        await graph.write(WRITE_DOCUMENT, {"id": documents[size], "size": size})
    await graph.auto_commit("CALL db.awaitIndexes(300)", {})
    await settle_plans(graph)
    hits: dict[tuple[str, int], int] = {}
    for size, document_id in documents.items():
        [[first, _second]], _ = await page_hits(
            graph,
            passage_pages.document_passage_pages,
            Scope(None),
            [PageRequest(document_id, 1, None)],
        )
        middle: DocumentKey = (size // 2, "ffffffff-ffff-4fff-bfff-ffffffffffff")
        for where, after in (("first page", None), ("middle", middle)):
            [page], cost = await page_hits(
                graph,
                passage_pages.document_passage_pages,
                Scope(("w0",)),
                [PageRequest(document_id, 20, after)],
            )
            hits[(where, size)] = cost
            assert len(page) == 21 and all(p.version == 2 for p in page)
            start = 0 if after is None else size // 2 + 1
            assert [p.position for p in page] == list(range(start, start + 21))
        assert first.position == 0
    print("\ndocument page database hits:", hits)
    small, large = SIZES
    for where in ("first page", "middle"):
        assert hits[(where, large)] <= hits[(where, small)] + SLACK, hits


WRITE_CROWDED_PASSAGE: LiteralString = (
    "CREATE (d:Document {id: $document, workspace: 'w0', title: 'Crowded', currentVersion: 1})"
    " CREATE (d)-[:HAS_PART]->(c:Chunk {id: $passage, documentId: d.id, version: 1,"
    " position: 0, text: 'everyone'})"
    " WITH c UNWIND range(1, $size) AS n"
    " CREATE (:Entity:Person {id: randomUUID(), name: 'Person ' + n})-[:MENTIONED_IN]->(c)"
)


async def test_a_passage_mentioned_by_many_entities_reads_each_name_once(graph: Graph) -> None:
    """Names are ordered by reading them: a passage mentioned by many entities costs about
    one record per mention (no index orders a passage's entities by name); the visibility
    rule is decided for the first entities in name order only."""
    passages = {}
    for size in SIZES:
        passages[size] = new_id()
        await graph.write(
            WRITE_CROWDED_PASSAGE, {"document": new_id(), "passage": passages[size], "size": size}
        )
    await settle_plans(graph)
    hits = {}
    for size, passage_id in passages.items():
        [entities], hits[size] = await page_hits(
            graph, passage_mentions.entities_by_passage_id, Scope(("w0",)), [(passage_id, 20)]
        )
        assert [e.name for e in entities] == sorted(f"Person {n}" for n in range(1, size + 1))[:20]
    print("\nmentions database hits:", hits)
    small, large = SIZES
    assert hits[large] <= hits[small] * large / small * 1.5, hits
