"""The index catalog kept between requests, by contract §3's four rules:

    1. "Index changes made by the service's own commands (`schema apply`, `load`) are seen by
       the next request of every running service"
    2. "changes made outside them within 1 s"
    3. "a search that fails because an index has gone reads the catalog again and answers
       from it"
    4. "A catalog holding any index that is not ONLINE is never kept."

Rule 1 is a marker in the graph: `apply_schema` (which `schema apply`, `load` and `reembed`
run) gives the one `:IndexCatalogMarker` node a new random `generation` whenever it created or
dropped an index. Every search statement is wrapped by `marked`, which reads that node (a
label scan of one node) in the same statement, so it costs no round trip: the search answers
from the kept catalog only if the generation it read is the one the catalog was kept with;
otherwise the catalog is read again and decides the answer (the search runs again if the
targets moved). Rule 2 is the age of the kept catalog, counted from the moment its read was
sent. Rule 3 is `IndexGone`, raised by `read_marked` for Neo4j's "There is no such … schema
index". Rule 4 is `CatalogCache.read`, which keeps only catalogs whose indexes are all ONLINE.

A kept catalog never decides an error or an empty answer: when it names no label to search,
or a label without both indexes ONLINE, the search reads the catalog afresh as before.

Which generation goes with a catalog: one read *before* the catalog's `SHOW INDEXES` was
sent, so that a command that finished before that read is in the catalog. A catalog read
after a search found the marker moved takes that search's generation; any other takes the
generation of the last search statement that had returned when the read was sent (none yet:
`UNSEEN`, so the next search reads the catalog again). Generations are random, never counted,
so a marker deleted and written again (a wiped graph) cannot bring back an old value; a graph
no command of the service touched has no marker (`None`), which is a generation like any
other: its absence changes nothing but how soon outside changes are seen (rule 2 still holds).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, LiteralString, TypeVar
from weakref import WeakKeyDictionary

from neo4j import Record
from neo4j.exceptions import ClientError

from graph.driver import Graph
from graph.index_catalog import IndexCatalog, IndexState, read_index_catalog

T = TypeVar("T")

CATALOG_MAX_AGE_SECONDS: Final = 1.0  # contract §3: outside changes are seen within 1 s

MARK_CATALOG_CHANGED: LiteralString = (
    "MERGE (marker:IndexCatalogMarker)"
    " SET marker.generation = randomUUID(), marker.changedAt = datetime()"
)

# Neo4j 5's message when a search names an index that does not exist (any more).
_NO_SUCH_INDEX = re.compile(r"There is no such (?:fulltext|vector) schema index: (\S+)")
_PROCEDURE_FAILED = "Neo.ClientError.Procedure.ProcedureCallFailed"


def marked(statement: LiteralString) -> LiteralString:
    """`statement` (which returns `position`, 0-based, for each row) as one statement that also
    returns the marker's generation: `catalogGeneration` in every row, and exactly one row with
    a null `position` when `statement` returns none."""
    return (
        "OPTIONAL MATCH (catalogMarker:IndexCatalogMarker)"
        " WITH min(catalogMarker.generation) AS catalogGeneration"
        " OPTIONAL CALL () { " + statement + " }"
        " RETURN * ORDER BY position"
    )


class IndexGone(Exception):
    """A search named an index that no longer exists (contract §3: read the catalog again)."""

    def __init__(self, index: str) -> None:
        super().__init__(f"index {index} is gone")
        self.index = index


def gone_index(error: BaseException) -> str | None:
    """The name of the index `error` says does not exist, if that is what it says."""
    if not isinstance(error, ClientError) or error.code != _PROCEDURE_FAILED:
        return None
    found = _NO_SUCH_INDEX.search(error.message or "")
    return found.group(1) if found else None


@dataclass(frozen=True, slots=True)
class MarkedRows:
    rows: list[Record]  # the statement's own rows, in its order
    generation: str | None  # the marker's, read by the same statement


async def read_marked(
    graph: Graph, statement: LiteralString, parameters: Mapping[str, Any]
) -> MarkedRows:
    """Run a statement built by `marked`; `IndexGone` when it named a missing index."""
    try:
        rows = await graph.read(statement, parameters)
    except ClientError as error:
        index = gone_index(error)
        if index is None:
            raise
        raise IndexGone(index) from error
    generation = rows[0]["catalogGeneration"] if rows else None
    return MarkedRows([row for row in rows if row["position"] is not None], generation)


@dataclass(frozen=True, slots=True)
class SearchResult(Generic[T]):
    """A search statement's records and the marker's generation it read."""

    records: list[T]
    generation: str | None


class _Unseen:
    """No search statement has returned a generation yet."""

    def __repr__(self) -> str:
        return "UNSEEN"


class _LastSeen:
    """`CatalogCache.read`'s default: the generation last seen."""


UNSEEN: Final = _Unseen()
LAST_SEEN: Final = _LastSeen()
Generation = str | None | _Unseen


@dataclass(frozen=True, slots=True)
class KeptCatalog:
    catalog: IndexCatalog
    generation: Generation  # read before the catalog
    read_at: float  # the clock when the catalog's read was sent


class CatalogCache:
    """One `Graph`'s kept catalog (module docstring). `clock` and `max_age` are for tests."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        max_age: float = CATALOG_MAX_AGE_SECONDS,
    ) -> None:
        self.clock = clock
        self.max_age = max_age
        self.seen: Generation = UNSEEN  # the generation the last search statement returned
        self._kept: KeptCatalog | None = None

    def kept(self) -> KeptCatalog | None:
        """The kept catalog, if younger than `max_age`."""
        kept = self._kept
        if kept is None or self.clock() - kept.read_at >= self.max_age:
            return None
        return kept

    def saw(self, generation: Generation) -> None:
        """A search statement returned `generation`."""
        self.seen = generation

    def forget(self) -> None:
        self._kept = None

    async def read(
        self, graph: Graph, *, after: Generation | _LastSeen = LAST_SEEN
    ) -> IndexCatalog:
        """The catalog as it is now (what searches need of it), kept if every index in it is
        ONLINE. `after`: a generation a statement read before this read is sent (by default
        the last one seen, which is such a generation)."""
        generation = self.seen if isinstance(after, _LastSeen) else after
        sent = self.clock()
        catalog = await read_index_catalog(graph, configuration=False)
        if all(index.state is IndexState.ONLINE for index in catalog.indexes):
            if self._kept is None or self._kept.read_at <= sent:
                self._kept = KeptCatalog(catalog, generation, sent)
        else:
            self._kept = None
        return catalog


_caches: WeakKeyDictionary[Graph, CatalogCache] = WeakKeyDictionary()


def catalog_cache(graph: Graph) -> CatalogCache:
    """`graph`'s cache (one per `Graph`: per app, or per test), made on first use."""
    cache = _caches.get(graph)
    if cache is None:
        cache = _caches[graph] = CatalogCache()
    return cache


async def mark_catalog_changed(graph: Graph) -> None:
    """Tell every running service that the service's own command changed the indexes."""
    await graph.write(MARK_CATALOG_CHANGED, {})
