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
literal).

Trusted documents (GRAPHQL_TRUSTED_DOCUMENTS=<manifest>[,<manifest>…]): only the manifests'
documents run, sent by hash or by their exact text; anything else is QUERY_NOT_IN_SAFELIST (an
unknown hash alone: PERSISTED_QUERY_NOT_FOUND), and nothing is learned from requests. The manifests
are read by api/front_door/trusted_documents.py. A request whose document is resolved here then runs
the one parse, validation and pricing that api/graphql_document.py and api/front_door/query_cost.py
keep per document text: a known hash skips all three.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Hashable, Mapping

from api.front_door.bounded_memory import BoundedCache
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
    def __init__(self, trusted: Mapping[str, str] | None = None) -> None:
        self.trusted = dict(trusted) if trusted is not None else None
        self.kept: BoundedCache[tuple[Hashable, str], str] = BoundedCache(
            KEPT_DOCUMENTS, KEPT_BYTES, _kept_bytes
        )

    def resolve(
        self,
        query: str | None,
        extensions: Mapping[str, object] | None,
        partition: Hashable = None,
    ) -> str | None:
        """The document text the request runs; raises the request's coded error. APQ keeps
        what a request teaches it for the requests of the same `partition` only."""
        digest = requested_hash(extensions)
        if self.trusted is not None:
            return self._trusted(query, digest)
        if digest is None:
            return query
        key = (partition, digest)
        if query is None:
            known = self.kept.get(key)
            if known is None:
                raise PersistedQueryNotFound
            return known
        if sha256_hex(query) != digest:
            raise Malformed(
                "extensions.persistedQuery.sha256Hash", "must be the SHA-256 of `query`"
            )
        if len(query) <= KEPT_DOCUMENT_CHARS:
            self.kept.put(key, query)
        return query

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


def _kept_bytes(key: tuple[Hashable, str], query: str) -> int:
    partition, digest = key
    return sys.getsizeof(partition) + sys.getsizeof(digest) + sys.getsizeof(query)
