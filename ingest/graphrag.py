"""A Microsoft GraphRAG output folder as document versions (contract §10), without a database.

contract §10: each document is one job in workspace `--workspace` (default `default`) whose
passages are its text units in `human_readable_id` order; an entity's `type` in title case is
its label (`PERSON` → `Person`, `GEO` → `Geo`; runs of other characters become one `_`,
`ORGANIZATION/GROUP` → `Organization_Group`; no type → `Thing`), its `title` its name, its
`text_unit_ids` its mentions; a relationship is a `RELATED_TO` relation between the entities its
`source`/`target` titles name, keeping `description` and `weight`, with `text_unit_ids` as
`passageIds`. Every id taken from the folder (document, text unit, entity, relationship) is
made per workspace: a UUID5 of the workspace and the file's id, even when that is a canonical
UUID (contract §2 "Ownership"), so the same folder loads into two workspaces side by side; the
file's own id is kept as `sourceId`.

A passage's id also takes the fingerprint of its document's line: GraphRAG keeps a text unit's
id when it re-indexes a document (an incremental update does), yet the document's line is new
when its entities or relations changed, and a new version needs passage ids no stored passage
has (contract §2). So each line's passage ids are a UUID5 of the workspace, the text unit's id
and the content hash of the line as drafted with its text units' own ids
(`contract.identifiers.content_workspace_id`): an unchanged document gets the same ids and the
same content hash, and the loader finds it unchanged; a changed one gets new ids and loads as
its next version. Entities and relations keep their ids across versions (an entity that stays
is the same entity).

Across documents a line may only refer to what it or an earlier line writes (an id that
exists nowhere makes the line invalid), so documents go in GraphRAG's order; an entity
goes in every line whose passages mention it, with those mentions only (entities merge by id),
or in the first line when nothing mentions it; a relation goes in the last line that one of its
passages, or the first line of one of its ends, needs. What real GraphRAG output gets wrong is
not fatal: it is skipped or resolved deterministically, counted and reported as a warning.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from contract.arguments import MAX_NAME_LENGTH
from contract.graph_owned import GRAPH_OWNED_LABELS
from contract.identifiers import content_workspace_id, workspace_id
from contract.relation_claims import DESCRIPTION, WEIGHT, description_problem, weight_problem
from ingest.content_ids import with_content_ids
from ingest.document_version import (
    DocumentInfo,
    DocumentVersion,
    EntityInput,
    PassageInput,
    PropertyValue,
    RelationInput,
)
from ingest.graphrag_tables import locate_tables
from ingest.import_warnings import Tally

RELATION_TYPE = "RELATED_TO"
UNTYPED_LABEL = "Thing"
# A type that would be a graph-owned label (`DOCUMENT`) keeps its meaning under this prefix.
OWNED_LABEL_PREFIX = "Extracted"
# contract §10's letters and digits; labels are written into schema commands, where only ASCII
# letters, digits and `_` may go (graph/cypher_names.py), so other letters count as "other".
_WORD = re.compile(r"[A-Za-z0-9]+")


@dataclass(frozen=True, slots=True)
class GraphRagExport:
    versions: list[DocumentVersion]  # one per document, in GraphRAG's order
    warnings: list[str]
    counts: dict[str, int]  # documents, passages, entities, relations, and each warning's


def label_for_type(entity_type: str | None) -> str:
    """An entity type as a label (contract §10): its words (runs of ASCII letters and digits) in
    title case, joined by `_`; none → `Thing`. A label must start with a letter, so one whose
    first word starts with a digit takes the prefix `Extracted`.

    >>> [label_for_type(t) for t in ("PERSON", "ORGANIZATION/GROUP", "3d model", "", None)]
    ['Person', 'Organization_Group', 'Extracted3d_Model', 'Thing', 'Thing']
    """
    words = _WORD.findall(entity_type or "")
    label = "_".join(word[:1].upper() + word[1:].lower() for word in words)
    if label[:1].isdigit():
        label = OWNED_LABEL_PREFIX + label
    return label[:MAX_NAME_LENGTH].rstrip("_") or UNTYPED_LABEL


def read_graphrag(folder: Path, workspace: str) -> GraphRagExport:
    """Map `folder`; `NotGraphRagOutput` when it lacks a table or column the mapping needs."""
    if not workspace.strip():
        raise ValueError("the workspace must not be empty")
    tables = locate_tables(folder)
    tally = Tally(notes=list(tables.notes))
    ids = _Ids(workspace, tally)
    documents = _documents(tables.documents.rows(), ids)
    passages, homes = _passages(tables.text_units.rows(), documents, ids)
    entities, by_title = _entities(tables.entities.rows(), homes, ids)
    relations = _relations(tables.relationships.rows(), by_title, homes, ids)
    if not documents:
        for _ in [*entities, *relations]:
            tally.add("without_document", "the documents table is empty")
        entities, relations = [], []
    entity_lines: list[list[EntityInput]] = [[] for _ in documents]
    for entity in entities:
        for home in sorted(entity.mentions) or [0]:
            mentions = tuple(entity.mentions.get(home, ()))
            entity_lines[home].append(replace(entity.input, mentions=mentions))
    relation_lines: list[list[RelationInput]] = [[] for _ in documents]
    for line, relation in relations:
        relation_lines[line].append(relation)
    drafts = [
        DocumentVersion(info, passages[i], entity_lines[i], relation_lines[i])
        for i, info in enumerate(documents)
    ]
    versions = with_content_ids(
        drafts, lambda passage, fingerprint: ids.passage(passage.source_id or "", fingerprint)
    )
    counts = {
        "documents": len(versions),
        "passages": sum(len(version.passages) for version in versions),
        "entities": len(entities),
        "relations": len(relations),
        **tally.counts(),
    }
    return GraphRagExport(versions, tally.warnings(), counts)


@dataclass(frozen=True, slots=True)
class _Entity:
    input: EntityInput  # without mentions: each line gets its own
    mentions: dict[int, list[str]]  # document index -> passage ids
    first: int  # the first line the entity is written in


@dataclass(frozen=True, slots=True)
class _Ids:
    """The folder's ids as the workspace's (contract §2: derived per workspace)."""

    workspace: str
    tally: Tally

    def of(self, value: object, kind: str) -> str:
        return workspace_id(self.workspace, str(value), kind)

    def passage(self, text_unit_id: str, fingerprint: str) -> str:
        """A text unit's passage id in the version whose draft has `fingerprint`."""
        return content_workspace_id(self.workspace, text_unit_id, "text_unit", fingerprint)

    def new(self, row: dict[str, Any], kind: str, seen: Container[str]) -> str | None:
        """The row's id, or None (counted) if it has none or repeats one."""
        what = kind.replace("_", " ")
        if row["id"] is None:
            self.tally.add("rows_without_id", f"a {what}")
            return None
        new_id = self.of(row["id"], kind)
        if new_id in seen:
            self.tally.add("duplicate_ids", f"{what} {row['id']}")
            return None
        return new_id


