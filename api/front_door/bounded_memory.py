"""What the front door remembers is bounded in bytes (contract §7: "What the front door remembers
per caller or per request is bounded in bytes"; issue 38 §2), by two rules:

- `BoundedCache`: a least-recently-used memory bounded by its number of entries AND by the bytes
  they hold, as `size_of` counts them. A count alone is no bound: the cost cache once kept 1,024
  keys of whatever size a client sent, and 300 requests with a 1 MB variable name each grew the
  process by 288 MB. An entry larger than the whole budget is not kept at all.
- `bounded_key`: an identity a memory is keyed by (a caller's subject, a connection's address)
  is kept as itself while it is short, else as its SHA-256: a JWT's `sub` or a forwarded address
  can be as long as a header, and a map of 10,000 such keys must not hold 10,000 headers.

docs/security.md ("What the service remembers") lists every such memory and its bound.

    >>> cache = BoundedCache(entries=10, most_bytes=8, size_of=lambda key, value: len(key))
    >>> cache.put("abcd", 1); cache.put("efgh", 2); cache.put("ijkl", 3)
    >>> cache.get("abcd"), cache.get("efgh"), cache.get("ijkl"), cache.bytes
    (None, 2, 3, 8)
    >>> bounded_key("key:0a1b"), bounded_key("sub:" + "x" * 500)[:15]
    ('key:0a1b', 'sha256:8acb136b')
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

# The longest identity kept as itself: an API key's subject (`key:` and 16 hex digits), a UUID
# `sub`, an IPv6 address and port all fit; a digest (71 characters) stands for anything longer.
MAX_KEY_CHARS = 100

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def bounded_key(identity: str) -> str:
    """`identity` itself when it has at most `MAX_KEY_CHARS` characters, else its digest."""
    if len(identity) <= MAX_KEY_CHARS:
        return identity
    return "sha256:" + hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()


class BoundedCache(Generic[K, V]):
    """At most `entries` entries holding at most `most_bytes` bytes together (by `size_of`),
    the least recently used forgotten first."""

    def __init__(self, entries: int, most_bytes: int, size_of: Callable[[K, V], int]) -> None:
        self.entries = entries
        self.most_bytes = most_bytes
        self.size_of = size_of
        self.kept: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.kept)

    def get(self, key: K) -> V | None:
        found = self.kept.get(key)
        if found is None:
            return None
        self.kept.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V) -> None:
        size = self.size_of(key, value)
        if size > self.most_bytes:
            return  # it would push out everything else and still not fit
        previous = self.kept.pop(key, None)
        if previous is not None:
            self.bytes -= previous[1]
        self.kept[key] = (value, size)
        self.bytes += size
        while len(self.kept) > self.entries or self.bytes > self.most_bytes:
            _, (_, forgotten) = self.kept.popitem(last=False)
            self.bytes -= forgotten
