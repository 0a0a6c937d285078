"""LangChain graph documents (`GraphDocument.model_dump()`, as JSON) as document versions.

A LangChain `GraphDocument` is what `LLMGraphTransformer` (and the Diffbot, GLiNER and Relik
transformers) make of one chunk of text: `nodes` (`id`, `type`, `properties`), `relationships`
(`source` and `target` nodes, `type`, `properties`) and `source`, the chunk as a LangChain
`Document` (`page_content`, `metadata`, `id`). LangChain has no file format for them (its
maintainers declined one); users write `[gd.model_dump() for gd in graph_documents]` with
`json.dump`, or one `gd.model_dump_json()` per line. Both are read here: a file that is one JSON
array holds a record per element, anything else is JSON Lines; records are numbered from 1
(array position, or line number).

The mapping to the bundle's rules (contract §10), in the words `Neo4jGraph.add_graph_documents`
gives the same data:

- a document is every record whose `source.metadata["source"]` (the file or URL a LangChain
  loader names) is the same, in file order; a record without one is a document of its own.
  Each document is one job in workspace `--workspace`; its title is `metadata["title"]`, else
  the source, and its uri the source.
- each record's `source` is one passage of its document, at the next position; its id is
  derived (UUID5) from the workspace and `source.id`, or from the workspace, the document,
  position and text when there is none.
- a node is an entity with its `type` as label: kept when it already is a label (letters,
  digits and `_`, starting with a letter), else its words joined in title case (`historical
  event` → `HistoricalEvent`); a type that yields no label starting with a letter refuses the
  record. Its name is `properties["name"]` (Diffbot) or its `id` (LLMGraphTransformer), its
  description `properties["description"]`. Its id is a UUID5 of the workspace, label and node
  `id` (`add_graph_documents` merges on label and `id`; the workspace keeps each workspace's
  "Acme Corp" its own, contract §2 "Ownership"). Every node of a record, relationship ends
  included, is mentioned by that record's passage.
- a relationship keeps its `type` when it is a relation type name, else its words joined by
  `_` in upper case (`works for` → `WORKS_FOR`, as LLMGraphTransformer writes them); its id is
  UUID5 of its ends and type, so the same statement made in two chunks is one relation with
  both passages as support (`passageIds`). Properties that are strings, numbers or booleans
  are kept; others are dropped, counted in a warning. A `description` and a `weight` are what
  the walk serves on the edge (`Edge.description`, `Edge.weight`), kept only as
  contract/relation_claims.py allows them (a string of bounded length, a finite number).

Every id is derived per workspace (`contract.identifiers.workspace_id`), so the same file
loads into two workspaces side by side; the file's own ids stay readable as `sourceId`: a
node's `id` on its entity, `source.id` on its passage, `metadata["source"]` on its document.

A record that cannot be read (not JSON, not a graph document, an empty node id, a type that is
no label) refuses its whole document, reported under the first bad record's number with every
reason: a document is one job, and loading it without one of its chunks would serve it with
text missing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contract.arguments import MAX_NAME_LENGTH
from contract.graph_owned import GRAPH_OWNED_LABELS, GRAPH_OWNED_RELATION_TYPES
from contract.identifiers import canonical_id, workspace_id
from contract.relation_claims import MAX_DESCRIPTION_CHARS, claim_problem, is_finite_number
from graph.cypher_names import is_load_name
from ingest.bundle import LineError
from ingest.bundle_checks import RESERVED_RELATION_PROPERTIES
from ingest.document_version import (
    DocumentInfo,
    DocumentVersion,
    EntityInput,
    PassageInput,
    PropertyValue,
    RelationInput,
)
from ingest.graphrag import OWNED_LABEL_PREFIX
from ingest.import_warnings import Tally

# contract §10's names (graph/cypher_names.py): an ASCII letter, then ASCII letters, digits, `_`
_WORD = re.compile(r"[A-Za-z0-9]+")
_BOM = "\ufeff"

MESSAGES: dict[str, str] = {
    "labels_mapped": (
        "{n} node(s) have a type that is not a label as it stands; its words were joined"
    ),
    "types_mapped": (
        "{n} relationship(s) have a type that is not a relation type name; its words were"
        " joined by _"
    ),
    "labels_renamed": (
        "{n} node(s) have a type that would be a graph-owned label; it was given the prefix "
        + OWNED_LABEL_PREFIX
    ),
    "properties_dropped": (
        "{n} relationship property(ies) dropped: not a string, number or boolean, a"
        " `description` that is not a string of at most "
        + f"{MAX_DESCRIPTION_CHARS:,}"
        + " characters or a `weight` that is not a finite number, or a name the write path"
        " sets itself"
    ),
}


class NotGraphDocuments(ValueError):
    """The file is not graph documents at all (a JSON array that does not parse, say)."""


@dataclass(frozen=True, slots=True)
class GraphDocumentsExport:
    # (record number, version or why its document is refused), in order of first record
    lines: list[tuple[int, DocumentVersion | LineError]]
    warnings: list[str]


def label_for_node_type(node_type: str) -> str | None:
    """A node type as an entity label, or None when it yields none starting with a letter.

    >>> [label_for_node_type(t) for t in ("Person", "historical event", "3D model", "?")]
    ['Person', 'HistoricalEvent', None, None]
    """
    if is_load_name(node_type):
        return node_type
    label = "".join(w[:1].upper() + w[1:].lower() for w in _WORD.findall(node_type))
    return label[:MAX_NAME_LENGTH] if is_load_name(label[:MAX_NAME_LENGTH]) else None


def relation_type_for(relationship_type: str) -> str | None:
    """A relationship type as a relation type name, or None when it yields none.

    >>> [relation_type_for(t) for t in ("WORKS_FOR", "works for", "1st", "")]
    ['WORKS_FOR', 'WORKS_FOR', None, None]
    """
    if is_load_name(relationship_type):
        return relationship_type
    name = "_".join(word.upper() for word in _WORD.findall(relationship_type))
    return name[:MAX_NAME_LENGTH] if is_load_name(name[:MAX_NAME_LENGTH]) else None


def read_graph_documents(
    path: Path,
    workspace: str,
    graph_owned_relation_types: Collection[str] = GRAPH_OWNED_RELATION_TYPES,
) -> GraphDocumentsExport:
    """Map the file; `NotGraphDocuments` when it cannot be read as records at all."""
    if not workspace.strip():
        raise ValueError("the workspace must not be empty")
    tally = Tally(messages=MESSAGES)
    documents: dict[str, _Document] = {}
    refused: list[tuple[int, LineError]] = []
    for number, record in _records(path):
        if isinstance(record, LineError):
            refused.append((number, record))
            continue
        _Record(number, record, tally, graph_owned_relation_types, workspace).add_to(documents)
    lines: list[tuple[int, DocumentVersion | LineError]] = [
        (document.number, document.version()) for document in documents.values()
    ]
    lines.extend(refused)
    lines.sort(key=lambda line: line[0])
    return GraphDocumentsExport(lines, tally.warnings())


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any] | LineError]]:
    """Each record with its number: the array's elements, or the non-blank lines."""
    try:
        text = path.read_text(encoding="utf-8").removeprefix(_BOM)
    except UnicodeDecodeError as error:
        raise NotGraphDocuments(f"{path} is not UTF-8 text ({error.reason})") from error
    whole = _json(text)
    if isinstance(whole, list):
        for number, value in enumerate(whole, start=1):
            yield number, _record(value)
        return
    lines = text.splitlines()
    if isinstance(whole, LineError) and text.lstrip().startswith("["):
        first = next(line for line in lines if line.strip())
        if isinstance(_json(first), LineError):  # not JSON Lines either: a broken array
            raise NotGraphDocuments(
                f"{path} is not a JSON array of graph documents: {whole.reason}"
            )
    for number, line in enumerate(lines, start=1):
        if line.strip():
            value = _json(line)
            yield number, value if isinstance(value, LineError) else _record(value)


