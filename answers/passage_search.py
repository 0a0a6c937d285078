"""Passage search (contract §4): the entity search's query rules over visible passages."""

from __future__ import annotations

from dataclasses import dataclass

from answers.catalog_search import CatalogSearch, answer
from answers.context import AnswerContext
from answers.entity_search import checked_mode, checked_query, embed_query
from contract.arguments import (
    MAX_CANDIDATES_PER_LIST,
    SEARCH_LIMIT,
    candidates_per_list,
    check_range,
)
from contract.errors import IndexNotReady
from contract.scope import Scope
from graph import passage_search
from graph.catalog_cache import SearchResult
from graph.index_catalog import IndexCatalog, IndexState
from graph.ownership import OWNER_KEY


@dataclass(frozen=True)
class PassageSearch:
    """A checked passage search (contract §4, §7), before any I/O."""

    query: str
    words: str  # the query's lexical form
    mode: str
    limit: int


def passage_search_request(query: str, mode: str, limit: int) -> PassageSearch:
    check_range("limit", limit, SEARCH_LIMIT)
    words = checked_query(query)
    return PassageSearch(query, words, checked_mode(mode), limit)


@dataclass(frozen=True)
class PassageIndexes:
    """The passage indexes one search reads; None for a side that does not run."""

    fulltext: str | None
    vector: str | None
    # The FULLTEXT index covers the owner key: its candidates come from the caller's workspaces.
    fulltext_owner_keyed: bool = False


def passage_indexes(catalog: IndexCatalog, mode: str) -> PassageIndexes:
    """The indexes `mode` reads, each ONLINE, else `INDEX_NOT_READY`."""
    indexes = catalog.passage_indexes()
    fulltext = None
    owner_keyed = False
    if mode != "SEMANTIC":
        if indexes.fulltext is None or indexes.fulltext_state is not IndexState.ONLINE:
            raise IndexNotReady("Chunk", "FULLTEXT", indexes.fulltext_state.value)
        fulltext = indexes.fulltext.name
        owner_keyed = OWNER_KEY in indexes.fulltext.properties
    vector = None
    # The vector index is used "when present" (contract §4); SEMANTIC mode cannot do without it.
    if mode != "LEXICAL" and (indexes.vector or mode == "SEMANTIC"):
        if indexes.vector is None or indexes.vector_state is not IndexState.ONLINE:
            raise IndexNotReady("Chunk", "VECTOR", indexes.vector_state.value)
        vector = indexes.vector.name
    return PassageIndexes(fulltext, vector, owner_keyed)


async def search_passages(
    context: AnswerContext, effective: Scope, request: PassageSearch
) -> list[passage_search.PassageHitRecord]:
    mode, query = request.mode, request.query

    async def run(
        indexes: PassageIndexes, vector: tuple[float, ...] | None
    ) -> SearchResult[passage_search.PassageHitRecord]:
        return await passage_search.search_passages(
            context.graph,
            effective,
            mode=mode,
            fulltext_index=indexes.fulltext,
            fulltext_owner_keyed=indexes.fulltext_owner_keyed,
            vector_index=indexes.vector,
            lexical_query=request.words,
            vector=vector,
            limit=request.limit,
            rrf_k=context.settings.rrf_k,
            candidates=candidates_per_list(request.limit),
            cap=MAX_CANDIDATES_PER_LIST,
        )

    async def embed() -> tuple[float, ...] | None:
        return None if mode == "LEXICAL" else await embed_query(context, query, effective)

    # The passage indexes from the catalog, kept or read by contract §3's rules (§4: "same
    # query rules"); a catalog read and the embedding overlap (answers/catalog_search.py).
    answered = await answer(
        CatalogSearch(
            graph=context.graph,
            plan=lambda catalog: passage_indexes(catalog, mode),
            run=run,
            embed=embed,
        )
    )
    return answered.records
