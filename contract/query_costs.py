"""What a request costs, before anything runs (issue 27, "Query cost"): ONE table, keyed by (type,
field), of how much work a field does and how many values it returns, as functions of its arguments.
Both doors price requests from it: GraphQL documents (api/front_door/query_cost.py) and MCP tool
calls (mcpserver/tool_costs.py).

The cost of a selection is the sum over its fields of

    reads(arguments) + items(arguments) × (1 if the field returns objects else 0
                                           + the cost of its own selection)

so a search costs by its `limit` and `supportLimit`, a walk by its depth, `maxCandidates`,
`maxNodes` and `maxEdges`, nested evidence and lookups by their limits, and aliases add up
(each alias is another field). A rule reads the arguments of its field and, when the field has
none of that name, of the fields around it: `EntityHit.evidence` returns at most the
`supportLimit` its `searchEntities` was given. A field returning objects or a list must have a
rule here (tests/test_query_cost.py fails otherwise), so a new field is priced when it is added:
a paged list is one line, e.g.

    ("Entity", "evidencePage"): CostRule(reads=ONE),
    ("PassageConnection", "nodes"): CostRule(items=argument("first", DOCUMENT_PAGE_SIZE)),

Argument values come from the client: a rule reads an integer only through `argument`, which
clamps it into the argument's range (a value outside it is refused as MALFORMED before any
read, so the clamp never under-prices what runs) and takes the range's top for anything that
is not an integer (the request will be refused anyway; it must not be priced low).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from contract.arguments import (
    DOCUMENT_PAGE_SIZE,
    EVIDENCE_LIMIT,
    MENTIONS_LIMIT,
    SEARCH_LIMIT,
    SUGGESTION_LIMIT,
    SUPPORT_LIMIT,
    WALK_DEPTH,
    WALK_MAX_CANDIDATES,
    WALK_MAX_EDGES,
    WALK_MAX_NODES,
    Bound,
)

Arguments = Mapping[str, object]  # a field's arguments, then those of the fields around it
Price = Callable[[Arguments], int]

# GRAPHQL_MAX_COST's default: above every single root field at its largest bounds with the most
# it can select (an `_entities` of 1,000 with evidence and documents: 32,002), below 30 maximum
# walks; docs/operations.md ("The front door") gives the figures.
DEFAULT_MAX_COST = 50_000
EDGE_EVIDENCE = 3  # contract §5: an ASSERTION carries up to 3 passages
CANDIDATES_PER_POINT = 10  # a walk step's relationship reads, per cost point
MAX_REPRESENTATIONS = 1000  # `_entities`: priced at this many when the count is not known


def _nothing(_: Arguments) -> int:
    return 0


def _one(_: Arguments) -> int:
    return 1


NOTHING: Price = _nothing
ONE: Price = _one


def argument_value(arguments: Arguments, name: str, bound: Bound) -> int:
    """The integer argument `name`, clamped into `bound`; its default when absent; the top of
    the range when it is not an integer.

    >>> from contract.arguments import SEARCH_LIMIT
    >>> [argument_value(a, "limit", SEARCH_LIMIT) for a in ({}, {"limit": 7}, {"limit": 10**9})]
    [10, 7, 100]
    >>> argument_value({"limit": "7"}, "limit", SEARCH_LIMIT)
    100
    """
    if name not in arguments or arguments[name] is None:
        return bound.default
    value = arguments[name]
    if isinstance(value, bool) or not isinstance(value, int):
        return bound.high
    return min(max(value, bound.low), bound.high)


def argument(name: str, bound: Bound) -> Price:
    def price(arguments: Arguments) -> int:
        return argument_value(arguments, name, bound)

    return price


def count(name: str, most: int) -> Price:
    """The length of a list argument (at most `most`); `most` when it is not a list."""

    def price(arguments: Arguments) -> int:
        value = arguments.get(name)
        return min(len(value), most) if isinstance(value, list) else most

    return price


def search_reads(arguments: Arguments) -> int:
    """A search reads its candidates and, for `searchEntities`, each hit's evidence ids."""
    limit = argument_value(arguments, "limit", SEARCH_LIMIT)
    return limit * (1 + argument_value(arguments, "supportLimit", SUPPORT_LIMIT))


def rows_read(rows: int) -> int:
    """What reading up to `rows` relationships or mentions costs, at `CANDIDATES_PER_POINT`.

    >>> rows_read(500), rows_read(20_000)
    (50, 2000)
    """
    return math.ceil(rows / CANDIDATES_PER_POINT)


def walk_reads(arguments: Arguments) -> int:
    """Each step reads up to `maxCandidates` relationships (contract §5)."""
    depth = argument_value(arguments, "depth", WALK_DEPTH)
    return depth * rows_read(argument_value(arguments, "maxCandidates", WALK_MAX_CANDIDATES))


