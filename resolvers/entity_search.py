"""`searchEntities` (seed "entity search" steps 1–6, SPEC §3): arguments checked, labels and
their indexes checked, the query embedded, one search statement (started before the index
check returns, kept only if the check agrees), the loaders primed with what it read, so
nested evidence costs no further round trip.

The lexical side follows RETRIEVAL_LEXICAL_FIELDS and the coverage rule
(retrieval/lexical_rule.py); a label whose FULLTEXT index is not what the settings ask for is
still searched with the index it has, and the operator is told once, in the log, what to run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any

from contract.arguments import (
    MAX_CANDIDATES_PER_LIST,
    MAX_LABELS,
    MAX_QUERY_LENGTH,
    SEARCH_LIMIT,
    SUPPORT_LIMIT,
    candidates_per_list,
    check_names,
    check_range,
)
from contract.errors import EvidenceGraphError, Malformed
from graph import entity_search
from graph.index_catalog import IndexCatalog, last_read_catalog, read_index_catalog
from graph.lexical_index import LexicalIndexSpec
from resolvers.context import Info
from resolvers.entity_hit import EntityHit
from resolvers.enums import SearchMode
from resolvers.scope_input import ScopeInput
from resolvers.selection import selects
from retrieval.lexical_rule import LexicalRule, lexical_request
from retrieval.query_words import lexical_query
from vectorstores.base import VectorStore

log = logging.getLogger(__name__)


def checked_query(query: str) -> str:
    """The lexical form of the query; MALFORMED when nothing searchable is left."""
    if len(query) > MAX_QUERY_LENGTH:
        raise Malformed("query", f"at most {MAX_QUERY_LENGTH} characters")
    words = lexical_query(query)
    if not words:
        raise Malformed("query", "must contain at least one letter or digit")
    return words


async def embed_query(info: Info, query: str) -> tuple[float, ...]:
    vector: tuple[float, ...] = await info.context.services.query_embedder.embed_query(query)
    return vector


async def read_external_store(
    store: VectorStore,
    targets: Sequence[entity_search.SearchTarget],
    vector: Sequence[float],
    first: int,
    cap: int,
) -> list[entity_search.ExternalRead]:
    """Each label's first read and read at the cap, from one store read per label.

    The store searches exactly, so its first `first` results are the first read; the rest is
    only used when the statement finds the first read full and too few of it returnable.
    """
    reads = await asyncio.gather(*(store.nearest(t.label, vector, cap) for t in targets))
    return [
        entity_search.ExternalRead(t.label, found[:first], found if len(found) > first else [])
        for t, found in zip(targets, reads, strict=True)
    ]


def searched_targets(
    catalog: IndexCatalog, labels: Sequence[str] | None, fields: Sequence[str] = ("name",)
) -> list[entity_search.SearchTarget]:
    """Seed steps 1–2 on one catalog: the labels to search with their two ONLINE indexes
    (`INDEX_NOT_READY` otherwise), each FULLTEXT index read on the `fields` it covers."""
    return [
        entity_search.SearchTarget(
            t.label,
            t.fulltext.name,
            t.vector.name,
            tuple(f for f in fields if f in t.fulltext.properties),
        )
        for t in catalog.searchable(labels, fields)
        if t.fulltext is not None and t.vector is not None
    ]


def guessed_targets(
    catalog: IndexCatalog | None, labels: Sequence[str] | None, fields: Sequence[str] = ("name",)
) -> list[entity_search.SearchTarget] | None:
    """The targets the last catalog read names, if a search could start from them."""
    if catalog is None:
        return None
    try:
        return searched_targets(catalog, labels, fields) or None
    except EvidenceGraphError:
        return None  # the fresh read decides which error, if any, the caller sees


def report_index_mismatches(
    catalog: IndexCatalog, rule: LexicalRule, labels: Sequence[str], reported: set[str]
) -> None:
    """Log, once per app and problem, each searched label whose FULLTEXT index is not what the
    settings ask for, with the command that fixes it."""
    for problem in catalog.lexical_mismatches(LexicalIndexSpec(rule.fields), labels):
        if problem not in reported:
            reported.add(problem)
            log.warning("%s", problem)


async def discard(task: asyncio.Future[Any]) -> None:
    """Stop a task whose result is not wanted, and swallow whatever it ends with."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


