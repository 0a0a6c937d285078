"""Names that Cypher cannot take as parameters: labels in schema commands, and relationship
types in a pattern that must expand only those types. This is the one place a name is put
into Cypher text; it is always escaped, and values never are (they stay `$parameters`)."""

from __future__ import annotations

from collections.abc import Sequence


def quote_identifier(name: str) -> str:
    """A label, type or index name as a Cypher identifier: backticks, inner backticks doubled.

    >>> quote_identifier("Person"), quote_identifier("we`ird")
    ('`Person`', '`we``ird`')
    """
    if not name or "\x00" in name:
        raise ValueError(f"not a usable identifier: {name!r}")
    return "`" + name.replace("`", "``") + "`"


def relationship_types_pattern(variable: str, types: Sequence[str]) -> str:
    """`[variable:`A`|`B`]`: a relationship pattern the planner expands by type, so
    relationships of other types around a node are never read."""
    if not types:
        raise ValueError("a typed pattern needs at least one type")
    return f"[{variable}:" + "|".join(quote_identifier(t) for t in types) + "]"
