"""Labelled query sets: JSON Lines, one query per line, kept in `evaluation/querysets/`.

    {"query": "who is Taylor Cruz?", "accept": ["TAYLOR CRUZ", "CRUZ"], "kind": "name"}

`accept` lists the entities that answer the query, by name (compared case-insensitively) or by
id; any one of them found counts. `kind` is `name` when the query names the entity (maybe with
extra words, a possessive, a typo or other case) and `description` when it describes it
without naming it. A set goes with the GraphRAG folder it was written for (`BUILT_IN`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

KINDS = ("name", "description")

QUERYSETS = Path(__file__).resolve().parent / "querysets"
DATA = Path(__file__).resolve().parent.parent / "data"


class QuerySetError(ValueError):
    """A query set line is not what this module reads; the message names file and line."""


@dataclass(frozen=True, slots=True)
class LabelledQuery:
    query: str
    accept: tuple[str, ...]
    kind: str

    def accepts(self, entity_id: str, name: str) -> bool:
        wanted = {answer.casefold() for answer in self.accept}
        return entity_id.casefold() in wanted or name.casefold() in wanted


@dataclass(frozen=True, slots=True)
class QuerySet:
    name: str
    queries: tuple[LabelledQuery, ...]
    data: Path | None = None  # the GraphRAG folder it was written for, if built in


# The sets that ship with the repository, and the data each was written over: a GraphRAG
# folder, or a bundle (`names`: hard cases for the name rules, written for the set).
BUILT_IN: dict[str, tuple[str, Path]] = {
    "dulce": ("dulce.jsonl", DATA / "graphrag-operation-dulce"),
    "christmas-carol": ("christmas-carol.jsonl", DATA / "graphrag-christmas-carol"),
    "names": ("names.jsonl", QUERYSETS / "names.bundle.jsonl"),
}


def parse_line(text: str, where: str) -> LabelledQuery:
    try:
        row = json.loads(text)
    except ValueError as error:
        raise QuerySetError(f"{where}: not JSON ({error})") from None
    if not isinstance(row, dict):
        raise QuerySetError(f"{where}: a line is a JSON object")
    query, accept, kind = row.get("query"), row.get("accept"), row.get("kind")
    if not isinstance(query, str) or not query.strip():
        raise QuerySetError(f"{where}: `query` must be a non-empty string")
    if (
        not isinstance(accept, list)
        or not accept
        or not all(isinstance(a, str) and a for a in accept)
    ):
        raise QuerySetError(f"{where}: `accept` must be a non-empty list of names or ids")
    if kind not in KINDS:
        raise QuerySetError(f"{where}: `kind` must be one of {', '.join(KINDS)}")
    unknown = set(row) - {"query", "accept", "kind"}
    if unknown:
        raise QuerySetError(f"{where}: unknown keys {', '.join(sorted(unknown))}")
    return LabelledQuery(query, tuple(accept), kind)


def read_queryset(path: Path, name: str | None = None, data: Path | None = None) -> QuerySet:
    """Every query of the file at `path`; a `QuerySetError` names the first bad line."""
    queries = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if text.strip():
            queries.append(parse_line(text, f"{path}:{number}"))
    if not queries:
        raise QuerySetError(f"{path}: no query in it")
    return QuerySet(name or path.stem, tuple(queries), data)


def built_in(name: str) -> QuerySet:
    file, data = BUILT_IN[name]
    return read_queryset(QUERYSETS / file, name, data)


def kinds_of(queries: Sequence[LabelledQuery]) -> list[str]:
    """The kinds present, in the order of KINDS."""
    present = {q.kind for q in queries}
    return [kind for kind in KINDS if kind in present]