def _json(text: str) -> object:
    """The JSON value of `text`, or why it is not one."""
    try:
        return json.loads(text)
    except ValueError as error:
        return LineError(f"invalid JSON: {error}")
    except RecursionError:
        return LineError("invalid JSON: nested too deeply")


def _record(value: object) -> dict[str, Any] | LineError:
    if isinstance(value, dict) and "lc" in value and "kwargs" in value:
        return LineError(
            "a LangChain `dumpd` record; write each GraphDocument with model_dump() instead"
        )
    if not isinstance(value, dict) or not isinstance(value.get("source"), dict):
        return LineError("not a graph document: an object with nodes, relationships and source")
    return value


@dataclass
class _Document:
    info: DocumentInfo
    first: int  # the number of its first record
    passages: list[PassageInput] = field(default_factory=list)
    entities: dict[str, EntityInput] = field(default_factory=dict)  # id -> without mentions
    mentions: dict[str, list[str]] = field(default_factory=dict)  # entity id -> passage ids
    relations: dict[str, RelationInput] = field(default_factory=dict)
    problems: list[tuple[int, str]] = field(default_factory=list)  # (record number, reason)

    @property
    def number(self) -> int:
        """The record it is reported under: its first bad record, else its first record."""
        return self.problems[0][0] if self.problems else self.first

    def version(self) -> DocumentVersion | LineError:
        if self.problems:
            reasons = [
                reason if number == self.number else f"record {number}: {reason}"
                for number, reason in self.problems
            ]
            name = self.info.title or self.info.id
            return LineError(f"{'; '.join(reasons)} (nothing of document {name} is loaded)")
        entities = [
            EntityInput(
                e.id,
                e.labels,
                e.name,
                e.description,
                tuple(self.mentions[e.id]),
                source_id=e.source_id,
            )
            for e in self.entities.values()
        ]
        return DocumentVersion(self.info, self.passages, entities, list(self.relations.values()))