def _documents(rows: list[dict[str, Any]], ids: _Ids) -> list[DocumentInfo]:
    documents: dict[str, DocumentInfo] = {}
    for row in rows:
        document_id = ids.new(row, "document", documents)
        if document_id is None:
            continue
        title = row["title"] if isinstance(row["title"], str) and row["title"] else None
        documents[document_id] = DocumentInfo(
            document_id, ids.workspace, title, source_id=str(row["id"])
        )
    return list(documents.values())


def _passages(
    rows: list[dict[str, Any]], documents: list[DocumentInfo], ids: _Ids
) -> tuple[list[list[PassageInput]], dict[str, int]]:
    """Each document's passages, and the document index of every passage id."""
    index = {document.id: position for position, document in enumerate(documents)}
    passages: list[list[PassageInput]] = [[] for _ in documents]
    homes: dict[str, int] = {}
    tally = ids.tally
    for row in rows:
        passage_id = ids.new(row, "text_unit", homes)
        if passage_id is None:
            continue
        named = row["document_ids"]
        named = [named] if isinstance(named, str) else list(named or [])
        found = sorted({index[d] for d in _ids(named, "document", ids) if d in index})
        if not found:
            tally.add("text_units_without_document", str(row["id"]))
            continue
        if len(found) > 1:
            tally.add("text_units_in_several_documents", str(row["id"]))
        home = found[0]  # a passage belongs to one document: the first that names it
        text = row["text"] if isinstance(row["text"], str) else ""
        passages[home].append(
            PassageInput(passage_id, len(passages[home]), text, source_id=str(row["id"]))
        )
        homes[passage_id] = home
    return passages, homes


