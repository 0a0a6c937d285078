"""Page cursors (contract/page_cursor.py) are hostile input until read: any string is either a
cursor this service wrote, giving back exactly the key it was written from, or MALFORMED naming
the argument; never another exception. Properties over nasty strings, no database."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contract.errors import Malformed
from contract.page_cursor import (
    MAX_CURSOR_LENGTH,
    document_cursor,
    evidence_cursor,
    read_document_cursor,
    read_evidence_cursor,
)

ids = st.uuids().map(str)
positions = st.integers(-(2**63), 2**63 - 1)
evidence_keys = st.tuples(ids, positions, ids)
document_keys = st.tuples(positions, ids)
READERS = (read_evidence_cursor, read_document_cursor)


@given(evidence_keys)
def test_an_evidence_cursor_gives_back_the_key_it_was_written_from(
    key: tuple[str, int, str],
) -> None:
    cursor = evidence_cursor(key)
    assert read_evidence_cursor("after", cursor) == key
    assert len(cursor) <= MAX_CURSOR_LENGTH and cursor.isascii()


@given(document_keys)
def test_a_document_cursor_gives_back_the_key_it_was_written_from(key: tuple[int, str]) -> None:
    assert read_document_cursor("after", document_cursor(key)) == key


@given(evidence_keys, document_keys)
def test_a_cursor_of_one_order_is_malformed_for_the_other(
    evidence: tuple[str, int, str], document: tuple[int, str]
) -> None:
    with pytest.raises(Malformed):
        read_document_cursor("after", evidence_cursor(evidence))
    with pytest.raises(Malformed):
        read_evidence_cursor("after", document_cursor(document))


def must_refuse(text: str) -> None:
    for read in READERS:
        try:
            read("after", text)
        except Malformed as error:
            assert "`after`" in error.message
        # A string that reads must be exactly what the writer writes for its key.
        else:
            key = read("after", text)
            assert key is not None
            writer = evidence_cursor if read is read_evidence_cursor else document_cursor
            assert writer(key) == text  # type: ignore[arg-type]


@given(st.text(max_size=400))
def test_any_string_is_a_cursor_written_here_or_malformed(text: str) -> None:
    must_refuse(text)


@given(st.binary(max_size=300))
def test_any_base64_is_a_cursor_written_here_or_malformed(raw: bytes) -> None:
    must_refuse(base64.urlsafe_b64encode(raw).decode())


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40) | ids,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=10,
)


@given(st.lists(json_values, max_size=5), st.sampled_from(["evidence", "document", "x"]))
def test_any_json_payload_is_a_cursor_written_here_or_malformed(
    values: list[object], order: str
) -> None:
    payload = json.dumps([order, *values], separators=(",", ":"))
    must_refuse(base64.urlsafe_b64encode(payload.encode()).decode())


@given(evidence_keys, st.integers(0, 200), st.characters())
def test_a_cursor_with_one_character_changed_is_malformed_or_another_written_cursor(
    key: tuple[str, int, str], at: int, replacement: str
) -> None:
    cursor = evidence_cursor(key)
    at %= len(cursor)
    must_refuse(cursor[:at] + replacement + cursor[at + 1 :])


def test_a_huge_cursor_is_refused_before_it_is_decoded() -> None:
    with pytest.raises(Malformed):
        read_evidence_cursor("after", "A" * (MAX_CURSOR_LENGTH + 1))
