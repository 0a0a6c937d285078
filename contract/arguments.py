"""Argument ranges of the GraphQL contract (SPEC §3, §5, §6), checked before any I/O."""

from __future__ import annotations

import unicodedata

from contract.errors import Malformed
from contract.identifiers import is_canonical_uuid

SEARCH_LIMIT = (1, 100)  # SPEC §3: default 10
SUPPORT_LIMIT = (0, 10)  # SPEC §3: default 3
WALK_DEPTH = (1, 2)  # SPEC §5: default 1
WALK_MAX_NODES = (1, 500)  # default 50; counts the start
WALK_MAX_EDGES = (1, 1000)  # default 100
WALK_MAX_CANDIDATES = (1, 5000)  # default 500
MAX_QUERY_LENGTH = 1000  # characters; a search query longer than this is refused
MAX_LABELS = 100
MAX_RELATION_TYPES = 100
MAX_NAME_LENGTH = 100  # a label or relation type name (SPEC §5: "at most 100 characters")
MAX_CANDIDATES_PER_LIST = 1000  # seed step 3: "up to 1000" candidates per label and list


def candidates_per_list(limit: int) -> int:
    """Seed step 3 / SPEC §3: each list reads `min(2·limit, 1000)` candidates per label."""
    return min(2 * limit, MAX_CANDIDATES_PER_LIST)


def check_range(argument: str, value: int, bounds: tuple[int, int]) -> int:
    low, high = bounds
    if not low <= value <= high:
        raise Malformed(argument, f"must be between {low} and {high}, got {value}")
    return value


def check_id(argument: str, value: str) -> str:
    if not is_canonical_uuid(value):
        raise Malformed(argument, "must be a canonical lowercase UUID string")
    return value


def check_names(argument: str, values: list[str] | None, most: int) -> tuple[str, ...] | None:
    """A list of label or relation type names (SPEC §5): each non-empty, at most
    `MAX_NAME_LENGTH` characters, no control characters; not too many; repeats dropped.

    A name that passes may still be anything else: graph/cypher_names.py decides whether it
    may be written into Cypher text (a stored plain name) or must be a parameter."""
    if values is None:
        return None
    if len(values) > most:
        raise Malformed(argument, f"at most {most} names")
    for value in values:
        if not value or len(value) > MAX_NAME_LENGTH:
            raise Malformed(argument, f"each name must have 1 to {MAX_NAME_LENGTH} characters")
        if has_control_character(value):
            raise Malformed(argument, "a name must not contain control characters")
    return tuple(dict.fromkeys(values))


def has_control_character(value: str) -> bool:
    return any(unicodedata.category(char) == "Cc" for char in value)
