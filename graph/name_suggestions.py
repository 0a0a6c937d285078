"""Names for a "did you mean" (issue 40 §3): the names of returnable entities that Lucene's fuzzy
match finds on each searched label's name index, in one statement.

The words are retrieval/fuzzy_words.py's (the lexical rule's content words, each with its
`~N`), sent on `name` alone and confined to the caller's workspaces where the index covers the
owner key (graph/fulltext_query.py). A name is offered only when an in-scope passage mentions
its entity (`entity_returnable`, graph/visibility.py), so no name outside the scope is ever
offered. Each name once, at its best score, ties by name; answers/name_suggestions.py keeps the
closest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import LiteralString

from contract.scope import Scope
from graph.catalog_cache import SearchResult, marked, read_marked
from graph.driver import Graph
from graph.fulltext_query import fulltext_query, scope_keys
from graph.lookups import scoped
from graph.mention_reads import ScopeShape, for_each_shape, scope_shape
from graph.served_statements import served_each
from graph.visibility import entity_returnable

# Lucene's fuzzy candidates per label before the scope is applied, and the names returned:
# enough for a page's few suggestions when some are out of scope, for the closest to be among
# them (retrieval/fuzzy_words.py `closest` orders them).
CANDIDATES_PER_LABEL = 50


def _suggestions(shape: ScopeShape) -> LiteralString:
    return marked(
        "UNWIND $targets AS target"
        " CALL (target) {"
        "  CALL db.index.fulltext.queryNodes(target.index, target.query, {limit: $candidates})"
        "  YIELD node, score RETURN node, score"
        " }"
        " WITH node, max(score) AS score"
        " WHERE " + entity_returnable("node", shape) + " WITH toStringOrNull(node.name) AS name,"
        "  max(score) AS score WHERE name IS NOT NULL"
        " WITH name, score ORDER BY score DESC, name LIMIT $candidates"
        " WITH collect(name) AS names"
        " UNWIND range(0, size(names) - 1) AS position"
        " RETURN names[position] AS name, position"
    )


NAME_SUGGESTIONS: LiteralString = _suggestions("everywhere")
_STATEMENTS: Mapping[ScopeShape, str] = served_each(
    for_each_shape(f"{__name__}.NAME_SUGGESTIONS", _suggestions)
)


@dataclass(frozen=True, slots=True)
class SuggestionTarget:
    """A label's FULLTEXT index, and whether it covers the owner key."""

    fulltext_index: str
    owner_keyed: bool


async def name_suggestions(
    graph: Graph, scope: Scope, targets: Sequence[SuggestionTarget], terms: str
) -> SearchResult[str]:
    """Up to `CANDIDATES_PER_LABEL` names, best Lucene score first; `terms` is
    retrieval/fuzzy_words.py's `fuzzy_terms`. `IndexGone` when a target's index no longer
    exists."""
    keys = scope_keys(scope)
    parameters = scoped(
        scope,
        targets=[
            {
                "index": target.fulltext_index,
                "query": fulltext_query(terms, ("name",), keys if target.owner_keyed else None),
            }
            for target in targets
        ],
        candidates=CANDIDATES_PER_LABEL,
    )
    found = await read_marked(graph, _STATEMENTS[scope_shape(scope)], parameters)
    return SearchResult([str(row["name"]) for row in found.rows], found.generation)
