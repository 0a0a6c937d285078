"""`searchPassages` (contract §4): answers/passage_search.py searches; this delegate primes the
request's loaders with the passages found and builds the hits."""

from __future__ import annotations

from answers import passage_search
from resolvers.context import Info
from resolvers.enums import SearchMode
from resolvers.passage_hit import PassageHit
from resolvers.scope_input import ScopeInput


async def search_passages(
    info: Info, query: str, scope: ScopeInput | None, mode: SearchMode, limit: int
) -> list[PassageHit]:
    request = passage_search.passage_search_request(query, mode.name, limit)
    context = info.context
    effective = context.scope(scope)
    records = await passage_search.search_passages(context.answers, effective, request)
    loaders = context.loaders(effective)
    for record in records:
        loaders.prime_passage(record.passage)
    return [PassageHit.from_record(record, effective) for record in records]
