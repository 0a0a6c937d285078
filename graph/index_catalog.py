"""Which labels are entity labels, and the state of their two indexes (seed steps 1–2).

An entity label is a label other than the graph-owned ones that has a VECTOR index on
`embedding` (contract §1). Each must also have a FULLTEXT index covering `name`; a missing index,
or one that is not ONLINE, makes a search of that label fail with `INDEX_NOT_READY`. Where a
label has several, the one covering exactly the fields RETRIEVAL_LEXICAL_FIELDS names is used
(graph/lexical_index.py says what the service creates).

Indexes come and go while the service runs: graph/catalog_cache.py keeps a catalog between
requests by contract §3's rules. The last catalog read through a `Graph` is also kept, however
old, as a guess a search may start from while a fresh read is on its way: the search keeps its
answer only when the fresh read names the same targets (answers/entity_search.py), so the
guess saves time and never decides an answer (contract §2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, LiteralString
from weakref import WeakKeyDictionary

from contract.errors import IndexNotReady, Malformed
from contract.graph_owned import GRAPH_OWNED_LABELS
from graph.driver import Graph
from graph.lexical_index import PASSAGE_INDEXED, LexicalIndexSpec, mismatch, unkeyed
from graph.ownership import OWNER_KEY
from graph.served_statements import served

SHOW_INDEXES: LiteralString = served(
    "SHOW INDEXES YIELD name, type, state, labelsOrTypes, properties, entityType, options"
    " WHERE entityType = 'NODE' AND type IN ['FULLTEXT', 'VECTOR']"
    " RETURN name, type, state, labelsOrTypes, properties, options"
)
# What a search needs to know, without each index's configuration map: every search reads it,
# and decoding the maps cost more than a third of the read.
SHOW_INDEX_STATES: LiteralString = served(
    "SHOW INDEXES YIELD name, type, state, labelsOrTypes, properties, entityType"
    " WHERE entityType = 'NODE' AND type IN ['FULLTEXT', 'VECTOR']"
    " RETURN name, type, state, labelsOrTypes, properties, null AS options"
)

LEXICAL_PROPERTY = "name"  # seed step 3: lexical search matches the entity name
EMBEDDING_PROPERTY = "embedding"


class IndexState(Enum):
    ONLINE = "ONLINE"
    POPULATING = "POPULATING"
    FAILED = "FAILED"
    MISSING = "MISSING"

    @classmethod
    def of(cls, state: str | None) -> IndexState:
        return cls.__members__.get(str(state).upper(), cls.FAILED) if state else cls.MISSING


@dataclass(frozen=True, slots=True)
class IndexInfo:
    name: str
    kind: str  # FULLTEXT | VECTOR
    state: IndexState
    label: str
    properties: tuple[str, ...]
    dimensions: int | None = None
    analyzer: str | None = None

    @classmethod
    def from_row(cls, row: Any) -> IndexInfo | None:
        labels = row["labelsOrTypes"] or []
        if len(labels) != 1:
            return None  # multi-label FULLTEXT indexes are not per-label indexes
        config = (row["options"] or {}).get("indexConfig") or {}
        dimensions = config.get("vector.dimensions")
        return cls(
            name=row["name"],
            kind=row["type"],
            state=IndexState.of(row["state"]),
            label=labels[0],
            properties=tuple(row["properties"] or ()),
            dimensions=int(dimensions) if dimensions is not None else None,
            analyzer=config.get("fulltext.analyzer"),
        )


def _best(candidates: Iterable[IndexInfo], fields: Sequence[str] = ()) -> IndexInfo | None:
    """Prefer an ONLINE index when several qualify, then one covering exactly `fields`, then
    one covering all of them; then by name, for determinism."""
    wanted = set(fields)
    ranked = sorted(
        candidates,
        key=lambda i: (
            i.state is not IndexState.ONLINE,
            bool(wanted) and set(i.properties) != wanted,
            not wanted <= set(i.properties),
            i.name,
        ),
    )
    return ranked[0] if ranked else None


@dataclass(frozen=True, slots=True)
class LabelIndexes:
    """A label's two indexes; `None` when missing."""

    label: str
    fulltext: IndexInfo | None
    vector: IndexInfo | None

    @property
    def fulltext_state(self) -> IndexState:
        return self.fulltext.state if self.fulltext else IndexState.MISSING

    @property
    def vector_state(self) -> IndexState:
        return self.vector.state if self.vector else IndexState.MISSING


