"""The front door of `/graphql` (issue 27, docs/operations.md "The front door"): what a request
passes before it may read the graph, in this order.

    persisted operations  the document a hash names (api/persisted_queries.py)   view
    admission             a slot of the process, or OVERLOADED (api/admission.py) view
    query cost            the cost, or COST_LIMIT_EXCEEDED (api/query_cost.py)    extension
    rate limit            the caller's points, or RATE_LIMITED (api/rate_limit.py) extension

("view": api/graphql_view.py; "extension": `PriceAndCharge` below.)

Cost and rate run in a Strawberry extension at the start of execution, after the document has
parsed and validated (both kept per document text, api/graphql_document.py), and before any
resolver: a refused request sends no statement. The cost is kept per document text, operation
and variables too (`COST_CACHE_SIZE`), so a known document is priced once. Every answer reports
it in `extensions.cost` (`cost_extension`), as Shopify's and GitHub's APIs report theirs.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from graphql import DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema
from strawberry.extensions import SchemaExtension

from api import request_record
from api.admission import Admission
from api.graphql_document import CACHEABLE_DOCUMENT_CHARS
from api.metrics import Metrics
from api.persisted_queries import PersistedQueries, load_manifests
from api.query_cost import TooComplex, operation_cost
from api.rate_limit import RateLimits, caller_of
from api.settings import Settings, SettingsError
from contract.errors import CostLimitExceeded, EvidenceGraphError
from contract.scope import Grant

COST_CACHE_SIZE = 1024
SLOTS_PER_CORE = 4
MIN_SLOTS = 4
# The default queue holds half as many operations as there are slots. Past saturation every
# queued operation adds its wait to its answer: with as many waiting as executing, an answer
# under overload took twice as long as one at saturation, and its p99 more than twice (`make
# bench`, docs/benchmarks.md, "The front door"). Half keeps the slots fed between operations
# while an overloaded answer takes about one and a half times as long; the rest are refused
# with `Retry-After` (api/admission.py).
QUEUE_PER_SLOT = 0.5


# How many processes `evidencegraph serve --workers N` runs on this machine (set by serve for its
# workers; unset: one). The cores are shared among them: two processes of 4 slots per core each
# ran 16 operations at once on 2 cores plus 8 queued, and their p99 at 32 clients was 3.1 times
# that at 8, against 1.3 times for one process (`make bench`, docs/benchmarks.md).
PROCESSES_VARIABLE = "EVIDENCEGRAPH_SERVE_PROCESSES"


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


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
    rate_limits: RateLimits | None = None
    persisted: PersistedQueries | None = None

    @classmethod
    def from_settings(cls, settings: Settings, metrics: Metrics | None = None) -> FrontDoor:
        slots = settings.graphql_max_concurrent_operations or default_slots()
        queue = settings.graphql_queue_length
        admission = Admission(
            slots=slots,
            queue=max(1, int(slots * QUEUE_PER_SLOT)) if queue is None else queue,
            wait_seconds=settings.graphql_queue_wait_seconds,
            observer=metrics.admission if metrics is not None else None,
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
            persisted = PersistedQueries()
        return cls(
            admission=admission,
            max_cost=settings.graphql_max_cost,
            rate_limits=RateLimits(per_minute) if per_minute is not None else None,
            persisted=persisted,
        )

    def __post_init__(self) -> None:
        self._costs: OrderedDict[tuple[str, str | None, bytes], int] = OrderedDict()

    def cost_of(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        query: str | None,
        operation_name: str | None,
        variables: Mapping[str, Any] | None,
    ) -> int:
        """The operation's static cost, kept per (text, operation, variables) for small
        documents; `TooComplex` when pricing it would take too long."""
        key = _cost_key(query, operation_name, variables)
        if key is not None and (known := self._costs.get(key)) is not None:
            self._costs.move_to_end(key)
            return known
        cost = operation_cost(schema, document, operation_name, variables)
        if key is not None:
            self._costs[key] = cost
            while len(self._costs) > COST_CACHE_SIZE:
                self._costs.popitem(last=False)
        return cost

    def price_and_charge(self, cost: int, grant: Grant | None) -> None:
        """Raise the request's refusal: over the cost limit, or over the caller's rate."""
        if cost > self.max_cost:
            raise CostLimitExceeded(cost, self.max_cost)
        if self.rate_limits is not None:
            self.rate_limits.charge(caller_of(grant), cost)

    def cost_extension(self, cost: int | None, grant: Grant | None) -> dict[str, object]:
        """`extensions.cost` of an answer (0 when the request was refused before pricing)."""
        report: dict[str, object] = {"requestedQueryCost": cost or 0, "maximumCost": self.max_cost}
        if self.rate_limits is not None:
            report["throttleStatus"] = {
                "maximumAvailable": self.rate_limits.per_minute,
                "currentlyAvailable": self.rate_limits.available(caller_of(grant)),
                "restoreRate": round(self.rate_limits.per_second, 3),
            }
        return report

    def extension(self) -> Callable[[], SchemaExtension]:
        """A factory of `PriceAndCharge` for this front door."""

        def create() -> SchemaExtension:
            return PriceAndCharge(self)

        return create


def _cost_key(
    query: str | None, operation_name: str | None, variables: Mapping[str, Any] | None
) -> tuple[str, str | None, bytes] | None:
    if not query or len(query) > CACHEABLE_DOCUMENT_CHARS:
        return None
    shapes = sorted((name, _shape(value)) for name, value in (variables or {}).items())
    return query, operation_name, orjson.dumps(shapes)


def _shape(value: object) -> object:
    """What of a variable's value a price can read (contract/query_costs.py: an integer, and a
    list's length; anything else prices as its kind): a search's words never change its cost,
    so one document asked with other words is priced once."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, list):
        return ["list", len(value)]
    return type(value).__name__


class PriceAndCharge(SchemaExtension):
    """Prices the operation and charges its caller before it executes; a refusal takes the
    place of the result, so no resolver runs."""

    def __init__(self, front_door: FrontDoor) -> None:
        self.front_door = front_door

    def on_execute(self) -> Iterator[None]:
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
                self.front_door.price_and_charge(cost, grant)
            except EvidenceGraphError as refused:
                refusal = refused
        if refusal is not None:
            context.result = ExecutionResult(
                data=None, errors=[GraphQLError(refusal.message, original_error=refusal)]
            )
        yield
