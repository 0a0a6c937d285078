"""mcpserver/advice.py's rule for relation types a walk named but found no edge of: said only
for a type no relation in scope has, with the scope's types listed (pure, no database)."""

from __future__ import annotations

from mcpserver.advice import missing_types, unknown_types_advice


def test_only_the_named_types_no_edge_has_are_missing_in_the_order_named() -> None:
    assert missing_types(["KNOWS", "MET", "KNOWS", "LED"], ["MET", "MET"]) == ["KNOWS", "LED"]
    assert missing_types(None, []) == []


def test_a_type_the_scope_holds_but_this_entity_lacks_gets_no_advice() -> None:
    assert unknown_types_advice(["MET"], [("MET", 2), ("RELATED_TO", 9)], False) == []


def test_a_type_the_scope_lacks_is_named_with_the_scope_types_and_their_counts() -> None:
    [line] = unknown_types_advice(["MET", "KNOWS"], [("MET", 2), ("RELATED_TO", 9)], False)
    assert line.startswith("No relation in scope has type KNOWS; its types: MET (2), ")


def test_counts_from_a_capped_read_are_said_to_be_lower_bounds() -> None:
    [line] = unknown_types_advice(["KNOWS"], [("RELATED_TO", 5000)], True)
    assert "RELATED_TO (at least 5000)" in line


def test_a_scope_without_relations_says_so() -> None:
    assert unknown_types_advice(["KNOWS", "MET"], [], False) == [
        "No relation in scope has types KNOWS, MET: the scope holds no relation."
    ]
