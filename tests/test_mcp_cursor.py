"""The MCP cursor (mcpserver/cursor.py) as hostile input: whatever a client sends as `cursor`,
decoding either gives back a position this server made for the same tool and arguments or is
MALFORMED naming `cursor`; it never raises anything else (issue 29, point 3)."""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract.errors import Malformed
from mcpserver import cursor
from mcpserver.arguments import Arguments

# A busy machine must not fail a property: no deadline, no too-slow check.
UNTIMED = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

TOOLS = st.sampled_from(["search_entities", "search_passages", "walk"])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
ARGUMENTS = st.dictionaries(st.sampled_from(["query", "limit", "entityId", "depth"]), JSON_VALUES)
POSITIONS = st.integers(1, cursor.MAX_POSITION)


def refused(value: object, tool: str, arguments: dict[str, Any]) -> bool:
    try:
        cursor.decode(value, tool, arguments)
    except Malformed as error:
        assert error.extensions["argument"] == "cursor"
        return True
    return False


@UNTIMED
@given(TOOLS, ARGUMENTS, POSITIONS)
def test_a_cursor_continues_the_call_it_was_made_for(
    tool: str, arguments: dict[str, Any], position: int
) -> None:
    made = cursor.encode(tool, arguments, position)
    assert cursor.decode(made, tool, {**arguments, "cursor": made}) == position


@UNTIMED
@given(TOOLS, TOOLS, ARGUMENTS, ARGUMENTS, POSITIONS)
def test_a_cursor_is_refused_by_any_other_tool_or_arguments(
    tool: str, other_tool: str, arguments: dict[str, Any], other: dict[str, Any], position: int
) -> None:
    made = cursor.encode(tool, arguments, position)
    same = cursor.fingerprint(tool, arguments) == cursor.fingerprint(other_tool, other)
    assert refused(made, other_tool, other) is not same


@UNTIMED
@given(st.one_of(st.text(max_size=300), JSON_VALUES), TOOLS, ARGUMENTS)
def test_anything_a_client_makes_up_is_malformed_and_nothing_else(
    value: object, tool: str, arguments: dict[str, Any]
) -> None:
    if isinstance(value, str) and value:
        # Only this server's own cursors decode: made-up text almost never is one.
        try:
            position = cursor.decode(value, tool, arguments)
        except Malformed:
            return
        assert value == cursor.encode(tool, arguments, position)
    else:
        assert refused(value, tool, arguments)


@UNTIMED
@given(JSON_VALUES, TOOLS, ARGUMENTS)
def test_any_json_body_that_is_not_a_cursor_of_this_call_is_malformed(
    body: object, tool: str, arguments: dict[str, Any]
) -> None:
    """Well-formed base64url around any JSON: the shape, the types, the range and the
    fingerprint are all checked."""
    encoded = base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")
    if len(encoded) > cursor.MAX_CURSOR_CHARS or not encoded:
        assert refused(encoded, tool, arguments)
        return
    expected = {"f": cursor.fingerprint(tool, arguments)}
    genuine = (
        isinstance(body, dict)
        and set(body) == {"f", "p"}
        and body["f"] == expected["f"]
        and type(body["p"]) is int
        and 0 < body["p"] <= cursor.MAX_POSITION
    )
    assert refused(encoded, tool, arguments) is not genuine


@UNTIMED
@given(st.integers(-5, 0) | st.integers(cursor.MAX_POSITION + 1, 10**30), TOOLS, ARGUMENTS)
def test_a_position_out_of_range_is_malformed(
    position: int, tool: str, arguments: dict[str, Any]
) -> None:
    body = json.dumps({"f": cursor.fingerprint(tool, arguments), "p": position})
    encoded = base64.urlsafe_b64encode(body.encode()).decode().rstrip("=")
    assert refused(encoded, tool, arguments)


def test_the_cursor_argument_reads_through_the_tool_arguments() -> None:
    arguments = {"query": "ada", "limit": 40}
    made = Arguments(arguments).cursor_at("search_entities", 7)
    assert Arguments({**arguments, "cursor": made}).position("search_entities") == 7
    assert Arguments(arguments).position("search_entities") == 0
