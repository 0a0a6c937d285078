"""Hostile input, generated: schemathesis fuzzes every root field of the served schema, the
federation fields included, against the service under uvicorn on loopback in its production
configuration (API keys, introspection off, default limits), with a valid credential.

Every answer must be a clean one: no 5xx, JSON, every error coded with one of contract §7's codes
and never INTERNAL (an unexpected error is a bug, even masked), and nothing of the internals
(a traceback, a driver message, Cypher, a file path) in any body; the server logs no
unexpected error either. schemathesis's own `positive_data_acceptance` and
`not_a_server_error` checks are left out: the limits refuse queries the schema allows, and a
MALFORMED argument is a field error by design, which schemathesis counts as a server error.

The schema comes from the code (`create_schema()`), not from introspection, which is off.
Counts land in test-output/fuzz-graphql.json.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import graphql
import neo4j
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.core.result import Ok
from schemathesis.graphql import nodes

from api.schema import create_schema
from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION, wipe
from tests.support.graph_builder import GraphBuilder
from tests.support.node_tools import REPOSITORY
from tests.support.serving import Served, served_process

# Per root field (8 of them). The strategies are biased to what the graph holds (ids, words,
# small ints), so an argument check a field lacks, or an error that names internals, shows in
# the first few dozen queries of that field; 100 leaves room, where 400 cost four times as long
# for no bug more. FUZZ_EXAMPLES_PER_OPERATION=1000 for a longer hunt.
EXAMPLES_PER_OPERATION = int(os.environ.get("FUZZ_EXAMPLES_PER_OPERATION", "100"))
API_KEY = "fuzzing-key-acme-0123456789abcdef"
SPEC_CODES = {
    "MALFORMED",
    "UNAVAILABLE",
    "INDEX_NOT_READY",
    "UNAUTHENTICATED",
    "FORBIDDEN",
    "BACKEND_UNAVAILABLE",
    # The front door's (contract §7): a drawn `limit` × `supportLimit` can price a search over
    # GRAPHQL_MAX_COST, which is refused with this code before anything runs.
    "COST_LIMIT_EXCEEDED",
}
LEAKS = re.compile(
    r"Traceback|neo4j|Cypher|MATCH \(|UNWIND |Neo\.ClientError|File \"|\.py\b|site-packages|/work/",
    re.IGNORECASE,
)
OUTPUT = REPOSITORY / "test-output" / "fuzz-graphql.json"


def field(name: str, value: graphql.ValueNode) -> graphql.ObjectFieldNode:
    return graphql.ObjectFieldNode(name=graphql.NameNode(value=name), value=value)


def representation(ids: list[str]) -> st.SearchStrategy[graphql.ValueNode]:
    """`_Any` values: mostly well-formed `{__typename, id}`, often not."""
    typename = st.sampled_from(["Entity", "Passage", "Document", "EntityHit", "Query", ""])
    good = st.builds(
        lambda t, i: nodes.Object([field("__typename", nodes.String(t)), field("id", i)]),
        typename,
        st.one_of(
            st.sampled_from(ids).map(nodes.String),
            st.uuids().map(nodes.String),
            st.text().map(nodes.String),
            st.integers().map(nodes.Int),
        ),
    )
    odd = st.one_of(
        st.text().map(nodes.String),
        st.integers().map(nodes.Int),
        st.just(nodes.Null),
        st.just(nodes.Object([])),
        st.builds(lambda i: nodes.Object([field("id", nodes.String(i))]), st.text()),
    )
    return st.one_of(good, good, odd)


# Words the seeded graph holds (names, labels, relation types, workspaces, the graph-owned
# `HAS_PART`), mixed with arbitrary text, so generated queries reach the searches, the walk and
# the scope checks instead of stopping at the first argument check.
WORDS = ["ada", "Ada Lovelace", "engine", "Person", "Org", "KNOWS", "WORKS_WITH", "HAS_PART"]
WORDS += ["acme", "globex"]


def register_scalars(ids: list[str]) -> None:
    """Built-in scalars biased towards meaningful values, and `_Any` (which needs one)."""
    schemathesis.graphql.scalar(
        "ID",
        st.one_of(st.sampled_from(ids), st.uuids().map(str), st.text()).map(nodes.String),
    )
    schemathesis.graphql.scalar(
        "Int", st.one_of(st.integers(-2, 12), st.integers(-(2**31), 2**31 - 1)).map(nodes.Int)
    )
    schemathesis.graphql.scalar(
        "String", st.one_of(st.sampled_from(WORDS), st.text()).map(nodes.String)
    )
    schemathesis.graphql.scalar("_Any", representation(ids))


@pytest.fixture(scope="module")
async def fuzz_graph(driver: neo4j.AsyncDriver) -> AsyncIterator[list[str]]:
    """A little of everything: two workspaces, versions, a running job, relations. Yields
    the ids it wrote."""
    graph = Graph(driver)
    await wipe(graph)
    builder = GraphBuilder(graph, dimension=TEST_DIMENSION)
    first = await builder.version(
        "acme",
        ["Ada Lovelace wrote the notes.", "Babbage built the engine."],
        mentions={"Ada": [0], "Babbage": [1]},
        relations=[("Ada", "WORKS_WITH", "Babbage", [0]), ("Ada", "KNOWS", "Babbage", None)],
    )
    written = [
        first,
        await builder.version(
            "acme", ["Ada, revised."], document_id=first.document_id, mentions={"Ada": [0]}
        ),
        await builder.version(
            "globex", ["Grace Hopper."], mentions={"Grace": [0]}, labels={"Grace": ["Org"]}
        ),
        await builder.version("acme", ["Unfinished."], mentions={"Ada": [0]}, commit=False),
    ]
    await apply_schema(graph, TEST_DIMENSION)
    yield [
        *builder.entity_ids.values(),
        *{v.document_id for v in written},
        *(p for v in written for p in v.passage_ids),
    ]


@pytest.fixture(scope="module")
def fuzz_service(
    fuzz_graph: list[str], neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    logs = tmp_path_factory.mktemp("fuzz")
    keys = logs / "keys.json"
    keys.write_text(json.dumps({API_KEY: ["acme"]}))
    environment = {
        "NEO4J_URI": neo4j_uri,
        "AUTH_MODE": "apikeys",
        "AUTH_API_KEYS_FILE": str(keys),
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
    }
    command = [sys.executable, "-m", "uvicorn", "--factory", "api.app:create_app"]
    command += ["--host", "127.0.0.1", "--port", "{port}", "--log-level", "warning"]
    with served_process(
        command,
        name="fuzzed",
        cwd=REPOSITORY,
        env=environment,
        probe_path="/healthz",
        log_dir=logs,
    ) as served:
        yield served


SDL = (REPOSITORY / "schema.graphql").read_text().rstrip("\n")
STRING_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def without_echoes(text: str, request: str) -> str:
    """`text` less the string literals of the request: an error may name the caller's own
    input (a workspace called "neo4j.conf"), which is no leak of the service's internals."""
    for literal in sorted(set(STRING_LITERAL.findall(request)), key=len, reverse=True):
        if len(literal) >= 3:
            text = text.replace(literal, "")
    return text


