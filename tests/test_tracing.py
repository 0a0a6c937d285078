"""Tracing (docs/operations.md): the span tree of one search and one walk against the real
Neo4j, collected in memory; what turns tracing on; no span carries a value of the request."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from api.app import create_app
from api.settings import Settings, SettingsError
from api.telemetry import Tracing, tracer_provider_for
from graph.driver import Graph
from tests.conftest import settings_for_tests
from tests.support.graph_builder import GraphBuilder
from tests.support.operations_app import SEARCH, WALK, post, served, three_people


@asynccontextmanager
async def traced_app(
    neo4j_uri: str,
) -> AsyncIterator[tuple[httpx.AsyncClient, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    async with served(neo4j_uri, tracing=Tracing(provider, owned=False)) as (http, _):
        yield http, exporter


class SpanTree:
    def __init__(self, spans: tuple[ReadableSpan, ...]) -> None:
        self.spans = list(spans)
        self.by_id = {span.context.span_id: span for span in self.spans}

    def named(self, name: str) -> ReadableSpan:
        [span] = [span for span in self.spans if span.name == name]
        return span

    def children(self, parent: ReadableSpan) -> list[ReadableSpan]:
        return [s for s in self.spans if s.parent and s.parent.span_id == parent.context.span_id]

    def descendants(self, parent: ReadableSpan) -> list[ReadableSpan]:
        found = self.children(parent)
        for child in list(found):
            found += self.descendants(child)
        return found

    def roots(self) -> list[ReadableSpan]:
        return [s for s in self.spans if s.parent is None]

    def attribute_values(self) -> list[str]:
        return [str(value) for span in self.spans for value in (span.attributes or {}).values()]

    def show(self) -> str:
        return "\n".join(
            f"{s.name} <- {self.by_id[s.parent.span_id].name if s.parent else '-'}"
            for s in self.spans
        )


async def ok(http: httpx.AsyncClient, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    body = await post(http, query, variables)
    assert "errors" not in body, body
    return body


async def test_a_search_is_one_request_span_holding_the_operation_its_resolver_the_embedding_and_each_statement(  # noqa: E501
    neo4j_uri: str, builder: GraphBuilder, graph: Graph
) -> None:
    await three_people(builder, graph)
    async with traced_app(neo4j_uri) as (http, exporter):
        body = await ok(http, SEARCH, {"query": "ada lovelace"})
        tree = SpanTree(exporter.get_finished_spans())

    [request] = tree.roots()
    assert request.kind == SpanKind.SERVER, tree.show()
    assert request.name == "POST /graphql", tree.show()
    operation = tree.named("query Search")
    assert operation in tree.children(request), tree.show()
    assert operation.attributes == {
        "graphql.operation.name": "Search",
        "graphql.operation.type": "query",
    }
    resolver = tree.named("Query.searchEntities")
    assert resolver in tree.children(operation), tree.show()
    below = tree.descendants(resolver)
    embed = tree.named("embed")
    assert embed in below, tree.show()
    assert embed.attributes == {"evidencegraph.embedder": "hash", "evidencegraph.texts": 1}
    search = tree.named("graph.entity_search.SEARCH_ENTITIES")
    assert search in below, tree.show()
    assert search.kind == SpanKind.CLIENT
    assert search.attributes is not None
    assert search.attributes["db.response.returned_rows"] == len(body["data"]["searchEntities"])
    assert search.attributes["db.system.name"] == "neo4j"
    assert isinstance(search.attributes["evidencegraph.database_ms"], int)
    # Every statement of the request (index catalog, evidence) is in the operation's tree.
    statements = [s for s in tree.spans if s.kind == SpanKind.CLIENT]
    assert all(s in tree.descendants(operation) for s in statements), tree.show()
    # Neither the query's words nor any id reaches a span.
    values = " ".join(tree.attribute_values()).lower()
    assert "ada" not in values and "lovelace" not in values
    assert builder.entity_id("Ada Lovelace") not in values


async def test_a_walk_is_one_request_span_holding_the_operation_its_resolver_and_each_step_named(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph
) -> None:
    await three_people(builder, graph)
    ada = builder.entity_id("Ada Lovelace")
    async with traced_app(neo4j_uri) as (http, exporter):
        body = await ok(http, WALK, {"id": ada})
        tree = SpanTree(exporter.get_finished_spans())

    assert len(body["data"]["walk"]["edges"]) == 2
    [request] = tree.roots()
    operation = tree.named("query Walk")
    assert operation in tree.children(request), tree.show()
    resolver = tree.named("Query.walk")
    assert resolver in tree.children(operation), tree.show()
    steps = [s for s in tree.descendants(resolver) if s.kind == SpanKind.CLIENT]
    # Step 1 (read again once the process has seen which relation types are stored), step 2,
    # and the check of what lies beyond depth 2.
    names = [s.name for s in steps]
    assert set(names) == {"graph.walk.first_step", "graph.walk.next_step", "graph.walk.depth_probe"}
    assert names[-2:] == ["graph.walk.next_step", "graph.walk.depth_probe"], tree.show()
    assert all(
        isinstance((s.attributes or {}).get("db.response.returned_rows"), int) for s in steps
    )
    assert ada not in " ".join(tree.attribute_values())


async def test_without_a_configured_exporter_nothing_of_tracing_is_installed(
    neo4j_uri: str, graph: Graph
) -> None:
    app = create_app(settings_for_tests(neo4j_uri))
    assert not any("OpenTelemetry" in str(m.cls) for m in app.user_middleware)
    async with app.router.lifespan_context(app):
        assert app.state.services.graph.instruments == []


@pytest.mark.parametrize(
    ("environ", "exporter"),
    [
        ({}, None),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, "otlp"),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, "otlp"),
        ({"OTEL_TRACES_EXPORTER": "console"}, "console"),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}, None),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"}, None),
    ],
)
def test_tracing_is_on_only_when_the_otel_variables_configure_an_exporter(
    environ: dict[str, str], exporter: str | None
) -> None:
    assert Settings.from_environ(environ).traces_exporter == exporter


def test_an_exporter_tracing_does_not_offer_stops_start_up_naming_the_variable() -> None:
    with pytest.raises(SettingsError, match="OTEL_TRACES_EXPORTER='jaeger'"):
        Settings.from_environ({"OTEL_TRACES_EXPORTER": "jaeger"})


def test_spans_name_the_service_evidencegraph_unless_otel_service_name_says_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    provider = tracer_provider_for("console")
    assert provider.resource.attributes["service.name"] == "evidencegraph"
    provider.shutdown()
    monkeypatch.setenv("OTEL_SERVICE_NAME", "graph-api-eu")
    provider = tracer_provider_for("console")
    assert provider.resource.attributes["service.name"] == "graph-api-eu"
    provider.shutdown()


async def test_a_get_request_s_query_string_is_never_in_a_span(
    neo4j_uri: str, graph: Graph
) -> None:
    """GraphQL over GET carries the document and its variables in the query string."""
    async with traced_app(neo4j_uri) as (http, exporter):
        response = await http.get(
            "/graphql",
            params={
                "query": "query Lookup($id: ID!) { entity(id: $id) { name } }",
                "variables": '{"id": "00000000-0000-4000-8000-5ec2e7000000"}',
            },
            headers={"accept": "application/json"},
        )
        assert response.status_code == 200, response.text
        tree = SpanTree(exporter.get_finished_spans())
    assert tree.named("GET /graphql").attributes  # the request's span, with its attributes
    values = " ".join(tree.attribute_values())
    for fragment in ("5ec2e7", "query=", "variables", "%7B"):
        assert fragment not in values, values
