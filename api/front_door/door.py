"""The front door of `/graphql` and of MCP tool calls (issues 27 and 38, docs/operations.md
"The front door"): what a request passes before it may read the graph, in this order.

    persisted operations  the document a hash names (persisted_queries.py)   view
    admission             a slot of the process, or OVERLOADED (admission.py) view
    query cost            the cost, or COST_LIMIT_EXCEEDED (query_cost.py)    extension
    rate limit            the caller's points, or RATE_LIMITED (rate_limit.py) extension

(Modules of this package, api/front_door/; "view": api/graphql_view.py; "extension":
`PriceAndCharge` below.)

Cost and rate run in a Strawberry extension at the start of execution, after the document has parsed
and validated (both kept per document text, api/graphql_document.py), and before any resolver: a
refused request sends no statement. The cost is kept per document text, operation and what the price
reads of its declared variables (`_cost_key`), at most `COST_CACHE_SIZE` entries and
`COST_CACHE_BYTES` bytes (api/front_door/bounded_memory.py), so a known document is priced once.
Every answer reports it in `extensions.cost` (`cost_extension`), as Shopify's and GitHub's APIs
report theirs.

An MCP tool call passes the same door (contract §7: "The front door is one for every door"):
`answer_tool` below, the same slot, price, rate and pacing, priced by mcpserver/tool_costs.py
from the same table. Both doors go through `admitted`, which holds the slot and paces a
refusal the caller can repeat at once (over the cost limit or its rate) after the slot is
released.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from graphql import DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema
from strawberry.extensions import SchemaExtension

from api import request_record
from api.front_door.admission import Admission
from api.front_door.bounded_memory import BoundedCache
from api.front_door.persisted_queries import PersistedQueries
from api.front_door.query_cost import TooComplex, declared_variables, operation_cost
from api.front_door.rate_limit import CallerBudgets, RateLimits, caller_of
from api.front_door.store import FrontDoorStore
from api.front_door.trusted_documents import load_manifests
from api.graphql_document import CACHEABLE_DOCUMENT_CHARS
from api.metrics import Metrics
from api.settings import Settings, SettingsError
from contract.errors import CostLimitExceeded, EvidenceGraphError, RateLimited
from contract.scope import Grant

COST_CACHE_SIZE = 1024
# The cost cache's bytes, keys and all: 1,024 keys of the cacheable documents' largest (8,192
# characters) would take about 9 MB; typical documents (a few hundred characters) fit 1,024.
COST_CACHE_BYTES = 4 * 1024 * 1024
# What a price can read of an integer variable: its value clamped into the argument's range
# (contract/query_costs.py `argument_value`), and every range lies within this one, so two
# integers beyond it price alike and are kept as one.
PRICED_INTEGERS = 2**31
SLOTS_PER_CORE = 4
MIN_SLOTS = 4
# The default queue holds half as many operations as there are slots. Past saturation every
# queued operation adds its wait to its answer: with as many waiting as executing, an answer
# under overload took twice as long as one at saturation, and its p99 more than twice (`make
# bench`, docs/benchmarks.md, "The front door"). Half keeps the slots fed between operations
# while an overloaded answer takes about one and a half times as long; the rest are refused
# with `Retry-After` (api/front_door/admission.py).
QUEUE_PER_SLOT = 0.5
# Refusals a caller can send again at once, as cheaply: over the cost limit, over its rate.
# Each is paced per connection and per caller (api/front_door/admission.py `pace_refusal`), at
# every door.
REPEATABLE_REFUSALS = frozenset({CostLimitExceeded.code, RateLimited.code})


# How many processes `evidencegraph serve --workers N` runs on this machine (set by serve for its
# workers; unset: one). The cores are shared among them: two processes of 4 slots per core each
# ran 16 operations at once on 2 cores plus 8 queued, and their p99 at 32 clients was 3.1 times
# that at 8, against 1.3 times for one process (`make bench`, docs/benchmarks.md).
PROCESSES_VARIABLE = "EVIDENCEGRAPH_SERVE_PROCESSES"

Answer = TypeVar("Answer")


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def shared_store(settings: Settings, metrics: Metrics | None = None) -> FrontDoorStore | None:
    """The store FRONT_DOOR_STORE names (nothing is connected yet), or None when it is unset."""
    if settings.front_door_store is None:
        return None
    timeout = settings.front_door_store_timeout_seconds
    if timeout >= settings.request_timeout_seconds:
        raise SettingsError(
            f"FRONT_DOOR_STORE_TIMEOUT_SECONDS={timeout:g} is not below REQUEST_TIMEOUT_SECONDS="
            f"{settings.request_timeout_seconds:g}: a request could wait for the store until it is "
            "stopped. Lower it (a store on the same network answers in a millisecond)."
        )
    observer = metrics.front_door_store if metrics is not None else None
    return FrontDoorStore.from_url(str(settings.front_door_store), timeout, observer)


def default_slots() -> int:
    """This process's share of 4 slots per core, at least `MIN_SLOTS`."""
    try:
        processes = max(1, int(os.environ.get(PROCESSES_VARIABLE, "1")))
    except ValueError:
        processes = 1
    return max(MIN_SLOTS, SLOTS_PER_CORE * cores() // processes)


@dataclass
class FrontDoor:
    admission: Admission
    max_cost: int
    rate_limits: RateLimits | None = None  # this process's buckets
    persisted: PersistedQueries | None = None
    # FRONT_DOOR_STORE: the buckets, turns and persisted queries every replica shares
    # (api/front_door/store.py); None: each process keeps its own.
    store: FrontDoorStore | None = None

    @classmethod
    def from_settings(cls, settings: Settings, metrics: Metrics | None = None) -> FrontDoor:
        store = shared_store(settings, metrics)
        slots = settings.graphql_max_concurrent_operations or default_slots()
        queue = settings.graphql_queue_length
        admission = Admission(
            slots=slots,
            queue=max(1, int(slots * QUEUE_PER_SLOT)) if queue is None else queue,
            wait_seconds=settings.graphql_queue_wait_seconds,
            observer=metrics.admission if metrics is not None else None,
            store=store,
        )
        per_minute = settings.graphql_rate_limit_per_minute
        if per_minute is not None and per_minute < settings.graphql_max_cost:
            raise SettingsError(
                f"GRAPHQL_RATE_LIMIT_PER_MINUTE={per_minute} is below GRAPHQL_MAX_COST="
                f"{settings.graphql_max_cost}: a request the cost limit allows could never run. "
                "Raise the rate or lower the cost limit."
            )
        persisted = None
        if settings.graphql_trusted_documents is not None:
            persisted = PersistedQueries(load_manifests(settings.graphql_trusted_documents))
        elif settings.graphql_persisted_queries:
            persisted = PersistedQueries(store=store)
        return cls(
            admission=admission,
            max_cost=settings.graphql_max_cost,
            rate_limits=RateLimits(per_minute) if per_minute is not None else None,
            persisted=persisted,
            store=store,
        )

    def __post_init__(self) -> None:
        self.costs: BoundedCache[CostKey, int] = BoundedCache(
            COST_CACHE_SIZE, COST_CACHE_BYTES, _cost_key_bytes
        )
        self.budgets = (
            CallerBudgets(self.rate_limits, self.store) if self.rate_limits is not None else None
        )

    @contextlib.asynccontextmanager
    async def serving(self) -> AsyncIterator[None]:
        """The front door while the app serves: the store asked once at start (a store that
        does not answer is logged, and the front door fails open until it does: start-up
        never waits for it), its connections closed at the end."""
        if self.store is None:
            yield
            return
        await self.store.ping()
        try:
            yield
        finally:
            await self.store.close()

    def cost_of(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        query: str | None,
        operation_name: str | None,
        variables: Mapping[str, Any] | None,
    ) -> int:
        """The operation's static cost, kept per (text, operation, declared variables) for
        small documents; `TooComplex` when pricing it would take too long. A variable the
        operation does not declare cannot change its price, and is neither read nor kept: a
        client may send any number of them, of any size."""
        declared = declared_variables(document, operation_name, variables)
        key = _cost_key(query, operation_name, declared)
        if key is not None and (known := self.costs.get(key)) is not None:
            return known
        cost = operation_cost(schema, document, operation_name, declared)
        if key is not None:
            self.costs.put(key, cost)
        return cost

    @contextlib.asynccontextmanager
    async def admitted(
        self, client: Hashable | None, grant: Grant | None
    ) -> AsyncIterator[Admitted]:
        """Hold one admission slot while the block runs, or raise OVERLOADED
        (api/front_door/admission.py; `client`: the connection, for its pause). A refusal the caller
        can repeat at once (`Admitted.refused`) is paced after the slot is given back, so the pause
        holds none."""
        entry = Admitted(self, grant)
        try:
            async with self.admission.slot(client=client) as waited:
                record = request_record.current.get()
                if record is not None:
                    record.queue_seconds = waited
                yield entry
        finally:
            if entry.refusal in REPEATABLE_REFUSALS:
                await self.admission.pace_refusal(client, caller=caller_of(grant))

    async def answer_tool(
        self,
        client: Hashable | None,
        grant: Grant,
        cost: int,
        answer: Callable[[], Awaitable[Answer]],
    ) -> Answer:
        """An MCP tool call (mcpserver/server.py), through the door a GraphQL operation passes:
        a slot, then its price (`cost`, mcpserver/tool_costs.py) against the cost limit and its
        caller's rate, then `answer`. Raises the refusal, coded as GraphQL's."""
        async with self.admitted(client, grant) as entry:
            await entry.charge(cost)
            return await answer()

    async def price_and_charge(self, cost: int, grant: Grant | None) -> None:
        """Raise the request's refusal: over the cost limit, or over the caller's rate."""
        if cost > self.max_cost:
            raise CostLimitExceeded(cost, self.max_cost)
        if self.budgets is not None:
            left = await self.budgets.charge(caller_of(grant), cost)
            record = request_record.current.get()
            if record is not None:
                record.points_available = left

    async def cost_extension(self, cost: int | None, grant: Grant | None) -> dict[str, object]:
        """`extensions.cost` of an answer (0 when the request was refused before pricing)."""
        report: dict[str, object] = {"requestedQueryCost": cost or 0, "maximumCost": self.max_cost}
        if self.budgets is not None:
            record = request_record.current.get()
            available = record.points_available if record is not None else None
            if available is None:  # not charged: asked of the bucket
                available = await self.budgets.available(caller_of(grant))
            report["throttleStatus"] = {
                "maximumAvailable": self.budgets.per_minute,
                "currentlyAvailable": available,
                "restoreRate": round(self.budgets.per_second, 3),
            }
        return report

    def extension(self) -> Callable[[], SchemaExtension]:
        """A factory of `PriceAndCharge` for this front door."""

        def create() -> SchemaExtension:
            return PriceAndCharge(self)

        return create


CostKey = tuple[str, str | None, tuple[tuple[str, object], ...]]


@dataclass
class Admitted:
    """One request holding its slot (`FrontDoor.admitted`): its caller, and the code of its
    refusal, if it was refused."""

    front_door: FrontDoor
    grant: Grant | None
    refusal: str | None = None

    async def charge(self, cost: int) -> None:
        """`FrontDoor.price_and_charge` for this request, its cost noted for its log line."""
        record = request_record.current.get()
        if record is not None:
            record.cost = cost
        try:
            await self.front_door.price_and_charge(cost, self.grant)
        except EvidenceGraphError as refused:
            self.refused(refused.code)
            raise

    def refused(self, code: str | None) -> None:
        """The request was refused with `code` (None: it was not)."""
        self.refusal = code


def _cost_key(
    query: str | None, operation_name: str | None, declared: Mapping[str, Any]
) -> CostKey | None:
    if not query or len(query) > CACHEABLE_DOCUMENT_CHARS:
        return None
    return query, operation_name, tuple(sorted((k, _shape(v)) for k, v in declared.items()))


def _cost_key_bytes(key: CostKey, cost: int) -> int:
    """What one entry holds, about: its texts and the shapes of its variables (each name is
    the document's, so together they are no longer than it)."""
    query, operation_name, shapes = key
    return (
        sys.getsizeof(query)
        + sys.getsizeof(operation_name)
        + sys.getsizeof(shapes)
        + sum(sys.getsizeof(name) + sys.getsizeof(shape) for name, shape in shapes)
    )


def _shape(value: object) -> object:
    """What of a variable's value a price can read (contract/query_costs.py: an integer, and a
    list's length; anything else prices as its kind): a search's words never change its cost,
    so one document asked with other words is priced once."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return max(-PRICED_INTEGERS, min(value, PRICED_INTEGERS))
    if isinstance(value, list):
        return ("list", len(value))
    return type(value).__name__


class PriceAndCharge(SchemaExtension):
    """Prices the operation and charges its caller before it executes; a refusal takes the
    place of the result, so no resolver runs."""

    def __init__(self, front_door: FrontDoor) -> None:
        self.front_door = front_door

    async def on_execute(self) -> AsyncIterator[None]:
        context = self.execution_context
        record = request_record.current.get()
        grant = getattr(context.context, "grant", None)
        refusal: EvidenceGraphError | None = None
        assert context.graphql_document is not None  # execution follows a parse
        try:
            cost = self.front_door.cost_of(
                context.schema._schema,
                context.graphql_document,
                context.query,
                getattr(context, "_provided_operation_name", None) or context.operation_name,
                context.variables,
            )
        except TooComplex:
            cost = None
            refusal = CostLimitExceeded(None, self.front_door.max_cost)
        if record is not None:
            record.cost = cost
        if refusal is None and cost is not None:
            try:
                await self.front_door.price_and_charge(cost, grant)
            except EvidenceGraphError as refused:
                refusal = refused
        if refusal is not None:
            context.result = ExecutionResult(
                data=None, errors=[GraphQLError(refusal.message, original_error=refusal)]
            )
        yield
