"""MCP tool arguments read from JSON (mcpserver/arguments.py) as hostile input: a number that is
NaN or infinite is MALFORMED naming the argument, never an INTERNAL error (issue 25 §3). Python's
JSON reader accepts `NaN`, `Infinity` and `-Infinity`, so a client can send them."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract.errors import Malformed
from mcpserver.arguments import Arguments

# A busy machine must not fail a property: no deadline, no too-slow check.
UNTIMED = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

NOT_INTEGERS = st.floats(allow_nan=True, allow_infinity=True).filter(
    lambda number: not math.isfinite(number) or not number.is_integer()
)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_mcp_numbers_that_are_nan_or_infinite_are_malformed(literal: str) -> None:
    arguments = json.loads(f'{{"limit": {literal}}}')
    with pytest.raises(Malformed) as refused:
        Arguments(arguments).integer("limit", 10)
    assert refused.value.extensions["argument"] == "limit"


@UNTIMED
@given(NOT_INTEGERS)
def test_every_number_that_is_not_an_integer_is_malformed(number: float) -> None:
    with pytest.raises(Malformed):
        Arguments({"depth": number}).integer("depth", 1)


@UNTIMED
@given(st.integers(-(10**20), 10**20))
def test_an_integer_sent_as_a_float_reads_as_that_integer(number: int) -> None:
    assert Arguments({"depth": float(number)}).integer("depth", 1) == int(float(number))
