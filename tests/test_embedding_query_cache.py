"""QueryEmbedder: off the event loop, LRU by exact text, one embedding per concurrent text."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import anyio
import anyio.lowlevel
import anyio.to_thread
import pytest

from contract.errors import BackendUnavailable
from embedding import query_cache
from embedding.base import EmbedderIdentity, EmbedderKind
from embedding.hashing import HashEmbedder
from embedding.query_cache import QueryEmbedder


class RecordingEmbedder:
    """Hash vectors, with a record of each call and its thread, and an optional gate that
    holds every call until the test opens it. Its kind decides where it runs: `openai` (the
    default here) in a worker thread, `hash` on the loop."""

    def __init__(self, kind: EmbedderKind = "openai") -> None:
        self.identity = EmbedderIdentity(kind, "recording", 8)
        self.calls: list[list[str]] = []
        self.threads: list[int] = []
        self.started = threading.Event()
        self.gate: threading.Event | None = None
        self.failures: list[Exception] = []
        self._inner = HashEmbedder(8)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        self.threads.append(threading.get_ident())
        self.started.set()
        if self.gate is not None:
            assert self.gate.wait(timeout=10), "the test never opened the gate"
        if self.failures:
            raise self.failures.pop(0)
        return self._inner.embed(texts)

    def close(self) -> None:
        pass


async def wait_until_started(embedder: RecordingEmbedder) -> None:
    assert await anyio.to_thread.run_sync(embedder.started.wait, 5), "embed was never called"


async def test_embeds_in_a_worker_thread() -> None:
    embedder = RecordingEmbedder()
    vector = await QueryEmbedder(embedder).embed_query("who founded acme")
    assert vector == tuple(HashEmbedder(8).embed(["who founded acme"])[0])
    assert embedder.threads != [threading.get_ident()]


async def test_an_embedder_cheaper_than_a_thread_hop_runs_on_the_loop() -> None:
    embedder = RecordingEmbedder(kind="hash")
    queries = QueryEmbedder(embedder)
    vector = await queries.embed_query("who founded acme")
    assert vector == tuple(HashEmbedder(8).embed(["who founded acme"])[0])
    assert embedder.threads == [threading.get_ident()]
    assert await queries.embed_query("who founded acme") == vector
    assert (queries.stats.hits, queries.stats.misses) == (1, 1)


async def test_loop_keeps_running_while_embedding() -> None:
    embedder = RecordingEmbedder()
    embedder.gate = threading.Event()
    queries = QueryEmbedder(embedder)
    ticks = 0
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(queries.embed_query, "slow")
        await wait_until_started(embedder)
        for _ in range(5):  # the loop is free while the worker is held at the gate
            await anyio.lowlevel.checkpoint()
            ticks += 1
        embedder.gate.set()
    assert ticks == 5


async def test_repeated_text_comes_from_the_cache() -> None:
    embedder = RecordingEmbedder()
    queries = QueryEmbedder(embedder)
    first = await queries.embed_query("acme")
    second = await queries.embed_query("acme")
    assert first == second
    assert embedder.calls == [["acme"]]
    assert (queries.stats.hits, queries.stats.misses) == (1, 1)
    await queries.embed_query("Acme")  # the exact text is the key
    assert len(embedder.calls) == 2


async def test_a_cached_vector_serves_only_its_own_partition() -> None:
    """issue 38 §5: the cache is shared only within one partition (the workspaces a search
    reads), so a hit, which is faster, says nothing of another partition's searches."""
    embedder = RecordingEmbedder()
    queries = QueryEmbedder(embedder)
    alpha = await queries.embed_query("acme merger", partition=("alpha",))
    assert await queries.embed_query("acme merger", partition=("beta",)) == alpha
    assert await queries.embed_query("acme merger", partition=None) == alpha
    assert embedder.calls == [["acme merger"]] * 3  # each partition embedded it itself
    assert await queries.embed_query("acme merger", partition=("beta",)) == alpha
    assert (queries.stats.hits, queries.stats.misses) == (1, 3)


async def test_a_vector_being_computed_serves_only_its_own_partition() -> None:
    embedder = RecordingEmbedder()
    embedder.gate = threading.Event()
    queries = QueryEmbedder(embedder)
    async with anyio.create_task_group() as tasks:
        try:
            tasks.start_soon(queries.embed_query, "acme merger", ("alpha",))
            await wait_until_started(embedder)
            embedder.started.clear()
            # beta's request does not wait for alpha's embedding: it computes its own.
            tasks.start_soon(queries.embed_query, "acme merger", ("beta",))
            await wait_until_started(embedder)
        finally:
            embedder.gate.set()
    assert embedder.calls == [["acme merger"]] * 2
    assert (queries.stats.hits, queries.stats.misses) == (0, 2)


async def test_least_recently_used_is_evicted() -> None:
    embedder = RecordingEmbedder()
    queries = QueryEmbedder(embedder, size=2)
    for text in ["a", "b", "a", "c"]:  # "a" was used after "b": "b" goes
        await queries.embed_query(text)
    assert queries.stats.evictions == 1
    await queries.embed_query("a")
    await queries.embed_query("c")
    assert embedder.calls == [["a"], ["b"], ["c"]]
    await queries.embed_query("b")
    assert embedder.calls[-1] == ["b"]


