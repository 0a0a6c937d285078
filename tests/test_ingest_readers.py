"""The pure readers of contract §10: bundle lines and GraphRAG folders as document versions."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from contract.identifiers import canonical_id, is_canonical_uuid, workspace_id
from ingest.bundle import LineError, parse_line, read_bundle
from ingest.document_version import DocumentInfo, DocumentVersion, PassageInput
from ingest.graphrag import GraphRagExport, label_for_type, read_graphrag
from ingest.graphrag_tables import NotGraphRagOutput
from tests.support.graphrag_reindex import reindexed

DATA = Path(__file__).resolve().parent.parent / "data"


def uid(kind: int, n: int) -> str:
    """A canonical UUID per (kind, n), so tests can name ids."""
    return f"00000000-0000-4000-{8000 + kind:04x}-{n:012x}"


def assert_references_resolve(versions: Iterable[DocumentVersion]) -> None:
    """Each line refers only to what it or an earlier line writes (contract §10)."""
    passages: set[str] = set()
    entities: set[str] = set()
    for number, version in enumerate(versions):
        passages |= {p.id for p in version.passages}
        entities |= {e.id for e in version.entities}
        assert set(version.external_passage_ids()) <= passages, f"line {number}"
        assert set(version.external_entity_ids()) <= entities, f"line {number}"


# --- the three GraphRAG datasets -------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    documents: int
    passages: int
    entities: int
    relations: int
    unresolved: int
    labels: Counter[str]


DATASETS = {
    "graphrag-operation-dulce": Expected(
        1, 5, 39, 105, 2, Counter(Geo=13, Event=11, Organization=8, Person=7)
    ),
    "graphrag-v1-two-documents": Expected(
        2, 38, 373, 812, 0, Counter(Event=184, Geo=60, Person=49, Thing=48, Organization=32)
    ),
    "graphrag-christmas-carol": Expected(
        1, 42, 529, 894, 84, Counter(Person=209, Geo=152, Event=97, Organization=71)
    ),
}

_exports: dict[str, GraphRagExport] = {}


def export_of(name: str) -> GraphRagExport:
    if name not in _exports:
        _exports[name] = read_graphrag(DATA / name, "acme")
    return _exports[name]


def distinct_entities(export: GraphRagExport) -> dict[str, tuple[str, ...]]:
    return {e.id: e.labels for v in export.versions for e in v.entities}


@pytest.mark.parametrize("name", DATASETS)
def test_graphrag_dataset_maps_to_expected_counts_and_labels(name: str) -> None:
    expected, export = DATASETS[name], export_of(name)
    assert len(export.versions) == expected.documents
    assert sum(len(v.passages) for v in export.versions) == expected.passages
    assert len(distinct_entities(export)) == expected.entities
    assert sum(len(v.relations) for v in export.versions) == expected.relations
    assert Counter(label for labels in distinct_entities(export).values() for label in labels) == (
        expected.labels
    )
    assert export.counts["documents"] == expected.documents
    assert export.counts["passages"] == expected.passages
    assert export.counts["entities"] == expected.entities
    assert export.counts["relations"] == expected.relations
    assert export.counts["relationships_unresolved"] == expected.unresolved
    assert bool(export.warnings) == bool(expected.unresolved)
    assert {v.document.workspace for v in export.versions} == {"acme"}
    for version in export.versions:
        assert [p.position for p in version.passages] == list(range(len(version.passages)))
        assert {r.type for r in version.relations} == {"RELATED_TO"}


@pytest.mark.parametrize("name", DATASETS)
def test_graphrag_ids_are_canonical_deterministic_and_references_resolve(name: str) -> None:
    export = export_of(name)
    again = read_graphrag(DATA / name, "acme")
    assert again.versions == export.versions
    assert [v.content_hash() for v in again.versions] == [v.content_hash() for v in export.versions]
    for version in export.versions:
        ids = [version.document.id, *(p.id for p in version.passages)]
        ids += [i for e in version.entities for i in (e.id, *e.mentions)]
        ids += [i for r in version.relations for i in (r.id, r.source, r.target, *r.passage_ids)]
        assert all(is_canonical_uuid(i) for i in ids)
    assert_references_resolve(export.versions)


@pytest.mark.parametrize("name", DATASETS)
def test_graphrag_versions_are_valid_bundle_lines(name: str) -> None:
    for version in export_of(name).versions:
        parsed = parse_line(json.dumps(version.to_json()))
        # `sourceId` is no part of a bundle line: the rest reads back as it was.
        assert isinstance(parsed, DocumentVersion) and parsed.to_json() == version.to_json()


def entity_named(export: GraphRagExport, name: str, line: int = 0) -> Any:
    return next(e for e in export.versions[line].entities if e.name == name)


def test_dulce_mentions_map_to_the_right_passages() -> None:
    export = export_of("graphrag-operation-dulce")
    passages = export.versions[0].passages
    alex = entity_named(export, "ALEX MERCER")
    # A UUID already, made the workspace's all the same, and kept readable as its source id.
    assert alex.id == workspace_id("acme", "bbb2ad85-3d0b-4c26-b6f9-71ed76ee64bd", "entity")
    assert alex.source_id == "bbb2ad85-3d0b-4c26-b6f9-71ed76ee64bd"
    assert alex.labels == ("Person",)
    assert alex.mentions == tuple(p.id for p in passages)  # all five text units
    base = entity_named(export, "DULCE BASE")
    assert base.mentions == tuple(passages[i].id for i in (1, 2, 3))
    assert passages[0].text.startswith("# Operation: Dulce")


def test_christmas_carol_hex_ids_are_derived_deterministically() -> None:
    export = export_of("graphrag-christmas-carol")
    first_unit = (
        "f5b3fc5174b1a578f353e3c6341d6059b8c1b0fb837762000649f144be2692dc"
        "899f64ffb7b793f34d9f46b933c51720e5b1e91b5ab87bcf2e6fa8a0dce50fc0"
    )
    passage = export.versions[0].passages[0]
    assert canonical_id(first_unit, "text_unit") == "ed249dc6-c1ab-5da9-890b-43c63d9eee6a"
    assert passage.source_id == first_unit
    assert entity_named(export, "CHARLES DICKENS").mentions == (passage.id,)


def test_a_reindexed_document_with_a_changed_entity_gets_new_passage_ids_and_the_others_keep_theirs(
    tmp_path: Path,
) -> None:
    before = export_of("graphrag-v1-two-documents")
    first = {e.id for e in before.versions[0].entities}
    changed = next(e for e in before.versions[1].entities if e.id not in first)
    folder = reindexed(
        DATA / "graphrag-v1-two-documents",
        tmp_path,
        entities={str(changed.source_id): "Described anew by a re-index."},
    )
    after = read_graphrag(folder, "acme")
    # The first document holds nothing that changed: the same line, ids and content hash.
    assert after.versions[0] == before.versions[0]
    assert after.versions[0].content_hash() == before.versions[0].content_hash()
    # The second: the same text units (sourceId), new passage ids, mentions and support.
    old, new = before.versions[1], after.versions[1]
    assert [p.source_id for p in new.passages] == [p.source_id for p in old.passages]
    assert [p.text for p in new.passages] == [p.text for p in old.passages]
    assert not {p.id for p in new.passages} & {p.id for p in old.passages}
    assert new.content_hash() != old.content_hash()
    assert [e.id for e in new.entities] == [e.id for e in old.entities]
    assert [r.id for r in new.relations] == [r.id for r in old.relations]
    assert_references_resolve(after.versions)
    own = {p.id for p in new.passages}
    assert {m for e in new.entities for m in e.mentions} <= own


def test_a_reindexed_relationship_description_changes_its_documents_passage_ids(
    tmp_path: Path,
) -> None:
    before = export_of("graphrag-operation-dulce")
    relation = before.versions[0].relations[0]
    folder = reindexed(
        DATA / "graphrag-operation-dulce",
        tmp_path,
        relationships={str(relation.source_id): "Said anew."},
    )
    [after] = read_graphrag(folder, "acme").versions
    assert after.relations[0].properties["description"] == "Said anew."
    assert not {p.id for p in after.passages} & {p.id for p in before.versions[0].passages}


def test_relationship_keeps_description_weight_and_support() -> None:
    export = export_of("graphrag-operation-dulce")
    alex = entity_named(export, "ALEX MERCER")
    relation = next(r for r in export.versions[0].relations if r.source == alex.id)
    assert relation.id == workspace_id(
        "acme", "7c9039f8-43d7-4685-a317-f7bbbfac8e3a", "relationship"
    )
    assert relation.target == entity_named(export, "PARANORMAL MILITARY SQUAD").id
    assert relation.properties["weight"] == 17.0
    assert str(relation.properties["description"]).startswith("Alex Mercer is a prominent")
    assert relation.passage_ids


def test_v1_layout_empty_types_become_thing_and_documents_keep_their_order() -> None:
    export = export_of("graphrag-v1-two-documents")
    assert export.versions[0].document.title == "dulce.txt"  # human_readable_id 1
    entities = [e for v in export.versions for e in v.entities]
    assert sum(1 for e in entities if e.labels == ("Thing",)) >= 48
    assert len({e.id for e in entities if e.description is None}) == 48
    # Text units are ordered by human_readable_id, not file order (the podcast comes first).
    assert export.versions[0].passages[0].text.startswith("# Operation: Dulce")


def test_v1_entity_in_two_documents_is_in_both_lines_with_each_ones_mentions() -> None:
    export = export_of("graphrag-v1-two-documents")
    first, second = ({e.id: e for e in v.entities} for v in export.versions)
    shared = first.keys() & second.keys()
    assert {first[i].name for i in shared} == {"ALHAMIA PRISON", "CONVERSATION"}
    for number, version in enumerate(export.versions):
        own = {p.id for p in version.passages}
        assert all(set(e.mentions) <= own for e in version.entities), number


@pytest.mark.parametrize(
    ("entity_type", "label"),
    [
        ("PERSON", "Person"),
        ("GEO", "Geo"),
        ("ORGANIZATION", "Organization"),
        ("event type", "Event_Type"),
        ("NATIONAL_PARK", "National_Park"),
        ("ORGANIZATION/GROUP", "Organization_Group"),
        ("  ORGANIZATION -- GROUP ", "Organization_Group"),
        ("PERSONNE_ÉTRANGÈRE", "Personne_Trang_Re"),
        ("3D MODEL", "Extracted3d_Model"),
        ("x" * 150, "X" + "x" * 99),
        ("/`\\u0060", "U0060"),
        ("  ", "Thing"),
        ("/", "Thing"),
        ("", "Thing"),
        (None, "Thing"),
    ],
)
def test_label_for_type(entity_type: str | None, label: str) -> None:
    assert label_for_type(entity_type) == label


# --- GraphRAG edge cases, on small folders written here ---------------------------------------


def write_table(folder: Path, name: str, columns: dict[str, list[Any]]) -> None:
    pq.write_table(pa.table(columns), folder / f"{name}.parquet")


def messy_folder(folder: Path) -> Path:
    """1.x names; documents out of file order; cross-document data with every flaw handled."""
    write_table(
        folder,
        "create_final_documents",
        {"id": ["doc-b", "doc-a"], "human_readable_id": [2, 1], "title": ["B", "A"]},
    )
    write_table(  # no human_readable_id: file order
        folder,
        "create_final_text_units",
        {
            "id": ["tu-a1", "tu-b1", "tu-a2", "tu-x", "tu-orphan"],
            "text": ["a one", "b one", "a two", "both", "lost"],
            "document_ids": [["doc-a"], ["doc-b"], ["doc-a"], ["doc-b", "doc-a"], ["nope"]],
        },
    )
    write_table(
        folder,
        "create_final_entities",
        {
            "id": ["9A062709-56DD-4BF2-8B41-926124B7A6F7", "beta", "gamma", "alpha-2"],
            "title": ["ALPHA", "BETA", "GAMMA", "ALPHA"],
            "type": ["PERSON", "event type", None, "DOCUMENT"],
            "description": ["first", "", None, "second"],
            "text_unit_ids": [["tu-a1", "tu-b1"], ["tu-b1"], [], ["tu-a2", "ghost"]],
            "description_embedding": [[0.1], [0.2], [0.3], [0.4]],
        },
    )
    write_table(
        folder,
        "create_final_relationships",
        {
            "id": ["r1", "r2", "r3", "r4", "r1"],
            "source": ["ALPHA", "GAMMA", "ALPHA", "BETA", "ALPHA"],
            "target": ["GAMMA", "BETA", "NOBODY", "ALPHA", "BETA"],
            "description": ["a-g", "g-b", "a-n", "b-a", "dup"],
            "weight": [1.0, 2.0, 3.0, float("nan"), 5.0],
            "text_unit_ids": [["tu-a1"], ["tu-a1"], [], [], []],
        },
    )
    return folder


def test_messy_cross_document_folder(tmp_path: Path) -> None:
    export = read_graphrag(messy_folder(tmp_path), "acme")
    first, second = export.versions
    assert (first.document.title, second.document.title) == ("A", "B")
    assert [p.text for p in first.passages] == ["a one", "a two", "both"]  # tu-x: first doc
    assert [p.text for p in second.passages] == ["b one"]

    def names(version: DocumentVersion) -> list[tuple[str, tuple[str, ...]]]:
        return [(e.name, e.labels) for e in version.entities]

    # an uppercase UUID: its canonical form, the workspace's
    alpha_id = workspace_id("acme", "9a062709-56dd-4bf2-8b41-926124b7a6f7", "entity")
    assert names(first) == [
        ("ALPHA", ("Person",)),
        ("GAMMA", ("Thing",)),  # no mentions: the first line
        ("ALPHA", ("ExtractedDocument",)),  # a graph-owned type keeps its meaning
    ]
    alpha, gamma, alpha_2 = first.entities
    assert alpha.id == alpha_id and alpha.mentions == (first.passages[0].id,)
    assert gamma.mentions == () and gamma.description is None
    assert alpha_2.mentions == (first.passages[1].id,)  # "ghost" dropped
    assert names(second) == [("ALPHA", ("Person",)), ("BETA", ("Event_Type",))]
    assert [e.mentions for e in second.entities] == [(second.passages[0].id,)] * 2
    assert second.entities[1].description is None  # empty in GraphRAG

    relations = {
        r.properties["description"]: (line, r)
        for line, v in enumerate(export.versions)
        for r in v.relations
    }
    assert set(relations) == {"a-g", "g-b", "b-a"}
    assert relations["a-g"][0] == 0 and relations["a-g"][1].target == gamma.id
    line, g_b = relations["g-b"]  # support in A, but BETA first appears in B
    assert line == 1 and g_b.passage_ids == (first.passages[0].id,)
    assert second.external_passage_ids() == (first.passages[0].id,)
    assert second.external_entity_ids() == (gamma.id,)
    line, b_a = relations["b-a"]
    assert line == 1 and b_a.passage_ids == () and "weight" not in b_a.properties  # NaN
    assert b_a.target == alpha_id  # the title collision resolves to the first ALPHA
    assert_references_resolve(export.versions)

    assert {key: n for key, n in export.counts.items() if n} == {
        "documents": 2,
        "passages": 4,
        "entities": 4,
        "relations": 3,
        "relationships_unresolved": 1,
        "title_collisions": 1,
        "references_dropped": 1,
        "text_units_without_document": 1,
        "text_units_in_several_documents": 1,
        "duplicate_ids": 1,
        "labels_renamed": 1,
    }
    text = "\n".join(export.warnings)
    for example in ("ALPHA -> NOBODY", "ghost", "tu-orphan", "tu-x", "relationship r1"):
        assert example in text


def test_graphrag_without_human_readable_ids_keeps_file_order(tmp_path: Path) -> None:
    write_table(tmp_path, "documents", {"id": ["d2", "d1"]})
    write_table(
        tmp_path,
        "text_units",
        {"id": ["t3", "t1", "t2"], "text": ["3", "1", "2"], "document_id": ["d1", "d2", "d1"]},
    )
    write_table(tmp_path, "entities", {"id": ["e"], "title": ["E"]})
    write_table(
        tmp_path, "relationships", {"id": pa.array([], pa.string()), "source": [], "target": []}
    )
    export = read_graphrag(tmp_path, "w")
    assert [[p.text for p in v.passages] for v in export.versions] == [["1"], ["3", "2"]]
    assert export.versions[0].entities[0].mentions == ()  # no mentions: first line


def test_graphrag_layout_is_read_from_the_files_present(tmp_path: Path) -> None:
    for name in ("documents", "text_units", "entities", "relationships"):
        shutil.copy(DATA / "graphrag-operation-dulce" / f"{name}.parquet", tmp_path)
    write_table(tmp_path, "create_final_documents", {"id": ["stale"]})
    export = read_graphrag(tmp_path, "acme")
    assert export.versions == export_of("graphrag-operation-dulce").versions
    assert export.warnings[0] == (
        "both documents.parquet and create_final_documents.parquet exist; read documents.parquet"
    )


def test_not_a_graphrag_folder_lists_everything_missing(tmp_path: Path) -> None:
    with pytest.raises(NotGraphRagOutput) as empty:
        read_graphrag(tmp_path, "w")
    for name in ("documents", "text_units", "entities", "relationships"):
        expected = f"no {name} table ({name}.parquet or create_final_{name}.parquet)"
        assert expected in str(empty.value)

    write_table(tmp_path, "documents", {"name": ["x"]})
    write_table(tmp_path, "text_units", {"id": ["t"], "text": ["x"]})
    write_table(tmp_path, "entities", {"id": ["e"], "label": ["x"]})
    (tmp_path / "relationships.parquet").write_text("not parquet")
    with pytest.raises(NotGraphRagOutput) as wrong:
        read_graphrag(tmp_path, "w")
    message = str(wrong.value)
    assert "documents.parquet has no column id" in message
    assert "text_units.parquet has no column document_id or document_ids" in message
    assert "entities.parquet has no column title or name" in message
    assert "relationships.parquet cannot be read as parquet" in message

    with pytest.raises(NotGraphRagOutput, match="is not a folder"):
        read_graphrag(tmp_path / "absent", "w")
    with pytest.raises(ValueError, match="workspace"):
        read_graphrag(DATA / "graphrag-operation-dulce", " ")


# --- bundle lines ---------------------------------------------------------------------------


def good_line(n: int) -> dict[str, Any]:
    return {
        "document": {"id": uid(1, n), "workspace": "acme", "title": f"doc {n}"},
        "passages": [{"id": uid(2, n), "position": 0, "text": "Ann met Bob."}],
        "entities": [
            {"id": uid(3, n), "labels": ["Person"], "name": "Ann", "mentions": [uid(2, n)],
             "embedding": [0.5, -0.5, 0.0]},
            {"id": uid(4, n), "labels": ["Person"], "name": "Bob", "mentions": [uid(2, n)]},
        ],
        "relations": [
            {"id": uid(5, n), "type": "KNOWS", "source": uid(3, n), "target": uid(4, n),
             "passageIds": [uid(2, n)], "properties": {"since": 2020}},
        ],
    }  # fmt: skip


def mutated(change: Callable[[dict[str, Any]], object]) -> str:
    line = good_line(99)
    change(line)
    return json.dumps(line)


def _set(path: str, value: object) -> Callable[[dict[str, Any]], object]:
    """A change that sets `a.b.0.c` in a line to `value`."""

    def change(line: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = line
        for key in parents:
            target = target[int(key)] if key.isdigit() else target[key]
        if last.isdigit():
            target[int(last)] = value
        else:
            target[last] = value

    return change


BAD_LINES: dict[str, tuple[str, str]] = {
    "invalid JSON": ('{"document": ', "invalid JSON at character 14: Expecting value"),
    "NaN": ('{"a": NaN}', "invalid JSON: NaN is not a JSON value"),
    "not an object": ("[1, 2]", "line: must be an object, got an array"),
    "unknown field": (mutated(_set("extra", 1)), "extra: unknown field"),
    "missing passages": (mutated(lambda line: line.pop("passages")), "passages: is missing"),
    "missing document id": (
        mutated(lambda line: line["document"].pop("id")),
        "document.id: is missing",
    ),
    "empty workspace": (mutated(_set("document.workspace", "")), "document.workspace: is empty"),
    "ill-typed position": (
        mutated(_set("passages.0.position", "0")),
        'passages[0].position: must be a non-negative integer, got the string "0"',
    ),
    "ill-typed text": (
        mutated(_set("passages.0.text", None)),
        "passages[0].text: must be a string, got null",
    ),
    "uppercase id": (
        mutated(_set("passages.0.id", uid(2, 99).upper())),
        f'passages[0].id: "{uid(2, 99).upper()}" is not a canonical lowercase UUID',
    ),
    "bad mention": (
        mutated(_set("entities.1.mentions.0", "abc")),
        'entities[1].mentions[0]: "abc" is not a canonical lowercase UUID',
    ),
    "duplicate entity": (
        mutated(_set("entities.1.id", uid(3, 99))),
        f'entities[1].id: "{uid(3, 99)}" repeats entities[0].id',
    ),
    "duplicate position": (
        mutated(lambda line: line["passages"].append({**line["passages"][0], "id": uid(6, 1)})),
        "passages[1].position: 0 repeats passages[0].position",
    ),
    "owned label": (
        mutated(_set("entities.0.labels", ["Person", "Chunk"])),
        'entities[0].labels[1]: "Chunk" is a graph-owned label',
    ),
    "empty label": (mutated(_set("entities.0.labels.0", " ")), "entities[0].labels[0]: is empty"),
    "no labels": (
        mutated(_set("entities.0.labels", [])),
        "entities[0].labels: is empty; an entity needs at least one label",
    ),
    "owned type": (
        mutated(_set("relations.0.type", "MENTIONED_IN")),
        'relations[0].type: "MENTIONED_IN" is a graph-owned relation type',
    ),
    "missing target": (
        mutated(lambda line: line["relations"][0].pop("target")),
        "relations[0].target: is missing",
    ),
    "infinite embedding": (
        mutated(_set("entities.0.embedding.1", 1e400)).replace("Infinity", "1e400"),
        "entities[0].embedding[1]: Infinity is not a finite number",
    ),
    "text in embedding": (
        mutated(_set("entities.0.embedding.2", "x")),
        'entities[0].embedding[2]: "x" is not a finite number',
    ),
    "short embedding": (
        mutated(_set("entities.0.embedding", [1.0, 2.0])),
        "entities[0].embedding: has 2 numbers, expected 3",
    ),
    "reserved property": (
        mutated(_set("relations.0.properties", {"id": "x"})),
        "relations[0].properties.id: is a property the write path sets itself",
    ),
}


@pytest.mark.parametrize("kind", BAD_LINES)
def test_bundle_line_error_is_named_with_its_field(kind: str) -> None:
    text, reason = BAD_LINES[kind]
    result = parse_line(text, dimensions=3)
    assert isinstance(result, LineError)
    assert reason in result.reason


def test_bundle_reports_bad_lines_by_number_and_keeps_the_good_ones(tmp_path: Path) -> None:
    path = tmp_path / "bundle.jsonl"
    with path.open("wb") as out:
        out.write(b"\xef\xbb\xbf" + json.dumps(good_line(0)).encode() + b"\r\n")
        for n, (text, _) in enumerate(BAD_LINES.values(), start=1):
            out.write(text.encode() + b"\n" + json.dumps(good_line(n)).encode() + b"\n\n")
        out.write(b'{"document": "\xff"}\n' + json.dumps(good_line(999)).encode())
    results = list(read_bundle(path, dimensions=3))
    errors = {number: r.reason for number, r in results if isinstance(r, LineError)}
    versions = {number: r for number, r in results if isinstance(r, DocumentVersion)}
    bad = len(BAD_LINES)
    assert sorted(errors) == [2 + 3 * i for i in range(bad)] + [2 + 3 * bad]
    for i, (_, reason) in enumerate(BAD_LINES.values()):
        assert reason in errors[2 + 3 * i]
    assert errors[2 + 3 * bad] == "not valid UTF-8 (byte 15 of the line)"
    assert sorted(versions) == [1] + [3 + 3 * i for i in range(bad)] + [3 + 3 * bad]
    assert versions[1] == parse_line(json.dumps(good_line(0)), dimensions=3)


def test_bundle_line_round_trips_and_names_its_external_references() -> None:
    line = good_line(1)
    line["relations"].append(
        {"id": uid(5, 2), "type": "KNOWS", "source": uid(3, 1), "target": uid(9, 9),
         "passageIds": [uid(8, 8), uid(2, 1)]}
    )  # fmt: skip
    line["entities"][1]["mentions"].append(uid(8, 7))
    version = parse_line(json.dumps(line), dimensions=3)
    assert isinstance(version, DocumentVersion)
    assert version.external_entity_ids() == (uid(9, 9),)
    assert version.external_passage_ids() == (uid(8, 7), uid(8, 8))
    assert version.relations[1].passage_ids == (uid(8, 8), uid(2, 1))
    assert version.relations[0].properties == {"since": 2020}
    assert version.entities[0].embedding == (0.5, -0.5, 0.0)
    assert version.entities[1].embedding is None
    assert parse_line(json.dumps(version.to_json()), dimensions=3) == version


def test_content_hash_is_stable_and_covers_embeddings() -> None:
    line = good_line(7)
    version = parse_line(json.dumps(line))
    assert isinstance(version, DocumentVersion)
    reordered = {key: line[key] for key in reversed(list(line))}
    reordered["document"] = {**line["document"], "uri": None}  # null and absent mean the same
    again = parse_line(json.dumps(reordered, sort_keys=True))
    assert isinstance(again, DocumentVersion) and again.content_hash() == version.content_hash()
    changed = copy.deepcopy(line)
    changed["entities"][0]["embedding"][0] = 0.25
    other = parse_line(json.dumps(changed))
    assert isinstance(other, DocumentVersion) and other.content_hash() != version.content_hash()


def test_content_hash_is_sha256_of_the_canonical_line() -> None:
    version = DocumentVersion(
        DocumentInfo(uid(1, 1), "w"),
        [PassageInput(uid(2, 1), 0, "é", embedding=(1.0, 0.5))],
        [],
        [],
    )
    canonical = (
        f'{{"document":{{"id":"{uid(1, 1)}","workspace":"w"}},"entities":[],'
        f'"passages":[{{"embedding":[1.0,0.5],"id":"{uid(2, 1)}","position":0,"text":"é"}}],'
        '"relations":[]}'
    )
    assert version.content_hash() == hashlib.sha256(canonical.encode()).hexdigest()


# Bounded, not small: the bundle is five times the peak the reader may reach, so a reader that
# held the file (or its lines, or its versions) would pass the bound several times over; more
# lines would only add time (100,000 took 35 s of CPU under tracemalloc).
LINES = 20_000


def test_a_bundle_is_streamed_in_memory_bounded_below_its_size(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    template = (
        '{"document": {"id": "00000000-0000-4000-8001-%012x", "workspace": "w"},'
        ' "passages": [{"id": "00000000-0000-4000-8002-%012x", "position": 0, "text": "%s"}]}\n'
    )
    with path.open("w") as out:
        out.writelines(template % (n, n, "lorem ipsum " * 10) for n in range(LINES))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        count = 0
        for _, result in read_bundle(path):
            assert isinstance(result, DocumentVersion)
            count += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == LINES
    assert size > 5_000_000
    assert peak < 1_000_000, f"peak {peak} bytes while reading a {size}-byte bundle"