def problems(response: requests.Response, codes: Counter[str], request: str = "") -> list[str]:
    """What is wrong with one answer (nothing, for a clean one)."""
    found = [f"status {response.status_code}"] if response.status_code >= 500 else []
    try:
        body: Any = response.json()
    except ValueError:
        return [*found, f"not JSON: {response.text[:200]}"]
    if not isinstance(body, dict):
        return [*found, "not a JSON object"]
    service = ((body.get("data") or {}).get("_service") or {}) if "data" in body else {}
    if isinstance(service, dict) and "sdl" in service:
        # The published schema, the one body allowed to say what the service is built on.
        assert service.pop("sdl") == SDL
    leak = LEAKS.search(without_echoes(json.dumps(body, ensure_ascii=False), request))
    if leak:
        found.append(f"internals in the body: {leak.group()!r}")
    for error in body.get("errors") or []:
        code = (error.get("extensions") or {}).get("code")
        codes[str(code)] += 1
        if code not in SPEC_CODES:
            found.append(f"error coded {code!r}: {error.get('message')}")
    return found


def fuzz_operation(
    operation: Any,
    url: str,
    session: requests.Session,
    codes: Counter[str],
    failures: list[tuple[str, str, list[str]]],
) -> int:
    """Send `EXAMPLES_PER_OPERATION` generated queries of one root field; return how many."""
    sent = 0

    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy())
    def fuzz(case: Any) -> None:
        nonlocal sent
        response = case.call(base_url=url, session=session)
        sent += 1
        found = problems(response, codes, str(case.body))
        if found:
            failures.append((operation.label, str(case.body)[:500], found))

    fuzz()
    return sent


def test_fuzzed_operations_never_fail_or_leak(fuzz_service: Served, fuzz_graph: list[str]) -> None:
    register_scalars(fuzz_graph)
    introspection = dict(graphql.introspection_from_schema(create_schema()._schema))
    # Including every Query field explicitly brings in `_entities` and `_service`.
    schema = schemathesis.graphql.from_dict(introspection).include(name_regex=r"^Query\.")
    session = requests.Session()
    session.headers.update(
        {"authorization": f"Bearer {API_KEY}", "accept": "application/graphql-response+json"}
    )
    sent: dict[str, int] = {}
    codes: Counter[str] = Counter()
    failures: list[tuple[str, str, list[str]]] = []
    started = time.monotonic()
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result
        operation = result.ok()
        url = f"{fuzz_service.url}/graphql"
        sent[operation.label] = fuzz_operation(operation, url, session, codes, failures)
    log = Path(fuzz_service.log).read_text()
    OUTPUT.parent.mkdir(exist_ok=True)
    summary = {
        "operations": sum(sent.values()),
        "by_field": sent,
        "error_codes": dict(codes),
        "seconds": round(time.monotonic() - started, 1),
        "failures": len(failures),
    }
    OUTPUT.write_text(json.dumps(summary, indent=2))
    assert not failures, failures[:5]
    # The seven fields that take arguments send about that many each; `_service`,
    # `entityLabels` and `grantedWorkspaces` take none.
    assert sum(sent.values()) >= 6 * EXAMPLES_PER_OPERATION, summary
    assert len(sent) == 10, sent  # every root field, `_entities` and `_service` included
    assert "unexpected error" not in log and "Traceback" not in log, log[-3000:]
