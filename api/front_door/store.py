"""Where the front door keeps what every replica must share (FRONT_DOOR_STORE, contract §7):
a Redis server, reached through redis-py's asyncio client. Unset, nothing here runs and each
process keeps its own (as it always has).

What is kept there, each updated by one call, atomic on the server (a Lua script runs alone):

    rate:<caller>         a caller's token bucket             api/front_door/rate_limit.py
    turn:<caller>         a caller's refusal turn              api/front_door/admission.py
    apq:<grant>:<hash>    a persisted query's text, per grant  api/front_door/persisted_queries.py

under `KEY_PREFIX`, each with an expiry: a bucket when it would be full again, a turn when its
caller would start afresh, a document a day after it was last asked for (`DOCUMENT_SECONDS`).
Times are the server's (`TIME` inside the script), so replicas on machines whose clocks differ
count one bucket alike.

When the store cannot be reached (contract §7; docs/operations.md, "When the store cannot be
reached"): the front door fails open to this process. Each call is given at most
`FRONT_DOOR_STORE_TIMEOUT_SECONDS`; a call that fails or runs out raises `StoreUnavailable`,
and its caller answers from the process's own memory, exactly as without a store: the
caller's bucket and turns in this process, a persisted query known here or
PERSISTED_QUERY_NOT_FOUND (Apollo's clients then send the text). Never a 5xx, never a wait past
the request's time limit. After a failure the store is not asked again for `RETRY_SECONDS`
(the calls meanwhile fail at once, costing nothing), then one call tries it: when it answers,
every call goes to it again, with no restart. Each change is logged once (WARNING when it is
lost, with a reminder every `REMINDER_SECONDS` while it stays lost; INFO when it is back), and
`/metrics` counts every call answered without it (`StoreObserver`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

KEY_PREFIX = "evidencegraph:front-door:"
# How long the store keeps a persisted query nobody asks for (each hit keeps it a day more).
DOCUMENT_SECONDS = 24 * 3600
# After a failure, the store is tried again this long after (one call; the rest answer locally).
RETRY_SECONDS = 1.0
REMINDER_SECONDS = 60.0
# Connections to the store one process opens at most; a call waits for a free one within its
# time limit. A call takes well under a millisecond of the server's time, so a few connections
# serve thousands of requests a second, and a burst does not open one connection per request.
MAX_CONNECTIONS = 16

Result = TypeVar("Result")


class StoreUnavailable(Exception):
    """The store did not answer this call in time (or is being let rest after a failure)."""


class StoreObserver(Protocol):
    """What `/metrics` shows of the store (api/metrics.py)."""

    def reachable(self, up: bool) -> None: ...
    def answered_locally(self, reason: str) -> None: ...


class FrontDoorStore:
    """One process's way to the shared store; `clock` and `client` are the tests' to replace."""

    def __init__(
        self,
        client: Redis,
        timeout_seconds: float,
        observer: StoreObserver | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.timeout = timeout_seconds
        self.observer = observer
        self.clock = clock
        self.lost_at: float | None = None  # when it was lost; None while it answers
        self.next_try = 0.0
        self.reminded_at = 0.0
        self.local_answers = 0  # calls answered without it since it was lost
        if observer is not None:
            observer.reachable(True)  # until a call says otherwise

    @classmethod
    def from_url(
        cls, url: str, timeout_seconds: float, observer: StoreObserver | None = None
    ) -> FrontDoorStore:
        """A client of the Redis `url` names; nothing is connected until the first call."""
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=MAX_CONNECTIONS,
            timeout=timeout_seconds,  # the wait for a free connection
            socket_timeout=timeout_seconds,
            socket_connect_timeout=timeout_seconds,
            retry=Retry(NoBackoff(), 0),  # a failed call is answered locally, never retried
        )
        return cls(Redis(connection_pool=pool), timeout_seconds, observer)

    async def close(self) -> None:
        await self.client.aclose()

    def script(self, text: str) -> Callable[[Sequence[str], Sequence[Any]], Awaitable[Any]]:
        """`text` (Lua) as a call of its own: EVALSHA, or EVAL once after the server lost it."""
        registered = self.client.register_script(text)

        async def run(keys: Sequence[str], args: Sequence[Any]) -> Any:
            return await self.call(registered(keys=list(keys), args=list(args)))

        return run

    async def get_keeping(self, key: str, seconds: int) -> str | None:
        """The value of `key`, its expiry set `seconds` ahead again; None when absent."""
        value = await self.call(self.client.getex(key, ex=seconds))
        return value.decode("utf-8", "surrogatepass") if isinstance(value, bytes) else value

    async def put(self, key: str, value: str, seconds: int) -> None:
        await self.call(self.client.set(key, value.encode("utf-8", "surrogatepass"), ex=seconds))

    async def ping(self) -> bool:
        """Whether the store answers now (start-up logs it when not)."""
        try:
            await self.call(self.client.ping())
        except StoreUnavailable:
            return False
        return True

    async def call(self, command: Awaitable[Result]) -> Result:
        """`command`'s answer within the timeout, or StoreUnavailable."""
        now = self.clock()
        if self.lost_at is not None and now < self.next_try:
            _close(command)
            self._answered_locally("resting")
            raise StoreUnavailable
        if self.lost_at is not None:
            self.next_try = now + RETRY_SECONDS  # this call tries; the others keep resting
        try:
            async with asyncio.timeout(self.timeout):
                answer = await command
        except (TimeoutError, RedisTimeoutError):
            self._lost("timeout", f"no answer within {self.timeout:g} s")
            raise StoreUnavailable from None
        except (RedisError, OSError) as error:
            self._lost("error", f"{type(error).__name__}: {error}")
            raise StoreUnavailable from None
        if self.lost_at is not None:
            self._found()
        return answer

    def _lost(self, reason: str, detail: str) -> None:
        now = self.clock()
        self.next_try = now + RETRY_SECONDS
        self._answered_locally(reason)
        if self.lost_at is None:
            self.lost_at = self.reminded_at = now
            self.local_answers = 1
            if self.observer is not None:
                self.observer.reachable(False)
            log.warning(
                "FRONT_DOOR_STORE cannot be reached (%s): the front door answers from this "
                "process's own limits and persisted queries until it is back",
                detail,
            )
        elif now - self.reminded_at >= REMINDER_SECONDS:
            self.reminded_at = now
            log.warning(
                "FRONT_DOOR_STORE still cannot be reached (%s) after %.0f s; %d calls answered "
                "from this process meanwhile",
                detail,
                now - self.lost_at,
                self.local_answers,
            )

    def _found(self) -> None:
        assert self.lost_at is not None
        log.info(
            "FRONT_DOOR_STORE answers again after %.1f s; %d calls were answered from this "
            "process meanwhile",
            self.clock() - self.lost_at,
            self.local_answers,
        )
        self.lost_at = None
        if self.observer is not None:
            self.observer.reachable(True)

    def _answered_locally(self, reason: str) -> None:
        if self.lost_at is not None:
            self.local_answers += 1
        if self.observer is not None:
            self.observer.answered_locally(reason)


def _close(command: Awaitable[Any]) -> None:
    """A coroutine never awaited (the store is resting) is closed, so none is left unawaited."""
    close = getattr(command, "close", None)
    if close is not None:
        close()
