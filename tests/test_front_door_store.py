"""The front door's shared store (FRONT_DOOR_STORE, api/front_door/store.py; contract §7) against
a real Redis 7 (tests/support/redis_server.py): a caller's budget, its refusal turns and the
persisted queries are one for every process using the store; each update is one atomic call,
whose rule is the in-process one's to the last point; and when the store is stopped or hangs,
the front door answers from the process's own memory within the store's time limit, then uses
the store again once it answers, without a restart.

Each "process" here is a front door of its own with a client of its own (its own connections),
as two replicas are; tests/test_scale_out_replicas.py runs real processes behind nginx.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager

import pytest
import redis
from hypothesis import given
from hypothesis import strategies as st

from api.front_door import admission as admission_module
from api.front_door import store as store_module
from api.front_door.admission import TURN, Admission
from api.front_door.door import FrontDoor
from api.front_door.persisted_queries import PersistedQueries, sha256_hex
from api.front_door.rate_limit import CHARGE, CallerBudgets, RateLimits, bucket_key
from api.front_door.store import RETRY_SECONDS, FrontDoorStore
from api.settings import Settings, SettingsError
from contract.errors import PersistedQueryNotFound, RateLimited
from contract.scope import Grant
from tests.support.manual_clock import ManualClock
from tests.support.redis_server import LocalRedis

TIMEOUT = 0.2  # the store's time limit in these tests
# Far past any store's time limit: a call not stopped by its own limit fails the test here
# rather than hanging it.
NEVER = 30.0
CALLER = "key:0a1b2c3d4e5f6a7b"
QUERY = "query Labels { entityLabels { label } }"


class StoreEvents:
    """The store's observer (`/metrics` in the service): what it reported."""

    def __init__(self) -> None:
        self.up: list[bool] = []
        self.local: list[str] = []

    def reachable(self, up: bool) -> None:
        self.up.append(up)

    def answered_locally(self, reason: str) -> None:
        self.local.append(reason)


@asynccontextmanager
async def store_of(
    server: LocalRedis, clock: Callable[[], float] | None = None, time_limit: float = TIMEOUT
) -> AsyncIterator[tuple[FrontDoorStore, StoreEvents]]:
    """One process's client of `server`, closed after the block."""
    events = StoreEvents()
    store = FrontDoorStore.from_url(server.url, time_limit, events)
    if clock is not None:
        store.clock = clock
    try:
        yield store, events
    finally:
        await store.close()


def persisted_request(text: str | None, digest: str) -> tuple[str | None, dict[str, object]]:
    return text, {"persistedQuery": {"version": 1, "sha256Hash": digest}}


async def spend(charge: Callable[[], Awaitable[int]], most: int) -> int:
    """How many charges are taken before the first refusal (at most `most`)."""
    for taken in range(most):
        try:
            await charge()
        except RateLimited:
            return taken
    return most


# One rule, written twice: the scripts decide as the in-process code does ----------------------

EPOCH = 1_796_000_000.0  # the scale of the server's own clock, where rounding would show


@pytest.fixture(scope="module")
def sync_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[redis.Redis]:
    """One Redis for every example of the two rules below, each under a key of its own."""
    server = LocalRedis(tmp_path_factory.mktemp("redis-rules"))
    server.start()
    client = redis.Redis.from_url(server.url)
    try:
        yield client
    finally:
        client.close()
        server.stop()


def kept(client: redis.Redis, key: str) -> None:
    """The examples run on a clock of their own, minutes in a millisecond; the server expires
    keys on its own clock, so each is kept (its expiry is `test_…_expires_…` below)."""
    client.persist(key)


