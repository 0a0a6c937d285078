"""A request's JSON, read within limits (contract §7: "A body the server cannot read
(malformed or too deeply nested JSON, a batch array) is a 4xx with a code, never a 5xx").

Python's JSON decoder recurses once per level of nesting, so a body of ten thousand `[`
(well under the body size limit) ends in `RecursionError`, and whatever walks a decoded value
recursively afterwards (variable coercion, error rendering) may too. So the decoder's own
limit is caught, and a value deeper than `MAX_JSON_DEPTH` is refused before anything reads
it: a GraphQL request (its `variables`, its `extensions`) nests a handful of levels.

    >>> read_json('{"variables": {"scope": {"workspaces": ["acme"]}}}')
    {'variables': {'scope': {'workspaces': ['acme']}}}
    >>> read_json("[" * 40 + "]" * 40)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    api.json_body.UnreadableJson: The request's JSON is nested more than 32 levels deep; ...
"""

from __future__ import annotations

import json
from typing import ClassVar

from contract.errors import EvidenceGraphError, Malformed

MAX_JSON_DEPTH = 32


class UnreadableJson(EvidenceGraphError):
    """A body the server cannot read (contract §7): not JSON, nested too deeply, or (for the
    body) not one JSON object."""

    code: ClassVar[str] = Malformed.code


def nesting_depth(value: object) -> int:
    """How many arrays and objects deep `value` goes (a scalar: 0), without recursion.

    >>> nesting_depth(1), nesting_depth([]), nesting_depth({"a": [1, {"b": []}]})
    (0, 1, 4)
    """
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in children)
    return deepest


def read_json(data: str | bytes) -> object:
    """`data` decoded, or `UnreadableJson` saying what is wrong (never quoting it)."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise _too_deep() from None
    except json.JSONDecodeError as error:
        raise UnreadableJson(
            f"The request's JSON cannot be read: {error.msg} at character {error.pos + 1}."
        ) from None
    except ValueError:  # bytes that are not UTF-8 (or UTF-16/32) text
        raise UnreadableJson("The request's JSON cannot be read: it is not UTF-8 text.") from None
    if nesting_depth(value) > MAX_JSON_DEPTH:
        raise _too_deep()
    return value


def _too_deep() -> UnreadableJson:
    return UnreadableJson(
        f"The request's JSON is nested more than {MAX_JSON_DEPTH} levels deep; a GraphQL "
        "request needs far fewer."
    )
