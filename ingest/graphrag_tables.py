"""Finding and reading the four tables of a Microsoft GraphRAG output folder (contract §10).

GraphRAG 1.x writes `create_final_<table>.parquet`, 2.x and 3.x write `<table>.parquet`, and
columns moved between versions (a text unit's `document_ids` list became `document_id`). So
the layout is read from what is there, file by file and column by column, and every field is
named with the columns that may hold it, first found wins. Only the columns the mapping uses
are read: a documents table holds every document's full text, an entities table may hold
embeddings, and neither is needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

ORDER_FIELD = "human_readable_id"  # GraphRAG's own order of rows, when a table has it


@dataclass(frozen=True, slots=True)
class Field:
    name: str  # the key a row is read under
    columns: tuple[str, ...]  # the columns that may hold it, by preference
    required: bool = False


TABLE_FIELDS: dict[str, tuple[Field, ...]] = {
    "documents": (
        Field("id", ("id",), required=True),
        Field("title", ("title",)),
    ),
    "text_units": (
        Field("id", ("id",), required=True),
        Field("text", ("text",), required=True),
        # 2.x/3.x: one id; 1.x: a list of ids
        Field("document_ids", ("document_id", "document_ids"), required=True),
    ),
    "entities": (
        Field("id", ("id",), required=True),
        Field("title", ("title", "name"), required=True),  # `name` before 1.0
        Field("type", ("type",)),
        Field("description", ("description",)),
        Field("text_unit_ids", ("text_unit_ids",)),
    ),
    "relationships": (
        Field("id", ("id",), required=True),
        Field("source", ("source",), required=True),
        Field("target", ("target",), required=True),
        Field("description", ("description",)),
        Field("weight", ("weight",)),
        Field("text_unit_ids", ("text_unit_ids",)),
    ),
}


class NotGraphRagOutput(ValueError):
    """The folder lacks a table or a column the mapping needs; the message lists them all."""


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    path: Path
    columns: dict[str, str]  # field name -> the column that holds it here
    ordered: bool  # has `human_readable_id`

    def rows(self) -> list[dict[str, Any]]:
        """Every row, as {field: value} (None for an absent column), in GraphRAG's order.

        That order is `human_readable_id` where the table has it (rows without one last),
        file order otherwise and among equals.
        """
        rows = list(self._read())
        if self.ordered:
            rows.sort(key=lambda row: (row[ORDER_FIELD] is None, row[ORDER_FIELD] or 0))
        return rows

    def _read(self) -> Iterator[dict[str, Any]]:
        wanted = sorted(set(self.columns.values()) | ({ORDER_FIELD} if self.ordered else set()))
        source = pq.ParquetFile(self.path)
        for batch in source.iter_batches(batch_size=4096, columns=wanted):
            for record in batch.to_pylist():
                row = {field.name: None for field in TABLE_FIELDS[self.name]}
                row.update({name: record[column] for name, column in self.columns.items()})
                if self.ordered:
                    row[ORDER_FIELD] = record[ORDER_FIELD]
                yield row


@dataclass(frozen=True, slots=True)
class GraphRagTables:
    documents: Table
    text_units: Table
    entities: Table
    relationships: Table
    notes: list[str]  # layout oddities worth a warning


def locate_tables(folder: Path) -> GraphRagTables:
    """The four tables of `folder`, or `NotGraphRagOutput` naming everything that is missing."""
    if not folder.is_dir():
        raise NotGraphRagOutput(f"{folder} is not a folder")
    problems: list[str] = []
    notes: list[str] = []
    tables: dict[str, Table] = {}
    for name, fields in TABLE_FIELDS.items():
        newer, older = folder / f"{name}.parquet", folder / f"create_final_{name}.parquet"
        if newer.is_file() and older.is_file():
            notes.append(f"both {newer.name} and {older.name} exist; read {newer.name}")
        path = newer if newer.is_file() else older
        if not path.is_file():
            problems.append(f"no {name} table ({newer.name} or {older.name})")
            continue
        try:
            present = set(pq.read_schema(path).names)
        except (pa.ArrowException, OSError) as error:
            problems.append(f"{path.name} cannot be read as parquet ({error})")
            continue
        columns: dict[str, str] = {}
        for field in fields:
            found = next((column for column in field.columns if column in present), None)
            if found is not None:
                columns[field.name] = found
            elif field.required:
                problems.append(f"{path.name} has no column {' or '.join(field.columns)}")
        tables[name] = Table(name, path, columns, ORDER_FIELD in present)
    if problems:
        raise NotGraphRagOutput(
            f"{folder} is not a Microsoft GraphRAG output folder: " + "; ".join(problems)
        )
    return GraphRagTables(
        documents=tables["documents"],
        text_units=tables["text_units"],
        entities=tables["entities"],
        relationships=tables["relationships"],
        notes=notes,
    )
