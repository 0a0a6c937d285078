"""Reading a knowledge graph another tool wrote into Neo4j (`load --format neo4j-graphrag |
llm-graph-builder --from bolt://…`), without changing it: the statements, their reads, and the
rows they give, for ingest/source_graph_import.py to map (docs/import-neo4j.md).

The source is another database, often another server, that the service does not own: every
statement runs in a read transaction (`session.execute_read` with READ access, so Neo4j
refuses any write), never in the service's own `Graph`. Each kind of row (documents, chunks,
entity links, entities, relationships) is one statement whose records are pulled `PAGE_SIZE`
at a time (Bolt's fetch size): neither side holds more than a page in flight, and the read
stays linear, where paging by `SKIP`/`LIMIT` or by element id ranges would scan the label
again for every page. `on_page` is told after each page, for the progress line.

The labels and relationship types in these statements are the layouts' own (`LAYOUTS`),
fixed here and written through graph/cypher_names.py's rule; nothing read from the source
(its entity labels, relationship types, property names) ever reaches Cypher text: they come
back as values (`labels(e)`, `type(r)`, `properties(r)`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, LiteralString

import neo4j
from neo4j.exceptions import AuthError, ClientError, ServiceUnavailable, SessionExpired

from graph.cypher_names import cypher_name

PAGE_SIZE = 1000


@dataclass(frozen=True, slots=True)
class SourceLayout:
    """The names one tool writes its graph with (its documented schema, docs/import-neo4j.md).

    `entity_link` runs from the entity to the chunk when `link_from_entity`, else from the
    chunk to the entity. `markers` are labels on entities that are no entity type.
    """

    format: str
    chunk: str
    document: str
    entity: str
    chunk_to_document: str
    entity_link: str
    link_from_entity: bool
    chunk_order: str  # the chunk property giving its place in its document
    document_key: str  # the document property that names it
    entity_names: tuple[str, ...]  # the entity properties tried for its name, in order
    markers: tuple[str, ...]
    # How the tool merges entities: on label and name (neo4j-graphrag's resolver), or on the
    # name alone (LLM Graph Builder: `MERGE (:__Entity__ {id})`).
    merges_by_label: bool

    @property
    def required(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(labels, relationship types) a source must hold to be read in this layout."""
        return (self.chunk, self.document), (self.chunk_to_document,)


NEO4J_GRAPHRAG = SourceLayout(
    format="neo4j-graphrag",
    chunk="Chunk",
    document="Document",
    entity="__Entity__",
    chunk_to_document="FROM_DOCUMENT",
    entity_link="FROM_CHUNK",
    link_from_entity=True,
    chunk_order="index",
    document_key="path",
    entity_names=("name", "id", "title"),
    markers=("__Entity__", "__KGBuilder__"),
    merges_by_label=True,
)
LLM_GRAPH_BUILDER = SourceLayout(
    format="llm-graph-builder",
    chunk="Chunk",
    document="Document",
    entity="__Entity__",
    chunk_to_document="PART_OF",
    entity_link="HAS_ENTITY",
    link_from_entity=False,
    chunk_order="position",
    document_key="fileName",
    entity_names=("id",),
    markers=("__Entity__",),
    merges_by_label=False,
)
LAYOUTS = {layout.format: layout for layout in (NEO4J_GRAPHRAG, LLM_GRAPH_BUILDER)}


@dataclass(frozen=True, slots=True)
class FoundNames:
    labels: tuple[str, ...]
    relationship_types: tuple[str, ...]

    def matches(self, layout: SourceLayout) -> bool:
        labels, types = layout.required
        return set(labels) <= set(self.labels) and set(types) <= set(self.relationship_types)


@dataclass(frozen=True, slots=True)
class SourceDocument:
    element_id: str
    key: object  # the layout's `document_key` property, as stored
    title: object
    url: object


@dataclass(frozen=True, slots=True)
class SourceChunk:
    element_id: str
    document: str  # its document's element id
    text: object
    order: object  # the layout's `chunk_order` property, as stored
    own_id: object  # its `id` property (LLM Graph Builder's sha1 of the text), if any


@dataclass(frozen=True, slots=True)
class SourceEntity:
    element_id: str
    labels: tuple[str, ...]
    names: tuple[object, ...]  # the layout's `entity_names` properties, as stored
    description: object


@dataclass(frozen=True, slots=True)
class SourceLink:
    entity: str
    chunk: str


@dataclass(frozen=True, slots=True)
class SourceRelationship:
    element_id: str
    source: str
    target: str
    type: str
    properties: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SourceRows:
    documents: list[SourceDocument]
    chunks: list[SourceChunk]  # one per chunk and document it is part of
    entities: list[SourceEntity]
    links: list[SourceLink]
    relationships: list[SourceRelationship]  # between two entities


class SourceUnavailable(Exception):
    """The source cannot be read: unreachable, credentials refused, no such database."""


FOUND_NAMES: LiteralString = (
    "CALL db.labels() YIELD label WITH collect(label) AS labels"
    " CALL db.relationshipTypes() YIELD relationshipType"
    " RETURN labels, collect(relationshipType) AS types"
)


