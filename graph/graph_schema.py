"""`evidencegraph schema apply`: constraints and per-label indexes (SPEC §2). Idempotent.

A label's lexical index that differs from what the settings ask for (other fields, another
analyzer: graph/lexical_index.py) is dropped and created again; Neo4j refuses a second
FULLTEXT index on the same label and property, so replacing it is the only way to change it.
Every other index that exists is left as it is.

Labels cannot be Cypher parameters in schema commands, so this is the one module that puts a
name into Cypher text; `quote_identifier` escapes it, and only label names read from the graph
itself or validated input ever reach it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import LiteralString

from graph.driver import Graph
from graph.identifiers import quote_identifier
from graph.index_catalog import IndexInfo, read_index_catalog
from graph.lexical_index import PASSAGE_ANALYZER, LexicalIndexSpec, fulltext_index_name
from graph.records import GRAPH_OWNED_LABELS

log = logging.getLogger(__name__)

CONSTRAINTS: tuple[LiteralString, ...] = (
    "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (n:Chunk) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT document_id IF NOT EXISTS FOR (n:Document) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT job_id IF NOT EXISTS FOR (n:Job) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX chunk_job_id IF NOT EXISTS FOR (n:Chunk) ON (n.jobId)",
    "CREATE INDEX job_status IF NOT EXISTS FOR (n:Job) ON (n.status)",
    "CREATE INDEX job_document_id IF NOT EXISTS FOR (n:Job) ON (n.documentId)",
    "CREATE INDEX staged_entity_job_id IF NOT EXISTS FOR (n:StagedEntity) ON (n.jobId)",
    "CREATE INDEX staged_relation_job_id IF NOT EXISTS FOR (n:StagedRelation) ON (n.stagedJobId)",
)

ENTITY_LABELS_PRESENT: LiteralString = (
    "MATCH (e:Entity) UNWIND labels(e) AS label"
    " WITH DISTINCT label WHERE NOT label IN $graphOwnedLabels"
    " RETURN label ORDER BY label"
)

AWAIT_INDEXES: LiteralString = "CALL db.awaitIndexes($seconds)"


def vector_index_name(label: str) -> str:
    return f"entity_embedding_vector_{label}"


PASSAGE_FULLTEXT_INDEX = "chunk_text_fulltext"
PASSAGE_VECTOR_INDEX = "chunk_embedding_vector"


async def apply_constraints(graph: Graph) -> None:
    """The id constraints and the job indexes, without which every write path look-up by id
    would scan a whole label (a load slows down as the graph grows). Idempotent."""
    for statement in CONSTRAINTS:
        await graph.write(statement, {})


@dataclass(frozen=True)
class SchemaReport:
    labels: list[str]
    created: list[str]


def _fulltext_ddl(index: str, label: str, properties: list[str], analyzer: str) -> str:
    on_each = ", ".join(f"n.{quote_identifier(p)}" for p in properties)
    return (
        f"CREATE FULLTEXT INDEX {quote_identifier(index)} IF NOT EXISTS"
        f" FOR (n:{quote_identifier(label)}) ON EACH [{on_each}]"
        f" OPTIONS {{indexConfig: {{`fulltext.analyzer`: '{analyzer}'}}}}"
    )


def _differs(index: IndexInfo | None, lexical: LexicalIndexSpec) -> bool:
    """A label's own lexical index exists but is not the one `lexical` describes."""
    return (
        index is not None
        and index.kind == "FULLTEXT"
        and not lexical.matches(index.properties, index.analyzer)
    )


def _vector_ddl(index: str, label: str, dimensions: int) -> str:
    return (
        f"CREATE VECTOR INDEX {quote_identifier(index)} IF NOT EXISTS"
        f" FOR (n:{quote_identifier(label)}) ON (n.embedding)"
        f" OPTIONS {{indexConfig: {{`vector.dimensions`: {int(dimensions)},"
        f" `vector.similarity_function`: 'cosine'}}}}"
    )


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
    if labels is None:
        rows = await graph.read(
            ENTITY_LABELS_PRESENT, {"graphOwnedLabels": list(GRAPH_OWNED_LABELS)}
        )
        labels = [row["label"] for row in rows]
    existing = {index.name: index for index in (await read_index_catalog(graph)).indexes}
    statements: list[tuple[str, str]] = [
        (
            PASSAGE_FULLTEXT_INDEX,
            _fulltext_ddl(PASSAGE_FULLTEXT_INDEX, "Chunk", ["text"], PASSAGE_ANALYZER),
        ),
        (PASSAGE_VECTOR_INDEX, _vector_ddl(PASSAGE_VECTOR_INDEX, "Chunk", dimensions)),
    ]
    for label in labels:
        if label in GRAPH_OWNED_LABELS:
            continue
        name = fulltext_index_name(label)
        if _differs(existing.get(name), lexical):
            await graph.write(f"DROP INDEX {quote_identifier(name)}", {})
            log.info("dropped index %s to create it again as the settings ask", name)
            del existing[name]
        statements.append(
            (name, _fulltext_ddl(name, label, list(lexical.fields), lexical.analyzer))
        )
        statements.append(
            (vector_index_name(label), _vector_ddl(vector_index_name(label), label, dimensions))
        )
    for _, statement in statements:
        await graph.write(statement, {})  # names escaped by quote_identifier
    if await_seconds:
        await graph.auto_commit(AWAIT_INDEXES, {"seconds": await_seconds})
    created = [name for name, _ in statements if name not in existing]
    for name in created:
        log.info("created index %s", name)
    return SchemaReport(labels=list(labels), created=created)
