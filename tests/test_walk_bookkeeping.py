"""The walk's bookkeeping (retrieval/walk_bookkeeping.py), without a database."""

from __future__ import annotations

import pytest

from retrieval.walk_bookkeeping import (
    Bound,
    EdgeKey,
    WalkBookkeeping,
    WalkBounds,
    candidate_order,
)


def walk(max_nodes: int = 50, max_edges: int = 100, start: str = "a") -> WalkBookkeeping[EdgeKey]:
    return WalkBookkeeping(start, WalkBounds(max_nodes, max_edges, max_candidates=500))


def ids(edges: list[tuple[EdgeKey, int]]) -> list[str]:
    return [edge.id for edge, _ in edges]


def test_a_step_considers_its_candidates_by_type_source_target_and_id() -> None:
    candidates = [
        EdgeKey("r4", "LIKES", "a", "b"),
        EdgeKey("r3", "KNOWS", "c", "a"),
        EdgeKey("r2", "KNOWS", "a", "d"),
        EdgeKey("r1", "KNOWS", "a", "d"),
        EdgeKey("r0", "KNOWS", "a", "c"),
    ]
    assert [c.id for c in sorted(candidates, key=candidate_order)] == [
        "r0",
        "r1",
        "r2",
        "r3",
        "r4",
    ]
    # With room for two edges only the first two in that order enter, whatever the input order.
    bookkeeping = walk(max_edges=2)
    bookkeeping.take_step(1, candidates)
    assert ids(bookkeeping.ordered_edges()) == ["r0", "r1"]


def test_an_edge_already_in_the_result_is_skipped_and_costs_no_bound() -> None:
    bookkeeping = walk(max_edges=2)
    bookkeeping.take_step(1, [EdgeKey("r1", "KNOWS", "a", "b")])
    # Step 2 reads r1 again from b's side, and twice within the step (both ends in frontier).
    bookkeeping.take_step(
        2,
        [
            EdgeKey("r1", "KNOWS", "a", "b"),
            EdgeKey("r1", "KNOWS", "a", "b"),
            EdgeKey("r2", "KNOWS", "b", "c"),
        ],
    )
    assert ids(bookkeeping.ordered_edges()) == ["r1", "r2"]
    assert [depth for _, depth in bookkeeping.ordered_edges()] == [1, 2]
    assert bookkeeping.truncated_by() == []


def test_max_nodes_counts_the_start() -> None:
    bookkeeping = walk(max_nodes=1)
    frontier = bookkeeping.take_step(
        1, [EdgeKey("loop", "KNOWS", "a", "a"), EdgeKey("r1", "KNOWS", "a", "b")]
    )
    # The self-loop brings no new node, so it fits; the edge to b would be a second node.
    assert ids(bookkeeping.ordered_edges()) == ["loop"]
    assert bookkeeping.node_ids() == ["a"]
    assert frontier == []
    assert bookkeeping.truncated_by() == [Bound.NODES]


def test_the_first_refused_edge_stops_the_step_even_if_later_ones_would_fit() -> None:
    bookkeeping = walk(max_nodes=3)
    bookkeeping.take_step(1, [EdgeKey("r1", "KNOWS", "a", "b"), EdgeKey("r2", "KNOWS", "a", "c")])
    bookkeeping.take_step(
        2,
        [
            EdgeKey("r3", "KNOWS", "b", "d"),  # brings d: refused by NODES
            EdgeKey("r4", "LIKES", "b", "c"),  # between known nodes, but after the cut
        ],
    )
    assert ids(bookkeeping.ordered_edges()) == ["r1", "r2"]
    assert bookkeeping.truncated_by() == [Bound.NODES]
    assert bookkeeping.ended


def test_max_edges_cuts_the_walk_when_an_edge_cannot_be_added() -> None:
    bookkeeping = walk(max_edges=2)
    frontier = bookkeeping.take_step(
        1,
        [
            EdgeKey("r1", "KNOWS", "a", "b"),
            EdgeKey("r2", "KNOWS", "a", "c"),
            EdgeKey("r3", "KNOWS", "a", "d"),
        ],
    )
    assert ids(bookkeeping.ordered_edges()) == ["r1", "r2"]
    assert frontier == ["b", "c"]
    assert bookkeeping.truncated_by() == [Bound.EDGES]
    assert bookkeeping.ended


def test_reaching_a_bound_exactly_does_not_cut_the_walk() -> None:
    bookkeeping = walk(max_nodes=3, max_edges=2)
    bookkeeping.take_step(1, [EdgeKey("r1", "KNOWS", "a", "b"), EdgeKey("r2", "KNOWS", "a", "c")])
    assert bookkeeping.truncated_by() == []
    assert not bookkeeping.ended


