"""Entity search (seed "entity search" steps 1–6, contract §3): arguments checked, labels and
their indexes checked on the index catalog (kept between requests by contract §3's rules:
answers/catalog_search.py), the query embedded, one search statement; the records carry what
the doors prime their loaders with, so nested evidence costs no further round trip.

The lexical side follows RETRIEVAL_LEXICAL_FIELDS and the coverage rule
(retrieval/lexical_rule.py); a label whose FULLTEXT index is not what the settings ask for is
still searched with the index it has, and the operator is told once, in the log, what to run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from answers.catalog_search import CatalogSearch, answer
from answers.context import AnswerContext
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
from contract.errors import Malformed
from contract.scope import Scope
from graph import entity_search
from graph.catalog_cache import SearchResult
from graph.index_catalog import IndexCatalog
from graph.lexical_index import LexicalIndexSpec
from graph.ownership import OWNER_KEY
from retrieval.lexical_rule import LexicalRule, lexical_request
from retrieval.query_words import lexical_query
from vectorstores.base import VectorStore

log = logging.getLogger(__name__)

SEARCH_MODES = ("HYBRID", "LEXICAL", "SEMANTIC")


def checked_query(query: str) -> str:
    """The lexical form of the query; MALFORMED when nothing searchable is left."""
    if len(query) > MAX_QUERY_LENGTH:
        raise Malformed("query", f"at most {MAX_QUERY_LENGTH} characters")
    words = lexical_query(query)
    if not words:
        raise Malformed("query", "must contain at least one letter or digit")
    return words


def checked_mode(mode: str) -> str:
    """GraphQL checks the enum itself; other doors send a string."""
    if mode not in SEARCH_MODES:
        raise Malformed("mode", f"must be one of {', '.join(SEARCH_MODES)}")
    return mode


async def embed_query(context: AnswerContext, query: str, effective: Scope) -> tuple[float, ...]:
    """The query's vector. The query-vector cache is shared only by searches that read the same
    workspaces (issue 38 §5: a hit is faster, so a shared cache would tell a caller whether
    anyone had searched that exact text); a caller can only read workspaces it is granted, so
    it learns nothing of searches over any workspace it may not read."""
    return await context.query_embedder.embed_query(query, partition=effective.workspaces)


@dataclass(frozen=True)
class EntitySearch:
    """A checked entity search (contract §3, §7), before any I/O."""

    query: str
    labels: tuple[str, ...] | None
    mode: str
    limit: int
    support_limit: int
    # Carrying passage text costs the statement only when the caller will show it.
    with_text: bool


def entity_search_request(
    query: str,
    labels: Sequence[str] | None,
    mode: str,
    limit: int,
    support_limit: int,
    *,
    with_text: bool,
) -> EntitySearch:
    check_range("limit", limit, SEARCH_LIMIT)
    check_range("supportLimit", support_limit, SUPPORT_LIMIT)
    checked_query(query)
    return EntitySearch(
        query, checked_labels(labels), checked_mode(mode), limit, support_limit, with_text=with_text
    )


def checked_labels(labels: Sequence[str] | None) -> tuple[str, ...] | None:
    """The labels a search names (None: every label); MALFORMED for an empty list or a bad
    name (contract §5's name rules)."""
    chosen = check_names("labels", list(labels) if labels is not None else None, MAX_LABELS)
    if chosen is not None and not chosen:
        raise Malformed("labels", "name at least one label, or omit it to search every label")
    return chosen


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
            owner_keyed=OWNER_KEY in t.fulltext.properties,
        )
        for t in catalog.searchable(labels, fields)
        if t.fulltext is not None and t.vector is not None
    ]


def report_index_mismatches(
    catalog: IndexCatalog, rule: LexicalRule, labels: Sequence[str], reported: set[str]
) -> None:
    """Log, once per app and problem, each searched label whose FULLTEXT index is not what the
    settings ask for, with the command that fixes it."""
    for problem in catalog.lexical_mismatches(LexicalIndexSpec(rule.fields), labels):
        if problem not in reported:
            reported.add(problem)
            log.warning("%s", problem)


async def search_entities(
    context: AnswerContext, effective: Scope, request: EntitySearch
) -> list[entity_search.EntityHitRecord]:
    query, mode, limit, support_limit = (
        request.query,
        request.mode,
        request.limit,
        request.support_limit,
    )
    store = context.vector_store
    candidates = candidates_per_list(limit)
    cap = MAX_CANDIDATES_PER_LIST
    candidates_semantic = candidates
    if not store.in_graph and store.max_results is not None:
        # Seed step 3: the semantic read "is also capped at the store's max_results".
        candidates_semantic = min(candidates, store.max_results)
        cap = min(cap, store.max_results)

    rule = context.settings.lexical
    lexical = None if mode == "SEMANTIC" else lexical_request(query, rule)

    async def search(
        targets: Sequence[entity_search.SearchTarget],
        vector: Sequence[float] | None,
        external_reads: Sequence[entity_search.ExternalRead] | None = None,
    ) -> SearchResult[entity_search.EntityHitRecord]:
        return await entity_search.search_entities(
            context.graph,
            effective,
            targets=targets,
            mode=mode,
            lexical=lexical,
            vector=vector,
            limit=limit,
            support_limit=support_limit,
            rrf_k=context.settings.rrf_k,
            lexical_k=candidates,
            semantic_k=candidates_semantic,
            cap_k=cap,
            with_text=request.with_text,
            external_reads=external_reads,
        )

    async def run(
        targets: list[entity_search.SearchTarget], vector: tuple[float, ...] | None
    ) -> SearchResult[entity_search.EntityHitRecord]:
        if store.in_graph:
            return await search(targets, vector)
        external_reads = (
            []
            if vector is None
            else await read_external_store(store, targets, vector, candidates_semantic, cap)
        )
        return await search(targets, vector, external_reads)

    async def embed() -> tuple[float, ...] | None:
        return None if mode == "LEXICAL" else await embed_query(context, query, effective)

    # Steps 1–2 from the index catalog, kept or read by contract §3's rules; the query
    # embedding does not depend on it, so a catalog read and the embedding overlap. With the
    # graph's own vector index a search also starts at once from the last catalog read (an
    # external store's search needs its candidates first): answers/catalog_search.py.
    answered = await answer(
        CatalogSearch(
            graph=context.graph,
            plan=lambda catalog: searched_targets(catalog, request.labels, rule.fields) or None,
            run=run,
            embed=embed,
            early=store.in_graph,
        )
    )
    searched = [t.label for t in answered.plan or ()]
    report_index_mismatches(answered.catalog, rule, searched, context.lexical_warnings)
    return answered.records
