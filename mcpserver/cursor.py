"""The cursor that continues a search or a walk whose answer MCP_MAX_RESULT_CHARS cut (issue 29,
point 3). Opaque to the client: base64url of a small JSON object naming the tool, a
fingerprint of the call's other arguments and the position of the first item not yet sent.

Each page runs the very same search or walk (the cursor is bound to the arguments, `limit` and
the bounds included), so the pages of one answer are disjoint and together hold all of it; the
caller's scope is applied afresh on every call, so a cursor never widens what a call reads. A
cursor is hostile input: anything but one this server made for these arguments is MALFORMED.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from contract.errors import Malformed

ARGUMENT = "cursor"
MAX_CURSOR_CHARS = 200
MAX_POSITION = 100_000  # far above any answer's items (a walk has at most 1,000 edges)
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")
_REFUSAL = "not a cursor from this call's answer; call again with the same arguments, or without it"


def fingerprint(tool: str, arguments: Mapping[str, Any]) -> str:
    """What a cursor is bound to: the tool and every argument but the cursor itself."""
    canonical = json.dumps(
        [tool, {k: v for k, v in arguments.items() if k != ARGUMENT}],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:24]


def encode(tool: str, arguments: Mapping[str, Any], position: int) -> str:
    body = json.dumps({"f": fingerprint(tool, arguments), "p": position}, separators=(",", ":"))
    return base64.urlsafe_b64encode(body.encode()).decode().rstrip("=")


def decode(cursor: object, tool: str, arguments: Mapping[str, Any]) -> int:
    """The position a cursor continues from; MALFORMED for anything this server did not make
    for the same tool and arguments."""
    if not isinstance(cursor, str) or not 0 < len(cursor) <= MAX_CURSOR_CHARS:
        raise Malformed(ARGUMENT, _REFUSAL)
    if not _BASE64URL.fullmatch(cursor):
        raise Malformed(ARGUMENT, _REFUSAL)
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        body = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise Malformed(ARGUMENT, _REFUSAL) from None
    if not isinstance(body, dict) or set(body) != {"f", "p"}:
        raise Malformed(ARGUMENT, _REFUSAL)
    position = body["p"]
    if not isinstance(position, int) or isinstance(position, bool):
        raise Malformed(ARGUMENT, _REFUSAL)
    if not 0 < position <= MAX_POSITION or body["f"] != fingerprint(tool, arguments):
        raise Malformed(ARGUMENT, _REFUSAL)
    return position
