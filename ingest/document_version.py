"""One document version, the in-memory shape of one bundle line (contract §10).

contract §10: JSON Lines, one document version per line, each line one job. A line may
refer to entities and passages already stored as well as to its own; the ids it refers to but
does not hold are its *external references*, which only the loader can check against the
graph. Both readers (`ingest.bundle`, `ingest.graphrag`) produce these values.

    >>> version = DocumentVersion(
    ...     DocumentInfo("0b6f5d1e-2c1a-4f43-9a57-1f0a6d2b9c11", "acme"),
    ...     passages=[], entities=[], relations=[])
    >>> version.content_hash() == version.content_hash(), version.external_passage_ids()
    (True, ())
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

PropertyValue = str | int | float | bool


# `source_id` (on documents, passages, entities and relations) is the id the thing has in the
# file a reader derived its id from (a GraphRAG table's `id`, a LangChain node's `id`), kept
# as `sourceId` so users find their data again by it (contract §10). Bundle lines carry their
# own ids and have none; it is no part of the line's JSON or its content hash, since the
# derived id already follows from it.


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    id: str
    workspace: str
    title: str | None = None
    uri: str | None = None
    source_id: str | None = None


@dataclass(frozen=True, slots=True)
class PassageInput:
    id: str
    position: int
    text: str
    embedding: tuple[float, ...] | None = None  # None: the loader computes it
    source_id: str | None = None


@dataclass(frozen=True, slots=True)
class EntityInput:
    id: str
    labels: tuple[str, ...]
    name: str
    description: str | None = None
    mentions: tuple[str, ...] = ()  # passage ids
    embedding: tuple[float, ...] | None = None  # None: the loader computes it
    source_id: str | None = None


@dataclass(frozen=True, slots=True)
class RelationInput:
    id: str
    type: str
    source: str  # entity id
    target: str  # entity id
    passage_ids: tuple[str, ...] = ()  # empty: the relation is a path (contract §2)
    properties: dict[str, PropertyValue] = field(default_factory=dict)
    source_id: str | None = None


@dataclass(frozen=True, slots=True)
class DocumentVersion:
    document: DocumentInfo
    passages: list[PassageInput]
    entities: list[EntityInput]
    relations: list[RelationInput]

    def external_passage_ids(self) -> tuple[str, ...]:
        """Passage ids the line's mentions and relations name but the line does not hold."""
        referenced = [m for e in self.entities for m in e.mentions]
        referenced += [p for r in self.relations for p in r.passage_ids]
        return _missing(referenced, {p.id for p in self.passages})

    def external_entity_ids(self) -> tuple[str, ...]:
        """Entity ids the line's relations name as ends but the line does not hold."""
        referenced = [end for r in self.relations for end in (r.source, r.target)]
        return _missing(referenced, {e.id for e in self.entities})

    def named_entity_ids(self) -> tuple[str, ...]:
        """Every entity id the line names: its own entities and its relations' ends."""
        named = [e.id for e in self.entities]
        named += [end for r in self.relations for end in (r.source, r.target)]
        return tuple(sorted(set(named)))

    def to_json(self) -> dict[str, Any]:
        """The bundle line (contract §10) this version reads from; absent optionals are omitted."""
        return {
            "document": _without_none(
                {
                    "id": self.document.id,
                    "workspace": self.document.workspace,
                    "title": self.document.title,
                    "uri": self.document.uri,
                }
            ),
            "passages": [
                _without_none(
                    {
                        "id": p.id,
                        "position": p.position,
                        "text": p.text,
                        "embedding": _vector(p.embedding),
                    }
                )
                for p in self.passages
            ],
            "entities": [
                _without_none(
                    {
                        "id": e.id,
                        "labels": list(e.labels),
                        "name": e.name,
                        "description": e.description,
                        "mentions": list(e.mentions),
                        "embedding": _vector(e.embedding),
                    }
                )
                for e in self.entities
            ],
            "relations": [
                _without_none(
                    {
                        "id": r.id,
                        "type": r.type,
                        "source": r.source,
                        "target": r.target,
                        "passageIds": list(r.passage_ids),
                        "properties": dict(r.properties) or None,
                    }
                )
                for r in self.relations
            ],
        }

    def content_hash(self) -> str:
        """sha256 (hex) of the line's canonical JSON, embeddings included.

        Two lines that mean the same (keys in another order, `"title": null` or no title)
        hash the same, so reloading an unchanged document can be recognised and skipped.
        """
        canonical = json.dumps(
            self.to_json(),
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
            allow_nan=False,
        )
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _missing(referenced: Iterable[str], present: set[str]) -> tuple[str, ...]:
    # Sorted so the loader's look-up and its error messages are deterministic.
    return tuple(sorted(set(referenced) - present))


def _vector(embedding: tuple[float, ...] | None) -> list[float] | None:
    return None if embedding is None else list(embedding)


def _without_none(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}
