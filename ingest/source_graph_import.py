"""`load --format neo4j-graphrag | llm-graph-builder --from bolt://host:port[/database]`: where
the graph is, reading it (graph/source_graph.py) with a progress line on stderr, and mapping
it (ingest/source_graph_mapping.py) into the document versions the loader writes.

The source is checked first: it must hold its format's chunk and document labels and its
chunk-to-document relationship type (`FROM_DOCUMENT`, `PART_OF`); one that holds the other
format's is refused with the format to use, and one that holds neither with the labels and
relationship types it does hold, so the person loading sees what they pointed at.

    >>> parse_source_uri("bolt://127.0.0.1:7687/kg")
    SourceAddress(uri='bolt://127.0.0.1:7687', database='kg')
"""

from __future__ import annotations

import sys
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import TextIO
from urllib.parse import urlsplit, urlunsplit

from graph.cypher_names import is_plain_name
from graph.source_graph import LAYOUTS, FoundNames, SourceLayout, open_source_graph
from ingest.source_graph_mapping import SourceGraphExport, map_source_rows

FORMATS = tuple(LAYOUTS)
SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
PROGRESS_INTERVAL_SECONDS = 5.0
LISTED_NAMES = 40  # labels or types named in a refusal; the rest are counted


class NotASourceGraph(ValueError):
    """The source is not a graph of the format asked for, or its address is not one."""


@dataclass(frozen=True, slots=True)
class SourceAddress:
    uri: str  # what the driver is given: scheme, host, port (and a routing query)
    database: str | None  # the URI's path; None: the server's default database


@dataclass(frozen=True, slots=True)
class GraphSource:
    """A graph in Neo4j to load (`--from`), in `format`, into `workspace`."""

    address: SourceAddress
    format: str  # one of FORMATS
    workspace: str
    auth: tuple[str, str] | None = None

    def describe(self) -> str:
        database = f"/{self.address.database}" if self.address.database else ""
        return f"{self.address.uri}{database}"


def parse_source_uri(text: str) -> SourceAddress:
    """`scheme://host[:port][/database][?routing]`; credentials are refused (a password on a
    command line is readable by every user of the machine: SOURCE_NEO4J_PASSWORD holds it)."""
    parts = urlsplit(text.strip())
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise NotASourceGraph(
            f"--from {text!r} is not a Neo4j address: write {SCHEMES[0]}://host:port[/database]"
            f" (schemes: {', '.join(SCHEMES)})"
        )
    if parts.username or parts.password:
        raise NotASourceGraph(
            "--from must not hold a user or password; set SOURCE_NEO4J_USER and"
            " SOURCE_NEO4J_PASSWORD"
        )
    database = parts.path.strip("/") or None
    if database is not None and "/" in database:
        raise NotASourceGraph(f"--from {text!r}: the path names one database, not {database!r}")
    return SourceAddress(urlunsplit((parts.scheme, parts.netloc, "", parts.query, "")), database)


def check_layout(found: FoundNames, layout: SourceLayout) -> None:
    """Raise `NotASourceGraph` unless `found` holds what `layout` needs (module docstring)."""
    if found.matches(layout):
        return
    others = [other.format for other in LAYOUTS.values() if found.matches(other)]
    labels, types = layout.required
    needs = f"labels {', '.join(labels)} and relationship type {', '.join(types)}"
    if others:
        raise NotASourceGraph(
            f"the source is not a {layout.format} graph (it needs {needs}); it is laid out as"
            f" {others[0]} writes graphs: load it with --format {others[0]}"
        )
    raise NotASourceGraph(
        f"the source matches neither neo4j-graphrag's nor LLM Graph Builder's layout (a"
        f" {layout.format} graph needs {needs}); it holds labels: {_listed(found.labels)};"
        f" relationship types: {_listed(found.relationship_types)}"
    )


def _listed(names: tuple[str, ...]) -> str:
    """Names read from the source, for a terminal: a plain name as it is, any other quoted
    with its control and invisible characters escaped (`repr`); the first `LISTED_NAMES`.

    >>> _listed(("Book", "Org`) DETACH DELETE (n", "Passage"))
    "Book, 'Org`) DETACH DELETE (n', Passage"
    """
    if not names:
        return "none"
    shown = [name if is_plain_name(name) else repr(name) for name in names[:LISTED_NAMES]]
    more = len(names) - LISTED_NAMES
    return ", ".join(shown) + (f" and {more:,} more" if more > 0 else "")


class ReadProgress:
    """What has been read so far, as a line on `stream`: at most one per `interval` while a
    kind is read, and its total when it is done."""

    def __init__(
        self,
        describe: str,
        totals: dict[str, int],
        stream: TextIO | None = None,
        interval: float = PROGRESS_INTERVAL_SECONDS,
    ) -> None:
        self._describe = describe
        self._totals = totals
        self._stream = stream  # None: sys.stderr as it is when a line is written
        self._interval = interval
        self._last = time.monotonic()

    def __call__(self, kind: str, rows: int, done: bool) -> None:
        now = time.monotonic()
        if not done and now - self._last < self._interval:
            return
        self._last = now
        total = self._totals.get(kind)
        of = f" of {total:,}" if total is not None else ""
        stream = self._stream or sys.stderr
        print(f"read {self._describe}: {kind} {rows:,}{of}", file=stream, flush=True)


async def read_source_graph(
    source: GraphSource, graph_owned_relation_types: Collection[str]
) -> SourceGraphExport:
    """Read the source in its format's layout and map it; `NotASourceGraph` when it is not
    one, `graph.source_graph.SourceUnavailable` when it cannot be read."""
    layout = LAYOUTS[source.format]
    async with open_source_graph(source.address.uri, source.address.database, source.auth) as graph:
        check_layout(await graph.found_names(), layout)
        counts = await graph.counts(layout)
        totals = {kind: counts[kind] for kind in ("documents", "chunks", "entities")}
        rows = await graph.rows(layout, ReadProgress(source.describe(), totals))
    return map_source_rows(
        rows,
        layout,
        source.workspace,
        graph_owned_relation_types,
        chunks_without_document=counts["orphans"],
    )
