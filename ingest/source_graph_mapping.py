"""A knowledge graph read from Neo4j (graph/source_graph.py's rows) as document versions, without
a database: the mapping of `load --format neo4j-graphrag | llm-graph-builder`
(docs/import-neo4j.md).

- Each document is one job in `--workspace`: its chunks become its passages in their order
  (neo4j-graphrag's `index`, LLM Graph Builder's `position`; then element id), titled by its
  `title`, else its path or file name. A chunk that is part of two documents (LLM Graph
  Builder names chunks by the sha1 of their text) is a passage of each.
- An entity is a node with the layout's entity label (`__Entity__`); its other labels are its
  labels (`__KGBuilder__` is no type), kept when they are labels as they stand and otherwise
  their words joined (LangChain's rule, ingest/langchain_graph.py), a graph-owned one under the
  prefix `Extracted`, none at all `Thing`. Its name is the layout's name property (`name`,
  else `id` or `title`, for neo4j-graphrag; `id` for LLM Graph Builder), its description
  `description`. The chunks that link it (`FROM_CHUNK`, `HAS_ENTITY`) mention it.
- A relationship between two entities is a relation of its type (or its words joined by `_`).
  Neither tool links a relationship to the chunk it was extracted from, so a relation is
  supported by the chunks that mention both of its ends, and is a path when no chunk does.
  Both tools extract a relationship from one chunk together with its two ends, and link that
  chunk to both, so the chunk that states it is always among its support; a chunk that names
  both ends without stating it may be listed too (docs/import-neo4j.md says why this rather
  than a path).
- Ids are derived per workspace (`contract.identifiers.workspace_id`), as the GraphRAG and
  LangChain readers derive theirs: a document from its path or file name; an entity as each
  tool merges them (neo4j-graphrag: its label and name, as its resolver merges nodes;
  LLM Graph Builder: its `id`, on which LangChain's `add_graph_documents` merges
  `__Entity__` nodes); a relation from its ends and type; a passage from its document and
  position and the content of its version (ingest/content_ids.py), so a changed document
  loads as its next version and an unchanged one is "unchanged". The source's own ids stay
  readable as `sourceId`: a document's path or file name, a chunk's `id` or element id, an
  entity's `id` or element id, a relationship's element id.

A document the mapping cannot load (a chunk without text, a path two documents share) is
refused whole with the reason, numbered by its place in the load; what it cannot use of the
rest (a label or type with no words, a relationship of a graph-owned type, an entity without
a name or without a chunk of a loaded document) is skipped, counted and named in a warning.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field

from contract.graph_owned import GRAPH_OWNED_LABELS
from contract.identifiers import canonical_id, content_workspace_id, workspace_id
from graph.source_graph import SourceLayout, SourceRows
from ingest.bundle import LineError
from ingest.content_ids import with_content_ids
from ingest.document_version import (
    DocumentInfo,
    DocumentVersion,
    EntityInput,
    PassageInput,
    PropertyValue,
    RelationInput,
)
from ingest.graphrag import OWNED_LABEL_PREFIX, UNTYPED_LABEL
from ingest.import_warnings import Tally
from ingest.langchain_graph import label_for_node_type, relation_properties, relation_type_for

MESSAGES: dict[str, str] = {
    "chunks_without_document": "{n} chunk(s) skipped: part of no document",
    "documents_without_chunks": "{n} document(s) skipped: no chunk is part of them",
    "chunks_unordered": (
        "{n} document(s) have chunks without a distinct order number; those go by element id"
    ),
    "labels_mapped": "{n} label(s) are not labels as they stand; their words were joined",
    "labels_dropped": "{n} label(s) dropped: they have no words that make a label",
    "labels_renamed": (
        "{n} label(s) would be graph-owned labels; they were given the prefix " + OWNED_LABEL_PREFIX
    ),
    "entities_untyped": "{n} entity(ies) have no type label; they are " + UNTYPED_LABEL,
    "entities_without_name": "{n} entity(ies) skipped: no name",
    "entities_unmentioned": "{n} entity(ies) skipped: no chunk of a loaded document links them",
    "types_mapped": (
        "{n} relationship type(s) are not relation type names; their words were joined by _"
    ),
    "relationships_skipped": (
        "{n} relationship(s) skipped: a type with no words, a graph-owned type, or an end that"
        " is skipped"
    ),
    "properties_dropped": (
        "{n} relationship property(ies) dropped: not a string, number or boolean, a claim the"
        " contract does not allow, or a name the write path sets itself"
    ),
}


@dataclass(frozen=True, slots=True)
class SourceGraphExport:
    # (document number, version or why it is refused), in load order
    lines: list[tuple[int, DocumentVersion | LineError]]
    warnings: list[str]
    counts: dict[str, int]  # documents, passages, entities, relations


@dataclass
class _Entity:
    input: EntityInput  # without mentions
    mentions: dict[int, list[str]] = field(default_factory=dict)  # line -> draft passage ids


def map_source_rows(
    rows: SourceRows,
    layout: SourceLayout,
    workspace: str,
    graph_owned_relation_types: Collection[str],
    chunks_without_document: int = 0,
) -> SourceGraphExport:
    """The source's documents as lines, in the order of their keys (module docstring)."""
    if not workspace.strip():
        raise ValueError("the workspace must not be empty")
    tally = Tally(messages=MESSAGES)
    for _ in range(chunks_without_document):
        tally.add("chunks_without_document", "no " + layout.chunk_to_document)
    documents = _Documents(rows, layout, workspace, tally)
    entities = _entities(rows, layout, workspace, documents, tally)
    relations = _relations(rows, entities, graph_owned_relation_types, tally)
    loaded = documents.loaded
    entity_lines: dict[int, list[EntityInput]] = defaultdict(list)
    # Several source nodes may make one entity (module docstring): each goes in a line once.
    distinct = {entity.input.id: entity for entity in entities.values()}
    for entity in sorted(distinct.values(), key=lambda e: e.input.id):
        for line, mentions in sorted(entity.mentions.items()):
            entity_lines[line].append(_with_mentions(entity.input, mentions))
    relation_lines: dict[int, list[RelationInput]] = defaultdict(list)
    for line, relation in sorted(relations, key=lambda item: item[1].id):
        relation_lines[line].append(relation)
    drafts = [
        DocumentVersion(info, passages, entity_lines[line], relation_lines[line])
        for line, (info, passages) in enumerate(loaded)
    ]
    versions = with_content_ids(
        drafts,
        lambda passage, fingerprint: content_workspace_id(
            workspace, passage.id, "source_chunk", fingerprint
        ),
    )
    numbered: list[tuple[int, DocumentVersion | LineError]] = [
        (documents.numbers[line], version) for line, version in enumerate(versions)
    ]
    numbered += documents.refused
    numbered.sort(key=lambda item: item[0])
    counts = {
        "documents": len(versions),
        "passages": sum(len(info_passages[1]) for info_passages in loaded),
        "entities": len(distinct),
        "relations": len(relations),
    }
    return SourceGraphExport(numbered, tally.warnings(), counts)


