"""The edges between two entities picked from the walks around each (retrieval/
walk_connections.py; issue 39, point 4), without I/O."""

from __future__ import annotations

from retrieval.walk_bookkeeping import EdgeKey
from retrieval.walk_connections import connections

A, B = "a", "b"


def ids(found: list[tuple[EdgeKey, int]]) -> list[tuple[str, int]]:
    return [(edge.id, step) for edge, step in found]


def test_a_direct_relation_in_either_direction_is_step_one() -> None:
    around_a = [EdgeKey("r1", "KNOWS", A, B), EdgeKey("r2", "KNOWS", B, A)]
    assert ids(connections(A, B, around_a, around_a, 1)) == [("r1", 1), ("r2", 1)]


def test_two_steps_pass_through_an_entity_both_walks_reach() -> None:
    around_a = [EdgeKey("r1", "KNOWS", A, "x"), EdgeKey("r2", "KNOWS", "y", A)]
    around_b = [EdgeKey("r3", "KNOWS", "x", B), EdgeKey("r4", "KNOWS", B, "z")]
    assert ids(connections(A, B, around_a, around_b, 2)) == [("r1", 1), ("r3", 2)]
    assert connections(A, B, around_a, around_b, 1) == []


def test_each_entity_in_between_brings_every_edge_to_and_from_it_once() -> None:
    around_a = [
        EdgeKey("r1", "KNOWS", A, "x"),
        EdgeKey("r2", "LIKES", "x", A),
        EdgeKey("r9", "KNOWS", A, B),
    ]
    around_b = [EdgeKey("r3", "KNOWS", "x", B), EdgeKey("r9", "KNOWS", A, B)]
    assert ids(connections(A, B, around_a, around_b, 2)) == [
        ("r9", 1),
        ("r1", 1),
        ("r2", 1),
        ("r3", 2),
    ]


def test_the_two_ends_are_never_an_entity_in_between() -> None:
    around_a = [EdgeKey("r1", "KNOWS", A, B), EdgeKey("loop", "KNOWS", A, A)]
    around_b = [EdgeKey("r1", "KNOWS", A, B), EdgeKey("loop2", "KNOWS", B, B)]
    assert ids(connections(A, B, around_a, around_b, 2)) == [("r1", 1)]


def test_an_entity_and_itself_have_no_connection() -> None:
    around_a = [EdgeKey("loop", "KNOWS", A, A), EdgeKey("r1", "KNOWS", A, "x")]
    assert connections(A, A, around_a, around_a, 1) == []
