"""Argument bounds are declared once (contract/arguments.py, contract §3, §5, §6): the schema's
default and description of every bounded argument come from its `Bound`, and the same `Bound`
refuses every value outside its range with MALFORMED naming the argument."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.schema import create_schema
from contract.arguments import (
    EVIDENCE_LIMIT,
    SEARCH_LIMIT,
    SUGGESTION_LIMIT,
    SUPPORT_LIMIT,
    WALK_DEPTH,
    WALK_MAX_CANDIDATES,
    WALK_MAX_EDGES,
    WALK_MAX_NODES,
    Bound,
    check_range,
)
from contract.errors import Malformed

BOUNDED = [
    ("Query", "searchEntities", "limit", SEARCH_LIMIT),
    ("Query", "searchEntities", "supportLimit", SUPPORT_LIMIT),
    ("Query", "searchPassages", "limit", SEARCH_LIMIT),
    ("Query", "nameSuggestions", "limit", SUGGESTION_LIMIT),
    ("Query", "walk", "depth", WALK_DEPTH),
    ("Query", "walk", "maxNodes", WALK_MAX_NODES),
    ("Query", "walk", "maxEdges", WALK_MAX_EDGES),
    ("Query", "walk", "maxCandidates", WALK_MAX_CANDIDATES),
    ("Entity", "evidence", "limit", EVIDENCE_LIMIT),
]


@pytest.mark.parametrize(("type_name", "field", "argument", "bound"), BOUNDED)
def test_the_schema_takes_default_and_description_from_the_bound(
    type_name: str, field: str, argument: str, bound: Bound
) -> None:
    graphql_type = create_schema()._schema.get_type(type_name)
    declared = graphql_type.fields[field].args[argument]  # type: ignore[union-attr]
    assert declared.default_value == bound.default
    assert declared.description == bound.description
    assert f"{bound.low} to {bound.high}" in declared.description


@given(st.sampled_from(BOUNDED), st.integers(min_value=-(2**31), max_value=2**31 - 1))
def test_a_value_outside_the_bound_is_malformed_naming_the_argument(
    bounded: tuple[str, str, str, Bound], value: int
) -> None:
    _, _, argument, bound = bounded
    if bound.low <= value <= bound.high:
        assert check_range(argument, value, bound) == value
    else:
        with pytest.raises(Malformed) as refused:
            check_range(argument, value, bound)
        assert refused.value.extensions == {"argument": argument}
        assert f"between {bound.low} and {bound.high}" in refused.value.message
