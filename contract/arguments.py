"""Argument ranges and defaults of the GraphQL contract (contract §3, §5, §6), checked before
any I/O."""

from __future__ import annotations

import dataclasses
import unicodedata
from dataclasses import dataclass

from contract.errors import Malformed
from contract.identifiers import is_canonical_uuid


@dataclass(frozen=True)
class Bound:
    """An integer argument's range and default, declared once: the resolvers take the default
    and the schema description from here, and `check_range` the range."""

    low: int
    high: int
    default: int
    what: str  # what the number means, the start of its description
    note: str = ""  # said after the range, when there is more to say

    @property
    def description(self) -> str:
        text = f"{self.what}: {self.low} to {self.high} (default {self.default})."
        return f"{text} {self.note}" if self.note else text


SEARCH_LIMIT = Bound(1, 100, 10, "At most this many hits")  # contract §3, §4
SUPPORT_LIMIT = Bound(0, 10, 3, "Evidence passages per hit")  # contract §3
EVIDENCE_LIMIT = dataclasses.replace(SUPPORT_LIMIT, what="How many passages")  # Entity.evidence
# The paged fields (Entity.evidencePage, Edge.evidencePage, Document.passages) and the
# entities a passage mentions (Passage.mentions).
EVIDENCE_PAGE_SIZE = Bound(1, 100, 10, "How many passages per page")
DOCUMENT_PAGE_SIZE = dataclasses.replace(EVIDENCE_PAGE_SIZE, default=20)
MENTIONS_LIMIT = Bound(0, 50, 20, "At most this many entities")
SUGGESTION_LIMIT = Bound(1, 20, 5, "At most this many names")  # Query.nameSuggestions
WALK_DEPTH = Bound(1, 2, 1, "How many steps out from the start")  # contract §5
WALK_MAX_NODES = Bound(1, 500, 50, "At most this many entities in `nodes`, the start included")
WALK_MAX_EDGES = Bound(1, 1000, 100, "At most this many edges")
WALK_MAX_CANDIDATES = Bound(
    1,
    5000,
    500,
    "At most this many stored relations read per step",
    "Reaching it reports CANDIDATES; the walk goes on with what it read.",
)
MAX_QUERY_LENGTH = 1000  # characters; a search query longer than this is refused
MAX_LABELS = 100
MAX_RELATION_TYPES = 100
MAX_NAME_LENGTH = 100  # a label or relation type name (contract §5: "at most 100 characters")
MAX_CANDIDATES_PER_LIST = 1000  # seed step 3: "up to 1000" candidates per label and list


def candidates_per_list(limit: int) -> int:
    """Seed step 3 / contract §3: each list reads `min(2·limit, 1000)` candidates per label."""
    return min(2 * limit, MAX_CANDIDATES_PER_LIST)


def check_range(argument: str, value: int, bound: Bound) -> int:
    if not bound.low <= value <= bound.high:
        raise Malformed(argument, f"must be between {bound.low} and {bound.high}, got {value}")
    return value


def check_id(argument: str, value: str) -> str:
    if not is_canonical_uuid(value):
        raise Malformed(argument, "must be a canonical lowercase UUID string")
    return value


def check_names(argument: str, values: list[str] | None, most: int) -> tuple[str, ...] | None:
    """A list of label or relation type names (contract §5): each non-empty, at most
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
