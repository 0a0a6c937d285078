"""The typed bundle of one request's loaders for one effective scope."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aiodataloader import DataLoader

from contract.scope import Scope
from graph import lookups, passage_mentions, passage_pages
from graph.driver import Graph
from graph.records import DocumentRecord, EntityRecord, PassageRecord


def _loader(
    graph: Graph, scope: Scope, fetch: Callable[[Graph, Scope, Sequence[Any]], Awaitable[list[Any]]]
) -> DataLoader[Any, Any]:
    async def batch(keys: list[Any]) -> list[Any]:
        return await fetch(graph, scope, keys)

    return DataLoader(batch_load_fn=batch)


@dataclass(frozen=True)
class Loaders:
    """Everything a request may look up in one scope, batched per event-loop tick."""

    scope: Scope  # what every loader here reads within; the types built from them keep it
    passages_by_id: DataLoader[str, PassageRecord | None]
    documents_by_id: DataLoader[str, DocumentRecord | None]
    entities_by_id: DataLoader[str, EntityRecord | None]
    evidence_by_entity_id: DataLoader[tuple[str, int], list[PassageRecord]]
    # The paged reads (graph/passage_pages.py): each page's passages, one more than asked.
    evidence_pages_by_entity_id: DataLoader[passage_pages.PageRequest, list[PassageRecord]]
    evidence_pages_by_edge: DataLoader[passage_pages.EdgePageRequest, list[PassageRecord]]
    passage_pages_by_document_id: DataLoader[passage_pages.PageRequest, list[PassageRecord]]
    # How many passages those pages would hold, up to `first + 1` (evidence totals).
    evidence_counts_by_entity_id: DataLoader[passage_pages.PageRequest, int]
    evidence_counts_by_edge: DataLoader[passage_pages.EdgePageRequest, int]
    entities_by_passage_id: DataLoader[tuple[str, int], list[EntityRecord]]

    def prime_passage(self, passage: PassageRecord) -> None:
        """A passage read elsewhere (search, walk) also primes its document."""
        self.passages_by_id.prime(passage.id, passage)
        self.documents_by_id.prime(passage.document.id, passage.document)


def create_loaders(graph: Graph, scope: Scope) -> Loaders:
    return Loaders(
        scope=scope,
        passages_by_id=_loader(graph, scope, lookups.passages_by_id),
        documents_by_id=_loader(graph, scope, lookups.documents_by_id),
        entities_by_id=_loader(graph, scope, lookups.entities_by_id),
        evidence_by_entity_id=_loader(graph, scope, lookups.evidence_by_entity_id),
        evidence_pages_by_entity_id=_loader(graph, scope, passage_pages.entity_evidence_pages),
        evidence_pages_by_edge=_loader(graph, scope, passage_pages.edge_evidence_pages),
        passage_pages_by_document_id=_loader(graph, scope, passage_pages.document_passage_pages),
        evidence_counts_by_entity_id=_loader(graph, scope, passage_pages.entity_evidence_counts),
        evidence_counts_by_edge=_loader(graph, scope, passage_pages.edge_evidence_counts),
        entities_by_passage_id=_loader(graph, scope, passage_mentions.entities_by_passage_id),
    )