async def search_entities(
    info: Info,
    query: str,
    scope: ScopeInput | None,
    labels: Sequence[str] | None,
    mode: SearchMode,
    limit: int,
    support_limit: int,
) -> list[EntityHit]:
    check_range("limit", limit, SEARCH_LIMIT)
    check_range("supportLimit", support_limit, SUPPORT_LIMIT)
    checked_query(query)
    chosen_labels = check_names("labels", list(labels) if labels is not None else None, MAX_LABELS)
    if chosen_labels is not None and not chosen_labels:
        raise Malformed("labels", "name at least one label, or omit it to search every label")
    effective = info.context.scope(scope)
    context = info.context
    store = context.services.vector_store
    candidates = candidates_per_list(limit)
    cap = MAX_CANDIDATES_PER_LIST
    candidates_semantic = candidates
    if not store.in_graph and store.max_results is not None:
        # Seed step 3: the semantic read "is also capped at the store's max_results".
        candidates_semantic = min(candidates, store.max_results)
        cap = min(cap, store.max_results)

    with_text = selects(info, ["evidence"])
    rule: LexicalRule = context.services.settings.lexical
    lexical = None if mode is SearchMode.SEMANTIC else lexical_request(query, rule)

    async def search(
        targets: Sequence[entity_search.SearchTarget],
        vector: Sequence[float] | None,
        external_reads: Sequence[entity_search.ExternalRead] | None = None,
    ) -> list[entity_search.EntityHitRecord]:
        return await entity_search.search_entities(
            context.graph,
            effective,
            targets=targets,
            mode=mode.name,
            lexical=lexical,
            vector=vector,
            limit=limit,
            support_limit=support_limit,
            rrf_k=context.services.settings.rrf_k,
            lexical_k=candidates,
            semantic_k=candidates_semantic,
            cap_k=cap,
            with_text=with_text,
            external_reads=external_reads,
        )

    # Every request reads the index catalog (steps 1–2); the query embedding does not depend
    # on it, so the two overlap. With the graph's own vector index, the search itself also
    # starts at once, from the targets of the last catalog read, and its answer is kept only
    # if the fresh catalog names the same targets: the round trip of the catalog leaves the
    # critical path, and the answer is always one computed from this request's catalog.
    catalog_read = asyncio.ensure_future(read_index_catalog(context.graph, configuration=False))
    guess = (
        guessed_targets(last_read_catalog(context.graph), chosen_labels, rule.fields)
        if store.in_graph  # an external store's search needs its candidates first
        else None
    )
    early: asyncio.Future[list[entity_search.EntityHitRecord]] | None = None
    try:
        vector = None if mode is SearchMode.LEXICAL else await embed_query(info, query)
        if guess is not None:
            early = asyncio.ensure_future(search(guess, vector))
        catalog = await catalog_read
        targets = searched_targets(catalog, chosen_labels, rule.fields)
    except BaseException:
        for task in (catalog_read, early):
            if task is not None:
                await discard(task)
        raise
    if early is not None:
        if targets == guess:
            records = await early
        else:
            # The indexes changed since the last read; the early answer may be wrong.
            await discard(early)
            records = await search(targets, vector) if targets else []
    elif not targets:
        return []
    elif store.in_graph:
        records = await search(targets, vector)
    else:
        external_reads = (
            []
            if vector is None
            else await read_external_store(store, targets, vector, candidates_semantic, cap)
        )
        records = await search(targets, vector, external_reads)

    report_index_mismatches(
        catalog, rule, [t.label for t in targets], context.services.lexical_warnings
    )
    loaders = context.loaders(effective)
    for record in records:
        loaders.entities_by_id.prime(record.entity.id, record.entity)
        if with_text:  # the evidence was read with its text: `Entity.evidence` needs no read
            key = (record.entity.id, support_limit)
            loaders.evidence_by_entity_id.prime(key, list(record.passages))
        for passage in record.passages:
            loaders.prime_passage(passage)
    return [EntityHit.from_record(record, effective, with_text) for record in records]