def _with_mentions(entity: EntityInput, mentions: list[str]) -> EntityInput:
    return EntityInput(
        entity.id,
        entity.labels,
        entity.name,
        entity.description,
        tuple(mentions),
        source_id=entity.source_id,
    )


class _Documents:
    """The documents to load (each with its drafted passages), the refused ones, and where
    each chunk's passages are."""

    def __init__(
        self, rows: SourceRows, layout: SourceLayout, workspace: str, tally: Tally
    ) -> None:
        by_key: dict[str, list[str]] = defaultdict(list)  # key -> element ids
        keys: dict[str, str] = {}  # element id -> key
        for document in rows.documents:
            key = _text(document.key) or document.element_id
            by_key[key].append(document.element_id)
            keys[document.element_id] = key
        source = {document.element_id: document for document in rows.documents}
        chunks: dict[str, list[tuple[object, str, object, object]]] = defaultdict(list)
        for chunk in rows.chunks:
            chunks[chunk.document].append((chunk.order, chunk.element_id, chunk.text, chunk.own_id))
        self.loaded: list[tuple[DocumentInfo, list[PassageInput]]] = []
        self.numbers: list[int] = []  # the loaded documents' numbers
        self.refused: list[tuple[int, DocumentVersion | LineError]] = []
        self.passages: dict[str, list[tuple[int, str]]] = defaultdict(list)  # chunk -> (line, id)
        for number, key in enumerate(sorted(by_key), start=1):
            shared = by_key[key]
            if len(shared) > 1:
                reason = (
                    f"{len(shared)} {layout.document} nodes have the {layout.document_key}"
                    f" {key!r} ({', '.join(sorted(shared))}): the pipeline ran on it more than"
                    " once; remove the older run's nodes from the source"
                )
                self.refused.append((number, LineError(reason)))
                continue
            [element_id] = shared
            document = source[element_id]
            info = DocumentInfo(
                workspace_id(workspace, key, "source_document"),
                workspace,
                _text(document.title) or key,
                _text(document.url) or (key if key != element_id else None),
                source_id=key,
            )
            ordered = sorted(chunks[element_id], key=_chunk_order)
            if not ordered:  # a file the tool has not split (LLM Graph Builder's "New" ones)
                tally.add("documents_without_chunks", key)
                continue
            orders = [order for order, *_ in ordered]
            if any(not _is_order(o) for o in orders) or len(set(map(str, orders))) < len(orders):
                tally.add("chunks_unordered", key)
            untexted = [chunk_id for _, chunk_id, text, _ in ordered if not isinstance(text, str)]
            if untexted:
                reason = (
                    f"chunk(s) without text ({', '.join(untexted[:3])}"
                    f"{', …' if len(untexted) > 3 else ''}): nothing of {layout.document}"
                    f" {key!r} is loaded"
                )
                self.refused.append((number, LineError(reason)))
                continue
            line = len(self.loaded)
            passages = []
            for position, (_, chunk_id, text, own_id) in enumerate(ordered):
                draft = workspace_id(workspace, f"{key}\x00{position}", "source_chunk")
                passages.append(
                    PassageInput(draft, position, str(text), source_id=_text(own_id) or chunk_id)
                )
                self.passages[chunk_id].append((line, draft))
            self.loaded.append((info, passages))
            self.numbers.append(number)


