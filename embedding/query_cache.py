"""Embedding from async code: off the event loop, with a cache of query vectors.

An embedder's `embed` is CPU bound (MiniLM: milliseconds per query, most of a core) or waits
on the network (`openai`). Called on the event loop it would stall every other request, so
`QueryEmbedder` runs it in a worker thread, unless it is cheaper than the hop there (`hash`).
Searches repeat: query vectors are kept in an LRU keyed by the exact text, and concurrent
requests for the same uncached text share one embedding instead of computing it once each. A
cancelled query returns at once: a request deadline holds even while an endpoint is being
retried.

The cache is partitioned (issue 38 §5): a cached or in-flight vector serves only requests of the
same `partition`, which the searches make the set of workspaces they read
(answers/entity_search.py `embed_query`). A hit skips the embedding (MiniLM: milliseconds), so
a shared cache would let a caller time whether anyone had recently searched an exact string;
partitioned, it tells a caller only about searches over exactly the workspaces it reads too.
docs/security.md gives the hit rates with and without the partition.

>>> from embedding.hashing import HashEmbedder
>>> queries = QueryEmbedder(HashEmbedder(dimension=8))
>>> vector = anyio.run(queries.embed_query, "who founded acme")
>>> len(vector)
8
"""

from __future__ import annotations

import contextlib
import logging
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field

import anyio
import anyio.to_thread

from contract.errors import BackendUnavailable
from embedding.base import Embedder, EmbedderConfigError, EmbedderIdentity, EmbedderRequestError

log = logging.getLogger(__name__)

DEFAULT_SIZE = 1024
# Texts handed to one worker-thread call by `embed_many`: a cancelled load stops within one
# chunk (MiniLM: a few seconds of passages) instead of after the whole list.
LOAD_CHUNK = 256
# Embeddings running at once. MiniLM runs a query on one core, so two use both, and a call of
# many texts already runs its batches side by side (EMBEDDER_THREADS); more threads would only
# take turns on the cores. An endpoint would take more, but queries rarely queue.
DEFAULT_CONCURRENCY = 2
# Embedders cheaper than the hop to a worker thread and back (hash: about 0.1 ms a query,
# the hop 0.7 ms p50 and more under load): their queries are embedded on the event loop.
INLINE_KINDS = frozenset({"hash"})


@dataclass
class _InFlight:
    """One embedding being computed; the requests that arrive meanwhile wait on `done`."""

    done: anyio.Event = field(default_factory=anyio.Event)
    vector: tuple[float, ...] | None = None
    error: Exception | None = None


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0  # embeddings computed (a coalesced request counts as a hit)
    evictions: int = 0
    # Told of each look-up, True for a hit (api/metrics.py counts them for /metrics).
    listeners: list[Callable[[bool], None]] = field(default_factory=list)

    def hit(self) -> None:
        self.hits += 1
        for listener in self.listeners:
            listener(True)

    def miss(self) -> None:
        self.misses += 1
        for listener in self.listeners:
            listener(False)


class QueryEmbedder:
    """An embedder for async callers, caching query vectors.

    Use it from one event loop; its bookkeeping needs no lock because only that loop's
    thread touches it (worker threads only run `embed`).
    """

    def __init__(
        self,
        embedder: Embedder,
        size: int = DEFAULT_SIZE,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        if size < 0:
            raise ValueError("size must be 0 (no cache) or more")
        self.embedder = embedder
        self.size = size
        self.stats = CacheStats()
        # Keyed by (partition, text): see the module docstring.
        self._cache: OrderedDict[tuple[Hashable, str], tuple[float, ...]] = OrderedDict()
        self._in_flight: dict[tuple[Hashable, str], _InFlight] = {}
        self._limiter = anyio.CapacityLimiter(concurrency)
        self.inline = embedder.identity.kind in INLINE_KINDS

    @property
    def identity(self) -> EmbedderIdentity:
        return self.embedder.identity

    async def embed_query(self, text: str, partition: Hashable = None) -> tuple[float, ...]:
        """The vector of one query text, from the cache when it was asked before in the same
        `partition` (or is being computed for it)."""
        key = (partition, text)
        while True:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                self.stats.hit()
                return cached
            pending = self._in_flight.get(key)
            if pending is None:
                return await self._compute(key)
            await pending.done.wait()
            if pending.vector is not None:
                self.stats.hit()
                return pending.vector
            if pending.error is not None:
                raise pending.error
            # The request computing it was cancelled: look again, and compute it if need be.

    async def embed_many(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for many texts (passages, entity names while loading), not cached:
        they would only push the queries out."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), LOAD_CHUNK):
            chunk = list(texts[start : start + LOAD_CHUNK])
            vectors.extend(
                await anyio.to_thread.run_sync(self.embedder.embed, chunk, limiter=self._limiter)
            )
        return vectors

    async def _compute(self, key: tuple[Hashable, str]) -> tuple[float, ...]:
        with _faults_of_the_embedder():
            return await self._compute_once(key)

    async def _compute_once(self, key: tuple[Hashable, str]) -> tuple[float, ...]:
        self.stats.miss()
        _, text = key
        if self.inline:  # nothing awaits, so no other request can be waiting for it
            [vector] = self.embedder.embed([text])
            return self._remember(key, tuple(vector))
        pending = self._in_flight[key] = _InFlight()
        try:
            # A cancelled request (client gone, deadline passed) returns at once instead of
            # waiting for the worker, which may be sitting in an endpoint's retries; the
            # worker finishes on its own and its vector is dropped.
            [vector] = await anyio.to_thread.run_sync(
                self.embedder.embed, [text], abandon_on_cancel=True, limiter=self._limiter
            )
            pending.vector = tuple(vector)
        except Exception as error:
            pending.error = error  # waiters fail the same way; the failure is not cached
            raise
        finally:
            # Also on cancellation, which leaves vector and error unset: waiters then retry.
            del self._in_flight[key]
            pending.done.set()
        return self._remember(key, pending.vector)

    def _remember(self, key: tuple[Hashable, str], vector: tuple[float, ...]) -> tuple[float, ...]:
        if self.size > 0:
            self._cache[key] = vector
            if len(self._cache) > self.size:
                self._cache.popitem(last=False)
                self.stats.evictions += 1
        return vector

    def close(self) -> None:
        self.embedder.close()


@contextlib.contextmanager
def _faults_of_the_embedder() -> Iterator[None]:
    """contract §7: an embedder that refuses the key, answers garbage or vectors of another size
    fails a query as BACKEND_UNAVAILABLE (the detail, which names settings, goes to the log);
    the failure is not cached, so the next query asks the embedder again and recovers with it.
    Loads (`embed_many`) keep the detailed errors: an operator reads those."""
    try:
        yield
    except (EmbedderConfigError, EmbedderRequestError) as error:
        log.error("the embedder failed a query: %s", error)
        raise BackendUnavailable(
            "The embedding service gave no usable answer; try again later."
        ) from error