@given(
    per_minute=st.integers(1, 1_000_000),
    steps=st.lists(
        st.tuples(st.floats(0, 120, allow_nan=False), st.integers(0, 2_000_000)), max_size=25
    ),
)
def test_the_stores_bucket_takes_and_refuses_as_the_processs_bucket_does(
    sync_redis: redis.Redis, per_minute: int, steps: list[tuple[float, int]]
) -> None:
    charge = sync_redis.register_script(CHARGE)
    now = EPOCH
    local = RateLimits(per_minute, clock=lambda: now)
    key = f"rule-test:{per_minute}:{len(steps)}"
    sync_redis.delete(key)
    for advance, cost in steps:
        now += advance
        try:
            expected: tuple[int, int] | None = (1, local.charge(CALLER, cost))
        except RateLimited as refused:
            expected = (0, refused.retry_after)
        taken, points = charge(keys=[key], args=[per_minute, cost, repr(now)])
        kept(sync_redis, key)
        if taken:
            assert expected == (1, int(float(points)))
        else:
            assert expected == (0, local.refusal(cost, float(points)).retry_after)


@given(
    pause=st.sampled_from([0.0, 0.05, 0.25]),
    steps=st.lists(st.floats(0, 12, allow_nan=False), max_size=25),
)
def test_the_stores_refusal_turns_are_the_processs_turns(
    sync_redis: redis.Redis, pause: float, steps: list[float]
) -> None:
    turn = sync_redis.register_script(TURN)
    now = EPOCH
    admission = Admission(1, 0, 5.0, refusal_pause=pause, clock=lambda: now)
    key = f"turn-test:{pause}:{len(steps)}"
    sync_redis.delete(key)
    limits = [
        admission_module.MAX_CALLER_INTERVAL_SECONDS,
        admission_module.MAX_CALLER_WAIT_SECONDS,
        admission_module.RETRY_AFTER_SECONDS,
    ]
    for advance in steps:
        now += advance
        expected = admission._callers_turn(CALLER)
        shared = float(turn(keys=[key], args=[pause, *limits, repr(now)]))
        kept(sync_redis, key)
        assert shared == pytest.approx(expected, abs=1e-6)


def test_a_bucket_expires_when_it_would_be_full_again_and_a_turn_when_its_caller_starts_afresh(
    sync_redis: redis.Redis,
) -> None:
    """What the store keeps is forgotten as the process forgets it: a bucket once it would be
    full (it then answers as a full one), a turn once its caller would start afresh."""
    charge, turn = sync_redis.register_script(CHARGE), sync_redis.register_script(TURN)
    charge(keys=["expiry:bucket"], args=[600, 300])  # 300 points back at 10 a second: 30 s
    turn(keys=["expiry:turn"], args=[0.25, 4.0, 10.0, 1.0])  # its turn now, then 0.25 + 1 s
    assert 29_000 < sync_redis.pttl("expiry:bucket") <= 30_001
    assert 1_000 < sync_redis.pttl("expiry:turn") <= 1_250


# Shared by every process ---------------------------------------------------------------------


async def test_three_processes_charging_one_caller_at_once_spend_its_budget_once(
    local_redis: LocalRedis,
) -> None:
    """150 charges of 1 point at one instant (the server's clock held still), from three
    clients at once, against a budget of 60: exactly 60 are taken."""
    # A burst of new connections on a busy machine: the time limit is not what this shows.
    async with (
        store_of(local_redis, time_limit=NEVER) as (a, _),
        store_of(local_redis, time_limit=NEVER) as (b, _),
        store_of(local_redis, time_limit=NEVER) as (c, _),
    ):
        charges = [store.script(CHARGE) for store in (a, b, c)]
        answers = await asyncio.gather(
            *(
                charge([bucket_key(CALLER)], [60, 1, repr(EPOCH)])
                for _ in range(50)
                for charge in charges
            )
        )
    assert sum(int(taken) for taken, _ in answers) == 60


