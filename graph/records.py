"""Plain data read from the graph, mapped explicitly from records (never `n {.*}`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    id: str
    workspace: str
    title: str | None
    uri: str | None
    current_version: int
    source_id: str | None = None  # its id in the file it was loaded from (graph/ownership.py)

    @classmethod
    def from_map(cls, value: dict[str, Any]) -> DocumentRecord:
        return cls(
            id=value["id"],
            workspace=value["workspace"],
            title=value.get("title"),
            uri=value.get("uri"),
            current_version=value["currentVersion"],
            source_id=value.get("sourceId"),
        )


@dataclass(frozen=True, slots=True)
class PassageRecord:
    id: str
    text: str
    position: int
    version: int
    document: DocumentRecord
    source_id: str | None = None  # its id in the file it was loaded from (graph/ownership.py)

    @classmethod
    def from_map(cls, value: dict[str, Any]) -> PassageRecord:
        return cls(
            id=value["id"],
            text=value["text"],
            position=value["position"],
            version=value["version"],
            document=DocumentRecord.from_map(value["document"]),
            source_id=value.get("sourceId"),
        )


@dataclass(frozen=True, slots=True)
class EntityRecord:
    id: str
    name: str
    labels: tuple[str, ...]
    description: str | None
    source_id: str | None = None  # its id in the file it was loaded from (graph/ownership.py)

    @classmethod
    def from_map(cls, value: dict[str, Any]) -> EntityRecord:
        return cls(
            id=value["id"],
            name=value["name"] if value.get("name") is not None else "",
            labels=tuple(value["labels"]),
            description=value.get("description"),
            source_id=value.get("sourceId"),
        )
