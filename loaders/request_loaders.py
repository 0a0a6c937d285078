"""The typed bundle of one request's loaders for one effective scope."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aiodataloader import DataLoader

from contract.scope import Scope
from graph import lookups
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

    passages_by_id: DataLoader[str, PassageRecord | None]
    documents_by_id: DataLoader[str, DocumentRecord | None]
    entities_by_id: DataLoader[str, EntityRecord | None]
    evidence_by_entity_id: DataLoader[tuple[str, int], list[PassageRecord]]

    def prime_passage(self, passage: PassageRecord) -> None:
        """A passage read elsewhere (search, walk) also primes its document."""
        self.passages_by_id.prime(passage.id, passage)
        self.documents_by_id.prime(passage.document.id, passage.document)


def create_loaders(graph: Graph, scope: Scope) -> Loaders:
    return Loaders(
        passages_by_id=_loader(graph, scope, lookups.passages_by_id),
        documents_by_id=_loader(graph, scope, lookups.documents_by_id),
        entities_by_id=_loader(graph, scope, lookups.entities_by_id),
        evidence_by_entity_id=_loader(graph, scope, lookups.evidence_by_entity_id),
    )