async def test_a_callers_budget_is_spent_once_across_processes(local_redis: LocalRedis) -> None:
    """Ten requests' worth of points a minute, charged alternately through two processes: the
    eleventh is refused, where two processes of their own took twenty."""
    per_minute, cost = 600, 60  # a request's points come back in 6 s: none during the test
    async with store_of(local_redis) as (a, _), store_of(local_redis) as (b, _):
        shared = [CallerBudgets(RateLimits(per_minute), store) for store in (a, b)]
        turn = iter(range(100))
        taken = await spend(lambda: shared[next(turn) % 2].charge(CALLER, cost), 30)
    apart = [CallerBudgets(RateLimits(per_minute)) for _ in range(2)]
    turn = iter(range(100))
    taken_apart = await spend(lambda: apart[next(turn) % 2].charge(CALLER, cost), 30)
    assert (taken, taken_apart) == (10, 20)


async def test_a_persisted_query_taught_to_one_process_is_a_hit_in_another_of_the_same_grant(
    local_redis: LocalRedis,
) -> None:
    acme, other = frozenset({"acme"}), frozenset({"globex"})
    digest = sha256_hex(QUERY)
    async with store_of(local_redis) as (a, _), store_of(local_redis) as (b, _):
        taught, asked = PersistedQueries(store=a), PersistedQueries(store=b)
        assert await taught.resolve(*persisted_request(QUERY, digest), acme) == QUERY
        assert await asked.resolve(*persisted_request(None, digest), acme) == QUERY
        with pytest.raises(PersistedQueryNotFound):
            await asked.resolve(*persisted_request(None, digest), other)
    with pytest.raises(PersistedQueryNotFound):  # without the store: each process its own
        await PersistedQueries().resolve(*persisted_request(None, digest), acme)


async def test_a_callers_refusal_turns_are_taken_across_processes(
    local_redis: LocalRedis,
) -> None:
    """A caller refused by one process, then at once by another: the second refusal waits for
    the caller's next turn (a quarter of a second), as it would in one process."""
    paused: list[float] = []

    async def pause(seconds: float) -> None:
        paused.append(seconds)

    async with store_of(local_redis) as (a, _), store_of(local_redis) as (b, _):
        first, second = (Admission(1, 0, 5.0, sleep=pause, store=store) for store in (a, b))
        await first.pace_refusal(("10.0.0.1", 1), caller=CALLER)
        await second.pace_refusal(("10.0.0.2", 2), caller=CALLER)
    apart = Admission(1, 0, 5.0, sleep=pause)
    await apart.pace_refusal(("10.0.0.3", 3), caller=CALLER)
    # The second waited for the turn the first set (less the moment between them); a process
    # of its own answers its first refusal of the caller at once.
    assert len(paused) == 1
    assert 0 < paused[0] <= admission_module.REFUSAL_PAUSE_SECONDS


# When the store cannot be reached -------------------------------------------------------------


async def test_a_stopped_store_is_answered_from_the_processs_own_bucket_with_one_warning(
    local_redis: LocalRedis, caplog: pytest.LogCaptureFixture
) -> None:
    clock = ManualClock()
    async with store_of(local_redis, clock) as (store, events):
        budgets = CallerBudgets(RateLimits(600), store)
        local_redis.stop()
        with caplog.at_level(logging.WARNING, logger=store_module.__name__):
            async with asyncio.timeout(NEVER):
                left = [await budgets.charge(CALLER, 60) for _ in range(3)]
    assert left == [540, 480, 420]  # this process's bucket
    assert CALLER in budgets.local.buckets
    assert events.up == [True, False]
    assert events.local == ["error", "resting", "resting"]  # asked once, then let rest
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert "cannot be reached" in warnings[0].getMessage()


async def test_a_store_that_does_not_answer_is_waited_for_its_time_limit_only(
    local_redis: LocalRedis,
) -> None:
    async with store_of(local_redis) as (store, events):
        budgets = CallerBudgets(RateLimits(600), store)
        await budgets.charge(CALLER, 60)  # connected, and the store's bucket is charged
        with local_redis.frozen():
            async with asyncio.timeout(NEVER):
                left = await budgets.charge(CALLER, 60)
    assert events.local == ["timeout"]
    assert left == 540  # from this process's bucket, which had not been charged


