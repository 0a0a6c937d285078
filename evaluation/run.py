"""One eval run: load each query set's data, then measure every variant and mode on it.

1. load    the set's GraphRAG folder (or bundle file) through `evidencegraph load`'s code path
           (ingest/load_source.py) into its own workspace, with the configured
           embedder; a second run finds it unchanged and writes nothing
2. index   each variant's FULLTEXT indexes, as `schema apply` makes them
           (graph/graph_schema.py replaces a label's index that differs)
3. search  every query in every mode, at limit 5 and 10, through the served app with the
           variant's settings (evaluation/served_search.py), scoped to the workspace
4. names   optionally, the exact-name measure per variant and mode (evaluation/exact_names.py)
5. peer    optionally, neo4j-graphrag's retrievers on the same graph (evaluation/peer.py)
6. restore the indexes the settings ask for, so the graph is left as `serve` expects
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import neo4j

from api.embedder_setup import check_graph_embedder, embedder_from
from api.lifespan import neo4j_auth, open_graph
from api.settings import Settings
from embedding.query_cache import QueryEmbedder
from evaluation.exact_names import distinct_names, exact_name_row
from evaluation.queryset import QuerySet, kinds_of
from evaluation.report import Report
from evaluation.served_search import MODES, served
from evaluation.variants import Variant
from graph.driver import Graph
from graph.entity_names import entity_names
from graph.index_catalog import read_index_catalog
from graph.lexical_index import LexicalIndexSpec
from ingest.load_source import Source, load_source, make_searchable


class EvalFailed(RuntimeError):
    """The eval could not measure (data not loaded whole, an index not ONLINE)."""


@dataclass(frozen=True)
class Plan:
    querysets: Sequence[QuerySet]
    variants: Sequence[Variant]
    modes: Sequence[str] = MODES
    peer: bool = False
    workspace: str | None = None  # default: the query set's name (a bundle's lines are held to it)
    exact_names: bool = False


def say(message: str) -> None:
    """A progress line on stderr (stdout is the report's), at once."""
    print(message, file=sys.stderr, flush=True)


PEER_NOTE = (
    "peer rows: neo4j-graphrag's retrievers, embedding the query with the same embedder; "
    "'one index' rows read a FULLTEXT (name) and a VECTOR index over every :Entity, "
    "'per label' reads each label's own two indexes and merges the lists by score; the peer "
    "sees every entity (no scope) and sends the query text to Lucene as typed"
)


async def _load(
    graph: Graph, embedder: QueryEmbedder, queryset: QuerySet, workspace: str
) -> set[str]:
    if queryset.data is None:
        raise EvalFailed(f"query set {queryset.name} names no data folder to load")
    await check_graph_embedder(graph, embedder.identity)
    with contextlib.redirect_stdout(sys.stderr):  # stdout is the report's
        kind = "bundle" if queryset.data.is_file() else "graphrag"
        result = await load_source(graph, embedder, Source(queryset.data, kind, workspace))
    if result.rejections:
        raise EvalFailed(f"{queryset.data} did not load whole into workspace {workspace!r}")
    return set(result.totals.labels)


async def _index(graph: Graph, labels: set[str], dimension: int, spec: LexicalIndexSpec) -> None:
    with contextlib.redirect_stdout(sys.stderr):
        not_online = await make_searchable(graph, labels, dimension, spec)
    if not_online:
        raise EvalFailed(f"indexes not ONLINE: {'; '.join(not_online)}")


async def _measure(
    settings: Settings,
    queryset: QuerySet,
    variant: Variant,
    modes: Sequence[str],
    report: Report,
    workspace: str,
    names: Sequence[str] = (),
) -> None:
    variant_settings = dataclasses.replace(settings, lexical=variant.rule)
    async with served(variant_settings, [workspace]) as search:
        for mode in modes:
            say(f"{queryset.name}: {variant.name} {mode}")
            report.add(variant.name, mode, await search.answers(queryset.queries, mode))
            if names:
                say(f"{queryset.name}: {variant.name} {mode}, {len(names)} exact names")
                report.exact_names.append(await exact_name_row(search, variant.name, mode, names))


def _peer(
    settings: Settings,
    embedder: QueryEmbedder,
    queryset: QuerySet,
    label_indexes: list[tuple[str, str]],
    report: Report,
) -> None:
    from evaluation import peer  # the optional extra; only loaded when asked for

    driver = neo4j.GraphDatabase.driver(
        settings.neo4j_uri, auth=neo4j_auth(settings), notifications_min_severity="OFF"
    )
    try:
        peer.create_peer_indexes(driver, embedder.identity.dimension)
        try:
            for method in peer.peer_methods(driver, embedder.embedder, label_indexes):
                say(f"{queryset.name}: {method.name}")
                report.add(method.name, "-", [method.answer(q) for q in queryset.queries])
        finally:
            peer.drop_peer_indexes(driver)
    finally:
        driver.close()


async def evaluate(settings: Settings, plan: Plan) -> list[Report]:
    """Run `plan` against the Neo4j `settings` names; one report per query set."""
    reports = []
    embedder = QueryEmbedder(embedder_from(settings), size=0)
    dimension = embedder.identity.dimension
    configured = LexicalIndexSpec(settings.lexical.fields)
    try:
        async with open_graph(settings) as graph:
            for queryset in plan.querysets:
                workspace = plan.workspace or queryset.name
                labels = await _load(graph, embedder, queryset, workspace)
                report = Report(
                    queryset.name,
                    str(queryset.data),
                    embedder.identity.describe(),
                    tuple(kinds_of(queryset.queries)),
                )
                names = (
                    distinct_names([name for _, name in await entity_names(graph, workspace)])
                    if plan.exact_names
                    else []
                )
                for variant in plan.variants:
                    await _index(graph, labels, dimension, variant.index)
                    await _measure(
                        settings, queryset, variant, plan.modes, report, workspace, names
                    )
                await _index(graph, labels, dimension, configured)
                if plan.peer:
                    catalog = await read_index_catalog(graph)
                    pairs = [
                        (t.fulltext.name, t.vector.name)
                        for t in catalog.searchable(sorted(labels))
                        if t.fulltext is not None and t.vector is not None
                    ]
                    _peer(settings, embedder, queryset, pairs, report)
                    report.notes.append(PEER_NOTE)
                reports.append(report)
    finally:
        embedder.close()
    return reports
