"""The static cost of a document (contract/query_costs.py, api/front_door/query_cost.py), without a
database: every field that returns a list or objects has a rule; the cost is monotone in every
bound; aliases add up; fragments, inline fragments, variables and directives hide nothing; the
pricing of hostile documents stays bounded."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import GraphQLObjectType, get_named_type, is_composite_type, parse
from hypothesis import given, settings
from hypothesis import strategies as st

from api.front_door.admission import Admission
from api.front_door.door import FrontDoor
from api.front_door.query_cost import MAX_VISITS, TooComplex, operation_cost, returns_list
from api.schema import create_schema
from contract.arguments import (
    EVIDENCE_LIMIT,
    SEARCH_LIMIT,
    SUPPORT_LIMIT,
    WALK_DEPTH,
    WALK_MAX_CANDIDATES,
    WALK_MAX_EDGES,
    WALK_MAX_NODES,
    Bound,
)
from contract.query_costs import COSTS, rows_read
from contract.scope import Grant
from graph.graph_shape import MENTION_CAP, RELATION_CAP
from mcpserver.server import call_tool
from mcpserver.tool_costs import tool_cost

# Pricing a document takes milliseconds, but on a loaded machine one example can take 300 ms:
# a deadline would make these rules fail for the machine's load, not for the cost.
UNTIMED = settings(deadline=None)

SCHEMA = create_schema([])._schema
ENTITY_ID = "00000000-0000-4000-8000-000000000000"

SEARCH = (
    "query S($limit: Int!, $supportLimit: Int!, $evidence: Int!) {"
    ' searchEntities(query: "ada", limit: $limit, supportLimit: $supportLimit) {'
    " entity { id evidence(limit: $evidence) { id document { id } } }"
    " evidence { id text document { id } } evidenceIds } }"
)
WALK = (
    "query W($depth: Int!, $maxNodes: Int!, $maxEdges: Int!, $maxCandidates: Int!,"
    " $evidence: Int!) {"
    f' walk(entityId: "{ENTITY_ID}", depth: $depth, maxNodes: $maxNodes, maxEdges: $maxEdges,'
    " maxCandidates: $maxCandidates) {"
    " start { id } nodes { id evidence(limit: $evidence) { id } }"
    " edges { id source { id } target { id } evidence { id document { id } } } truncatedBy } }"
)
# Each bounded argument: the document, its variable, the bound, and the other variables.
BOUNDED: list[tuple[str, str, Bound, dict[str, int]]] = [
    (SEARCH, "limit", SEARCH_LIMIT, {"supportLimit": 3, "evidence": 3}),
    (SEARCH, "supportLimit", SUPPORT_LIMIT, {"limit": 10, "evidence": 3}),
    (SEARCH, "evidence", EVIDENCE_LIMIT, {"limit": 10, "supportLimit": 3}),
    (WALK, "depth", WALK_DEPTH, {"maxNodes": 50, "maxEdges": 100, "maxCandidates": 500}),
    (WALK, "maxNodes", WALK_MAX_NODES, {"depth": 1, "maxEdges": 100, "maxCandidates": 500}),
    (WALK, "maxEdges", WALK_MAX_EDGES, {"depth": 1, "maxNodes": 50, "maxCandidates": 500}),
    (WALK, "maxCandidates", WALK_MAX_CANDIDATES, {"depth": 1, "maxNodes": 50, "maxEdges": 100}),
]


def cost(document: str, variables: dict[str, Any] | None = None) -> int:
    return operation_cost(SCHEMA, parse(document), None, variables or {})


def test_every_field_returning_a_list_or_objects_has_a_cost_rule() -> None:
    unpriced = [
        f"{type_.name}.{name}"
        for type_ in SCHEMA.type_map.values()
        if isinstance(type_, GraphQLObjectType) and not type_.name.startswith("__")
        for name, field in type_.fields.items()
        if (returns_list(field) or is_composite_type(get_named_type(field.type)))
        and (type_.name, name) not in COSTS
    ]
    assert unpriced == [], f"add a rule to contract/query_costs.py COSTS for {unpriced}"


def test_every_rule_names_a_field_the_schema_has() -> None:
    stale = [
        key
        for key in COSTS
        if not isinstance(type_ := SCHEMA.get_type(key[0]), GraphQLObjectType)
        or key[1] not in type_.fields
    ]
    assert stale == []


@pytest.mark.parametrize(("document", "name", "bound", "others"), BOUNDED)
@UNTIMED
@given(data=st.data())
def test_the_cost_is_monotone_in_every_bound(
    document: str, name: str, bound: Bound, others: dict[str, int], data: st.DataObject
) -> None:
    others = {**others, "evidence": others.get("evidence", 3)}
    # Values inside the range and far outside it (those are refused later, as MALFORMED).
    low = data.draw(st.integers(bound.low - 10, bound.high + 10))
    high = data.draw(st.integers(low, bound.high + 10**6))
    assert cost(document, {**others, name: low}) <= cost(document, {**others, name: high})


@pytest.mark.parametrize(("document", "name", "bound", "others"), BOUNDED)
def test_the_cost_grows_across_each_bound_range(
    document: str, name: str, bound: Bound, others: dict[str, int]
) -> None:
    others = {**others, "evidence": others.get("evidence", 3)}
    assert cost(document, {**others, name: bound.low}) < cost(
        document, {**others, name: bound.high}
    )


@UNTIMED
@given(st.integers(1, 30), st.integers(1, 100))
def test_aliases_add_up(aliases: int, limit: int) -> None:
    one = f'searchPassages(query: "q", limit: {limit}) {{ passage {{ id document {{ id }} }} }}'
    document = "{ " + " ".join(f"a{i}: {one}" for i in range(aliases)) + " }"
    assert cost(document) == aliases * cost("{ " + one + " }")


@UNTIMED
@given(st.integers(1, 100), st.integers(0, 10))
def test_fragments_inline_fragments_and_variables_hide_nothing(limit: int, support: int) -> None:
    inline = (
        f'{{ searchEntities(query: "q", limit: {limit}, supportLimit: {support}) '
        "{ evidence { id document { id } } } }"
    )
    by_fragment = (
        f'{{ searchEntities(query: "q", limit: {limit}, supportLimit: {support}) {{ ...H }} }}'
        " fragment H on EntityHit { ...E } fragment E on EntityHit { evidence { ...P } }"
        " fragment P on Passage { id document { id } }"
    )
    by_inline_fragment = (
        f'{{ searchEntities(query: "q", limit: {limit}, supportLimit: {support}) '
        "{ ... on EntityHit { ... { evidence { id ... on Passage { document { id } } } } } } }"
    )
    by_variables = (
        'query Q($l: Int!, $s: Int! = 3) { searchEntities(query: "q", limit: $l,'
        " supportLimit: $s) { evidence { id document { id } } } }"
    )
    skipped = (
        f'{{ searchEntities(query: "q", limit: {limit}, supportLimit: {support}) '
        "{ evidence @skip(if: true) { id document @include(if: false) { id } } } }"
    )
    expected = cost(inline)
    assert cost(by_fragment) == expected
    assert cost(by_inline_fragment) == expected
    assert cost(by_variables, {"l": limit, "s": support}) == expected
    assert cost(skipped) == expected


def test_a_variable_left_out_costs_its_declared_default_then_the_arguments() -> None:
    declared = 'query Q($l: Int = 40) { searchPassages(query: "q", limit: $l) { score } }'
    assert cost(declared) == cost('{ searchPassages(query: "q", limit: 40) { score } }')
    assert cost('{ searchPassages(query: "q") { score } }') == cost(
        '{ searchPassages(query: "q", limit: 10) { score } }'
    )


@UNTIMED
@given(st.one_of(st.text(max_size=5), st.floats(), st.booleans(), st.lists(st.integers())))
def test_a_value_that_is_not_an_integer_costs_the_top_of_its_range(value: object) -> None:
    document = 'query Q($l: Int) { searchPassages(query: "q", limit: $l) { score } }'
    assert cost(document, {"l": value}) == cost(document, {"l": SEARCH_LIMIT.high})


def test_nested_evidence_costs_by_its_own_limit_not_the_search_limit() -> None:
    small = '{ searchEntities(query: "q", limit: 100) { entity { evidence(limit: 1) { id } } } }'
    large = '{ searchEntities(query: "q", limit: 100) { entity { evidence(limit: 10) { id } } } }'
    assert cost(small) < cost(large)


def test_a_document_that_expands_past_the_visits_is_too_complex() -> None:
    # Validation refuses far smaller documents (tokens, aliases); the pricing stops on its own.
    wide = " ".join(f"x{i}: id" for i in range(MAX_VISITS + 1))
    with pytest.raises(TooComplex):
        cost('{ entity(id: "x") { ' + wide + " } }")


def test_a_fragment_cycle_is_priced_without_looping() -> None:
    cyclic = (
        '{ entity(id: "x") { ...A } }'
        " fragment A on Entity { id ...B } fragment B on Entity { ...A }"
    )
    assert cost(cyclic) == cost('{ entity(id: "x") { id } }')


async def test_an_mcp_call_over_the_cost_limit_is_refused_before_anything_is_read() -> None:
    asked: list[object] = []

    async def caller_of(request: object) -> Any:
        asked.append(request)  # what a call that runs asks first: who is calling
        raise AssertionError("a refused call reads nothing")

    async def no_pause(seconds: float) -> None:
        pass

    door = FrontDoor(Admission(slots=1, queue=0, wait_seconds=1.0, sleep=no_pause), max_cost=1000)

    async def admit(request: object, cost: int, answer: Any) -> Any:
        return await door.answer_tool(None, Grant.everything(), cost, answer)

    bounds = {"depth": 2, "maxNodes": 500, "maxEdges": 1000, "maxCandidates": 5000}
    arguments = {"entityId": ENTITY_ID, **bounds}
    assert tool_cost("walk", arguments) > tool_cost("walk", {"entityId": ENTITY_ID})
    result = await call_tool(caller_of, admit, None, "walk", arguments, 20_000)
    assert result.isError
    assert result.structuredContent is not None
    assert result.structuredContent["error"]["code"] == "COST_LIMIT_EXCEEDED"
    assert result.structuredContent["error"]["cost"] == tool_cost("walk", arguments)
    assert asked == []


def test_describe_graph_is_priced_by_the_mentions_and_relationships_it_reads() -> None:
    """It reads up to MENTION_CAP mentions and RELATION_CAP relationships (graph/graph_shape.py):
    priced at the rate a walk pays for the relationships it reads, not as one label list."""
    reads = rows_read(MENTION_CAP) + rows_read(RELATION_CAP)
    assert tool_cost("describe_graph", {}) > reads
    assert tool_cost("describe_graph", {}) > tool_cost("entity_labels", {}) + reads


def test_a_walk_naming_relation_types_is_priced_with_the_shape_it_may_read() -> None:
    """A named type no relation has makes the walk read the scope's shape for its advice
    (mcpserver/answering.py): priced as if it does, so describe_graph's read is never cheaper
    through a walk."""
    plain = {"entityId": ENTITY_ID, "depth": 2}
    named = {**plain, "relationTypes": ["NO_SUCH_TYPE"]}
    shape_reads = rows_read(MENTION_CAP) + rows_read(RELATION_CAP)
    assert tool_cost("walk", named) >= tool_cost("walk", plain) + shape_reads
