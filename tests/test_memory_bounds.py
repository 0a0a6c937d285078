"""What the front door remembers per caller or per request is bounded in bytes (contract §7, issue
38 §2; api/front_door/bounded_memory.py): the cost cache keys what a price reads (the document and
its declared variables), and it, the persisted-query store, the admission's and the rate limits'
maps are each bounded in entries and in bytes. tests/test_hostile_bodies_memory.py shows a served
process within its bound under a gigabyte of hostile bodies."""

from __future__ import annotations

import hashlib

import pytest
from graphql import parse
from hypothesis import given
from hypothesis import strategies as st

from api.front_door import rate_limit
from api.front_door.admission import Admission
from api.front_door.bounded_memory import MAX_KEY_CHARS, BoundedCache
from api.front_door.door import COST_CACHE_BYTES, FrontDoor
from api.front_door.persisted_queries import KEPT_BYTES, PersistedQueries
from api.front_door.query_cost import operation_cost
from api.front_door.rate_limit import RateLimits, caller_of
from api.schema import create_schema
from contract.scope import Grant
from tests.support.manual_clock import ManualClock

SCHEMA = create_schema([])._schema
SEARCH = "query ($q: String!, $n: Int) { searchEntities(query: $q, limit: $n) { score } }"


def front_door() -> FrontDoor:
    return FrontDoor(Admission(slots=1, queue=0, wait_seconds=1.0), max_cost=50_000)


def priced(door: FrontDoor, query: str, variables: dict[str, object]) -> int:
    return door.cost_of(SCHEMA, parse(query), query, None, variables)


# The cost cache ---------------------------------------------------------------------------------


def test_the_cost_cache_keeps_one_price_per_document_whatever_undeclared_variables_come() -> None:
    """The issue's case: each request carries an undeclared variable with a large name."""
    door = front_door()
    for n in range(50):
        priced(door, "{ grantedWorkspaces }", {f"v{n}" + "x" * 100_000: 1})
    assert len(door.costs) == 1
    assert door.costs.bytes < 1_000  # the document's text, not the names


def test_the_cost_cache_keys_what_a_price_reads_of_the_declared_variables() -> None:
    door = front_door()
    for words in ("ada", "babbage", "x" * 10_000):  # words never change a price
        priced(door, SEARCH, {"q": words, "n": 5})
    assert len(door.costs) == 1
    priced(door, SEARCH, {"q": "ada", "n": 6})  # a limit does
    assert len(door.costs) == 2
    beyond = [priced(door, SEARCH, {"q": "ada", "n": n}) for n in (2**40, 2**62, 2**63 - 1)]
    assert len(door.costs) == 3  # past every range, integers price alike: kept once
    assert beyond == [operation_cost(SCHEMA, parse(SEARCH), None, {"q": "", "n": 2**62})] * 3


def test_the_cost_cache_is_bounded_in_bytes() -> None:
    """700 documents near the cacheable size (8,192 characters): 5.7 MB of keys, fewer than
    the 1,024 entries a count alone would keep."""
    door = front_door()
    for n in range(700):
        priced(door, f"query Q{n} {{ grantedWorkspaces }} # " + "x" * 8000, {})
        assert door.costs.bytes <= COST_CACHE_BYTES
    assert len(door.costs) < 700


@given(
    sizes=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 50)), max_size=60),
    entries=st.integers(1, 10),
    most_bytes=st.integers(1, 200),
)
def test_a_bounded_cache_never_holds_more_than_its_entries_and_bytes(
    sizes: list[tuple[int, int]], entries: int, most_bytes: int
) -> None:
    cache: BoundedCache[int, int] = BoundedCache(entries, most_bytes, lambda key, size: size)
    for key, size in sizes:
        cache.put(key, size)
        assert len(cache) <= entries and cache.bytes <= most_bytes
        assert cache.bytes == sum(size for size, _ in cache.kept.values())
        if size <= most_bytes:  # the newest entry stays, others going first
            assert cache.get(key) == size


# The other memories -----------------------------------------------------------------------------


async def test_the_persisted_queries_kept_are_bounded_in_bytes() -> None:
    """1,000 documents of 16,384 characters outside ASCII: 64 MB before this bound."""
    persisted = PersistedQueries()
    for n in range(1000):
        text = f"query Q{n} {{ grantedWorkspaces }} #" + "😀" * 16_000
        digest = hashlib.sha256(text.encode()).hexdigest()
        await persisted.resolve(text, {"persistedQuery": {"version": 1, "sha256Hash": digest}})
        assert persisted.kept.bytes <= KEPT_BYTES
    assert len(persisted.kept) < 1000


def test_a_callers_identity_is_kept_bounded_however_long_its_subject() -> None:
    long_subject = Grant.of(["acme"], subject="sub:" + "x" * 1_000_000)
    assert len(caller_of(long_subject)) <= MAX_KEY_CHARS
    assert caller_of(long_subject) == caller_of(Grant.of([], subject=long_subject.subject))
    assert caller_of(Grant.of([], subject="key:0a1b2c3d4e5f6a7b")) == "key:0a1b2c3d4e5f6a7b"


def test_the_rate_limits_remember_a_bounded_number_of_callers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rate_limit, "REMEMBERED_CALLERS", 5)
    limits = RateLimits(per_minute=600, clock=lambda: 0.0)
    for n in range(20):
        limits.charge(f"key:{n}", 1)
        assert len(limits.buckets) <= 5
    assert list(limits.buckets) == [f"key:{n}" for n in range(15, 20)]  # the latest kept


async def test_the_admission_remembers_a_long_client_by_its_digest() -> None:
    pauses: list[float] = []

    async def pause(seconds: float) -> None:
        pauses.append(seconds)

    clock = ManualClock()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=pause, clock=clock)
    forwarded = ("x" * 1_000_000, 443)  # an address taken from a forwarded header
    long_caller = caller_of(Grant.of([], subject="s" * 1_000_000))
    await admission.pace_refusal(forwarded, caller=long_caller)
    assert all(len(repr(key)) <= MAX_KEY_CHARS for key in admission.refused_at)
    assert all(len(repr(key)) <= MAX_KEY_CHARS for key in admission.callers_turn)
    assert pauses == []
    clock.advance(0.5)  # back within Retry-After: known again, by the digest
    await admission.pace_refusal(forwarded)
    assert pauses == [admission.refusal_pause]
