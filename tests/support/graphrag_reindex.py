"""A GraphRAG output folder as GraphRAG re-indexing it would leave it: a copy of a shipped
output (data/) with some entities' or relationships' descriptions changed and everything
else, text unit ids included, as it was (issue 30 §1: an incremental update keeps text unit
ids). Built with pyarrow, as the loader reads it (ingest/graphrag_tables.py)."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def reindexed(
    source: Path,
    target: Path,
    *,
    entities: Mapping[str, str] | None = None,
    relationships: Mapping[str, str] | None = None,
) -> Path:
    """Copy `source`'s parquet tables to `target`, the entity (relationship) whose `id` is a
    key of `entities` (`relationships`) given that value as its description."""
    target.mkdir(parents=True, exist_ok=True)
    for path in source.glob("*.parquet"):
        table = path.name.removeprefix("create_final_").removesuffix(".parquet")
        changes = {"entities": entities, "relationships": relationships}.get(table)
        if changes:
            _describe(path, target / path.name, changes)
        else:
            shutil.copyfile(path, target / path.name)
    return target


def _describe(source: Path, target: Path, descriptions: Mapping[str, str]) -> None:
    table = pq.read_table(source)
    ids = table.column("id").to_pylist()
    missing = set(descriptions) - set(ids)
    assert not missing, f"no row with id {sorted(missing)} in {source.name}"
    column = table.schema.get_field_index("description")
    values = [
        descriptions.get(row_id, value)
        for row_id, value in zip(ids, table.column("description").to_pylist(), strict=True)
    ]
    table = table.set_column(
        column, table.schema.field(column), pa.array(values, type=table.schema.field(column).type)
    )
    pq.write_table(table, target)