@dataclass(frozen=True)
class CostRule:
    reads: Price = NOTHING  # the field's own work, once for each object it is selected on
    items: Price = ONE  # the most values it returns


FREE = CostRule()

COSTS: dict[tuple[str, str], CostRule] = {
    # Root fields: what each entry point reads.
    ("Query", "searchEntities"): CostRule(
        reads=search_reads, items=argument("limit", SEARCH_LIMIT)
    ),
    ("Query", "searchPassages"): CostRule(
        reads=argument("limit", SEARCH_LIMIT), items=argument("limit", SEARCH_LIMIT)
    ),
    ("Query", "walk"): CostRule(reads=walk_reads),
    ("Query", "entity"): CostRule(reads=ONE),
    ("Query", "passage"): CostRule(reads=ONE),
    ("Query", "entityLabels"): CostRule(reads=ONE),
    # The grant; with AUTH_MODE=none, one read of the documents' workspaces.
    ("Query", "grantedWorkspaces"): CostRule(reads=ONE),
    ("Query", "nameSuggestions"): CostRule(
        reads=argument("limit", SUGGESTION_LIMIT), items=argument("limit", SUGGESTION_LIMIT)
    ),
    ("Query", "_entities"): CostRule(
        reads=ONE, items=count("representations", MAX_REPRESENTATIONS)
    ),
    ("Query", "_service"): FREE,
    # Hits and walks: what they return.
    ("EntityHit", "entity"): FREE,
    ("EntityHit", "evidence"): CostRule(items=argument("supportLimit", SUPPORT_LIMIT)),
    ("EntityHit", "evidenceIds"): CostRule(items=argument("supportLimit", SUPPORT_LIMIT)),
    ("PassageHit", "passage"): FREE,
    ("WalkResult", "start"): FREE,
    ("WalkResult", "nodes"): CostRule(items=argument("maxNodes", WALK_MAX_NODES)),
    ("WalkResult", "edges"): CostRule(items=argument("maxEdges", WALK_MAX_EDGES)),
    ("WalkResult", "truncatedBy"): FREE,
    ("Edge", "source"): FREE,
    ("Edge", "target"): FREE,
    ("Edge", "evidence"): CostRule(items=lambda _: EDGE_EVIDENCE),
    ("Edge", "evidenceIds"): CostRule(items=lambda _: EDGE_EVIDENCE),
    # Nested reads, through the per-request loaders.
    ("Entity", "evidence"): CostRule(reads=ONE, items=argument("limit", EVIDENCE_LIMIT)),
    ("Entity", "labels"): FREE,
    ("Passage", "document"): CostRule(reads=ONE),
    ("Passage", "mentions"): CostRule(reads=ONE, items=argument("limit", MENTIONS_LIMIT)),
    # The paged fields: one read each, a page of `first` passages. A page's `nodes` cannot tell
    # which field it is under, so an absent `first` is priced at the larger default (20).
    ("Entity", "evidencePage"): CostRule(reads=ONE),
    ("Edge", "evidencePage"): CostRule(reads=ONE),
    ("Document", "passages"): CostRule(reads=ONE),
    ("PassageConnection", "nodes"): CostRule(items=argument("first", DOCUMENT_PAGE_SIZE)),
    ("PassageConnection", "pageInfo"): FREE,
}


@dataclass(frozen=True)
class Selected:
    """One field of a selection, as the pricing sees it: the type it is selected on, its
    arguments (client values, unchecked), whether it returns objects, and its own selection."""

    parent: str
    field: str
    arguments: Arguments
    returns_objects: bool = False
    selection: Sequence[Selected] = ()


def selection_cost(selection: Sequence[Selected], around: Sequence[Arguments] = ()) -> int:
    """The cost of `selection`, inside fields whose arguments are `around` (nearest last).

    >>> walk = Selected("Query", "walk", {"depth": 2, "maxCandidates": 5000}, True, (
    ...     Selected("WalkResult", "nodes", {}, True, (Selected("Entity", "id", {}),)),))
    >>> selection_cost([walk])  # 2 steps × 500 points, one result, 50 nodes
    1051
    """
    total = 0
    for selected in selection:
        scope = [*around, selected.arguments]
        arguments = _Nearest(scope)
        rule = COSTS.get((selected.parent, selected.field), FREE)
        each = (1 if selected.returns_objects else 0) + selection_cost(selected.selection, scope)
        total += rule.reads(arguments) + rule.items(arguments) * each
    return total


class _Nearest(Mapping[str, object]):
    """The arguments a rule reads: its field's own, else the nearest enclosing field's."""

    def __init__(self, scopes: Sequence[Arguments]) -> None:
        self.scopes = scopes

    def __getitem__(self, name: str) -> object:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        raise KeyError(name)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter({name for scope in self.scopes for name in scope})

    def __len__(self) -> int:
        return len({name for scope in self.scopes for name in scope})
