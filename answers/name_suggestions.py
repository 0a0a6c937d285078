"""Names for a "did you mean" (issue 40 §3): the query checked as a search's is (contract §3,
§7), its fuzzy terms (retrieval/fuzzy_words.py), the labels to read from the index catalog by
the entity search's rules (answers/catalog_search.py: the same `INDEX_NOT_READY`), and one
statement (graph/name_suggestions.py), the closest names kept (retrieval/fuzzy_words.py).
Offered beside a search, never in place of it."""

from __future__ import annotations

from collections.abc import Sequence

from answers.catalog_search import CatalogSearch, answer
from answers.context import AnswerContext
from answers.entity_search import checked_labels, checked_query, searched_targets
from contract.arguments import SUGGESTION_LIMIT, check_range
from contract.scope import Scope
from graph.catalog_cache import SearchResult
from graph.index_catalog import IndexCatalog
from graph.name_suggestions import SuggestionTarget, name_suggestions
from retrieval.fuzzy_words import closest, fuzzy_terms


def suggestion_targets(
    catalog: IndexCatalog, labels: Sequence[str] | None
) -> list[SuggestionTarget] | None:
    """The name index of each label a search of `labels` reads; None when there is none."""
    targets = [
        SuggestionTarget(target.fulltext_index, target.owner_keyed)
        for target in searched_targets(catalog, labels)
        if "name" in target.lexical_fields
    ]
    return targets or None


async def suggest_names(
    context: AnswerContext,
    effective: Scope,
    query: str,
    labels: Sequence[str] | None,
    limit: int,
) -> list[str]:
    check_range("limit", limit, SUGGESTION_LIMIT)
    checked_query(query)
    chosen = checked_labels(labels)
    terms = fuzzy_terms(query, context.settings.lexical)
    if not terms:
        return []  # only function words or single letters: nothing to be close to

    async def run(targets: list[SuggestionTarget], _: None) -> SearchResult[str]:
        return await name_suggestions(context.graph, effective, targets, terms)

    async def no_vector() -> None:
        return None

    answered = await answer(
        CatalogSearch(
            graph=context.graph,
            plan=lambda catalog: suggestion_targets(catalog, chosen),
            run=run,
            embed=no_vector,
        )
    )
    return closest(query, answered.records, limit)
