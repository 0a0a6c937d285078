"""A request's JSON, read within limits: the one rule every door reads JSON by (`/graphql`'s
body, GET's `variables` and `extensions`, the persisted-query extensions inside them, and
`/mcp`'s JSON-RPC body). Contract §7: "A body the server cannot read (malformed or too deeply
nested JSON, a batch array) is a 4xx with a code, never a 5xx", and "Odd values anywhere in a
request (integers beyond 64 bits, lone surrogates, deep or huge JSON at `/graphql` and `/mcp`)
are `MALFORMED` or a coded 4xx, never `INTERNAL` or 5xx".

What is refused, and why here rather than where the value is used:
- nesting deeper than `MAX_JSON_DEPTH`: Python's JSON decoder recurses once per level, so ten
  thousand `[` (well under the body size limit) end in `RecursionError`, and whatever walks a
  decoded value recursively afterwards (variable coercion, error rendering) may too; a GraphQL
  request or a JSON-RPC call nests a handful of levels;
- an integer beyond 64 bits (signed): no argument of either door takes one, and each consumer
  fails its own way (orjson, which prices and answers, refuses to encode one; the Bolt driver
  cannot send one). A number of 5,000 digits is refused from its length, before Python converts
  it (which its 4,300-digit limit refuses with a ValueError, once a 500 at `/mcp`);
- `NaN`, `Infinity`: not JSON (RFC 8259), though Python's decoder reads them;
- a lone surrogate (`"\\ud800"`): JSON's escapes can spell one, but it is no character, and
  UTF-8 cannot encode it, so the first consumer that encodes the string fails (the Bolt driver,
  the embedder, the response encoder): once INTERNAL for a search of `"ada \\ud800"`. A pair
  (`"\\ud83d\\ude00"`) is one character and is read as such; non-characters such as U+FFFE
  are characters and pass.

    >>> read_json('{"variables": {"scope": {"workspaces": ["acme"]}}}')
    {'variables': {'scope': {'workspaces': ['acme']}}}
    >>> read_json("[" * 40 + "]" * 40)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    api.json_body.UnreadableJson: The request's JSON is nested more than 32 levels deep; ...
    >>> read_json('{"limit": 18446744073709551616}')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    api.json_body.UnreadableJson: The request's JSON holds the integer 18446744073709551616, ...
    >>> read_json('{"query": "ada \\\\ud800"}')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    api.json_body.UnreadableJson: The request's JSON holds a lone surrogate ...
"""

from __future__ import annotations

import json
import math
import re
from typing import ClassVar

from contract.errors import EvidenceGraphError, Malformed

MAX_JSON_DEPTH = 32
SMALLEST_INTEGER, LARGEST_INTEGER = -(2**63), 2**63 - 1
# A literal longer than this is beyond 64 bits whatever its digits ("-" and 19 digits).
MOST_INTEGER_CHARS = len(str(SMALLEST_INTEGER))
# A JSON escape that spells half of a surrogate pair: only then can a decoded string hold one
# (the bytes of a body are UTF-8, which cannot encode a surrogate).
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
SURROGATE = re.compile("[\ud800-\udfff]")


class UnreadableJson(EvidenceGraphError):
    """A body the server cannot read (contract §7): not JSON, nested too deeply, an odd value
    in it, or (for the body) not one JSON object."""

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
    """`data` decoded, or `UnreadableJson` saying what is wrong (never quoting a string of it)."""
    if isinstance(data, bytes):
        try:
            # Strictly: JSON over HTTP is UTF-8, and Python's own decoder would let the bytes of
            # a surrogate through (it decodes with `surrogatepass`).
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise UnreadableJson(
                "The request's JSON cannot be read: it is not UTF-8 text."
            ) from None
    else:
        text = data
        if SURROGATE.search(text):
            raise _lone_surrogate()
    try:
        value = json.loads(
            text, parse_int=_integer, parse_float=_finite, parse_constant=_not_a_number
        )
    except RecursionError:
        raise _too_deep() from None
    except json.JSONDecodeError as error:
        raise UnreadableJson(
            f"The request's JSON cannot be read: {error.msg} at character {error.pos + 1}."
        ) from None
    if nesting_depth(value) > MAX_JSON_DEPTH:
        raise _too_deep()
    if SURROGATE_ESCAPE.search(text) and _holds_a_surrogate(value):
        raise _lone_surrogate()
    return value


def _integer(literal: str) -> int:
    if len(literal) <= MOST_INTEGER_CHARS:
        value = int(literal)
        if SMALLEST_INTEGER <= value <= LARGEST_INTEGER:
            return value
    shown = literal if len(literal) <= 40 else f"{literal[:20]}… ({len(literal)} characters)"
    raise UnreadableJson(
        f"The request's JSON holds the integer {shown}, beyond 64 bits; no argument takes one."
    )


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise UnreadableJson(
            f"The request's JSON holds the number {literal[:40]}, too large to be a finite one."
        )
    return value


def _not_a_number(literal: str) -> float:
    raise UnreadableJson(f"The request's JSON holds {literal}, which is not JSON: send a number.")


def _holds_a_surrogate(value: object) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _lone_surrogate() -> UnreadableJson:
    return UnreadableJson(
        "The request's JSON holds a lone surrogate (an escape such as \\ud800 without its "
        "pair), which is no character: send text as UTF-8, or each surrogate with its pair."
    )


def _too_deep() -> UnreadableJson:
    return UnreadableJson(
        f"The request's JSON is nested more than {MAX_JSON_DEPTH} levels deep; a GraphQL "
        "request or an MCP call needs far fewer."
    )
