"""`nameSuggestions` (issue 40 §3): answers/name_suggestions.py finds the names; this delegate
takes the scope."""

from __future__ import annotations

from collections.abc import Sequence

from answers.name_suggestions import suggest_names
from resolvers.context import Info
from resolvers.scope_input import ScopeInput


async def name_suggestions(
    info: Info, query: str, scope: ScopeInput | None, labels: Sequence[str] | None, limit: int
) -> list[str]:
    context = info.context
    return await suggest_names(context.answers, context.scope(scope), query, labels, limit)