def _chunk_order(chunk: tuple[object, str, object, object]) -> tuple[int, int, str]:
    order, element_id = chunk[0], chunk[1]
    return (0, order, element_id) if _is_order(order) else (1, 0, element_id)  # type: ignore[return-value]


def _is_order(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: object) -> str | None:
    """A non-empty string property as it is; a number as its digits; anything else None."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _entities(
    rows: SourceRows, layout: SourceLayout, workspace: str, documents: _Documents, tally: Tally
) -> dict[str, _Entity]:
    """Every entity some loaded chunk links, by the source element ids that make it."""
    linked: dict[str, list[str]] = defaultdict(list)  # entity element id -> chunk element ids
    for link in rows.links:
        linked[link.entity].append(link.chunk)
    by_id: dict[str, _Entity] = {}
    made: dict[str, _Entity] = {}  # source element id -> entity
    for source in sorted(rows.entities, key=lambda e: e.element_id):
        name = next((text for value in source.names if (text := _text(value))), None)
        if name is None:
            tally.add("entities_without_name", source.element_id)
            continue
        labels = _labels(source.labels, layout.markers, tally)
        if layout.merges_by_label:
            entity_id, own = workspace_id(workspace, name, f"entity:{labels[0]}"), None
        else:  # its name is its `id`, the one id the source gives it
            entity_id, own = workspace_id(workspace, name, f"entity:{layout.entity}"), name
        entity = by_id.get(entity_id)
        description = _text(source.description)
        if entity is None:
            entity = by_id[entity_id] = _Entity(
                EntityInput(
                    entity_id, labels, name, description, source_id=own or source.element_id
                )
            )
        elif set(labels) - set(entity.input.labels) or (
            description and not entity.input.description
        ):
            known = entity.input
            entity.input = EntityInput(
                known.id,
                tuple(sorted(set(known.labels) | set(labels))),
                known.name,
                known.description or description,
                source_id=known.source_id,
            )
        made[source.element_id] = entity
        for chunk in sorted(linked[source.element_id]):
            for line, passage in documents.passages.get(chunk, []):
                mentions = entity.mentions.setdefault(line, [])
                if passage not in mentions:
                    mentions.append(passage)
    kept = {}
    for element_id, entity in made.items():
        if entity.mentions:
            kept[element_id] = entity
        else:
            tally.add("entities_unmentioned", element_id)
    return kept


def _labels(labels: tuple[str, ...], markers: tuple[str, ...], tally: Tally) -> tuple[str, ...]:
    """An entity's type labels as labels a load may write (sorted; `Thing` when none)."""
    kept: set[str] = set()
    for given in labels:
        if given in markers:
            continue
        label = label_for_node_type(given)
        if label is None:
            tally.add("labels_dropped", repr(given))
            continue
        if label != given:
            tally.add("labels_mapped", f"{given!r} -> {label}")
        if label in GRAPH_OWNED_LABELS:
            tally.add("labels_renamed", f"{label} -> {OWNED_LABEL_PREFIX}{label}")
            label = OWNED_LABEL_PREFIX + label
        kept.add(label)
    if not kept:
        tally.add("entities_untyped", ", ".join(map(repr, labels)))
        return (UNTYPED_LABEL,)
    return tuple(sorted(kept))


