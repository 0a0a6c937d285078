"""`evidencegraph schema apply`: constraints and per-label indexes (contract §2). Idempotent.

A label's lexical index that differs from what the settings ask for (other fields, another
analyzer, no owner key: graph/lexical_index.py), and a passage index without the owner key, is
dropped and created again; Neo4j refuses a second
FULLTEXT index on the same label and property, so replacing it is the only way to change it.
Every other index that exists is left as it is. When it created (or replaced) an index, it moves
the index catalog's marker, so every running service's next search reads the catalog again
(contract §3, graph/catalog_cache.py).

Labels and property names cannot be Cypher parameters in schema commands; index names and
options are (`CREATE FULLTEXT INDEX $name … OPTIONS $options`). A label reaches the statement
only through graph/cypher_names.py, so only a plain name (ASCII letters, digits, `_`) is ever
written; a label another pipeline stored with any other name gets no index (it is logged and
listed in the report as skipped), so it is not an entity label and is never searched.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import LiteralString

from contract.graph_owned import GRAPH_OWNED_LABELS
from graph.catalog_cache import mark_catalog_changed
from graph.cypher_names import cypher_name, is_plain_name, property_list
from graph.driver import Graph
from graph.index_catalog import IndexInfo, read_index_catalog
from graph.lexical_index import (
    PASSAGE_ANALYZER,
    PASSAGE_INDEXED,
    LexicalIndexSpec,
    fulltext_index_name,
)
from graph.mention_order import ORDER_INDEXES
from graph.name_key import KEY_ENTITY_NAMES, NAME_KEY_INDEX

log = logging.getLogger(__name__)

CONSTRAINTS: tuple[LiteralString, ...] = (
    "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (n:Chunk) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT document_id IF NOT EXISTS FOR (n:Document) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT job_id IF NOT EXISTS FOR (n:Job) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX chunk_job_id IF NOT EXISTS FOR (n:Chunk) ON (n.jobId)",
    # A document's passages by position, a page at a time (graph/passage_pages.py).
    "CREATE INDEX chunk_document_order IF NOT EXISTS"
    " FOR (n:Chunk) ON (n.documentId, n.version, n.position, n.id)",
    "CREATE INDEX job_status IF NOT EXISTS FOR (n:Job) ON (n.status)",
    "CREATE INDEX job_document_id IF NOT EXISTS FOR (n:Job) ON (n.documentId)",
    "CREATE INDEX staged_entity_job_id IF NOT EXISTS FOR (n:StagedEntity) ON (n.jobId)",
    # Another workspace's load staging the same new entity id (graph/new_id_race.py).
    "CREATE INDEX staged_entity_id IF NOT EXISTS FOR (n:StagedEntity) ON (n.id)",
    "CREATE INDEX staged_relation_job_id IF NOT EXISTS FOR (n:StagedRelation) ON (n.stagedJobId)",
    *ORDER_INDEXES,
    NAME_KEY_INDEX,
)

ENTITY_LABELS_PRESENT: LiteralString = (
    "MATCH (e:Entity) UNWIND labels(e) AS label"
    " WITH DISTINCT label WHERE NOT label IN $graphOwnedLabels"
    " RETURN label ORDER BY label"
)

AWAIT_INDEXES: LiteralString = "CALL db.awaitIndexes($seconds)"
DROP_INDEX: LiteralString = "DROP INDEX $name"


def vector_index_name(label: str) -> str:
    return f"entity_embedding_vector_{label}"


PASSAGE_FULLTEXT_INDEX = "chunk_text_fulltext"
PASSAGE_VECTOR_INDEX = "chunk_embedding_vector"


async def apply_constraints(graph: Graph) -> None:
    """The id constraints, the job indexes, without which every write path look-up by id
    would scan a whole label (a load slows down as the graph grows), and the indexes that keep
    mentions in evidence order (graph/mention_order.py) and names by their exact-name key
    (graph/name_key.py). Idempotent."""
    for statement in CONSTRAINTS:
        await graph.write(statement, {})


async def key_entity_names(graph: Graph) -> int:
    """Key every entity written without its name's key (another pipeline's, an earlier
    release's, one renamed in place): graph/name_key.py. How many it keyed."""
    rows = await graph.auto_commit_rows(KEY_ENTITY_NAMES, {})
    return int(rows[0]["keyed"]) if rows else 0


@dataclass(frozen=True)
class SchemaReport:
    labels: list[str]
    created: list[str]
    skipped: list[str] = field(default_factory=list)  # stored labels no index can be made for


