"""Ids in the graph are canonical lowercase UUID strings (contract §2)."""

from __future__ import annotations

import re
import uuid

_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

# The namespace for ids derived from foreign ids (GraphRAG's 128-hex digests, contract §10).
DERIVED_ID_NAMESPACE = uuid.UUID("5b0f8a52-8a7f-4c8e-9d55-6f1e2a9c3e10")


def is_canonical_uuid(value: object) -> bool:
    """True for `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in lowercase hex, nothing else.

    >>> is_canonical_uuid("0b6f5d1e-2c1a-4f43-9a57-1f0a6d2b9c11"), is_canonical_uuid("0B6F")
    (True, False)
    """
    return isinstance(value, str) and _CANONICAL_UUID.fullmatch(value) is not None


def canonical_id(value: str, kind: str) -> str:
    """`value` itself when it is a canonical UUID, else a UUID5 derived from `kind` and it.

    `kind` keeps ids of different tables apart (a text unit and an entity may share a
    foreign id). Deterministic, so loading the same data twice yields the same ids.
    """
    if is_canonical_uuid(value):
        return value
    lowered = value.strip().lower()
    if is_canonical_uuid(lowered):
        return lowered
    return str(uuid.uuid5(DERIVED_ID_NAMESPACE, f"{kind}:{value}"))


def workspace_id(workspace: str, value: str, kind: str) -> str:
    """The id a loader derives for `value` (a file's own id of table `kind`) in `workspace`:
    a UUID5 of the workspace and `canonical_id(value, kind)`, even when `value` is a canonical
    UUID already, so the same file loads into two workspaces side by side and each keeps its
    own (contract §2 "Ownership": ids the loaders derive include the workspace).

    >>> workspace_id("acme", "x", "entity") == workspace_id("acme", "x", "entity")
    True
    >>> workspace_id("acme", "x", "entity") != workspace_id("globex", "x", "entity")
    True
    """
    return str(uuid.uuid5(DERIVED_ID_NAMESPACE, f"{workspace}\x00{canonical_id(value, kind)}"))


def content_workspace_id(workspace: str, value: str, kind: str, fingerprint: str) -> str:
    """`workspace_id` of `value` as part of content whose `fingerprint` (a digest of what was
    loaded) is given: the same content gives the same id, changed content a new one. A GraphRAG
    text unit keeps its id when GraphRAG re-indexes its document, but the document's version
    is new when its entities changed, and a new version needs new passage ids (contract §2:
    a passage is one piece of one version), so its passage id is derived with the fingerprint.

    >>> content_workspace_id("acme", "tu1", "text_unit", "f1") == content_workspace_id(
    ...     "acme", "tu1", "text_unit", "f1")
    True
    >>> content_workspace_id("acme", "tu1", "text_unit", "f1") != content_workspace_id(
    ...     "acme", "tu1", "text_unit", "f2")
    True
    """
    base = canonical_id(value, kind)  # 36 characters: the parts cannot run into each other
    return str(uuid.uuid5(DERIVED_ID_NAMESPACE, f"{workspace}\x00{base}\x00{fingerprint}"))