def _entities(
    rows: list[dict[str, Any]], homes: dict[str, int], ids: _Ids
) -> tuple[list[_Entity], dict[str, _Entity]]:
    """Every entity in table order, and the entity each title names (the first to bear it)."""
    entities: dict[str, _Entity] = {}
    by_title: dict[str, _Entity] = {}
    tally = ids.tally
    for row in rows:
        entity_id, title = ids.new(row, "entity", entities), row["title"]
        if entity_id is None:
            continue
        if not isinstance(title, str) or not title:
            tally.add("rows_without_id", f"entity {row['id']} (no title)")
            continue
        mentions: dict[int, list[str]] = {}
        for passage_id in _known(row["text_unit_ids"], homes, ids):
            mentions.setdefault(homes[passage_id], []).append(passage_id)
        description = row["description"]
        entity = _Entity(
            EntityInput(
                id=entity_id,
                labels=(_label(row["type"], tally),),
                name=title,
                description=description if isinstance(description, str) and description else None,
                source_id=str(row["id"]),
            ),
            mentions,
            first=min(mentions, default=0),
        )
        entities[entity_id] = entity
        if title in by_title:
            tally.add("title_collisions", title)
        else:
            by_title[title] = entity
    return list(entities.values()), by_title


def _relations(
    rows: list[dict[str, Any]], by_title: dict[str, _Entity], homes: dict[str, int], ids: _Ids
) -> list[tuple[int, RelationInput]]:
    """Every relation that resolves, with the line it goes in."""
    relations: dict[str, tuple[int, RelationInput]] = {}
    tally = ids.tally
    for row in rows:
        relation_id = ids.new(row, "relationship", relations)
        if relation_id is None:
            continue
        source, target = by_title.get(row["source"]), by_title.get(row["target"])
        if source is None or target is None:
            tally.add("relationships_unresolved", f"{row['source']} -> {row['target']}")
            continue
        support = _known(row["text_unit_ids"], homes, ids)
        properties: dict[str, PropertyValue] = {}
        description = row["description"]
        if isinstance(description, str) and description:
            if description_problem(description) is None:
                properties[DESCRIPTION] = description
            else:
                tally.add("relation_descriptions_dropped", f"{row['source']} -> {row['target']}")
        weight = row["weight"]
        if weight_problem(weight) is None:
            properties[WEIGHT] = weight
        relation = RelationInput(
            relation_id,
            RELATION_TYPE,
            source.input.id,
            target.input.id,
            passage_ids=tuple(support),
            properties=properties,
            source_id=str(row["id"]),
        )
        line = max([source.first, target.first, *(homes[p] for p in support)])
        relations[relation_id] = (line, relation)
    return list(relations.values())


def _known(text_unit_ids: Iterable[str] | None, homes: dict[str, int], ids: _Ids) -> list[str]:
    """The passage ids of these text units, in order, once each; unknown ones are dropped."""
    known: dict[str, None] = {}  # ordered, unique
    for value in text_unit_ids or []:
        passage_id = ids.of(value, "text_unit")
        if passage_id in homes:
            known[passage_id] = None
        else:
            ids.tally.add("references_dropped", str(value))
    return list(known)


def _ids(values: Iterable[Any], kind: str, ids: _Ids) -> list[str]:
    return [ids.of(value, kind) for value in values if value is not None]


def _label(entity_type: object, tally: Tally) -> str:
    label = label_for_type(entity_type if isinstance(entity_type, str) else None)
    if label in GRAPH_OWNED_LABELS:
        tally.add("labels_renamed", f"{entity_type} -> {OWNED_LABEL_PREFIX}{label}")
        label = OWNED_LABEL_PREFIX + label
    return label
