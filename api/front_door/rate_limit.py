"""Rate limits per caller, in cost points per minute (issue 27, "Rate limits"): a token bucket for
each caller, holding at most one minute's points and refilled continuously. A request takes its
static cost (api/front_door/query_cost.py) from its caller's bucket before it runs; when the bucket
holds less, the request is RATE_LIMITED with the whole seconds until it would hold enough.

Callers are told apart by `Grant.subject`: the API key (its digest) or the JWT's `sub`; with
AUTH_MODE=none every caller is one shared identity, `anonymous`. Off unless
GRAPHQL_RATE_LIMIT_PER_MINUTE is set.

The buckets live in this process (docs/operations.md, "Rate limits": with N workers or replicas a
caller gets up to N times the rate; what to do when that matters). Buckets of callers that are full
again are forgotten, so memory follows the callers active in the last minute, and it is bounded in
bytes whatever the callers (api/front_door/bounded_memory.py): at most `REMEMBERED_CALLERS` buckets,
the least recently charged forgotten first (it has had the longest to refill), each under a key of
at most a digest's length.

    >>> clock = iter([0.0, 0.0, 30.0]).__next__
    >>> limits = RateLimits(per_minute=600, clock=clock)
    >>> limits.charge("key:a", 600)       # a full bucket: one minute's points
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

    def charge(self, caller: str, cost: int) -> None:
        """Take `cost` points from the caller's bucket, or raise RateLimited (nothing taken)."""
        now = self.clock()
        bucket = self.buckets.get(caller)
        points = self.per_minute if bucket is None else self._refilled(bucket, now)
        if cost > points:
            wait = (cost - points) / self.per_second
            raise RateLimited(cost, self.per_minute, max(1, math.ceil(wait)))
        self.buckets[caller] = _Bucket(points - cost, now)
        self.buckets.move_to_end(caller)
        while len(self.buckets) > REMEMBERED_CALLERS:
            self.buckets.popitem(last=False)
        self.charges += 1
        if self.charges % FORGET_EVERY == 0:
            self._forget_full(now)

    def _refilled(self, bucket: _Bucket, now: float) -> float:
        return min(self.per_minute, bucket.points + (now - bucket.updated) * self.per_second)

    def _forget_full(self, now: float) -> None:
        full = [k for k, b in self.buckets.items() if self._refilled(b, now) >= self.per_minute]
        for key in full:
            del self.buckets[key]
