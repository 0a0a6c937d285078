"""`GET /metrics` in Prometheus' text format, off unless METRICS_ENABLED (docs/operations.md).

    evidencegraph_requests_total{operation_type}            GraphQL requests answered
    evidencegraph_request_duration_seconds{operation_type}  their latency
    evidencegraph_errors_total{code}                        errors sent, by `extensions.code`
    evidencegraph_statements_per_request                    Neo4j statements one request sent
    evidencegraph_neo4j_connections_in_use                  connections taken from the driver's
                                                            pool (one per statement running)
    evidencegraph_embedding_calls_total{embedder}           calls of the embedder...
    evidencegraph_embedding_duration_seconds{embedder}      ...and how long each took
    evidencegraph_query_vector_cache_total{result}          query-vector look-ups: hit, miss
    evidencegraph_load_jobs_total{outcome}                  `evidencegraph load` lines: loaded,
                                                            unchanged, rejected
    evidencegraph_request_cost                              the static cost of each priced request
    evidencegraph_operations_executing                      operations holding a slot (admission)
    evidencegraph_operations_queued                         operations waiting for one
    evidencegraph_queue_wait_seconds                        how long admitted operations waited
    evidencegraph_overloaded_total{reason}                  refusals: queue_full, wait_expired
    evidencegraph_front_door_store_up                       1 while FRONT_DOOR_STORE answers
    evidencegraph_front_door_store_local_total{reason}      calls of it answered from this
                                                            process instead: timeout, error,
                                                            resting (after a failure)

With several worker processes, set PROMETHEUS_MULTIPROC_DIR (an empty directory every worker
can write, emptied before the service starts): each process then writes its figures there and
any worker's `/metrics` answers for all of them. `evidencegraph load` run with the same
directory adds its job counts.

Who may read it: with METRICS_TOKEN set, a request carrying `Authorization: Bearer <token>`;
without, only a client on a loopback address. Anyone else gets 404, as if it were off.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import time
from collections.abc import Iterator, Sequence

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from api.auth import is_loopback
from api.request_record import RequestRecord
from api.services import Services
from api.settings import Secret, Settings
from embedding.base import Embedder, EmbedderIdentity
from embedding.query_cache import QueryEmbedder
from graph.driver import StatementOutcome

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
STATEMENT_BUCKETS = (0, 1, 2, 3, 4, 6, 8, 12, 16, 32)
COST_BUCKETS = (1, 10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000)
WAIT_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_DIR) or None


class Metrics:
    """The service's metrics, on a registry of their own (one per app; tests build several)."""

    def __init__(self, token: Secret | None = None) -> None:
        self.token = token
        self.registry = registry = CollectorRegistry()
        self.requests = Counter(
            "evidencegraph_requests",
            "GraphQL requests answered, by operation type (none: refused before one ran).",
            ["operation_type"],
            registry=registry,
        )
        self.request_seconds = Histogram(
            "evidencegraph_request_duration_seconds",
            "Time from a GraphQL request's arrival to its answer.",
            ["operation_type"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.errors = Counter(
            "evidencegraph_errors",
            "Errors sent to clients, by extensions.code.",
            ["code"],
            registry=registry,
        )
        self.statements = Histogram(
            "evidencegraph_statements_per_request",
            "Neo4j statements one GraphQL request sent.",
            buckets=STATEMENT_BUCKETS,
            registry=registry,
        )
        self.connections_in_use = Gauge(
            "evidencegraph_neo4j_connections_in_use",
            "Connections taken from the Neo4j driver's pool: one per statement running.",
            multiprocess_mode="livesum",
            registry=registry,
        )
        self.embedding_calls = Counter(
            "evidencegraph_embedding_calls",
            "Calls of the embedder (a query not in the cache, or a batch while loading).",
            ["embedder"],
            registry=registry,
        )
        self.embedding_seconds = Histogram(
            "evidencegraph_embedding_duration_seconds",
            "Time one call of the embedder took.",
            ["embedder"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.query_vector_cache = Counter(
            "evidencegraph_query_vector_cache",
            "Query-vector look-ups: hit (cached or being computed) or miss (embedded).",
            ["result"],
            registry=registry,
        )
        self.load_jobs = Counter(
            "evidencegraph_load_jobs",
            "Lines `evidencegraph load` finished, by outcome.",
            ["outcome"],
            registry=registry,
        )

        self.request_cost = Histogram(
            "evidencegraph_request_cost",
            "The static cost of each priced GraphQL request (api/front_door/query_cost.py).",
            buckets=COST_BUCKETS,
            registry=registry,
        )
        self.admission = AdmissionMetrics(registry)
        self.front_door_store = StoreMetrics(registry)

    @classmethod
    def from_settings(cls, settings: Settings) -> Metrics | None:
        return cls(settings.metrics_token) if settings.metrics_enabled else None

    # Hooks ------------------------------------------------------------------------------

    def attach(self, services: Services) -> None:
        services.graph.instruments.append(self)
        query_embedder = services.query_embedder
        if isinstance(query_embedder, QueryEmbedder):  # a test may script its own
            query_embedder.embedder = MeasuredEmbedder(query_embedder.embedder, self)
            query_embedder.stats.listeners.append(self.cache_lookup)

    def close(self) -> None:
        pass

    @contextlib.contextmanager
    def statement(self, query: str, outcome: StatementOutcome) -> Iterator[None]:
        """A `graph.driver.StatementInstrument`: a connection is in use while it runs."""
        self.connections_in_use.inc()
        try:
            yield
        finally:
            self.connections_in_use.dec()

    def cache_lookup(self, hit: bool) -> None:
        self.query_vector_cache.labels(result="hit" if hit else "miss").inc()

    def request_finished(self, record: RequestRecord, seconds: float) -> None:
        kind = record.operation_type or "none"
        self.requests.labels(operation_type=kind).inc()
        self.request_seconds.labels(operation_type=kind).observe(seconds)
        self.statements.observe(record.statements)
        if record.cost is not None:
            self.request_cost.observe(record.cost)
        for code in record.error_codes:
            self.errors.labels(code=code).inc()

    def load_finished(self, **outcomes: int) -> None:
        for outcome, count in outcomes.items():
            self.load_jobs.labels(outcome=outcome).inc(count)

    # The endpoint -----------------------------------------------------------------------

    def allows(self, request: Request) -> bool:
        if self.token is not None:
            offered = request.headers.get("authorization", "")
            expected = f"Bearer {self.token}"
            return hmac.compare_digest(offered.encode(), expected.encode())
        return is_loopback(request.client.host if request.client else None)

    async def endpoint(self, request: Request) -> Response:
        if not self.allows(request):
            return PlainTextResponse("Not Found", status_code=404)
        registry = self.registry
        if multiprocess_dir() is not None:
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


class AdmissionMetrics:
    """api/front_door/admission.py's observer: slots in use, the queue, its waits and its
    refusals."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.executing = Gauge(
            "evidencegraph_operations_executing",
            "GraphQL operations holding an admission slot.",
            multiprocess_mode="livesum",
            registry=registry,
        )
        self.queued = Gauge(
            "evidencegraph_operations_queued",
            "GraphQL operations waiting for an admission slot (the queue's depth).",
            multiprocess_mode="livesum",
            registry=registry,
        )
        self.wait_seconds = Histogram(
            "evidencegraph_queue_wait_seconds",
            "Time admitted operations waited for a slot.",
            buckets=WAIT_BUCKETS,
            registry=registry,
        )
        self.overloaded = Counter(
            "evidencegraph_overloaded",
            "Requests refused OVERLOADED, by reason: queue_full, wait_expired.",
            ["reason"],
            registry=registry,
        )

    def changed(self, executing: int, waiting: int) -> None:
        self.executing.set(executing)
        self.queued.set(waiting)

    def waited(self, seconds: float) -> None:
        self.wait_seconds.observe(seconds)

    def refused(self, reason: str) -> None:
        self.overloaded.labels(reason=reason).inc()


class StoreMetrics:
    """api/front_door/store.py's observer: whether FRONT_DOOR_STORE answers, and the calls
    answered from this process because it did not (contract §7: the front door fails open)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.up = Gauge(
            "evidencegraph_front_door_store_up",
            "1 while FRONT_DOOR_STORE answers; 0 while this process answers without it (or has "
            "none).",
            multiprocess_mode="livemin",
            registry=registry,
        )
        self.local = Counter(
            "evidencegraph_front_door_store_local",
            "Calls of FRONT_DOOR_STORE answered from this process's own memory instead, by "
            "reason: timeout, error, resting (not asked again yet after a failure).",
            ["reason"],
            registry=registry,
        )

    def reachable(self, up: bool) -> None:
        self.up.set(1 if up else 0)

    def answered_locally(self, reason: str) -> None:
        self.local.labels(reason=reason).inc()


class MeasuredEmbedder:
    """An embedder whose calls are counted and timed."""

    def __init__(self, embedder: Embedder, metrics: Metrics) -> None:
        self.wrapped = embedder
        kind = embedder.identity.kind
        self.calls = metrics.embedding_calls.labels(embedder=kind)
        self.seconds = metrics.embedding_seconds.labels(embedder=kind)

    @property
    def identity(self) -> EmbedderIdentity:
        return self.wrapped.identity

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.inc()
        started = time.perf_counter()
        try:
            return self.wrapped.embed(texts)
        finally:
            self.seconds.observe(time.perf_counter() - started)

    def close(self) -> None:
        self.wrapped.close()
