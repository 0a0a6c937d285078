"""Ownership (contract §2 "Ownership"): which workspace an entity, a relation or a passage
belongs to, as the service stores it.

- `workspace` on an `:Entity` node or a relation is its owner, written by the service's own
  loaders (and by `evidencegraph schema apply`'s owner stamping for graphs an earlier release
  loaded). Absent: written by another pipeline, mentioned from any workspace.
- `sourceId` on a `:Document`, `:Chunk`, `:Entity` or relation is the id it has in the file
  it was loaded from, when the loader derived the stored id from it (the same file loads into
  two workspaces side by side, so the stored ids are per workspace).
- `workspaceKey` on an `:Entity` and on a `:Chunk` is derived from the owner (a passage's
  owner is its document's workspace) and kept by the service for one purpose: the lexical
  read asks its FULLTEXT index for the caller's workspaces' keys, so another workspace's
  entities and passages never take a candidate slot. A node without a key is a candidate for
  every caller, so a graph without keys answers as before (contract §2: what the service
  keeps for speed must not change an answer).

The key is a string of digits: every Lucene analyzer the service uses keeps a run of digits as
one token, unchanged (no stemming, no splitting), whatever characters the workspace's name
holds. Two workspaces whose keys collided would only share candidate slots; visibility is
still decided by the scope (graph/visibility.py).
"""

from __future__ import annotations

import hashlib
from typing import LiteralString

# The owner property on entities and relations (contract §2), and the derived key.
OWNER: LiteralString = "workspace"
OWNER_KEY: LiteralString = "workspaceKey"
# The id a loaded thing has in the file it came from (a GraphRAG table's, a LangChain node's),
# where the loader derived the stored id from it per workspace (contract §10).
SOURCE_ID: LiteralString = "sourceId"

_KEY_BITS = 96


def workspace_key(workspace: str) -> str:
    """The workspace's key in the lexical indexes: 29 decimal digits from SHA-256."""
    digest = hashlib.sha256(workspace.encode("utf-8")).digest()
    number = int.from_bytes(digest[: _KEY_BITS // 8], "big")
    return f"{number:029d}"
