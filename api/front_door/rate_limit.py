"""Rate limits per caller, in cost points per minute (issue 27, "Rate limits"): a token bucket for
each caller, holding at most one minute's points and refilled continuously. A request takes its
static cost (api/front_door/query_cost.py) from its caller's bucket before it runs; when the bucket
holds less, the request is RATE_LIMITED with the whole seconds until it would hold enough.

Callers are told apart by `Grant.subject`: the API key (its digest) or the JWT's `sub`; with
AUTH_MODE=none every caller is one shared identity, `anonymous`. Off unless
GRAPHQL_RATE_LIMIT_PER_MINUTE is set.

With FRONT_DOOR_STORE set the buckets are kept in the shared store (api/front_door/store.py),
one per caller for every process and replica, each charge one call of the script `CHARGE`: the
same bucket as `RateLimits`, written in Lua, run atomically by the server on its own clock (two
replicas charging one caller at once cannot both spend the same points). While the store cannot
be reached, a charge falls back to this process's buckets (`CallerBudgets`). Unset, the buckets
live in this process only, and with N workers or replicas a caller gets up to N times the rate
(docs/operations.md, "What is shared where").

In this process, buckets of callers that are full again are forgotten, so memory follows the
callers active in the last minute, and it is bounded in bytes whatever the callers
(api/front_door/bounded_memory.py): at most `REMEMBERED_CALLERS` buckets, the least recently
charged forgotten first (it has had the longest to refill), each under a key of at most a
digest's length. In the store, a bucket expires when it would be full again.

    >>> clock = iter([0.0, 0.0, 30.0]).__next__
    >>> limits = RateLimits(per_minute=600, clock=clock)
    >>> limits.charge("key:a", 600)       # a full bucket: one minute's points; none left
    0
    >>> limits.charge("key:a", 400)       # 30 s later: 300 points back, 400 asked
    Traceback (most recent call last):
    contract.errors.RateLimited: Rate limit reached: ...
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from api.front_door.bounded_memory import bounded_key
from api.front_door.store import KEY_PREFIX, FrontDoorStore, StoreUnavailable
from contract.errors import RateLimited
from contract.scope import Grant

ANONYMOUS = "anonymous"
FORGET_EVERY = 1024  # charges between sweeps of full buckets
# Callers charged in the last minute that this process keeps a bucket for: about 200 bytes
# each, so 2 MB; a caller forgotten early would find its bucket full again.
REMEMBERED_CALLERS = 10_000


def caller_of(grant: Grant | None) -> str:
    """Who a request is counted against (its bucket here; its refusals' turns,
    api/front_door/admission.py; its event streams, api/mcp_streams.py): the grant's subject, or the
    one shared identity `ANONYMOUS`; a subject longer than a digest (a JWT's `sub` may be) as its
    digest."""
    return bounded_key((grant.subject if grant is not None else None) or ANONYMOUS)


@dataclass(slots=True)
class _Bucket:
    points: float
    updated: float


class RateLimits:
    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.per_second = per_minute / 60.0
        self.clock = clock
        self.buckets: OrderedDict[str, _Bucket] = OrderedDict()  # least recently charged first
        self.charges = 0

    def available(self, caller: str) -> int:
        """The points the caller may spend now (for `extensions.cost`)."""
        bucket = self.buckets.get(caller)
        if bucket is None:
            return self.per_minute
        return int(self._refilled(bucket, self.clock()))

    def charge(self, caller: str, cost: int) -> int:
        """Take `cost` points from the caller's bucket and return the whole points left, or
        raise RateLimited (nothing taken)."""
        now = self.clock()
        bucket = self.buckets.get(caller)
        points = self.per_minute if bucket is None else self._refilled(bucket, now)
        if cost > points:
            raise self.refusal(cost, points)
        self.buckets[caller] = _Bucket(points - cost, now)
        self.buckets.move_to_end(caller)
        while len(self.buckets) > REMEMBERED_CALLERS:
            self.buckets.popitem(last=False)
        self.charges += 1
        if self.charges % FORGET_EVERY == 0:
            self._forget_full(now)
        return int(points - cost)

    def refusal(self, cost: int, points: float) -> RateLimited:
        """RATE_LIMITED for a request of `cost` when the bucket holds `points`: whole seconds
        until it holds enough, at least one."""
        wait = (cost - points) / self.per_second
        return RateLimited(cost, self.per_minute, max(1, math.ceil(wait)))

    def _refilled(self, bucket: _Bucket, now: float) -> float:
        return min(self.per_minute, bucket.points + (now - bucket.updated) * self.per_second)

    def _forget_full(self, now: float) -> None:
        full = [k for k, b in self.buckets.items() if self._refilled(b, now) >= self.per_minute]
        for key in full:
            del self.buckets[key]


# `RateLimits.charge` and `_refilled`, run by the store on its own clock: KEYS[1] the bucket,
# ARGV the points per minute, the cost, and (tests only) the time to use instead of the server's.
# Returns {1 when taken else 0, the points the bucket holds after}; the bucket expires when it
# would be full again (a full bucket is one that is not there).
CHARGE = """
local per_minute, cost = tonumber(ARGV[1]), tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) + tonumber(time[2]) / 1000000
end
local per_second = per_minute / 60
local points = per_minute
local bucket = redis.call('HMGET', KEYS[1], 'points', 'updated')
if bucket[1] then
  points = math.min(per_minute, tonumber(bucket[1]) + (now - tonumber(bucket[2])) * per_second)
