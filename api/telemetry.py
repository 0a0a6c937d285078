"""Tracing with OpenTelemetry: off unless an exporter is configured (docs/operations.md).

What turns it on: `OTEL_TRACES_EXPORTER=otlp` (or `console`), or an OTLP endpoint
(`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) with
`OTEL_TRACES_EXPORTER` unset; `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true` keeps it
off. The OTLP exporter (HTTP/protobuf) reads the other standard variables itself (headers,
timeout, compression); the SDK reads `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` and the
sampler (`OTEL_TRACES_SAMPLER`). When it is off, nothing below is installed: no middleware,
no extension, no statement instrument, so an untraced request costs what it did before.

One request's spans:

    POST /graphql                          the request (OpenTelemetry's ASGI middleware)
      query SearchPage                     the operation: its type and name, never its document
        Query.searchEntities               each resolver that awaits (the ones that can do I/O)
          embed                            each call of the embedder (kind, texts)
          graph.entity_search.SEARCH_ENTITIES   each statement: name, rows, database time
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Awaitable, Callable, Generator, Iterator, Sequence
from typing import Any

from graphql import GraphQLResolveInfo
from opentelemetry import trace
from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send
from strawberry.extensions import SchemaExtension

from api.request_log import operation_of
from api.services import Services
from api.settings import Settings
from embedding.base import Embedder, EmbedderIdentity
from embedding.query_cache import QueryEmbedder
from graph.driver import StatementOutcome
from graph.statement_names import statement_name

TRACER_NAME = "evidencegraph"
# Probes answer often and say little; their spans would only crowd the traces.
UNTRACED_PATHS = "/healthz,/readyz,/metrics"
# Where QueryStringUntraced keeps the query string while the tracing middleware looks.
_HIDDEN_QUERY = "evidencegraph.query_string"


def exporter_named(name: str) -> SpanExporter:
    if name == "console":
        return ConsoleSpanExporter()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()  # endpoint, headers, timeout: the standard OTEL_* variables


def tracer_provider_for(exporter: str) -> TracerProvider:
    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name the service; without them the SDK
    # says `unknown_service`, and this one says what it is.
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: "evidencegraph"}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(exporter_named(exporter)))
    return provider


class Tracing:
    """Everything tracing installs, built from one provider (the configured one, or a test's)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> Tracing | None:
        if settings.traces_exporter is None:
            return None
        return cls(tracer_provider_for(settings.traces_exporter))

    def __init__(self, provider: TracerProvider, *, owned: bool = True) -> None:
        self.provider = provider
        self.tracer = provider.get_tracer(TRACER_NAME)
        self.owned = owned  # shut down (spans flushed) with the app

    def middleware(self) -> Middleware:
        return Middleware(
            QueryStringUntraced,
            tracer_provider=self.provider,
            meter_provider=NoOpMeterProvider(),
            excluded_urls=UNTRACED_PATHS,
            exclude_spans=["receive", "send"],
        )

    def extension(self) -> Callable[[], SchemaExtension]:
        tracer = self.tracer
        return lambda: TracingExtension(tracer)

    def attach(self, services: Services) -> None:
        services.graph.instruments.append(StatementSpans(self.tracer, services.graph.database))
        query_embedder = services.query_embedder
        if isinstance(query_embedder, QueryEmbedder):  # a test may script its own
            query_embedder.embedder = TracedEmbedder(query_embedder.embedder, self.tracer)

    def close(self) -> None:
        if self.owned:
            self.provider.shutdown()


class QueryStringUntraced:
    """OpenTelemetry's ASGI middleware, shown the request without its query string.

    Its request span records the URL it is shown (`http.target`, `http.url`, `url.query`);
    a GraphQL GET carries its document and variables there, which no span may hold. The app
    behind it gets the query string back, untouched."""

    def __init__(self, app: ASGIApp, /, **options: Any) -> None:
        self.app = app
        self.traced = OpenTelemetryMiddleware(self._restored, **options)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope.get("query_string"):
            await self.traced(scope, receive, send)
            return
        shown = {**scope, "query_string": b"", _HIDDEN_QUERY: scope["query_string"]}
        await self.traced(shown, receive, send)

    async def _restored(self, scope: Scope, receive: Receive, send: Send) -> None:
        if _HIDDEN_QUERY in scope:  # a copy again: the tracing middleware keeps its own
            scope = {**scope, "query_string": scope[_HIDDEN_QUERY]}
            del scope[_HIDDEN_QUERY]
        await self.app(scope, receive, send)


class TracingExtension(SchemaExtension):
    """The operation's span, and one per resolver that awaits (only those can do I/O)."""

    def __init__(self, tracer: trace.Tracer) -> None:
        super().__init__()
        self.tracer = tracer

    def on_operation(self) -> Generator[None, None, None]:
        with self.tracer.start_as_current_span("graphql operation") as span:
            yield
            name, kind = operation_of(self.execution_context)
            span.update_name(" ".join(part for part in (kind, name) if part) or "graphql")
            if name:
                span.set_attribute("graphql.operation.name", name)
            if kind:
                span.set_attribute("graphql.operation.type", kind)

    def resolve(
        self,
        _next: Callable[..., Any],
        root: Any,
        info: GraphQLResolveInfo[Any],
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        result = _next(root, info, *args, **kwargs)
        if not inspect.isawaitable(result):
            return result
        return self._traced(result, f"{info.parent_type.name}.{info.field_name}")

    async def _traced(self, result: Awaitable[Any], name: str) -> Any:
        with self.tracer.start_as_current_span(name, attributes={"graphql.field.name": name}):
            return await result


class StatementSpans:
    """A `graph.driver.StatementInstrument`: one span per statement, named, never its values."""

    def __init__(self, tracer: trace.Tracer, database: str | None) -> None:
        self.tracer = tracer
        self.database = database

    @contextlib.contextmanager
    def statement(self, query: str, outcome: StatementOutcome) -> Iterator[None]:
        name = statement_name(query)
        attributes = {"db.system.name": "neo4j", "db.query.summary": name}
        if self.database:
            attributes["db.namespace"] = self.database
        with self.tracer.start_as_current_span(
            name, kind=trace.SpanKind.CLIENT, attributes=attributes
        ) as span:
            yield
            if outcome.rows is not None:
                span.set_attribute("db.response.returned_rows", outcome.rows)
            if outcome.database_ms is not None:
                span.set_attribute("evidencegraph.database_ms", outcome.database_ms)


class TracedEmbedder:
    """An embedder whose every call is a span (it runs in a worker thread; anyio carries the
    request's context there)."""

    def __init__(self, embedder: Embedder, tracer: trace.Tracer) -> None:
        self.wrapped = embedder
        self.tracer = tracer

    @property
    def identity(self) -> EmbedderIdentity:
        return self.wrapped.identity

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        attributes = {
            "evidencegraph.embedder": self.identity.kind,
            "evidencegraph.texts": len(texts),
        }
        with self.tracer.start_as_current_span("embed", attributes=attributes):
            return self.wrapped.embed(texts)

    def close(self) -> None:
        self.wrapped.close()
