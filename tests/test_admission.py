"""Admission control's refusals are paced (api/front_door/admission.py): a client that finds the
queue full is refused at once, and one that comes back before its `Retry-After` (or is not known) is
refused after a short pause, holding nothing, so clients that send again at once cannot keep the
process busy refusing them; and the default queue is half the slots (api/front_door/door.py). Pure
unit tests: the pause is recorded, not waited for, and the clock is the test's."""

from __future__ import annotations

import asyncio

import pytest

from api.front_door import admission as admission_module
from api.front_door import door as front_door
from api.front_door.admission import (
    MAX_CALLER_INTERVAL_SECONDS,
    MAX_CALLER_WAIT_SECONDS,
    REFUSAL_PAUSE_SECONDS,
    RETRY_AFTER_SECONDS,
    Admission,
)
from api.front_door.door import FrontDoor
from contract.errors import Overloaded
from tests.conftest import settings_for_tests


class Pauses:
    """A `sleep` that records each pause and lets the loop run once, as a real sleep would."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)
        await asyncio.sleep(0)


async def test_an_unknown_client_that_finds_the_queue_full_is_refused_after_a_pause() -> None:
    pauses = Pauses()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=pauses)
    async with admission.slot():
        with pytest.raises(Overloaded):
            async with admission.slot():
                pass
        assert pauses.seconds == [REFUSAL_PAUSE_SECONDS]
        assert (admission.executing, admission.waiting) == (1, 0)  # the pause held nothing
    assert (admission.executing, admission.waiting) == (0, 0)


async def test_a_request_with_a_free_slot_or_a_place_in_the_queue_is_never_paused() -> None:
    pauses = Pauses()
    admission = Admission(slots=1, queue=1, wait_seconds=5.0, sleep=pauses)

    async def one_operation() -> None:
        async with admission.slot():
            pass

    async with admission.slot():
        queued = asyncio.create_task(one_operation())
        await asyncio.sleep(0)
        assert admission.waiting == 1
    await queued
    assert pauses.seconds == []
    assert (admission.executing, admission.waiting) == (0, 0)


@pytest.mark.parametrize("wait_seconds", [0.0, 0.1])
async def test_the_pause_is_never_longer_than_the_wait_limit(wait_seconds: float) -> None:
    pauses = Pauses()
    admission = Admission(slots=1, queue=0, wait_seconds=wait_seconds, sleep=pauses)
    async with admission.slot():
        with pytest.raises(Overloaded):
            async with admission.slot():
                pass
    assert pauses.seconds == ([] if wait_seconds == 0 else [wait_seconds])


def admission_from(**settings: str) -> Admission:
    """The admission a front door builds from the test settings plus `settings`."""
    return FrontDoor.from_settings(settings_for_tests("bolt://127.0.0.1:1", **settings)).admission


@pytest.mark.parametrize(("slots", "queue"), [(1, 1), (2, 1), (8, 4), (9, 4), (64, 32)])
def test_by_default_the_queue_holds_half_as_many_operations_as_the_slots(
    slots: int, queue: int
) -> None:
    admission = admission_from(GRAPHQL_MAX_CONCURRENT_OPERATIONS=str(slots))
    assert (admission.slots, admission.queue) == (slots, queue)


def test_a_queue_length_that_is_set_is_kept_even_zero() -> None:
    assert admission_from(GRAPHQL_QUEUE_LENGTH="0").queue == 0


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def refused(admission: Admission, client: object) -> None:
    with pytest.raises(Overloaded):
        async with admission.slot(client=client):
            pass


async def test_a_client_refused_for_the_first_time_is_refused_at_once() -> None:
    pauses = Pauses()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=pauses, clock=Clock())
    async with admission.slot(client=("127.0.0.1", 50001)):
        await refused(admission, ("127.0.0.1", 50002))
        await refused(admission, ("127.0.0.1", 50003))  # another client: at once too
    assert pauses.seconds == []


async def test_a_client_back_before_its_retry_after_is_refused_after_the_pause() -> None:
    pauses, clock = Pauses(), Clock()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=pauses, clock=clock)
    client = ("127.0.0.1", 50002)
    async with admission.slot(client=("127.0.0.1", 50001)):
        await refused(admission, client)
        clock.now += RETRY_AFTER_SECONDS * 0.99
        await refused(admission, client)
        assert pauses.seconds == [REFUSAL_PAUSE_SECONDS]
        await refused(admission, client)  # and again: each early return waits
        assert pauses.seconds == [REFUSAL_PAUSE_SECONDS] * 2


async def test_a_client_that_waited_its_retry_after_is_refused_at_once_again() -> None:
    pauses, clock = Pauses(), Clock()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=pauses, clock=clock)
    client = ("127.0.0.1", 50002)
    async with admission.slot(client=("127.0.0.1", 50001)):
        for _ in range(3):
            await refused(admission, client)
            clock.now += RETRY_AFTER_SECONDS
    assert pauses.seconds == []


async def test_the_clients_remembered_are_bounded_and_forgotten_after_retry_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(admission_module, "REMEMBERED_REFUSALS", 5)
    clock = Clock()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=Pauses(), clock=clock)
    async with admission.slot(client="holder"):
        for port in range(20):
            await refused(admission, ("127.0.0.1", port))
            assert len(admission.refused_at) <= 5
        clock.now += RETRY_AFTER_SECONDS
        await refused(admission, "last")
        assert list(admission.refused_at) == ["last"]


@pytest.mark.parametrize("processes", [1, 2, 3, 64])
def test_by_default_the_processes_of_serve_share_four_slots_per_core_at_least_four_each(
    monkeypatch: pytest.MonkeyPatch, processes: int
) -> None:
    monkeypatch.setattr(front_door, "cores", lambda: 2)
    monkeypatch.setenv(front_door.PROCESSES_VARIABLE, str(processes))
    admission = admission_from()
    assert admission.slots == max(4, 8 // processes)
    assert admission.queue == admission.slots // 2


async def test_a_callers_refusals_on_many_connections_take_turns_further_apart_each_time() -> None:
    pauses, clock = Pauses(), Clock()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=pauses, clock=clock)
    for port in range(5):  # five connections, each refused for the first time, all at once
        await admission.pace_refusal(("127.0.0.1", port), caller="key:bomber")
    pause = REFUSAL_PAUSE_SECONDS
    # The first at once; then turns 1, 2, 4 and 8 pauses apart.
    assert pauses.seconds == [pause, 3 * pause, 7 * pause, 15 * pause]


async def test_a_caller_refused_again_and_again_backs_off_to_the_longest_interval() -> None:
    pauses, clock = Pauses(), Clock()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=pauses, clock=clock)
    client = ("127.0.0.1", 50002)
    for _ in range(10):  # one connection, sending again as soon as it is answered
        before = len(pauses.seconds)
        await admission.pace_refusal(client, caller="key:bomber")
        clock.now += sum(pauses.seconds[before:])  # the pause passes
    assert pauses.seconds[-3:] == [MAX_CALLER_INTERVAL_SECONDS] * 3


async def test_no_callers_turn_is_further_away_than_the_wait_limit() -> None:
    pauses = Pauses()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=pauses, clock=Clock())
    for port in range(40):
        await admission.pace_refusal(("127.0.0.1", port), caller="key:bomber")
    assert max(pauses.seconds) == MAX_CALLER_WAIT_SECONDS


async def test_another_callers_refusal_does_not_wait_for_the_first_callers_turns() -> None:
    pauses, clock = Pauses(), Clock()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=pauses, clock=clock)
    for port in range(4):
        await admission.pace_refusal(("127.0.0.1", port), caller="key:bomber")
    pauses.seconds.clear()
    await admission.pace_refusal(("127.0.0.1", 9), caller="key:other")
    assert pauses.seconds == []


async def test_a_caller_quiet_for_retry_after_past_its_turn_starts_afresh() -> None:
    pauses, clock = Pauses(), Clock()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=pauses, clock=clock)
    for port in range(3):
        await admission.pace_refusal(("127.0.0.1", port), caller="key:a")
        clock.now += REFUSAL_PAUSE_SECONDS + RETRY_AFTER_SECONDS
    assert pauses.seconds == []


async def test_overloaded_is_not_serialized_per_caller() -> None:
    """The queue being full is the process's state: one key's clients beyond it are each
    refused at once (each a new connection)."""
    pauses = Pauses()
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=pauses, clock=Clock())
    async with admission.slot(client=("127.0.0.1", 1)):
        for port in range(2, 6):
            await refused(admission, ("127.0.0.1", port))
    assert pauses.seconds == []


async def test_the_callers_remembered_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(admission_module, "REMEMBERED_REFUSALS", 5)
    admission = Admission(slots=1, queue=0, wait_seconds=5.0, sleep=Pauses(), clock=Clock())
    for caller in range(20):
        await admission.pace_refusal(("127.0.0.1", caller), caller=f"key:{caller}")
        assert len(admission.callers_turn) <= 5
