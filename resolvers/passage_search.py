"""`searchPassages` (contract §4): the entity search's query rules over visible passages."""

from __future__ import annotations

import asyncio

from contract.arguments import (
    MAX_CANDIDATES_PER_LIST,
    SEARCH_LIMIT,
    candidates_per_list,
    check_range,
)
from contract.errors import IndexNotReady
from graph import passage_search
from graph.index_catalog import IndexState, read_index_catalog
from resolvers.context import Info
from resolvers.entity_search import checked_query, embed_query
from resolvers.enums import SearchMode
from resolvers.passage_hit import PassageHit
from resolvers.scope_input import ScopeInput


async def search_passages(
    info: Info, query: str, scope: ScopeInput | None, mode: SearchMode, limit: int
) -> list[PassageHit]:
    check_range("limit", limit, SEARCH_LIMIT)
    words = checked_query(query)
    effective = info.context.scope(scope)
    context = info.context

    catalog_read = read_index_catalog(context.graph, configuration=False)
    if mode is SearchMode.LEXICAL:
        catalog, vector = await catalog_read, None
    else:
        catalog, vector = await asyncio.gather(catalog_read, embed_query(info, query))
    indexes = catalog.passage_indexes()
    fulltext = None
    if mode is not SearchMode.SEMANTIC:
        if indexes.fulltext is None or indexes.fulltext_state is not IndexState.ONLINE:
            raise IndexNotReady("Chunk", "FULLTEXT", indexes.fulltext_state.value)
        fulltext = indexes.fulltext.name
    vector_index = None
    # The vector index is used when it exists (contract §4); SEMANTIC mode cannot do without it.
    if mode is not SearchMode.LEXICAL and (indexes.vector or mode is SearchMode.SEMANTIC):
        if indexes.vector is None or indexes.vector_state is not IndexState.ONLINE:
            raise IndexNotReady("Chunk", "VECTOR", indexes.vector_state.value)
        vector_index = indexes.vector.name

    records = await passage_search.search_passages(
        context.graph,
        effective,
        mode=mode.name,
        fulltext_index=fulltext,
        vector_index=vector_index,
        lexical_query=words,
        vector=vector,
        limit=limit,
        rrf_k=context.services.settings.rrf_k,
        candidates=candidates_per_list(limit),
        cap=MAX_CANDIDATES_PER_LIST,
    )
    loaders = context.loaders(effective)
    for record in records:
        loaders.prime_passage(record.passage)
    return [PassageHit.from_record(record) for record in records]
