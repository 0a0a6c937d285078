"""A read's values go to Neo4j in one map parameter, so that a statement's text alone decides
which cached plan Neo4j uses for it.

Neo4j keeps a statement's plan in its query cache under a key made of the statement's text
and, for every parameter, its type and, for a string or a list, its length rounded up to a
power of ten (0, 1, 10, 100, …: `internal.cypher.use_parameter_size`, on by default). The
values of a read vary with each request: the keys of a DataLoader batch, the words of a query,
the labels searched, the workspaces of a scope, the ids a walk step starts from. Each new
combination of rounded lengths was a new key, and Neo4j planned the statement again: measured
on the demo data at load 18 (docs/operations.md, "Plans"), the entity search took 15-17 s to
plan anew when a query had two words instead of one, searched one label instead of four, or
named a mode of another length, against 0.3-0.8 s for a cached plan.

A map parameter carries no type or length of what it holds, so every read is sent with its
values in one map, `$params`, and its text rewritten once: each `$name` becomes `$params.name`.
The planner then sees the same key for every request of a statement, and a statement planned
once (by a request, or before any request by graph/plan_warming.py) stays planned, whatever
values later requests bring. Plans are the same as with separate parameters (the statements
seek by index either way; tests/test_statement_plans.py plans what is sent).

What stays as written: a name in a string literal or a quoted name, and `$any(…)`/`$all(…)`
(dynamic relationship types) and `$(…)` (a dynamic label), which are syntax, not parameters;
the parameters inside them are rewritten like any other.

>>> sent_text("MATCH (e:Entity {id: $id})-[r:$any($types)]->() RETURN e LIMIT $limit")
'MATCH (e:Entity {id: $params.id})-[r:$any($params.types)]->() RETURN e LIMIT $params.limit'
>>> sent_text("RETURN '$id' AS text, $id AS id")
"RETURN '$id' AS text, $params.id AS id"
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, LiteralString

# The one parameter a read is sent with.
PARAMETERS = "params"

# A quoted literal or name (kept as it is), or a parameter: `$` and a name not followed by `(`.
_TOKEN = re.compile(
    r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`)"""
    r"|\$([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_(])"
)

# Statements are few (each constant once, each built one once per shape or set of relation
# types), so their rewritten texts are kept; the bound only caps what odd walks can add.
_KEPT_TEXTS = 1024


@lru_cache(maxsize=_KEPT_TEXTS)
def sent_text(query: LiteralString) -> LiteralString:
    """`query` with every parameter read from the one map parameter."""

    def rewrite(token: re.Match[str]) -> str:
        name = token.group(2)
        return token.group(0) if name is None else f"${PARAMETERS}.{name}"

    # Still the service's own text: only its parameter references are renamed.
    return _TOKEN.sub(rewrite, query)


def sent_parameters(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The values of a read, as the one map parameter its `sent_text` reads."""
    return {PARAMETERS: dict(parameters)}
