"""Admission control (issue 27): at most `slots` operations execute at once in this process;
up to `queue` more wait, first come first served, each at most `wait_seconds`. Past that the
request is refused with OVERLOADED and `Retry-After`, never left to time out.

A request that finds the queue full is refused at once, unless its client (its connection,
when the caller says which: `slot(client=…)`) was refused less than `Retry-After` ago: that one
is refused after a short pause (`REFUSAL_PAUSE_SECONDS`, at most `wait_seconds`). Clients that
send again without honouring `Retry-After` (naive retry loops; wrk told to) otherwise turn every
refusal into another request at once: refusing costs the process about half a millisecond
each, and at 32 such clients on scale S (`make bench`) the process spent its core refusing 2,000
requests a second while it answered 11, down from 141 at 8 clients. The pause holds a refused
request idle, costing no CPU, so the refusals such clients can ask for are bounded by their
number, not by their speed; a client that waits as told is told "no" at once (paused, its
refusals had set p99 at 32 clients to the pause, 250 ms, nearly three times p99 at 8). A request
whose client is not known is paused, as every refusal once was.

A caller's own refusals (over the cost limit, over its rate: `pace_refusal(caller=…)`) also take
turns per caller, whatever number of connections it sends them on, and a caller refused again
and again waits longer each time: a quarter of a second after its last refusal, then half a
second, a second, two, and at most `MAX_CALLER_INTERVAL_SECONDS`. A cost bomb with a new text
costs about 19 ms of the process's core to parse, validate and price before it can be refused:
paced per connection only, eight connections of one key took another caller's p95 from 11 to
64 ms, and one connection answered every quarter second still took it from 11 to 19 ms, about
8% of the core (bench/cost_bomb.py). Backing off bounds a persistent caller to one such refusal
every few seconds, whatever it sends them on. No turn is more than `MAX_CALLER_WAIT_SECONDS`
away (below the request time limit, 30 s by default, so the refusal is the answer, not a
timeout); a caller that stays quiet for `Retry-After` past its next turn starts afresh. OVERLOADED
is the process's state, not the caller's doing, and is not serialized per caller: the clients of
one key beyond the queue are each refused at once.

With FRONT_DOOR_STORE set, a caller's turns are kept in the shared store (api/front_door/store.py)
for every process and replica, each refusal's turn one call of the script `TURN` (the same rule
as `_callers_turn`, in Lua, run atomically on the server's clock); while the store cannot be
reached, this process's turns answer. The connection's pause stays in the process that holds
the connection. Admission itself (slots and queue) is always this process's own: it protects
this process's cores.

What the pacing remembers is bounded in bytes (api/front_door/bounded_memory.py): at most
`REMEMBERED_REFUSALS` connections and as many callers, each under a key of at most a digest's
length (a connection's address may come from a forwarded header, a caller's subject from a
token), so about 2 MB each at most.

Defaults come from the cores (api/settings.py, GRAPHQL_MAX_CONCURRENT_OPERATIONS): a request
spends most of its time waiting for Neo4j, so a few operations per core keep the cores busy,
and more only lengthen every answer.

    >>> import asyncio
    >>> async def two_at_once():
    ...     admission = Admission(slots=1, queue=0, wait_seconds=1.0)
    ...     async with admission.slot():
    ...         async with admission.slot():
    ...             pass
    >>> asyncio.run(two_at_once())
    Traceback (most recent call last):
    contract.errors.Overloaded: The service is at capacity: ...
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from typing import Protocol, TypeVar

from api.front_door.bounded_memory import MAX_KEY_CHARS, bounded_key
from api.front_door.store import KEY_PREFIX, FrontDoorStore, StoreUnavailable
from contract.errors import Overloaded

RETRY_AFTER_SECONDS = 1
REFUSAL_PAUSE_SECONDS = 0.25
# Clients refused in the last `RETRY_AFTER_SECONDS` (callers: past their interval), at most this
# many of each (the oldest forgotten first): one forgotten early is told "no" at once once more.
REMEMBERED_REFUSALS = 10_000
# A caller's refusals back off from one pause apart, doubling, up to this (see the docstring).
MAX_CALLER_INTERVAL_SECONDS = 4.0
MAX_CALLER_WAIT_SECONDS = 10.0

Remembered = TypeVar("Remembered")


class AdmissionObserver(Protocol):
    """What `/metrics` shows of admission (api/metrics.py)."""

    def changed(self, executing: int, waiting: int) -> None: ...
    def waited(self, seconds: float) -> None: ...
    def refused(self, reason: str) -> None: ...


class Admission:
    def __init__(
        self,
        slots: int,
        queue: int,
        wait_seconds: float,
        observer: AdmissionObserver | None = None,
        refusal_pause: float = REFUSAL_PAUSE_SECONDS,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        store: FrontDoorStore | None = None,
    ) -> None:
        self.slots = slots
        self.queue = queue
        self.wait_seconds = wait_seconds
        self.refusal_pause = min(refusal_pause, wait_seconds)
        self.sleep = sleep
        self.clock = clock
        self.refused_at: OrderedDict[Hashable, float] = OrderedDict()  # oldest refusal first
        # Per caller: when its last refusal is (or was) answered, and the interval before its
        # next one; oldest first.
        self.callers_turn: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()
        self.executing = 0
        self.waiters: deque[asyncio.Future[None]] = deque()
        self.observer = observer
        self.shared_turn = store.script(TURN) if store is not None else None

    @property
    def waiting(self) -> int:
        return len(self.waiters)

    @contextlib.asynccontextmanager
    async def slot(self, client: Hashable | None = None) -> AsyncIterator[float]:
        """Hold one slot while the block runs; yields the seconds spent waiting for it.
        `client` names whoever sent the request (a connection's address), for the pause."""
        waited = await self._acquire(client)
        if self.observer is not None:
            self.observer.waited(waited)
            self.observer.changed(self.executing, self.waiting)
        try:
            yield waited
        finally:
            self._release()
            if self.observer is not None:
                self.observer.changed(self.executing, self.waiting)

    async def _acquire(self, client: Hashable | None) -> float:
        if self.executing < self.slots and not self.waiters:
            self.executing += 1
            return 0.0
        if len(self.waiters) >= self.queue:
            await self.pace_refusal(client)
            self._refuse("queue_full")
        started = time.perf_counter()
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        if self.observer is not None:
            self.observer.changed(self.executing, self.waiting)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), self.wait_seconds)
        except TimeoutError:
            if waiter.done() and not waiter.cancelled():
                # Handed a slot just as the wait ran out: give it back to the next one.
                self._release()
            else:
                waiter.cancel()
                self._discard(waiter)
            self._refuse("wait_expired")
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self._release()
            else:
                waiter.cancel()
                self._discard(waiter)
            raise
        return time.perf_counter() - started

    async def pace_refusal(self, client: Hashable | None, caller: Hashable | None = None) -> None:
        """Before a refusal is answered: pause when `client` was refused less than `Retry-After`
        ago (or is not known), and remember this refusal. The front door's other refusals that a
        client can repeat cheaply (COST_LIMIT_EXCEEDED, RATE_LIMITED: api/graphql_view.py) are
        paced by the same memory: one connection sending a cost bomb again and again took the
        process's core, 1,770 refusals a second, and another caller's p95 went from 32 to 53 ms
        (bench/cost_bomb.py). Those also name their `caller`, whose refusals then take turns on
        all its connections together, further apart each time (see the module docstring)."""
        pause = self.refusal_pause if self._came_back_early(client) else 0.0
        if caller is not None:
            pause = max(pause, await self._turn_of(caller))
        if pause > 0:
            await self.sleep(pause)  # see the module docstring
        self._remember_refusal(client)

    def _came_back_early(self, client: Hashable | None) -> bool:
        """Whether this client was refused less than `Retry-After` ago (unknown: assumed so)."""
        if client is None:
            return True
        refused = self.refused_at.get(_remembered_as(client))
        return refused is not None and self.clock() - refused < RETRY_AFTER_SECONDS

    async def _turn_of(self, caller: Hashable) -> float:
        """`_callers_turn`, from the shared store when there is one and it answers."""
        if self.shared_turn is not None:
            limits = [MAX_CALLER_INTERVAL_SECONDS, MAX_CALLER_WAIT_SECONDS, RETRY_AFTER_SECONDS]
            try:
                wait = await self.shared_turn([turn_key(caller)], [self.refusal_pause, *limits])
            except StoreUnavailable:
                pass  # fail open to this process's turns (api/front_door/store.py)
            else:
                return float(wait)
        return self._callers_turn(caller)

    def _callers_turn(self, caller: Hashable) -> float:
        """Seconds until this caller's refusal may be answered: at once when it is new or has
        been quiet for `Retry-After` past its next turn; else at its next turn (its interval
        after its last one, which may itself be still to come), and the interval doubles."""
        now = self.clock()
        previous = self.callers_turn.pop(caller, None)
        turn, interval = now, self.refusal_pause
        if previous is not None and self.refusal_pause > 0:
            last_turn, last_interval = previous
            next_turn = last_turn + last_interval
            if now < next_turn + RETRY_AFTER_SECONDS:  # not quiet long enough to start afresh
                turn = min(max(now, next_turn), now + MAX_CALLER_WAIT_SECONDS)
                interval = min(2 * last_interval, MAX_CALLER_INTERVAL_SECONDS)
        self.callers_turn[caller] = (turn, interval)  # the newest last
        _forget(self.callers_turn, now, quiet_from=lambda entry: entry[0] + entry[1])
        return turn - now

    def _remember_refusal(self, client: Hashable | None) -> None:
        if client is None:
            return
        now = self.clock()
        key = _remembered_as(client)
        self.refused_at[key] = now
        self.refused_at.move_to_end(key)
        _forget(self.refused_at, now, quiet_from=lambda refused: refused)

    def _release(self) -> None:
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot passes on: `executing` stays the same
                return
        self.executing -= 1

    def _discard(self, waiter: asyncio.Future[None]) -> None:
        with contextlib.suppress(ValueError):
            self.waiters.remove(waiter)

    def _refuse(self, reason: str) -> None:
        if self.observer is not None:
            self.observer.refused(reason)
            self.observer.changed(self.executing, self.waiting)
        raise Overloaded(RETRY_AFTER_SECONDS)