class _Record:
    """One graph document: its checks, then what it adds to its document."""

    def __init__(
        self,
        number: int,
        value: dict[str, Any],
        tally: Tally,
        owned_types: Collection[str],
        workspace: str,
    ) -> None:
        self._workspace = workspace
        self._number = number
        self._value = value
        self._tally = tally
        self._owned_types = owned_types
        self._problems: list[str] = []

    def add_to(self, documents: dict[str, _Document]) -> None:
        workspace = self._workspace
        source = self._value["source"]
        metadata = source.get("metadata") if isinstance(source.get("metadata"), dict) else {}
        text = source.get("page_content")
        if not isinstance(text, str):
            self._problem("source.page_content must be a string")
            text = ""
        origin = metadata.get("source") if isinstance(metadata, dict) else None
        origin = origin if isinstance(origin, str) and origin.strip() else None
        source_id = source.get("id")
        source_id = str(source_id) if source_id not in (None, "") else None
        key = f"source:{origin}" if origin else f"record:{source_id or text}"
        document = documents.get(key)
        if document is None:
            title = metadata.get("title") if isinstance(metadata, dict) else None
            info = DocumentInfo(
                workspace_id(workspace, key, "langchain_document"),
                workspace,
                title if isinstance(title, str) and title else origin,
                origin,
                source_id=origin,
            )
            document = documents[key] = _Document(info, self._number)
        position = len(document.passages)
        passage_id = (
            workspace_id(workspace, source_id, "langchain_passage")
            if source_id
            else workspace_id(workspace, f"{key}\x00{position}\x00{text}", "langchain_passage")
        )
        if any(p.id == passage_id for p in document.passages):
            self._problem(f"source.id {source_id!r} repeats a passage of an earlier record")
        nodes = [self._node(node, f"nodes[{i}]") for i, node in enumerate(self._list("nodes"))]
        relations = [
            self._relation(item, f"relationships[{i}]", passage_id)
            for i, item in enumerate(self._list("relationships"))
        ]
        if self._problems:
            document.problems.extend((self._number, problem) for problem in self._problems)
            return
        document.passages.append(PassageInput(passage_id, position, text, source_id=source_id))
        for entity in [n for n in nodes if n] + [e for r in relations if r for e in r[1:]]:
            if entity.id not in document.entities:
                document.entities[entity.id] = entity
                document.mentions[entity.id] = []
            elif entity.description and not document.entities[entity.id].description:
                known = document.entities[entity.id]
                document.entities[entity.id] = EntityInput(
                    known.id, known.labels, known.name, entity.description,
                    source_id=known.source_id,
                )  # fmt: skip
            if passage_id not in document.mentions[entity.id]:
                document.mentions[entity.id].append(passage_id)
        for found in relations:
            if found is None:
                continue
            relation = found[0]
            known_relation = document.relations.get(relation.id)
            if known_relation is not None:
                support = (*known_relation.passage_ids, passage_id)
                properties = {**known_relation.properties, **relation.properties}
                relation = RelationInput(
                    relation.id, relation.type, relation.source, relation.target, support,
                    properties,
                )  # fmt: skip
            document.relations[relation.id] = relation

    def _list(self, key: str) -> list[Any]:
        value = self._value.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self._problem(f"{key} must be an array")
            return []
        return value

    def _node(self, value: object, path: str) -> EntityInput | None:
        if not isinstance(value, dict):
            self._problem(f"{path} must be an object")
            return None
        node_id, node_type = value.get("id"), value.get("type")
        if isinstance(node_id, bool) or not isinstance(node_id, str | int) or node_id == "":
            self._problem(f"{path}.id must be a non-empty string or an integer")
            return None
        if not isinstance(node_type, str):
            self._problem(f"{path}.type must be a string")
            return None
        label = label_for_node_type(node_type)
        if label is None:
            self._problem(
                f"{path}.type {node_type!r} is not a label (letters, digits and _, starting"
                " with a letter) and has no words that make one"
            )
            return None
        if label != node_type:
            self._tally.add("labels_mapped", f"{node_type} -> {label}")
        if label in GRAPH_OWNED_LABELS:
            self._tally.add("labels_renamed", f"{label} -> {OWNED_LABEL_PREFIX}{label}")
            label = OWNED_LABEL_PREFIX + label
        properties = value.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        name, description = properties.get("name"), properties.get("description")
        name = name if isinstance(name, str) and name.strip() else str(node_id)
        node_key = str(node_id)
        return EntityInput(
            workspace_id(self._workspace, node_key, f"entity:{label}"),
            (label,),
            name,
            description if isinstance(description, str) and description else None,
            source_id=node_key,
        )

    def _relation(
        self, value: object, path: str, passage_id: str
    ) -> tuple[RelationInput, EntityInput, EntityInput] | None:
        if not isinstance(value, dict):
            self._problem(f"{path} must be an object")
            return None
        source = self._node(value.get("source"), f"{path}.source")
        target = self._node(value.get("target"), f"{path}.target")
        given = value.get("type")
        if not isinstance(given, str):
            self._problem(f"{path}.type must be a string")
            return None
        kind = relation_type_for(given)
        if kind is None:
            self._problem(f"{path}.type {given!r} has no words that make a relation type")
            return None
        if kind in self._owned_types:
            self._problem(f"{path}.type {kind!r} is a graph-owned relation type")
            return None
        if kind != given:
            self._tally.add("types_mapped", f"{given} -> {kind}")
        if source is None or target is None:
            return None
        relation_id = canonical_id(f"{source.id}\x00{kind}\x00{target.id}", "langchain_relation")
        properties = self._properties(value.get("properties"), path)
        relation = RelationInput(relation_id, kind, source.id, target.id, (passage_id,), properties)
        return relation, source, target

    def _properties(self, value: object, path: str) -> dict[str, PropertyValue]:
        kept, dropped = relation_properties(value)
        for key in dropped:
            self._tally.add("properties_dropped", f"record {self._number} {path}.{key}")
        return kept

    def _problem(self, reason: str) -> None:
        self._problems.append(reason)


def relation_properties(value: object) -> tuple[dict[str, PropertyValue], list[str]]:
    """The properties of a relationship a relation keeps (strings, numbers and booleans under a
    name the write path does not set itself, a `description` and a `weight` as
    contract/relation_claims.py allows them), and the names of the others, which are dropped.

    >>> relation_properties({"since": 1903, "embedding": [0.1], "weight": float("nan")})
    ({'since': 1903}, ['embedding', 'weight'])
    """
    kept: dict[str, PropertyValue] = {}
    dropped: list[str] = []
    for key, item in (value if isinstance(value, dict) else {}).items():
        if (
            key
            and key not in RESERVED_RELATION_PROPERTIES
            and _is_scalar(item)
            and claim_problem(key, item) is None  # contract/relation_claims.py
        ):
            kept[key] = item
        else:
            dropped.append(str(key))
    return kept, dropped


def _is_scalar(value: object) -> bool:
    return isinstance(value, str | bool) or is_finite_number(value)