@dataclass(frozen=True)
class IndexStatement:
    """One index's DDL: the label and properties as text, the rest as parameters."""

    name: str
    query: str
    parameters: dict[str, object]


def _fulltext_ddl(index: str, label: str, properties: list[str], analyzer: str) -> IndexStatement:
    return IndexStatement(
        index,
        f"CREATE FULLTEXT INDEX $name IF NOT EXISTS FOR (n:{cypher_name(label)})"
        f" ON EACH [{property_list('n', properties)}] OPTIONS $options",
        {"name": index, "options": {"indexConfig": {"fulltext.analyzer": analyzer}}},
    )


def _differs(index: IndexInfo | None, lexical: LexicalIndexSpec) -> bool:
    """A label's own lexical index exists but is not the one `lexical` describes."""
    return (
        index is not None
        and index.kind == "FULLTEXT"
        and not lexical.matches(index.properties, index.analyzer)
    )


def _passage_index_differs(index: IndexInfo | None) -> bool:
    """The passage FULLTEXT index exists but lacks the owner key (an earlier release's)."""
    return (
        index is not None
        and index.kind == "FULLTEXT"
        and set(index.properties) != set(PASSAGE_INDEXED)
    )


def _vector_ddl(index: str, label: str, dimensions: int) -> IndexStatement:
    config = {"vector.dimensions": int(dimensions), "vector.similarity_function": "cosine"}
    return IndexStatement(
        index,
        f"CREATE VECTOR INDEX $name IF NOT EXISTS FOR (n:{cypher_name(label)})"
        " ON (n.embedding) OPTIONS $options",
        {"name": index, "options": {"indexConfig": config}},
    )


async def _drop(graph: Graph, existing: dict[str, IndexInfo], name: str) -> None:
    await graph.write(DROP_INDEX, {"name": name})
    log.info("dropped index %s to create it again as the settings ask", name)
    del existing[name]


async def apply_schema(
    graph: Graph,
    dimensions: int,
    labels: list[str] | None = None,
    lexical: LexicalIndexSpec | None = None,
    await_seconds: int = 300,
) -> SchemaReport:
    """Create constraints, then both indexes of every entity label present (or `labels`).

    Existing indexes are left as they are (`IF NOT EXISTS`), except a label's own lexical
    index that differs from `lexical`, which is replaced; the report lists what was new.
    """
    lexical = lexical or LexicalIndexSpec()
    await apply_constraints(graph)
    keyed = await key_entity_names(graph)
    if keyed:
        log.info("keyed the names of %d entities for the exact-name read", keyed)
    if labels is None:
        rows = await graph.read(
            ENTITY_LABELS_PRESENT, {"graphOwnedLabels": list(GRAPH_OWNED_LABELS)}
        )
        labels = [row["label"] for row in rows]
    existing = {index.name: index for index in (await read_index_catalog(graph)).indexes}
    if _passage_index_differs(existing.get(PASSAGE_FULLTEXT_INDEX)):
        await _drop(graph, existing, PASSAGE_FULLTEXT_INDEX)
    statements = [
        _fulltext_ddl(PASSAGE_FULLTEXT_INDEX, "Chunk", list(PASSAGE_INDEXED), PASSAGE_ANALYZER),
        _vector_ddl(PASSAGE_VECTOR_INDEX, "Chunk", dimensions),
    ]
    indexed: list[str] = []
    skipped: list[str] = []
    for label in labels:
        if label in GRAPH_OWNED_LABELS:
            continue
        if not is_plain_name(label):
            log.warning("label %r is not made of letters, digits and _: no index for it", label)
            skipped.append(label)
            continue
        indexed.append(label)
        name = fulltext_index_name(label)
        if _differs(existing.get(name), lexical):
            await _drop(graph, existing, name)
        statements.append(_fulltext_ddl(name, label, list(lexical.indexed), lexical.analyzer))
        statements.append(_vector_ddl(vector_index_name(label), label, dimensions))
    created = [statement.name for statement in statements if statement.name not in existing]
    for statement in statements:
        await graph.write(statement.query, statement.parameters)
    if created:  # (an index dropped above is created again, so it is in `created`)
        # Every running service reads the catalog again at its next search (contract §3); it
        # keeps none while an index is still POPULATING, so one mark before the wait is enough.
        await mark_catalog_changed(graph)
    if await_seconds:
        await graph.auto_commit(AWAIT_INDEXES, {"seconds": await_seconds})
    for name in created:
        log.info("created index %s", name)
    return SchemaReport(labels=indexed, created=created, skipped=skipped)