async def test_the_store_is_used_again_once_it_answers_without_a_restart(
    local_redis: LocalRedis, caplog: pytest.LogCaptureFixture
) -> None:
    clock = ManualClock()
    async with store_of(local_redis, clock) as (store, events):
        budgets = CallerBudgets(RateLimits(600), store)
        local_redis.stop()
        await budgets.charge(CALLER, 60)  # from this process
        local_redis.start()  # on the same port, empty
        assert await budgets.charge(CALLER, 60) == 480  # resting: still this process's
        clock.advance(RETRY_SECONDS)
        with caplog.at_level(logging.INFO, logger=store_module.__name__):
            assert await budgets.charge(CALLER, 60) == 540  # the store's bucket, fresh
        assert await budgets.available(CALLER) == 540
    assert events.up == [True, False, True]
    assert any("answers again" in r.getMessage() for r in caplog.records)
    assert local_redis.answers()


async def test_while_the_store_is_stopped_a_known_query_answers_and_an_unknown_hash_is_not_found(
    local_redis: LocalRedis,
) -> None:
    digest = sha256_hex(QUERY)
    async with store_of(local_redis) as (store, _):
        persisted = PersistedQueries(store=store)
        local_redis.stop()
        async with asyncio.timeout(NEVER):
            assert await persisted.resolve(*persisted_request(QUERY, digest)) == QUERY
            assert await persisted.resolve(*persisted_request(None, digest)) == QUERY
            with pytest.raises(PersistedQueryNotFound):
                await PersistedQueries(store=store).resolve(*persisted_request(None, digest))


async def test_a_tool_call_through_the_front_door_is_answered_while_the_store_is_stopped(
    local_redis: LocalRedis,
) -> None:
    settings = Settings.from_environ(
        {
            "FRONT_DOOR_STORE": local_redis.url,
            "FRONT_DOOR_STORE_TIMEOUT_SECONDS": str(TIMEOUT),
            "GRAPHQL_RATE_LIMIT_PER_MINUTE": "60000",
        }
    )
    door = FrontDoor.from_settings(settings)
    grant = Grant.of(["acme"], subject=CALLER)

    async def answer() -> str:
        return "answered"

    async with door.serving():
        assert await door.answer_tool(("10.0.0.1", 1), grant, 100, answer) == "answered"
        assert door.rate_limits is not None and not door.rate_limits.buckets  # in the store
        local_redis.stop()
        async with asyncio.timeout(NEVER):
            assert await door.answer_tool(("10.0.0.1", 1), grant, 100, answer) == "answered"
        assert CALLER in door.rate_limits.buckets  # failed open, to this process


# Settings -------------------------------------------------------------------------------------


def test_a_store_that_is_not_a_redis_url_stops_start_up_without_quoting_it() -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_environ({"FRONT_DOOR_STORE": "http://user:s3cret@127.0.0.1:6379"})
    assert "FRONT_DOOR_STORE" in str(refused.value) and "redis://" in str(refused.value)
    assert "s3cret" not in str(refused.value)


def test_the_stores_time_limit_must_be_below_the_requests() -> None:
    settings = Settings.from_environ(
        {
            "FRONT_DOOR_STORE": "redis://127.0.0.1:6379/0",
            "FRONT_DOOR_STORE_TIMEOUT_SECONDS": "2",
            "REQUEST_TIMEOUT_SECONDS": "2",
        }
    )
    with pytest.raises(SettingsError, match="FRONT_DOOR_STORE_TIMEOUT_SECONDS=2 is not below"):
        FrontDoor.from_settings(settings)


def test_the_stores_password_stays_out_of_the_settings_repr_and_log() -> None:
    settings = Settings.from_environ({"FRONT_DOOR_STORE": "redis://:s3cret@10.0.0.5:6379/0"})
    assert "s3cret" not in repr(settings)
    assert "s3cret" not in str(settings.public_summary())