def _relations(
    rows: SourceRows,
    entities: dict[str, _Entity],
    owned_types: Collection[str],
    tally: Tally,
) -> list[tuple[int, RelationInput]]:
    """Every relation that maps, with the line it goes in: the last line that its ends or
    its support need (a line may name what an earlier line writes)."""
    relations: dict[str, tuple[int, RelationInput]] = {}
    for source in sorted(rows.relationships, key=lambda r: r.element_id):
        start, end = entities.get(source.source), entities.get(source.target)
        kind = relation_type_for(source.type)
        if start is None or end is None or kind is None or kind in owned_types:
            tally.add("relationships_skipped", f"{source.type!r} {source.element_id}")
            continue
        if kind != source.type:
            tally.add("types_mapped", f"{source.type!r} -> {kind}")
        properties, dropped = relation_properties(source.properties)
        for key in dropped:
            tally.add("properties_dropped", f"{source.element_id}.{key}")
        relation_id = canonical_id(
            f"{start.input.id}\x00{kind}\x00{end.input.id}", "source_graph_relation"
        )
        support = [
            (line, passage)
            for line, passages in sorted(start.mentions.items())
            for passage in passages
            if passage in end.mentions.get(line, ())
        ]
        line = max([min(start.mentions), min(end.mentions), *(line for line, _ in support)])
        known = relations.get(relation_id)
        if known is not None:  # two source relationships merged with their ends
            properties = {**properties, **known[1].properties}
        relations[relation_id] = (
            line,
            RelationInput(
                relation_id,
                kind,
                start.input.id,
                end.input.id,
                tuple(passage for _, passage in support),
                _sorted(properties),
                source_id=known[1].source_id if known else source.element_id,
            ),
        )
    return list(relations.values())


def _sorted(properties: dict[str, PropertyValue]) -> dict[str, PropertyValue]:
    return dict(sorted(properties.items()))
