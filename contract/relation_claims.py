"""What a source says about a relation: its `description` and `weight` (contract §10), the one
rule that makes them safe, for the loaders that write them and the reads that serve them.

GraphRAG writes a sentence and a weight on every relationship; a bundle relation may carry
both; a LangChain relationship may have them among its properties. They are claims extraction
made, like an entity's description, not evidence: `Edge.evidence` is what states a relation.

A description is a string of at most MAX_DESCRIPTION_CHARS characters; a weight is a finite
number (not a boolean; an integer within Neo4j's 64 bits). A loader refuses (bundle) or drops
and counts (GraphRAG, LangChain) anything else. A read serves only what the rule allows of
what is stored, whoever wrote it (another pipeline may write any property): a stored
description that is not a string, or a weight that is not a finite number, is served as null,
and an over-long description is cut.

    >>> description_problem("Ada taught Grace."), weight_problem(float("nan"))
    (None, 'must be a finite number')
    >>> served_description(42), served_weight(2)
    (None, 2.0)
"""

from __future__ import annotations

import math

DESCRIPTION = "description"
WEIGHT = "weight"
# GraphRAG summarises a relation in a few sentences (its default is at most 500 tokens, about
# 2,000 characters); five times that leaves room and keeps one edge from filling an answer.
MAX_DESCRIPTION_CHARS = 10_000
_CUT = "…"


def description_problem(value: object) -> str | None:
    """Why `value` cannot be a relation's description, or None when it can."""
    if not isinstance(value, str):
        return "must be a string"
    if len(value) > MAX_DESCRIPTION_CHARS:
        return f"is longer than {MAX_DESCRIPTION_CHARS:,} characters ({len(value):,})"
    return None


def weight_problem(value: object) -> str | None:
    """Why `value` cannot be a relation's weight, or None when it can: a finite number, and an
    integer one that Neo4j can store (64 bits)."""
    if not is_finite_number(value):
        return "must be a finite number"
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return "is an integer beyond 64 bits"
    return None


def claim_problem(name: str, value: object) -> str | None:
    """The rule for property `name` of a relation: description and weight have theirs, any
    other property is not a claim this module rules on (None)."""
    if name == DESCRIPTION:
        return description_problem(value)
    if name == WEIGHT:
        return weight_problem(value)
    return None


def served_description(value: object) -> str | None:
    """A stored description as a reader may see it: a string, at most MAX_DESCRIPTION_CHARS
    characters (cut with an ellipsis), else None."""
    if not isinstance(value, str) or not value:
        return None
    if len(value) <= MAX_DESCRIPTION_CHARS:
        return value
    return value[: MAX_DESCRIPTION_CHARS - len(_CUT)] + _CUT


def served_weight(value: object) -> float | None:
    """A stored weight as a reader may see it: a finite number as a float, else None."""
    if isinstance(value, int | float) and is_finite_number(value):
        return float(value)
    return None


def is_finite_number(value: object) -> bool:
    """An int or float (not a bool) that is finite; an int beyond any float is not.

    >>> is_finite_number(1), is_finite_number(True), is_finite_number(10**400)
    (True, False, False)
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond any float
        return False
