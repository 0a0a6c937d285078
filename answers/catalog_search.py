"""A search whose targets come from the index catalog, kept or read again by contract §3's
rules (graph/catalog_cache.py states them and how each is kept).

    kept catalog, young, naming something to search
        → embed, one statement; its marker generation is the kept one → the answer
        → the marker moved: read the catalog; the same targets → the answer, else run again
        → an index has gone: forget the kept catalog, and on as below
    otherwise (none kept, too old, or it would decide an error or an empty answer)
        → read the catalog while the query is embedded (and, for the entity search, while a
          search starts from the last catalog read: kept only if the fresh read agrees)
        → the fresh catalog's targets decide; an index gone meanwhile: read once more

Every answer is computed from targets the catalog had when the request ran, by the rules; an
error (`INDEX_NOT_READY`, `MALFORMED`) or "nothing to search" only ever comes from a fresh read.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from contract.errors import BackendUnavailable, EvidenceGraphError
from graph.catalog_cache import CatalogCache, IndexGone, SearchResult, catalog_cache
from graph.driver import Graph
from graph.index_catalog import IndexCatalog, last_read_catalog

P = TypeVar("P")  # a plan: what one search needs of the catalog (labels, index names)
V = TypeVar("V")  # the query vector (or None)
R = TypeVar("R")  # a hit record

INDEXES_CHANGING = "The indexes changed while the search ran; try again."


@dataclass(frozen=True)
class CatalogSearch(Generic[P, V, R]):
    graph: Graph
    # The catalog's plan for this request: None when there is nothing to search; raises the
    # contract's error for a label or index that cannot be searched.
    plan: Callable[[IndexCatalog], P | None]
    run: Callable[[P, V], Awaitable[SearchResult[R]]]
    embed: Callable[[], Awaitable[V]]
    # Start a search from the last catalog read while a fresh read is on its way (its answer
    # is kept only when the fresh read has the same plan).
    early: bool = False


@dataclass(frozen=True)
class Answer(Generic[P, R]):
    catalog: IndexCatalog  # the one the records were computed from
    plan: P | None  # its plan, the one run
    records: list[R]


def _plan_or_none(search: CatalogSearch[P, V, R], catalog: IndexCatalog | None) -> P | None:
    if catalog is None:
        return None
    try:
        return search.plan(catalog)
    except EvidenceGraphError:
        return None  # a fresh read decides which error, if any, the caller sees


async def _discard(task: asyncio.Future[Any]) -> None:
    """Stop a task whose result is not wanted, and swallow whatever it ends with."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


async def answer(search: CatalogSearch[P, V, R]) -> Answer[P, R]:
    cache = catalog_cache(search.graph)
    kept = cache.kept()
    kept_plan = _plan_or_none(search, kept.catalog if kept is not None else None)
    if kept is None or kept_plan is None:
        return await _from_fresh_catalog(search, cache)
    vector = await search.embed()
    try:
        result = await search.run(kept_plan, vector)
    except IndexGone:
        cache.forget()  # and the last read, which is the same catalog, is no guess to start from
        return await _from_fresh_catalog(search, cache, vector, guess=False)
    cache.saw(result.generation)
    if result.generation == kept.generation:
        return Answer(kept.catalog, kept_plan, result.records)
    # A command of the service changed the indexes since the catalog was kept.
    catalog = await cache.read(search.graph, after=result.generation)
    plan = search.plan(catalog)
    if plan == kept_plan:
        return Answer(catalog, plan, result.records)
    return await _run_planned(search, cache, catalog, plan, vector)


async def _from_fresh_catalog(
    search: CatalogSearch[P, V, R], cache: CatalogCache, *known: V, guess: bool = True
) -> Answer[P, R]:
    """Read the catalog and answer from it; `known`: the query vector, if already embedded;
    `guess`: whether a search may start from the last catalog read meanwhile."""
    catalog_read = asyncio.ensure_future(cache.read(search.graph))
    guessed = (
        _plan_or_none(search, last_read_catalog(search.graph)) if search.early and guess else None
    )
    early: asyncio.Future[SearchResult[R]] | None = None
    try:
        vector = known[0] if known else await search.embed()
        if guessed is not None:
            early = asyncio.ensure_future(search.run(guessed, vector))
        catalog = await catalog_read
        plan = search.plan(catalog)
    except BaseException:
        for task in (catalog_read, early):
            if task is not None:
                await _discard(task)
        raise
    if early is not None:
        if plan != guessed:
            # The indexes changed since the last read; the early answer may be wrong.
            await _discard(early)
        else:
            try:
                result = await early
            except IndexGone:
                # Gone since the fresh read: read it once more and answer from that.
                cache.forget()
                catalog = await cache.read(search.graph)
                plan = search.plan(catalog)
            else:
                cache.saw(result.generation)
                return Answer(catalog, plan, result.records)
    return await _run_planned(search, cache, catalog, plan, vector)


async def _run_planned(
    search: CatalogSearch[P, V, R],
    cache: CatalogCache,
    catalog: IndexCatalog,
    plan: P | None,
    vector: V,
) -> Answer[P, R]:
    """Run `plan`, from a catalog read during this request; an index gone since: read the
    catalog once more and answer from that one."""
    for attempt in (1, 2):
        if plan is None:
            return Answer(catalog, None, [])
        try:
            result = await search.run(plan, vector)
        except IndexGone as gone:
            if attempt == 2:
                raise BackendUnavailable(INDEXES_CHANGING) from gone
            cache.forget()
            catalog = await cache.read(search.graph)
            plan = search.plan(catalog)
            continue
        cache.saw(result.generation)
        return Answer(catalog, plan, result.records)
    raise AssertionError("unreachable")  # the loop returns or raises