end
if cost > points then
  return {0, string.format('%.17g', points)}
end
points = points - cost
redis.call('HSET', KEYS[1], 'points', string.format('%.17g', points),
           'updated', string.format('%.17g', now))
redis.call('PEXPIRE', KEYS[1], math.ceil((per_minute - points) / per_second * 1000) + 1)
return {1, string.format('%.17g', points)}
"""

# `RateLimits.available`: the points the caller's bucket holds now (ARGV as `CHARGE`'s, no cost).
AVAILABLE = """
local per_minute = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) + tonumber(time[2]) / 1000000
end
local bucket = redis.call('HMGET', KEYS[1], 'points', 'updated')
if not bucket[1] then
  return string.format('%.17g', per_minute)
end
local points = tonumber(bucket[1]) + (now - tonumber(bucket[2])) * per_minute / 60
return string.format('%.17g', math.min(per_minute, points))
"""


class CallerBudgets:
    """The callers' buckets the front door charges: in the store when there is one, else (and
    for each call the store does not answer in time) `local`'s, in this process."""

    def __init__(self, local: RateLimits, store: FrontDoorStore | None = None) -> None:
        self.local = local
        self.store = store
        if store is not None:
            self._charge = store.script(CHARGE)
            self._available = store.script(AVAILABLE)

    @property
    def per_minute(self) -> int:
        return self.local.per_minute

    @property
    def per_second(self) -> float:
        return self.local.per_second

    async def charge(self, caller: str, cost: int) -> int:
        """Take `cost` points from the caller's bucket and return the whole points left, or
        raise RateLimited (nothing taken)."""
        if self.store is not None:
            try:
                taken, points = await self._charge([bucket_key(caller)], [self.per_minute, cost])
            except StoreUnavailable:
                pass  # fail open to this process's bucket (api/front_door/store.py)
            else:
                if not int(taken):
                    raise self.local.refusal(cost, float(points))
                return int(float(points))
        return self.local.charge(caller, cost)

    async def available(self, caller: str) -> int:
        """The whole points the caller may spend now (for `extensions.cost`)."""
        if self.store is not None:
            try:
                points = await self._available([bucket_key(caller)], [self.per_minute])
            except StoreUnavailable:
                pass
            else:
                return int(float(points))
        return self.local.available(caller)


def bucket_key(caller: str) -> str:
    """The caller's bucket in the store."""
    return f"{KEY_PREFIX}rate:{caller}"
