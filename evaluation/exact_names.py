"""The exact-name measure: is an entity first when its own name is the query?

contract §3: "A query equal to a returnable entity's name (ignoring case, punctuation and a
possessive 's) puts that entity first in LEXICAL and HYBRID mode. Where several entities share
that name, one of them is first." For every distinct name of the entities a data set's
passages mention, the eval searches that name (`limit: 10`, as a client sends it by default)
and counts a success when the first hit is an entity of that name (retrieval/name_match.py),
per mode; the misses are listed with what came first instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evaluation.served_search import SearchFailed, ServedSearch
from retrieval.name_match import is_exact_name
from retrieval.query_words import plain_words

LIMIT = 10


@dataclass(frozen=True, slots=True)
class Miss:
    name: str
    first: str | None  # the first hit's name, None when nothing came back


@dataclass(frozen=True, slots=True)
class ExactNameRow:
    method: str  # the variant
    mode: str
    names: int
    misses: tuple[Miss, ...]

    @property
    def share(self) -> float:
        return (self.names - len(self.misses)) / self.names if self.names else 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "mode": self.mode,
            "names": self.names,
            "first": self.names - len(self.misses),
            "share": round(self.share, 4),
            "misses": [{"name": m.name, "first": m.first} for m in self.misses],
        }


def distinct_names(names: Sequence[str]) -> list[str]:
    """Each name once (as stored; names that differ only in case are one query), in order,
    leaving out those with no letter or digit, which no search accepts."""
    seen: dict[str, str] = {}
    for name in names:
        if plain_words(name):
            seen.setdefault(name.casefold(), name)
    return list(seen.values())


async def exact_name_row(
    search: ServedSearch, method: str, mode: str, names: Sequence[str]
) -> ExactNameRow:
    misses = []
    for name in names:
        try:
            hits = await search.hits(name, mode, LIMIT)
        except SearchFailed as error:
            misses.append(Miss(name, f"error: {error}"))
            continue
        if not hits or not is_exact_name(name, hits[0].name):
            misses.append(Miss(name, hits[0].name if hits else None))
    return ExactNameRow(method, mode, len(names), tuple(misses))


def exact_name_table(rows: Sequence[ExactNameRow], shown: int = 8) -> str:
    lines = [
        "| method | mode | exact name first | names | misses (first hit instead) |",
        "|---|---|---:|---:|---|",
    ]
    for row in rows:
        listed = "; ".join(f"{m.name} → {m.first or '(none)'}" for m in row.misses[:shown])
        if len(row.misses) > shown:
            listed += f"; … {len(row.misses) - shown} more (--json lists all)"
        lines.append(
            f"| {row.method} | {row.mode} | {row.share:.3f} | {row.names} | {listed or '-'} |"
        )
    return "\n".join(lines)
