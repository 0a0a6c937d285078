"""Persisted operations (issue 27): Apollo's automatic persisted queries (APQ) and a
trusted-documents mode. The request's `extensions.persistedQuery` is
`{"version": 1, "sha256Hash": "<64 hex digits>"}`, the SHA-256 of the document's text.

APQ (the default): a hash alone is answered from the documents this process has seen, or refused
with PERSISTED_QUERY_NOT_FOUND and the message `PersistedQueryNotFound`, which Apollo's clients take
as "send the text with the hash"; the hash and the text together are checked (the hash must be the
text's) and the text kept. What is kept is bounded: `KEPT_DOCUMENTS` documents of at most
`KEPT_DOCUMENT_CHARS` characters each, and `KEPT_BYTES` bytes in all, the least recently used
forgotten first (api/front_door/bounded_memory.py: 1,000 documents of 16,384 characters outside
ASCII would hold 64 MB). A document is kept for the callers of one grant (`partition`: the granted
workspaces; issue 38 §5): a hash alone answers whether a caller of the same grant sent that exact
text, never whether another workspace's caller did (a document may hold a search's words as a
literal). With FRONT_DOOR_STORE set, what one process is taught is kept in the shared store as
well (api/front_door/store.py; per grant, `document_key`), so a hash registered through one
replica is a hit through every other; this process's copy is asked first, and the store is
never more than one call per request. While the store cannot be reached, a hash this process
does not know is PERSISTED_QUERY_NOT_FOUND, and the client sends the text, as without a store.

Trusted documents (GRAPHQL_TRUSTED_DOCUMENTS=<manifest>[,<manifest>…]): only the manifests'
documents run, sent by hash or by their exact text; anything else is QUERY_NOT_IN_SAFELIST (an
unknown hash alone: PERSISTED_QUERY_NOT_FOUND), and nothing is learned from requests. The manifests
are read by api/front_door/trusted_documents.py. A request whose document is resolved here then runs
the one parse, validation and pricing that api/graphql_document.py and api/front_door/query_cost.py
keep per document text: a known hash skips all three.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import sys
from collections.abc import Hashable, Mapping

from api.front_door.bounded_memory import BoundedCache
from api.front_door.store import DOCUMENT_SECONDS, KEY_PREFIX, FrontDoorStore, StoreUnavailable
from contract.errors import Malformed, PersistedQueryNotFound, QueryNotInSafelist

KEPT_DOCUMENTS = 1000
KEPT_DOCUMENT_CHARS = 16_384
KEPT_BYTES = 8 * 1024 * 1024
SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def requested_hash(extensions: Mapping[str, object] | None) -> str | None:
    """The `persistedQuery` hash a request names, or None; MALFORMED when it names one badly."""
    if not extensions or "persistedQuery" not in extensions:
        return None
    persisted = extensions["persistedQuery"]
    if not isinstance(persisted, dict) or persisted.get("version") != 1:
        raise Malformed("extensions.persistedQuery", 'must be {"version": 1, "sha256Hash": …}')
    digest = persisted.get("sha256Hash")
    if not isinstance(digest, str) or not SHA256_HEX.fullmatch(digest):
        raise Malformed("extensions.persistedQuery.sha256Hash", "must be 64 lowercase hex digits")
    return digest


class PersistedQueries:
    def __init__(
        self, trusted: Mapping[str, str] | None = None, store: FrontDoorStore | None = None
    ) -> None:
        self.trusted = dict(trusted) if trusted is not None else None
        self.store = store if trusted is None else None  # the manifests are every process's
        self.kept: BoundedCache[tuple[Hashable, str], str] = BoundedCache(
            KEPT_DOCUMENTS, KEPT_BYTES, _kept_bytes
        )

    async def resolve(
        self,
        query: str | None,
        extensions: Mapping[str, object] | None,
        partition: frozenset[str] | None = None,
    ) -> str | None:
        """The document text the request runs; raises the request's coded error. APQ keeps
        what a request teaches it for the requests of the same `partition` only: in this
        process, and in the shared store when there is one (this process's copy answers first,
        so a known hash costs no call)."""
        digest = requested_hash(extensions)
        if self.trusted is not None:
            return self._trusted(query, digest)
        if digest is None:
            return query
        key = (partition, digest)
        if query is None:
            known = self.kept.get(key) or await self._shared(partition, digest)
            if known is None:
                raise PersistedQueryNotFound
            return known
        if sha256_hex(query) != digest:
            raise Malformed(
                "extensions.persistedQuery.sha256Hash", "must be the SHA-256 of `query`"
            )
        if len(query) <= KEPT_DOCUMENT_CHARS:
            self.kept.put(key, query)
            await self._share(partition, digest, query)
        return query

    async def _shared(self, partition: frozenset[str] | None, digest: str) -> str | None:
        """The document another process was taught for this grant, kept here too; None when
        the store has none or does not answer (the client then sends the text)."""
        if self.store is None:
            return None
        try:
            known = await self.store.get_keeping(document_key(partition, digest), DOCUMENT_SECONDS)
        except StoreUnavailable:
            return None
        if known is None or sha256_hex(known) != digest:
            return None  # what the store holds must still be what the hash names
        self.kept.put((partition, digest), known)
        return known

    async def _share(self, partition: frozenset[str] | None, digest: str, query: str) -> None:
        if self.store is not None:
            with contextlib.suppress(StoreUnavailable):  # this process keeps it anyway
                await self.store.put(document_key(partition, digest), query, DOCUMENT_SECONDS)

    def _trusted(self, query: str | None, digest: str | None) -> str | None:
        assert self.trusted is not None
        if query is None:
            if digest is None:
                return None
            known = self.trusted.get(digest)
            if known is None:
                raise PersistedQueryNotFound
            return known
        if sha256_hex(query) not in self.trusted or (
            digest is not None and digest != sha256_hex(query)
        ):
            raise QueryNotInSafelist
        return query


def document_key(partition: frozenset[str] | None, digest: str) -> str:
    """A document's key in the store: its grant (the digest of its sorted workspaces; `*` for
    every workspace) and its hash."""
    grant = "*" if partition is None else sha256_hex("\n".join(sorted(partition)))
    return f"{KEY_PREFIX}apq:{grant}:{digest}"


def _kept_bytes(key: tuple[Hashable, str], query: str) -> int:
    partition, digest = key
    return sys.getsizeof(partition) + sys.getsizeof(digest) + sys.getsizeof(query)