async def test_size_zero_caches_nothing() -> None:
    embedder = RecordingEmbedder()
    queries = QueryEmbedder(embedder, size=0)
    await queries.embed_query("a")
    await queries.embed_query("a")
    assert len(embedder.calls) == 2


async def test_concurrent_requests_for_one_text_embed_once() -> None:
    embedder = RecordingEmbedder()
    embedder.gate = threading.Event()
    queries = QueryEmbedder(embedder)
    results: list[tuple[float, ...]] = []

    async def ask() -> None:
        results.append(await queries.embed_query("same question"))

    async with anyio.create_task_group() as tasks:
        for _ in range(5):
            tasks.start_soon(ask)
        await wait_until_started(embedder)
        await anyio.sleep(0.01)  # let every request arrive while the first is computing
        embedder.gate.set()
    assert embedder.calls == [["same question"]]
    assert len(results) == 5 and len(set(results)) == 1
    assert (queries.stats.hits, queries.stats.misses) == (4, 1)


async def test_a_failure_reaches_every_waiter_and_is_not_cached() -> None:
    embedder = RecordingEmbedder()
    embedder.gate = threading.Event()
    embedder.failures = [BackendUnavailable("The embedding service cannot be reached")]
    queries = QueryEmbedder(embedder)
    failures: list[Exception] = []

    async def ask() -> None:
        try:
            await queries.embed_query("q")
        except BackendUnavailable as error:
            failures.append(error)

    async with anyio.create_task_group() as tasks:
        for _ in range(3):
            tasks.start_soon(ask)
        await wait_until_started(embedder)
        await anyio.sleep(0.01)
        embedder.gate.set()
    assert len(failures) == 3
    assert len(embedder.calls) == 1
    assert len(await queries.embed_query("q")) == 8  # tried again, and works
    assert len(embedder.calls) == 2


async def test_when_the_computing_request_is_cancelled_a_waiter_takes_over() -> None:
    embedder = RecordingEmbedder()
    embedder.gate = threading.Event()
    queries = QueryEmbedder(embedder, concurrency=1)
    leader_scope = anyio.CancelScope()
    results: list[tuple[float, ...]] = []

    async def leader() -> None:
        with leader_scope:
            await queries.embed_query("q")  # queues for the one worker slot

    async def waiter() -> None:
        results.append(await queries.embed_query("q"))  # waits for the leader

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(queries.embed_query, "occupies the worker")
        await wait_until_started(embedder)
        tasks.start_soon(leader)
        await anyio.sleep(0.01)
        tasks.start_soon(waiter)
        await anyio.sleep(0.01)
        leader_scope.cancel()
        await anyio.sleep(0.01)
        embedder.gate.set()
    assert leader_scope.cancelled_caught
    assert embedder.calls == [["occupies the worker"], ["q"]]  # by the waiter itself
    assert results == [tuple(HashEmbedder(8).embed(["q"])[0])]


async def test_a_waiter_gets_the_vector_even_if_its_leader_was_cancelled_late() -> None:
    embedder = RecordingEmbedder()
    embedder.gate = threading.Event()
    queries = QueryEmbedder(embedder)
    leader_scope = anyio.CancelScope()
    results: list[tuple[float, ...]] = []

    async def leader() -> None:
        with leader_scope:
            await queries.embed_query("q")

    async def waiter() -> None:
        results.append(await queries.embed_query("q"))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(leader)
        await wait_until_started(embedder)  # the worker thread is running: it runs to the end
        tasks.start_soon(waiter)
        await anyio.sleep(0.01)
        leader_scope.cancel()
        embedder.gate.set()
    assert results == [tuple(HashEmbedder(8).embed(["q"])[0])]
    assert len(embedder.calls) <= 2


async def test_a_cancelled_request_does_not_wait_for_the_worker() -> None:
    embedder = RecordingEmbedder()
    embedder.gate = threading.Event()
    queries = QueryEmbedder(embedder)
    started = anyio.current_time()
    with anyio.move_on_after(0.05) as deadline:
        await queries.embed_query("stuck")
    assert deadline.cancelled_caught
    assert anyio.current_time() - started < 1  # the worker is still held at the gate
    embedder.gate.set()
    assert len(await queries.embed_query("stuck")) == 8  # not cached: computed again


async def test_embed_many_runs_in_chunks_and_skips_the_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(query_cache, "LOAD_CHUNK", 2)
    embedder = RecordingEmbedder()
    queries = QueryEmbedder(embedder)
    texts = ["a", "b", "c", "d", "e"]
    assert await queries.embed_many(texts) == HashEmbedder(8).embed(texts)
    assert embedder.calls == [["a", "b"], ["c", "d"], ["e"]]
    assert threading.get_ident() not in embedder.threads
    await queries.embed_query("a")
    assert len(embedder.calls) == 4
    assert await queries.embed_many([]) == []


def test_identity_is_the_embedders() -> None:
    embedder = RecordingEmbedder()
    assert QueryEmbedder(embedder).identity is embedder.identity
    with pytest.raises(ValueError):
        QueryEmbedder(embedder, size=-1)
