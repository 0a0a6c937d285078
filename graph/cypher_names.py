"""Names in Cypher text (contract §5, §10): the one place a label, relationship type or property
name is written into a statement, and the rule that decides when it may be.

Cypher takes values as `$parameters`, but not every name: a label in a schema command
(`CREATE INDEX … FOR (n:Person)`) and a relationship type the planner should expand by type
(`[r:KNOWS|LIKES]`, which reads only those relationships around a node, where the dynamic
`[r:$any($types)]` reads all of them and filters) must be text. Index names and index options
are parameters (`CREATE FULLTEXT INDEX $name … OPTIONS $options`), so they never are.

Quoting a name in backticks and doubling its backticks is not enough: Neo4j decodes `\\uXXXX`
escapes *before* it reads a quoted name, so the six characters `\\u0060` in a name close the
quote, and whatever follows is Cypher. A crafted walk `relationTypes` entry did exactly that.
No escaping rule is trusted here: a name reaches Cypher text only when it is made of ASCII
letters, digits and `_` (`is_plain_name`), which cannot hold a backslash, a backtick or any
other character Cypher reads specially. Every other name is matched as a parameter
(`type(r) IN $types`, `[r:$any($types)]`, `SET n:$(labels)`) or refused where text is the only
way (a schema command for an odd label: such a label gets no index and is not an entity label).

Names a request or a bundle sends are checked for their own shape first (`contract/arguments`,
`ingest/bundle_checks`); names stored by another pipeline may be anything, which is why the
rule sits here, at the point of writing, and not only at the edges.

>>> cypher_name("WORKS_FOR"), is_plain_name("works for"), is_load_name("1ST")
('`WORKS_FOR`', False, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from contract.arguments import MAX_NAME_LENGTH

_PLAIN = re.compile(r"[A-Za-z0-9_]+")
# contract §10: "names made of letters, digits and `_`, starting with a letter".
_LOAD_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class CypherNameRefused(ValueError):
    """A name that must not be written into Cypher text was about to be."""


def is_plain_name(name: str) -> bool:
    """Whether `name` may be written into Cypher text: ASCII letters, digits and `_` only."""
    return len(name) <= MAX_NAME_LENGTH and _PLAIN.fullmatch(name) is not None


def is_load_name(name: str) -> bool:
    """contract §10's rule for the labels and relation types a load writes: plain, and starting
    with a letter (so every label a load writes can be given its indexes)."""
    return len(name) <= MAX_NAME_LENGTH and _LOAD_NAME.fullmatch(name) is not None


def cypher_name(name: str) -> str:
    """A plain name as a Cypher identifier; anything else is refused, never escaped."""
    if not is_plain_name(name):
        raise CypherNameRefused(f"not a name Cypher text may hold: {name!r}")
    return "`" + name + "`"


def split_plain(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """(names Cypher text may hold, names that must be parameters), each in the given order."""
    plain: list[str] = []
    other: list[str] = []
    for name in names:
        (plain if is_plain_name(name) else other).append(name)
    return plain, other


def relationship_types_pattern(variable: str, types: Sequence[str]) -> str:
    """`[variable:`A`|`B`]`: a relationship pattern the planner expands by type, so
    relationships of other types around a node are never read. Plain names only."""
    if not types:
        raise ValueError("a typed pattern needs at least one type")
    return f"[{variable}:" + "|".join(cypher_name(t) for t in types) + "]"


def property_list(variable: str, properties: Sequence[str]) -> str:
    """`n.`name`, n.`description``: the properties of a FULLTEXT index. Plain names only."""
    return ", ".join(f"{variable}.{cypher_name(p)}" for p in properties)
