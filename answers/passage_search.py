"""Passage search (contract §4): the entity search's query rules over visible passages."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

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
from graph.index_catalog import IndexState, read_index_catalog


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


async def search_passages(
    context: AnswerContext, effective: Scope, request: PassageSearch
) -> list[passage_search.PassageHitRecord]:
    mode, query = request.mode, request.query
    catalog_read = read_index_catalog(context.graph, configuration=False)
    if mode == "LEXICAL":
        catalog, vector = await catalog_read, None
    else:
        catalog, vector = await asyncio.gather(catalog_read, embed_query(context, query))
    indexes = catalog.passage_indexes()
    fulltext = None
    if mode != "SEMANTIC":
        if indexes.fulltext is None or indexes.fulltext_state is not IndexState.ONLINE:
            raise IndexNotReady("Chunk", "FULLTEXT", indexes.fulltext_state.value)
        fulltext = indexes.fulltext.name
    vector_index = None
    # The vector index is used "when present" (contract §4); SEMANTIC mode cannot do without it.
    if mode != "LEXICAL" and (indexes.vector or mode == "SEMANTIC"):
        if indexes.vector is None or indexes.vector_state is not IndexState.ONLINE:
            raise IndexNotReady("Chunk", "VECTOR", indexes.vector_state.value)
        vector_index = indexes.vector.name

    return await passage_search.search_passages(
        context.graph,
        effective,
        mode=mode,
        fulltext_index=fulltext,
        vector_index=vector_index,
        lexical_query=request.words,
        vector=vector,
        limit=request.limit,
        rrf_k=context.settings.rrf_k,
        candidates=candidates_per_list(request.limit),
        cap=MAX_CANDIDATES_PER_LIST,
    )