def _statements(layout: SourceLayout) -> dict[str, LiteralString]:
    """The layout's statements; its names through the one naming rule, values as parameters."""
    chunk, document = cypher_name(layout.chunk), cypher_name(layout.document)
    entity, part_of = cypher_name(layout.entity), cypher_name(layout.chunk_to_document)
    link = cypher_name(layout.entity_link)
    linked = (
        f"(e:{entity})-[:{link}]->(c:{chunk})"
        if layout.link_from_entity
        else f"(c:{chunk})-[:{link}]->(e:{entity})"
    )
    statements: dict[str, LiteralString] = {
        "counts": f"CALL () {{ MATCH (d:{document}) RETURN count(d) AS documents }}"
        f" CALL () {{ MATCH (:{chunk})-[:{part_of}]->(:{document}) RETURN count(*) AS chunks }}"
        f" CALL () {{ MATCH (e:{entity}) RETURN count(e) AS entities }}"
        f" CALL () {{ MATCH (c:{chunk}) WHERE NOT (c)-[:{part_of}]->(:{document})"
        " RETURN count(c) AS orphans }"
        " RETURN documents, chunks, entities, orphans",
        "documents": f"MATCH (d:{document}) RETURN elementId(d) AS id, d[$key] AS key,"
        " d.title AS title, d.url AS url",
        "chunks": f"MATCH (c:{chunk})-[:{part_of}]->(d:{document})"
        " RETURN elementId(c) AS id, elementId(d) AS document, c.text AS text,"
        " c[$order] AS order, c.id AS own",
        "entities": f"MATCH (e:{entity}) RETURN elementId(e) AS id, labels(e) AS labels,"
        " [name IN $names | e[name]] AS names, e.description AS description",
        "links": f"MATCH {linked} RETURN elementId(e) AS entity, elementId(c) AS chunk",
        "relationships": f"MATCH (a:{entity})-[r]->(b:{entity})"
        " RETURN elementId(r) AS id, elementId(a) AS source, elementId(b) AS target,"
        " type(r) AS type, properties(r) AS properties",
    }
    # Built only from the layouts' fixed names, each checked by cypher_name above.
    return statements


PageObserver = Callable[[str, int, bool], None]  # (kind, rows read so far, whether all)


class SourceGraph:
    """A read-only handle on the source database at `uri` (`database`: its default if None)."""

    def __init__(self, driver: neo4j.AsyncDriver, database: str | None) -> None:
        self._driver = driver
        self._database = database

    async def found_names(self) -> FoundNames:
        [row] = await self._read(FOUND_NAMES, {}, "names", None)
        return FoundNames(tuple(sorted(row["labels"])), tuple(sorted(row["types"])))

    async def counts(self, layout: SourceLayout) -> dict[str, int]:
        [row] = await self._read(_statements(layout)["counts"], {}, "counts", None)
        return {key: int(row[key]) for key in ("documents", "chunks", "entities", "orphans")}

    async def rows(self, layout: SourceLayout, on_page: PageObserver) -> SourceRows:
        """Every row of the layout, one statement (and read transaction) per kind."""
        statements = _statements(layout)
        documents = [
            SourceDocument(row["id"], row["key"], row["title"], row["url"])
            for row in await self._read(
                statements["documents"], {"key": layout.document_key}, "documents", on_page
            )
        ]
        chunks = [
            SourceChunk(row["id"], row["document"], row["text"], row["order"], row["own"])
            for row in await self._read(
                statements["chunks"], {"order": layout.chunk_order}, "chunks", on_page
            )
        ]
        entities = [
            SourceEntity(row["id"], tuple(row["labels"]), tuple(row["names"]), row["description"])
            for row in await self._read(
                statements["entities"], {"names": list(layout.entity_names)}, "entities", on_page
            )
        ]
        links = [
            SourceLink(row["entity"], row["chunk"])
            for row in await self._read(statements["links"], {}, "entity links", on_page)
        ]
        relationships = [
            SourceRelationship(
                row["id"], row["source"], row["target"], row["type"], dict(row["properties"])
            )
            for row in await self._read(statements["relationships"], {}, "relationships", on_page)
        ]
        return SourceRows(documents, chunks, entities, links, relationships)

    async def _read(
        self,
        query: LiteralString,
        parameters: dict[str, Any],
        kind: str,
        on_page: PageObserver | None,
    ) -> list[neo4j.Record]:
        async def work(tx: neo4j.AsyncManagedTransaction) -> list[neo4j.Record]:
            records: list[neo4j.Record] = []  # afresh if the driver runs the work again
            result = await tx.run(query, parameters)
            async for record in result:
                records.append(record)
                if on_page is not None and len(records) % PAGE_SIZE == 0:
                    on_page(kind, len(records), False)
            if on_page is not None:
                on_page(kind, len(records), True)
            return records

        try:
            async with self._driver.session(
                database=self._database,
                default_access_mode=neo4j.READ_ACCESS,
                fetch_size=PAGE_SIZE,
            ) as session:
                return await session.execute_read(work)
        except (ServiceUnavailable, SessionExpired, AuthError, OSError) as error:
            raise SourceUnavailable(str(error).splitlines()[0]) from error
        except ClientError as error:
            if (error.code or "").startswith(("Neo.ClientError.Security.", _NO_DATABASE)):
                raise SourceUnavailable(error.message or error.code or "") from error
            raise


_NO_DATABASE = "Neo.ClientError.Database.DatabaseNotFound"


@asynccontextmanager
async def open_source_graph(
    uri: str, database: str | None, auth: tuple[str, str] | None
) -> AsyncIterator[SourceGraph]:
    """A driver of its own for the source, closed after (it is not the service's database)."""
    driver = neo4j.AsyncGraphDatabase.driver(
        uri, auth=auth, connection_timeout=10.0, notifications_min_severity="OFF"
    )
    try:
        yield SourceGraph(driver, database)
    finally:
        await driver.close()
