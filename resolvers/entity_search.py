"""`searchEntities` (contract §3): answers/entity_search.py searches; this delegate reads what the
query selects, primes the request's loaders with what the search read (so nested evidence costs
no further round trip) and builds the hits."""

from __future__ import annotations

from collections.abc import Sequence

from answers import entity_search
from resolvers.context import Info
from resolvers.entity_hit import EntityHit
from resolvers.enums import SearchMode
from resolvers.scope_input import ScopeInput
from resolvers.selection import selects


async def search_entities(
    info: Info,
    query: str,
    scope: ScopeInput | None,
    labels: Sequence[str] | None,
    mode: SearchMode,
    limit: int,
    support_limit: int,
) -> list[EntityHit]:
    with_text = selects(info, ["evidence"])
    request = entity_search.entity_search_request(
        query, labels, mode.name, limit, support_limit, with_text=with_text
    )
    context = info.context
    effective = context.scope(scope)
    records = await entity_search.search_entities(context.answers, effective, request)
    loaders = context.loaders(effective)
    for record in records:
        loaders.entities_by_id.prime(record.entity.id, record.entity)
        if with_text:  # the evidence was read with its text: `Entity.evidence` needs no read
            key = (record.entity.id, support_limit)
            loaders.evidence_by_entity_id.prime(key, list(record.passages))
        for passage in record.passages:
            loaders.prime_passage(passage)
    return [EntityHit.from_record(record, effective, loaders, with_text) for record in records]