def _remembered_as(client: Hashable) -> Hashable:
    """A connection as the refusals' memory keys it: itself, or its digest when it is long."""
    shown = repr(client)
    return client if len(shown) <= MAX_KEY_CHARS else bounded_key(shown)


def _forget(
    memory: OrderedDict[Hashable, Remembered], now: float, quiet_from: Callable[[Remembered], float]
) -> None:
    """Forget, oldest first, what is past `REMEMBERED_REFUSALS` and what has been quiet for
    `Retry-After` since `quiet_from` of its entry."""
    while memory and (
        len(memory) > REMEMBERED_REFUSALS
        or now >= quiet_from(next(iter(memory.values()))) + RETRY_AFTER_SECONDS
    ):
        memory.popitem(last=False)


# `Admission._callers_turn`, run by the store on its own clock: KEYS[1] the caller's turn, ARGV
# the pause, MAX_CALLER_INTERVAL_SECONDS, MAX_CALLER_WAIT_SECONDS, RETRY_AFTER_SECONDS and
# (tests only) the time to use instead of the server's. Returns the seconds until the turn; the
# turn expires once its caller would start afresh.
TURN = """
local pause, max_interval = tonumber(ARGV[1]), tonumber(ARGV[2])
local max_wait, quiet = tonumber(ARGV[3]), tonumber(ARGV[4])
local now = tonumber(ARGV[5])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) + tonumber(time[2]) / 1000000
end
local turn, interval = now, pause
local last = redis.call('HMGET', KEYS[1], 'turn', 'interval')
if last[1] and pause > 0 then
  local next_turn = tonumber(last[1]) + tonumber(last[2])
  if now < next_turn + quiet then
    turn = math.min(math.max(now, next_turn), now + max_wait)
    interval = math.min(2 * tonumber(last[2]), max_interval)
  end
end
redis.call('HSET', KEYS[1], 'turn', string.format('%.17g', turn),
           'interval', string.format('%.17g', interval))
redis.call('PEXPIRE', KEYS[1], math.ceil((turn + interval + quiet - now) * 1000))
return string.format('%.17g', turn - now)
"""


def turn_key(caller: Hashable) -> str:
    """The caller's refusal turn in the store."""
    return f"{KEY_PREFIX}turn:{caller}"
