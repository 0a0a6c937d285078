"""Page cursors: the `after` argument of the paged fields (`evidencePage`, `passages`).

A cursor is the sort key of the last passage a page showed, with the name of the order it
belongs to, as JSON in URL-safe base64:

    evidence order   ["evidence", document id, position, passage id]
                     (Entity.evidencePage, Edge.evidencePage; contract §3's order)
    document order   ["document", position, passage id]   (Document.passages)

The next page is whatever comes after that key in the order, so paging while other documents
load neither skips nor repeats a passage that stayed visible, and a cursor tells the caller
nothing a page did not show them. Every other string (not base64 in the form this module
writes, not JSON, another order's cursor, an id that is not a canonical UUID, a position that
is not an integer Neo4j can hold, too long) is MALFORMED, checked before any I/O.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Literal, cast

from contract.errors import Malformed
from contract.identifiers import is_canonical_uuid

EvidenceKey = tuple[str, int, str]  # document id, position, passage id
DocumentKey = tuple[int, str]  # position, passage id
Order = Literal["evidence", "document"]

# Longer than any cursor this module writes (about 150 characters): a longer string is refused
# before it is decoded.
MAX_CURSOR_LENGTH = 256
# How every paged field describes its `after` argument.
AFTER_DESCRIPTION = (
    "The `pageInfo.endCursor` of the previous page, to read the page after it; null (the "
    f"default) for the first page. Any other string, or more than {MAX_CURSOR_LENGTH} "
    "characters, is MALFORMED."
)
_LEAST_INTEGER = -(2**63)
_GREATEST_INTEGER = 2**63 - 1


def evidence_cursor(key: EvidenceKey) -> str:
    """The cursor after the passage whose evidence-order key is `key`.

    >>> key = ("0b6f5d1e-2c1a-4f43-9a57-1f0a6d2b9c11", 3, "1c7e2a90-5b3d-4e8f-8a1b-2d3c4e5f6a7b")
    >>> read_evidence_cursor("after", evidence_cursor(key)) == key
    True
    """
    return _encode(["evidence", *key])


def document_cursor(key: DocumentKey) -> str:
    """The cursor after the passage at `key` (position, id) in its document."""
    return _encode(["document", *key])


def read_evidence_cursor(argument: str, cursor: str | None) -> EvidenceKey | None:
    """The key an evidence-order cursor holds; None for no cursor (the first page)."""
    if cursor is None:
        return None
    payload = _decode(argument, cursor, "evidence", 4)
    document_id, position, passage_id = payload[1:]
    if not (_is_id(document_id) and _is_position(position) and _is_id(passage_id)):
        raise _malformed(argument)
    return (cast(str, document_id), cast(int, position), cast(str, passage_id))


def read_document_cursor(argument: str, cursor: str | None) -> DocumentKey | None:
    """The key a document-order cursor holds; None for no cursor (the first page)."""
    if cursor is None:
        return None
    payload = _decode(argument, cursor, "document", 3)
    position, passage_id = payload[1:]
    if not (_is_position(position) and _is_id(passage_id)):
        raise _malformed(argument)
    return (cast(int, position), cast(str, passage_id))


def _encode(payload: list[object]) -> str:
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=True)
    return base64.urlsafe_b64encode(text.encode("ascii")).decode("ascii")


def _decode(argument: str, cursor: str, order: Order, size: int) -> list[object]:
    if len(cursor) > MAX_CURSOR_LENGTH or not cursor.isascii():
        raise _malformed(argument)
    try:
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
        payload = json.loads(text)
    except (binascii.Error, ValueError):  # UnicodeDecodeError and JSONDecodeError among them
        raise _malformed(argument) from None
    # Only the exact form `_encode` writes: no other spelling of the same key is a cursor.
    if not isinstance(payload, list) or len(payload) != size or payload[0] != order:
        raise _malformed(argument)
    if _encode(payload) != cursor:
        raise _malformed(argument)
    return payload


def _is_id(value: object) -> bool:
    return is_canonical_uuid(value)


def _is_position(value: object) -> bool:
    # bool is an int to Python, not to the graph.
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and _LEAST_INTEGER <= value <= _GREATEST_INTEGER
    )


def _malformed(argument: str) -> Malformed:
    return Malformed(
        argument,
        "must be a cursor this field returned as `pageInfo.endCursor`, or null for the first page",
    )
