"""Every workspace is its own on the write path (contract §2 "Ownership"), on the real Neo4j: a
load of workspace W creates and changes only W's entities and relations, links only W's
passages, and refuses, with its line number and reason, a line that names anyone else's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from contract.identifiers import workspace_id
from contract.scope import Scope
from graph import jobs, lookups
from graph.driver import Graph
from graph.ownership import workspace_key
from ingest.graphrag import read_graphrag
from ingest.langchain_graph import read_graph_documents
from tests.conftest import TEST_DIMENSION
from tests.support.load_helpers import bundle_line, entity, loader, relation, uid, version_of

CANONICAL = "0b6f5d1e-2c1a-4f43-9a57-1f0a6d2b9c11"  # a file's id that is a canonical UUID
ACME = Scope(("acme",))
GLOBEX = Scope(("globex",))

# The whole of an entity as stored, labels included, to show that nothing of it changed.
STORED_ENTITY = """
MATCH (e:Entity {id: $id})
RETURN e {.*, labels: labels(e)} AS entity
"""
RELATIONSHIPS_BETWEEN = """
MATCH (:Entity {id: $source})-[r]-(:Entity {id: $target})
RETURN type(r) AS type, r.id AS id ORDER BY id
"""


async def load(graph: Graph, line: dict[str, Any]) -> str | None:
    return await loader(graph).load_line(version_of(line))


async def stored_entity(graph: Graph, entity_id: str) -> dict[str, Any]:
    rows = await graph.read(STORED_ENTITY, {"id": entity_id})
    return dict(rows[0]["entity"])


async def acme_with_ada_and_grace(graph: Graph) -> None:
    """Workspace acme: Ada (described) and Grace, both mentioned by one passage."""
    line = bundle_line(
        1,
        [(1, "Ada met Grace.")],
        entities=[
            {**entity(1, "Ada", [1]), "description": "a mathematician"},
            entity(2, "Grace", [1]),
        ],
    )
    assert await load(graph, line) is None


async def test_a_line_naming_another_workspaces_entity_is_refused_and_changes_nothing_of_it(
    graph: Graph,
) -> None:
    await acme_with_ada_and_grace(graph)
    before = await stored_entity(graph, uid("e", 1))
    tamper = bundle_line(
        2,
        [(2, "Mallory writes here.")],
        workspace="globex",
        entities=[
            {
                **entity(1, "Mallory", [2], label="Villain"),
                "description": "a forger",
                "embedding": [1.0] + [0.0] * (TEST_DIMENSION - 1),
            }
        ],
    )
    reason = await load(graph, tamper)
    assert (
        reason is not None
        and (f"entities[0].id: entity {uid('e', 1)} belongs to workspace 'acme', not to 'globex'")
        in reason
    ), reason
    assert await stored_entity(graph, uid("e", 1)) == before
    assert await lookups.documents_by_id(graph, GLOBEX, [uid("d", 2)]) == [None]


async def test_a_line_cannot_read_another_workspaces_entity_through_its_own_passage(
    graph: Graph,
) -> None:
    await acme_with_ada_and_grace(graph)
    borrow = bundle_line(
        2, [(2, "Someone is here.")], workspace="globex", entities=[entity(1, "Ada", [2])]
    )
    reason = await load(graph, borrow)
    assert reason is not None and f"entities[0].id: entity {uid('e', 1)}" in reason, reason
    assert await lookups.entities_by_id(graph, GLOBEX, [uid("e", 1)]) == [None]
    assert await lookups.passages_by_id(graph, GLOBEX, [uid("p", 2)]) == [None]


async def test_a_relation_between_another_workspaces_entities_is_refused_and_not_linked(
    graph: Graph,
) -> None:
    await acme_with_ada_and_grace(graph)
    link = bundle_line(
        2,
        [(2, "A link is claimed.")],
        workspace="globex",
        relations=[relation(1, 1, 2, [], kind="MARRIED_TO")],
    )
    reason = await load(graph, link)
    assert reason is not None, "the line loaded"
    for end in ("source", "target"):
        assert f"relations[0].{end}: entity" in reason and "'acme'" in reason, reason
    assert (
        await graph.read(RELATIONSHIPS_BETWEEN, {"source": uid("e", 1), "target": uid("e", 2)})
        == []
    )


async def test_a_mention_of_another_workspaces_passage_is_refused(graph: Graph) -> None:
    await acme_with_ada_and_grace(graph)
    reach = bundle_line(
        2,
        [(2, "Globex text.")],
        workspace="globex",
        entities=[entity(3, "Gus", [2, 1])],
        relations=[relation(1, 3, 3, [1])],
    )
    reason = await load(graph, reach)
    assert reason is not None, "the line loaded"
    for path in ("entities[0].mentions[1]", "relations[0].passageIds[0]"):
        assert f"{path}: passage {uid('p', 1)} is a passage of workspace 'acme'" in reason, reason
    assert await lookups.entities_by_id(graph, ACME, [uid("e", 3)]) == [None]


async def test_an_entity_stored_with_no_owner_is_refused_as_not_this_workspaces(
    graph: Graph,
) -> None:
    await acme_with_ada_and_grace(graph)
    await graph.write("MATCH (e:Entity {id: $id}) REMOVE e.workspace", {"id": uid("e", 2)})
    again = bundle_line(2, [(2, "Grace again.")], entities=[entity(2, "Grace", [2])])
    reason = await load(graph, again)
    assert reason is not None and f"entity {uid('e', 2)} has no owner" in reason, reason
    assert "schema apply" in reason


async def test_loaded_entities_relations_and_passages_store_their_owner(graph: Graph) -> None:
    line = bundle_line(
        1,
        [(1, "Ada met Grace.")],
        workspace="acme",
        entities=[entity(1, "Ada", [1]), entity(2, "Grace", [1])],
        relations=[relation(1, 1, 2, [1]), relation(2, 2, 1, [])],
    )
    assert await load(graph, line) is None
    key = workspace_key("acme")
    entities = await graph.read(
        "MATCH (e:Entity) RETURN e.workspace AS owner, e.workspaceKey AS key", {}
    )
    assert [(row["owner"], row["key"]) for row in entities] == [("acme", key)] * 2
    relations = await graph.read("MATCH (:Entity)-[r]->(:Entity) RETURN r.workspace AS owner", {})
    assert [row["owner"] for row in relations] == ["acme", "acme"]
    chunks = await graph.read("MATCH (c:Chunk) RETURN c.workspaceKey AS key", {})
    assert [row["key"] for row in chunks] == [key]


async def test_a_commit_leaves_another_owners_entity_and_relation_as_they_are_even_unchecked(
    graph: Graph,
) -> None:
    """Defence in depth: the job's statements alone, without the loader's check."""
    await acme_with_ada_and_grace(graph)
    link = bundle_line(3, [(3, "Grace knew Ada.")], entities=[], relations=[relation(1, 2, 1, [3])])
    assert await load(graph, link) is None
    before = await stored_entity(graph, uid("e", 1))
    job = await jobs.begin_job(graph, uid("d", 2), "globex")
    await jobs.write_passages(graph, job, [{"id": uid("p", 2), "position": 0, "text": "x"}])
    await jobs.write_entities(
        graph,
        job,
        [{"id": uid("e", 1), "labels": ["Villain"], "name": "Mallory", "mentions": [uid("p", 2)]}],
    )
    await jobs.write_relations(
        graph,
        job,
        [
            {"id": uid("r", 1), "type": "KNOWS", "source": uid("e", 2), "target": uid("e", 1),
             "passageIds": [uid("p", 2)], "properties": {"note": "forged"}},
            {"id": uid("r", 9), "type": "MARRIED_TO", "source": uid("e", 1),
             "target": uid("e", 2), "passageIds": []},
        ],
    )  # fmt: skip
    await jobs.commit_job(graph, job)
    assert await stored_entity(graph, uid("e", 1)) == before
    between = await graph.read(
        "MATCH (:Entity {id: $a})-[r]-(:Entity {id: $b}) RETURN r {.*, type: type(r)} AS r",
        {"a": uid("e", 1), "b": uid("e", 2)},
    )
    assert [row["r"] for row in between] == [
        {"type": "KNOWS", "id": uid("r", 1), "passageIds": [uid("p", 3)], "workspace": "acme"}
    ]


def graph_document(source: str, description: str) -> dict[str, Any]:
    """One LangChain graph document (`GraphDocument.model_dump()`) naming Acme Corp."""
    acme = {"id": "Acme Corp", "type": "Organization", "properties": {"description": description}}
    return {
        "nodes": [acme],
        "relationships": [],
        "source": {"page_content": f"Acme Corp, as {source} says.", "metadata": {"source": source},
                   "id": None},
    }  # fmt: skip


async def load_langchain(graph: Graph, path: Path, workspace: str) -> list[str | None]:
    export = read_graph_documents(path, workspace)
    load = loader(graph)  # one per file, as `evidencegraph load` has
    return [await load.load_line(line) for _, line in export.lines]


async def test_the_same_langchain_name_in_two_workspaces_is_two_entities_each_its_own(
    graph: Graph, tmp_path: Path
) -> None:
    mine = tmp_path / "acme.jsonl"
    mine.write_text(json.dumps(graph_document("acme-notes.txt", "our supplier")), "utf-8")
    theirs = tmp_path / "globex.jsonl"
    theirs.write_text(json.dumps(graph_document("globex-notes.txt", "a rival")), "utf-8")
    assert await load_langchain(graph, mine, "acme") == [None]
    assert await load_langchain(graph, theirs, "globex") == [None]
    for scope, workspace, description in (
        (ACME, "acme", "our supplier"),
        (GLOBEX, "globex", "a rival"),
    ):
        entity_id = workspace_id(workspace, "Acme Corp", "entity:Organization")
        [record] = await lookups.entities_by_id(graph, scope, [entity_id])
        assert record is not None and record.description == description, workspace
        assert record.source_id == "Acme Corp"
    rows = await graph.read("MATCH (e:Entity) RETURN e.workspace AS owner ORDER BY owner", {})
    assert [row["owner"] for row in rows] == ["acme", "globex"]


async def test_the_same_langchain_file_loads_into_two_workspaces_side_by_side(
    graph: Graph, tmp_path: Path
) -> None:
    path = tmp_path / "shared.jsonl"
    path.write_text(json.dumps(graph_document("notes.txt", "a company")), "utf-8")
    assert await load_langchain(graph, path, "acme") == [None]
    assert await load_langchain(graph, path, "globex") == [None]
    rows = await graph.read(
        "MATCH (d:Document)-[:HAS_PART]->(c:Chunk)<-[:MENTIONED_IN]-(e:Entity)"
        " RETURN d.workspace AS workspace, e.workspace AS owner, d.sourceId AS source"
        " ORDER BY workspace",
        {},
    )
    assert [tuple(row.values()) for row in rows] == [
        ("acme", "acme", "notes.txt"),
        ("globex", "globex", "notes.txt"),
    ]


def small_graphrag_folder(folder: Path) -> Path:
    """One document, two text units, two entities (one id a canonical UUID already), an
    assertion and a path between them: GraphRAG 1.x table names."""
    tables: dict[str, dict[str, list[Any]]] = {
        "create_final_documents": {"id": [CANONICAL], "title": ["Notes"]},
        "create_final_text_units": {
            "id": ["tu-1", "tu-2"],
            "text": ["Ada met Grace.", "Grace wrote."],
            "document_ids": [[CANONICAL], [CANONICAL]],
        },
        "create_final_entities": {
            "id": [CANONICAL, "grace"],
            "title": ["ADA", "GRACE"],
            "type": ["PERSON", "PERSON"],
            "description": ["a mathematician", "a rear admiral"],
            "text_unit_ids": [["tu-1"], ["tu-1", "tu-2"]],
        },
        "create_final_relationships": {
            "id": ["met", "knew"],
            "source": ["ADA", "GRACE"],
            "target": ["GRACE", "ADA"],
            "description": ["met", "knew"],
            "weight": [1.0, 1.0],
            "text_unit_ids": [["tu-1"], []],
        },
    }
    for name, columns in tables.items():
        pq.write_table(pa.table(columns), folder / f"{name}.parquet")
    return folder


async def test_the_same_graphrag_folder_loads_into_two_workspaces_side_by_side(
    graph: Graph, tmp_path: Path
) -> None:
    folder = small_graphrag_folder(tmp_path)
    exports = {workspace: read_graphrag(folder, workspace) for workspace in ("acme", "globex")}
    for workspace, export in exports.items():
        load = loader(graph)  # one per folder, as `evidencegraph load` has
        assert [await load.load_line(v) for v in export.versions] == [None], workspace
    for (workspace, export), scope in zip(exports.items(), (ACME, GLOBEX), strict=True):
        entities = export.versions[0].entities
        records = await lookups.entities_by_id(graph, scope, [e.id for e in entities])
        assert [(r.name, r.source_id) for r in records if r is not None] == [
            ("ADA", CANONICAL),
            ("GRACE", "grace"),
        ], workspace
    acme_ids = {e.id for e in exports["acme"].versions[0].entities}
    assert await lookups.entities_by_id(graph, GLOBEX, sorted(acme_ids)) == [None, None]
    relations = await graph.read(
        "MATCH (a:Entity)-[r]->(b:Entity) RETURN a.workspace AS a, r.workspace AS r,"
        " b.workspace AS b, r.sourceId AS source ORDER BY r, source",
        {},
    )
    assert [tuple(row.values()) for row in relations] == [
        ("acme", "acme", "acme", "knew"),
        ("acme", "acme", "acme", "met"),
        ("globex", "globex", "globex", "knew"),
        ("globex", "globex", "globex", "met"),
    ]