@dataclass(frozen=True)
class IndexCatalog:
    indexes: tuple[IndexInfo, ...]
    _by_label: dict[str, list[IndexInfo]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for index in self.indexes:
            self._by_label.setdefault(index.label, []).append(index)

    def fulltext_index(
        self, label: str, fields: Sequence[str] = (LEXICAL_PROPERTY,)
    ) -> IndexInfo | None:
        """The label's FULLTEXT index on `name` (seed step 2), the best fit for `fields` and
        the owner key (graph/fulltext_query.py)."""
        return _best(
            (
                i
                for i in self._by_label.get(label, ())
                if i.kind == "FULLTEXT" and LEXICAL_PROPERTY in i.properties
            ),
            (*fields, OWNER_KEY),
        )

    def vector_index(self, label: str) -> IndexInfo | None:
        return _best(
            i
            for i in self._by_label.get(label, ())
            if i.kind == "VECTOR" and i.properties == (EMBEDDING_PROPERTY,)
        )

    def entity_labels(self) -> list[str]:
        """Every label with a vector index on `embedding`, graph-owned labels never."""
        return sorted(
            label
            for label in self._by_label
            if label not in GRAPH_OWNED_LABELS and self.vector_index(label) is not None
        )

    def label_indexes(
        self, label: str, fields: Sequence[str] = (LEXICAL_PROPERTY,)
    ) -> LabelIndexes:
        return LabelIndexes(label, self.fulltext_index(label, fields), self.vector_index(label))

    def searchable(
        self, labels: Sequence[str] | None, fields: Sequence[str] = (LEXICAL_PROPERTY,)
    ) -> list[LabelIndexes]:
        """The labels a search reads (seed steps 1–2), each with both indexes ONLINE.

        Without `labels`, every entity label. A label whose FULLTEXT or VECTOR index is
        missing, POPULATING or FAILED stops the search with `INDEX_NOT_READY`.
        """
        chosen = self.entity_labels() if labels is None else list(labels)
        checked = []
        for label in chosen:
            if label in GRAPH_OWNED_LABELS:
                raise Malformed("labels", f"`{label}` is owned by the graph, not an entity label")
            indexes = self.label_indexes(label, fields)
            for kind, state in (
                ("FULLTEXT", indexes.fulltext_state),
                ("VECTOR", indexes.vector_state),
            ):
                if state is not IndexState.ONLINE:
                    raise IndexNotReady(label, kind, state.value)
            checked.append(indexes)
        return checked

    def lexical_mismatches(
        self, spec: LexicalIndexSpec, labels: Sequence[str] | None = None
    ) -> list[str]:
        """For the operator: each label whose FULLTEXT index is not what the settings ask for
        (other fields, another analyzer, no owner key), with the command that fixes it; for the
        whole graph (`labels` None), the passage index too."""
        found = []
        for label in self.entity_labels() if labels is None else labels:
            index = self.fulltext_index(label, spec.fields)
            if index is not None:
                problem = mismatch(spec, label, index.properties, index.analyzer)
                if problem is not None:
                    found.append(problem)
        passages = self.passage_indexes().fulltext
        if labels is None and passages is not None and OWNER_KEY not in passages.properties:
            found.append(unkeyed("the passage FULLTEXT index"))
        return found

    def passage_indexes(self) -> LabelIndexes:
        return LabelIndexes(
            "Chunk",
            _best(
                (
                    i
                    for i in self._by_label.get("Chunk", ())
                    if i.kind == "FULLTEXT" and "text" in i.properties
                ),
                PASSAGE_INDEXED,
            ),
            self.vector_index("Chunk"),
        )

    def vector_dimensions(self, labels: Sequence[str] | None = None) -> set[int]:
        """The dimensions the entity (and passage) vector indexes were created with."""
        chosen = [*self.entity_labels(), "Chunk"] if labels is None else list(labels)
        return {
            index.dimensions
            for label in chosen
            if (index := self.vector_index(label)) is not None and index.dimensions is not None
        }


# Keyed weakly, so a Graph (one per app, or per test) takes its guess with it when it goes.
_last_read: WeakKeyDictionary[Graph, IndexCatalog] = WeakKeyDictionary()


async def read_index_catalog(graph: Graph, *, configuration: bool = True) -> IndexCatalog:
    """Every entity and passage index as it is now, kept as `graph`'s last read (a search's
    guess, always verified). `configuration=False` leaves out dimensions and analyzers
    (searches need names, labels, fields and states only)."""
    rows = await graph.read(SHOW_INDEXES if configuration else SHOW_INDEX_STATES, {})
    infos = tuple(info for row in rows if (info := IndexInfo.from_row(row)) is not None)
    catalog = IndexCatalog(infos)
    _last_read[graph] = catalog
    return catalog


def last_read_catalog(graph: Graph) -> IndexCatalog | None:
    """The catalog most recently read through `graph`, however old: a guess to verify."""
    return _last_read.get(graph)