def test_an_edge_refused_by_both_nodes_and_edges_records_both() -> None:
    bookkeeping = walk(max_nodes=2, max_edges=1)
    bookkeeping.take_step(1, [EdgeKey("r1", "KNOWS", "a", "b"), EdgeKey("r2", "KNOWS", "a", "c")])
    assert bookkeeping.truncated_by() == [Bound.NODES, Bound.EDGES]


def test_an_edge_between_known_nodes_is_refused_only_by_edges() -> None:
    bookkeeping = walk(max_nodes=2, max_edges=1)
    bookkeeping.take_step(1, [EdgeKey("r1", "KNOWS", "a", "b"), EdgeKey("r2", "LIKES", "a", "b")])
    assert bookkeeping.truncated_by() == [Bound.EDGES]


def test_a_cut_ends_the_walk_so_no_further_step_may_run() -> None:
    bookkeeping = walk(max_edges=1)
    bookkeeping.take_step(1, [EdgeKey("r1", "KNOWS", "a", "b"), EdgeKey("r2", "KNOWS", "a", "c")])
    with pytest.raises(RuntimeError):
        bookkeeping.take_step(2, [])


def test_candidates_is_recorded_but_the_step_and_the_walk_go_on() -> None:
    bookkeeping = walk()
    frontier = bookkeeping.take_step(1, [EdgeKey("r1", "KNOWS", "a", "b")], more_remained=True)
    assert frontier == ["b"]
    assert not bookkeeping.ended
    bookkeeping.take_step(2, [EdgeKey("r2", "KNOWS", "b", "c")])
    assert ids(bookkeeping.ordered_edges()) == ["r1", "r2"]
    assert bookkeeping.truncated_by() == [Bound.CANDIDATES]


def test_an_edge_has_its_steps_depth_and_a_node_the_depth_it_was_first_reached_at() -> None:
    bookkeeping = walk()
    assert bookkeeping.take_step(1, [EdgeKey("r1", "KNOWS", "a", "b")]) == ["b"]
    frontier = bookkeeping.take_step(
        2, [EdgeKey("r2", "KNOWS", "b", "c"), EdgeKey("r3", "KNOWS", "b", "a")]
    )
    assert frontier == ["c"]
    assert bookkeeping.depths == {"a": 0, "b": 1, "c": 2}
    assert [(edge.id, depth) for edge, depth in bookkeeping.ordered_edges()] == [
        ("r1", 1),
        ("r3", 2),  # (KNOWS, b, a) comes before (KNOWS, b, c)
        ("r2", 2),
    ]


def test_nodes_come_start_first_then_by_depth_reached_then_id() -> None:
    bookkeeping = walk(start="z")
    bookkeeping.take_step(1, [EdgeKey("r1", "KNOWS", "z", "y"), EdgeKey("r2", "KNOWS", "x", "z")])
    bookkeeping.take_step(2, [EdgeKey("r3", "KNOWS", "y", "b"), EdgeKey("r4", "KNOWS", "x", "c")])
    assert bookkeeping.node_ids() == ["z", "x", "y", "b", "c"]


def test_edges_come_by_depth_then_candidate_order() -> None:
    bookkeeping = walk()
    bookkeeping.take_step(1, [EdgeKey("r9", "ZZZ", "a", "b"), EdgeKey("r8", "AAA", "a", "c")])
    bookkeeping.take_step(2, [EdgeKey("r1", "AAA", "c", "d"), EdgeKey("r0", "AAA", "b", "e")])
    assert ids(bookkeeping.ordered_edges()) == ["r8", "r9", "r0", "r1"]


def test_truncated_by_lists_bounds_in_a_fixed_order_whatever_order_they_were_reached_in() -> None:
    bookkeeping = walk(max_nodes=2)
    bookkeeping.record_depth_probe(True)
    bookkeeping.take_step(
        1,
        [EdgeKey("r1", "KNOWS", "a", "b"), EdgeKey("r2", "KNOWS", "a", "c")],
        more_remained=True,
    )
    assert bookkeeping.truncated_by() == [Bound.NODES, Bound.DEPTH, Bound.CANDIDATES]


def test_depth_is_recorded_only_when_the_probe_found_an_edge_beyond() -> None:
    quiet, cut = walk(), walk()
    quiet.record_depth_probe(False)
    cut.record_depth_probe(True)
    assert quiet.truncated_by() == []
    assert cut.truncated_by() == [Bound.DEPTH]


def test_reached_at_lists_the_entities_first_reached_at_a_depth_by_id() -> None:
    bookkeeping = walk()
    bookkeeping.take_step(1, [EdgeKey("r1", "KNOWS", "a", "c"), EdgeKey("r2", "KNOWS", "a", "b")])
    assert bookkeeping.reached_at(0) == ["a"]
    assert bookkeeping.reached_at(1) == ["b", "c"]
    assert bookkeeping.reached_at(2) == []
