"""The cursor get_evidence reads on with (issue 39, point 2: "evidence gets totals and a cursor
to the rest"): whose evidence (an entity, or a relation by its id, ends and type), where the
last page ended (contract/page_cursor.py's evidence-order key: document id, position, passage
id) and how many passages came before, for the "passages 4–13 of 24" the text says.

Opaque to the client, and short, since a model reads it in the text: base64url of the fields
packed as bytes (a UUID in 16), about 80 characters for an entity's, 150 for an edge's. A
cursor is hostile input: anything but the bytes this module writes (a known kind, canonical
ids, a position Neo4j can hold, a relation type a walk could have returned, a count in range,
nothing left over, at most MAX_CURSOR_CHARS) is MALFORMED, before any read. The caller's scope
is applied on every call, so a cursor never widens what a call reads.

    >>> owner = EntityOwner("0b6f5d1e-2c1a-4f43-9a57-1f0a6d2b9c11")
    >>> key = ("1c7e2a90-5b3d-4e8f-8a1b-2d3c4e5f6a7b", 3, "2d3c4e5f-6a7b-4e8f-8a1b-1c7e2a905b3d")
    >>> decode(encode(EvidencePosition(owner, key, 3))) == EvidencePosition(owner, key, 3)
    True
    >>> len(encode(EvidencePosition(owner, key, 3)))
    82
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
import uuid
from dataclasses import dataclass

from contract.arguments import MAX_NAME_LENGTH, has_control_character
from contract.errors import Malformed
from contract.identifiers import is_canonical_uuid
from contract.page_cursor import EvidenceKey

ARGUMENT = "cursor"
MAX_EDGE_ID = 200  # characters: a relation without an `id` is named by Neo4j's element id
MAX_BEFORE = 10_000_000
# The longest cursor written: an edge whose id and type are at their longest (4 bytes a
# character at most).
MAX_CURSOR_CHARS = 2_000
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")
_REFUSAL = "not a cursor from an answer's evidence; call get_evidence with `entityId` instead"
_ENTITY, _EDGE_UUID, _EDGE_NAMED = 1, 2, 3  # the first byte: whose evidence
_KEY = struct.Struct(">16sq16sI")  # document id, position, passage id, passages before


class _Refused(Exception):
    """The bytes are not a cursor; turned into MALFORMED at the edge."""


@dataclass(frozen=True, slots=True)
class EntityOwner:
    entity_id: str


@dataclass(frozen=True, slots=True)
class EdgeOwner:
    edge_id: str
    source_id: str
    target_id: str
    type: str


@dataclass(frozen=True, slots=True)
class EvidencePosition:
    owner: EntityOwner | EdgeOwner
    after: EvidenceKey  # the last passage shown
    before: int  # how many passages were shown before the next page


def _text(value: str) -> bytes:
    data = value.encode("utf-8")
    return struct.pack(">H", len(data)) + data


def encode(position: EvidencePosition) -> str:
    owner = position.owner
    if isinstance(owner, EntityOwner):
        packed = bytes([_ENTITY]) + uuid.UUID(owner.entity_id).bytes
    else:
        if is_canonical_uuid(owner.edge_id):
            packed = bytes([_EDGE_UUID]) + uuid.UUID(owner.edge_id).bytes
        else:
            packed = bytes([_EDGE_NAMED]) + _text(owner.edge_id)
        packed += uuid.UUID(owner.source_id).bytes + uuid.UUID(owner.target_id).bytes
        packed += _text(owner.type)
    document_id, at, passage_id = position.after
    packed += _KEY.pack(
        uuid.UUID(document_id).bytes, at, uuid.UUID(passage_id).bytes, position.before
    )
    return base64.urlsafe_b64encode(packed).decode().rstrip("=")


class _Reader:
    """Reads packed fields off the front of `data`; `_Refused` at the first that is wrong."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def take(self, count: int) -> bytes:
        if len(self.data) < count:
            raise _Refused
        taken, self.data = self.data[:count], self.data[count:]
        return taken

    def id(self) -> str:
        value = str(uuid.UUID(bytes=self.take(16)))
        if not is_canonical_uuid(value):
            raise _Refused
        return value

    def name(self, most: int) -> str:
        (length,) = struct.unpack(">H", self.take(2))
        try:
            value = self.take(length).decode("utf-8")
        except UnicodeDecodeError:
            raise _Refused from None
        if not 0 < len(value) <= most or has_control_character(value):
            raise _Refused
        return value


def _read(data: bytes) -> EvidencePosition:
    reader = _Reader(data)
    kind = reader.take(1)[0]
    owner: EntityOwner | EdgeOwner
    if kind == _ENTITY:
        owner = EntityOwner(reader.id())
    elif kind in (_EDGE_UUID, _EDGE_NAMED):
        edge_id = reader.id() if kind == _EDGE_UUID else reader.name(MAX_EDGE_ID)
        source_id, target_id = reader.id(), reader.id()
        owner = EdgeOwner(edge_id, source_id, target_id, reader.name(MAX_NAME_LENGTH))
    else:
        raise _Refused
    document, at, passage, before = _KEY.unpack(reader.take(_KEY.size))
    if reader.data or not 0 < before <= MAX_BEFORE:
        raise _Refused
    after = (str(uuid.UUID(bytes=document)), at, str(uuid.UUID(bytes=passage)))
    return EvidencePosition(owner, after, before)


def decode(cursor: object) -> EvidencePosition:
    """The position a cursor holds; MALFORMED for anything this module did not write."""
    if not isinstance(cursor, str) or not 0 < len(cursor) <= MAX_CURSOR_CHARS:
        raise Malformed(ARGUMENT, _REFUSAL)
    if not _BASE64URL.fullmatch(cursor) or len(cursor) % 4 == 1:
        raise Malformed(ARGUMENT, _REFUSAL)
    try:
        data = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        position = _read(data)
    except (binascii.Error, _Refused):
        raise Malformed(ARGUMENT, _REFUSAL) from None
    if encode(position) != cursor:  # one spelling per cursor: no stray bits
        raise Malformed(ARGUMENT, _REFUSAL)
    return position
