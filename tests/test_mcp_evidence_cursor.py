"""get_evidence's cursor (mcpserver/evidence_cursor.py) as hostile input: whatever a client sends
as `cursor`, decoding gives back a position this server wrote, or is MALFORMED naming `cursor`;
it never raises anything else, and a cursor the server writes reads back as written (issue 39,
point 2)."""

from __future__ import annotations

import base64
import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract.errors import Malformed
from mcpserver import evidence_cursor
from mcpserver.evidence_cursor import EdgeOwner, EntityOwner, EvidencePosition

UNTIMED = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

IDS = st.uuids().map(str)
NAMES = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=100)
OWNERS = st.one_of(
    st.builds(EntityOwner, IDS),
    st.builds(EdgeOwner, IDS | NAMES.map(lambda n: n[:200]), IDS, IDS, NAMES),
)
KEYS = st.tuples(IDS, st.integers(-(2**63), 2**63 - 1), IDS)
POSITIONS = st.builds(EvidencePosition, OWNERS, KEYS, st.integers(1, evidence_cursor.MAX_BEFORE))


def refused(value: object) -> bool:
    try:
        evidence_cursor.decode(value)
    except Malformed as error:
        assert error.extensions["argument"] == "cursor"
        return True
    return False


@UNTIMED
@given(POSITIONS)
def test_a_cursor_reads_back_as_the_position_it_was_written_for(position: EvidencePosition) -> None:
    written = evidence_cursor.encode(position)
    assert len(written) <= evidence_cursor.MAX_CURSOR_CHARS
    assert evidence_cursor.decode(written) == position


def test_an_entitys_cursor_is_short_enough_to_read_in_a_text() -> None:
    owner = EntityOwner(str(uuid.uuid4()))
    key = (str(uuid.uuid4()), 12, str(uuid.uuid4()))
    assert len(evidence_cursor.encode(EvidencePosition(owner, key, 3))) <= 90


@UNTIMED
@given(st.one_of(st.text(max_size=400), st.integers(), st.none(), st.lists(st.integers())))
def test_anything_a_client_makes_up_is_malformed_or_a_cursor_the_server_wrote(
    value: object,
) -> None:
    if not refused(value):
        assert evidence_cursor.encode(evidence_cursor.decode(value)) == value


@UNTIMED
@given(st.binary(max_size=600))
def test_any_bytes_are_malformed_unless_they_are_a_cursor_the_server_wrote(data: bytes) -> None:
    made_up = base64.urlsafe_b64encode(data).decode().rstrip("=")
    if not refused(made_up):
        assert evidence_cursor.encode(evidence_cursor.decode(made_up)) == made_up


@UNTIMED
@given(POSITIONS, st.integers(0, 400), st.binary(min_size=1, max_size=3))
def test_a_cursor_changed_anywhere_is_malformed_or_another_written_cursor(
    position: EvidencePosition, at: int, junk: bytes
) -> None:
    written = evidence_cursor.encode(position)
    data = base64.urlsafe_b64decode(written + "=" * (-len(written) % 4))
    at = at % (len(data) + 1)
    for changed in (data[:at] + junk + data[at:], data[:at], data[:at] + junk):
        text = base64.urlsafe_b64encode(changed).decode().rstrip("=")
        if not refused(text):
            assert evidence_cursor.encode(evidence_cursor.decode(text)) == text


def test_a_relation_type_or_edge_id_with_a_control_character_is_refused() -> None:
    key = (str(uuid.uuid4()), 0, str(uuid.uuid4()))
    ends = (str(uuid.uuid4()), str(uuid.uuid4()))
    for owner in (
        EdgeOwner("edge\u0000id", *ends, "KNOWS"),
        EdgeOwner(str(uuid.uuid4()), *ends, "KNO\nWS"),
    ):
        assert refused(evidence_cursor.encode(EvidencePosition(owner, key, 1)))
