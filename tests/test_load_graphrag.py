"""`evidencegraph load --format graphrag` (contract §10) of real GraphRAG output on the real Neo4j:
the labels, passages, mentions and relations the mapping promises, and searchable at once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from contract.graph_owned import SERVICE_LABELS
from contract.identifiers import workspace_id
from embedding.hashing import HashEmbedder
from graph.driver import Graph
from ingest.graphrag import read_graphrag
from tests.conftest import TEST_DIMENSION, Client
from tests.support.load_helpers import Cli, graph_counts

DATA = Path(__file__).resolve().parent.parent / "data"
DULCE = DATA / "graphrag-operation-dulce"
TWO_DOCUMENTS = DATA / "graphrag-v1-two-documents"
# The id Dulce's entities table gives him, made workspace demo's as the load makes it.
ALEX_MERCER = workspace_id("demo", "bbb2ad85-3d0b-4c26-b6f9-71ed76ee64bd", "entity")


async def load_folder(cli: Cli, folder: Path, workspace: str = "demo") -> str:
    run = await cli.run("load", "--format", "graphrag", "--workspace", workspace, str(folder))
    assert run.code == 0, run.err
    return run.out


async def labels_of_entities(graph: Graph) -> Counter[str]:
    rows = await graph.read(
        "MATCH (e:Entity) UNWIND labels(e) AS label"
        " WITH label WHERE label <> 'Entity' AND NOT label IN $service"
        " RETURN label, count(*) AS n",
        {"service": list(SERVICE_LABELS)},  # NameKeyed: the service's own (graph/name_key.py)
    )
    return Counter({row["label"]: row["n"] for row in rows})


async def test_dulce_loads_its_labels_passages_and_related_to_relations(
    graph: Graph,
    cli: Cli,
) -> None:
    out = await load_folder(cli, DULCE)
    assert "written: 5 passages, 39 entities, 105 relations" in out
    assert await labels_of_entities(graph) == Counter(Geo=13, Event=11, Organization=8, Person=7)
    relations = await graph.read(
        "MATCH (:Entity)-[r]->(:Entity) RETURN type(r) AS type, r.description AS description,"
        " r.weight AS weight, r.passageIds AS support",
        {},
    )
    assert len(relations) == 105
    assert {row["type"] for row in relations} == {"RELATED_TO"}
    assert all(row["description"] and row["weight"] > 0 and row["support"] for row in relations)
    documents = await graph.read(
        "MATCH (d:Document) RETURN d.workspace AS workspace, d.title AS title,"
        " d.currentVersion AS version",
        {},
    )
    assert [dict(row) for row in documents] == [
        {"workspace": "demo", "title": "dulce.txt", "version": 1}
    ]


async def test_dulce_passage_ids_and_mentions_are_the_exports(
    graph: Graph,
    cli: Cli,
) -> None:
    await load_folder(cli, DULCE)
    [version] = read_graphrag(DULCE, "demo").versions
    passages = await graph.read("MATCH (c:Chunk) RETURN c.id AS id ORDER BY c.position", {})
    assert [row["id"] for row in passages] == [p.id for p in version.passages]
    mentions = await graph.read(
        "MATCH (e:Entity)-[:MENTIONED_IN]->(c:Chunk) RETURN e.id AS entity, c.id AS passage", {}
    )
    assert {(row["entity"], row["passage"]) for row in mentions} == {
        (e.id, passage) for e in version.entities for passage in e.mentions
    }


async def test_v1_two_documents_load_as_two_documents_with_thing_for_untyped_entities(
    graph: Graph,
    cli: Cli,
) -> None:
    out = await load_folder(cli, TWO_DOCUMENTS, workspace="acme")
    assert "documents: 2 loaded, 0 unchanged, 0 rejected (of 2)" in out
    documents = await graph.read("MATCH (d:Document {workspace: 'acme'}) RETURN count(d) AS n", {})
    assert documents[0]["n"] == 2
    labels = await labels_of_entities(graph)
    assert labels == Counter(Event=184, Geo=60, Person=49, Thing=48, Organization=32)
    counts = await graph_counts(graph)
    assert (counts[":Chunk"], counts[":Entity"], counts["-RELATED_TO-"]) == (38, 373, 812)


async def test_loading_a_graphrag_folder_twice_leaves_the_same_graph(
    graph: Graph,
    cli: Cli,
) -> None:
    await load_folder(cli, TWO_DOCUMENTS)
    before = await graph_counts(graph)
    out = await load_folder(cli, TWO_DOCUMENTS)
    assert "documents: 0 loaded, 2 unchanged, 0 rejected (of 2)" in out
    assert await graph_counts(graph) == before


SEARCH = """
query ($query: String!) {
  searchEntities(query: $query, limit: 3) {
    entity { id name labels }
    status
    evidence { id text document { title workspace } }
  }
}
"""

WALK = """
query ($id: ID!) {
  walk(entityId: $id, maxEdges: 200) {
    start { name }
    edges { id type kind source { id } target { id } evidence { id text } description weight }
  }
}
"""


async def test_loaded_dulce_is_searchable_with_evidence(
    graph: Graph,
    client: Client,
    cli: Cli,
) -> None:
    await load_folder(cli, DULCE)
    [vector] = HashEmbedder(TEST_DIMENSION).embed(["Alex Mercer"])
    client.embedder.script("Alex Mercer", vector)
    body = await client.execute(SEARCH, {"query": "Alex Mercer"})
    assert "errors" not in body, body
    top = body["data"]["searchEntities"][0]
    assert top["entity"] == {"id": ALEX_MERCER, "name": "ALEX MERCER", "labels": ["Person"]}
    assert top["status"] == "SUPPORTED"
    [version] = read_graphrag(DULCE, "demo").versions
    assert [p["id"] for p in top["evidence"]] == [p.id for p in version.passages[:3]]
    assert all("Alex" in p["text"] for p in top["evidence"])
    assert {p["document"]["title"] for p in top["evidence"]} == {"dulce.txt"}


async def test_loaded_dulce_walks_from_alex_mercer_with_evidence(
    graph: Graph,
    client: Client,
    cli: Cli,
) -> None:
    await load_folder(cli, DULCE)
    body = await client.execute(WALK, {"id": ALEX_MERCER})
    assert "errors" not in body, body
    walk = body["data"]["walk"]
    assert walk["start"]["name"] == "ALEX MERCER"
    [version] = read_graphrag(DULCE, "demo").versions
    around = [r for r in version.relations if ALEX_MERCER in (r.source, r.target)]
    assert len(walk["edges"]) == len(around) > 10
    assert {edge["kind"] for edge in walk["edges"]} == {"ASSERTION"}
    assert all(edge["evidence"] and edge["type"] == "RELATED_TO" for edge in walk["edges"])
    # What GraphRAG says about each relation is served on its edge, as its output holds it.
    said = {r.id: (r.properties["description"], r.properties["weight"]) for r in around}
    assert {e["id"]: (e["description"], e["weight"]) for e in walk["edges"]} == said
    assert all(isinstance(e["weight"], float) and e["description"] for e in walk["edges"])
