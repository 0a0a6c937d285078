"""Apollo Client's persisted-query link (npm `@apollo/client`, tests/node/persisted.mjs) against the
service under uvicorn (api/front_door/persisted_queries.py): with automatic persisted queries the
first request of a document misses and is sent again with its text, and later ones are hits by hash;
in trusted-documents mode the examples' manifest answers at once by hash and a document outside it
is refused."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from api.front_door.trusted_documents import MANIFEST_NAME
from tests.support.graph_builder import GraphBuilder
from tests.support.node_tools import REPOSITORY, run_script
from tests.support.serving import Served, served_process, service_environment

EXAMPLES = REPOSITORY / "examples"
ENTITY_DETAIL = (EXAMPLES / "entity-detail.graphql").read_text()
UNKNOWN = "query Unknown($id: ID!) { entity(id: $id) { id name } }"


@contextmanager
def served(neo4j_uri: str, log_dir: Path, **settings: str) -> Iterator[Served]:
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "tests.support.served_app:create_test_app",
        "--host",
        "127.0.0.1",
        "--port",
        "{port}",
        "--log-level",
        "warning",
    ]
    with served_process(
        command,
        name="evidencegraph",
        cwd=REPOSITORY,
        env={**service_environment(neo4j_uri), **settings},
        probe_path="/healthz",
        log_dir=log_dir,
    ) as server:
        yield server


def apollo(server: Served, operations: list[dict[str, Any]], tmp_path: Path) -> Any:
    path = tmp_path / "operations.json"
    path.write_text(json.dumps(operations))
    return run_script("persisted.mjs", server.url + "/graphql", str(path))


async def test_apollo_clients_persisted_queries_miss_once_then_hit(
    neo4j_uri: str, builder: GraphBuilder, tmp_path: Path
) -> None:
    await builder.version("acme", ["Ada wrote notes."], mentions={"Ada": [0]})
    operation = {"query": ENTITY_DETAIL, "variables": {"id": builder.entity_id("Ada")}}
    with served(neo4j_uri, tmp_path) as server:
        seen = apollo(server, [operation] * 3, tmp_path)
    assert [(r["sentText"], r["sentHash"], r["codes"]) for r in seen["requests"]] == [
        (False, True, ["PERSISTED_QUERY_NOT_FOUND"]),  # the miss
        (True, True, []),  # sent again with its text, and kept
        (False, True, []),  # hits: the hash alone
        (False, True, []),
    ]
    assert [result["data"]["entity"]["name"] for result in seen["results"]] == ["Ada"] * 3


async def test_apollo_client_in_trusted_mode_gets_the_manifest_and_is_refused_the_rest(
    neo4j_uri: str, builder: GraphBuilder, tmp_path: Path
) -> None:
    await builder.version("acme", ["Ada wrote notes."], mentions={"Ada": [0]})
    variables = {"id": builder.entity_id("Ada")}
    operations = [
        {"query": ENTITY_DETAIL, "variables": variables},
        {"query": UNKNOWN, "variables": variables},
    ]
    manifest = str(EXAMPLES / MANIFEST_NAME)
    with served(neo4j_uri, tmp_path, GRAPHQL_TRUSTED_DOCUMENTS=manifest) as server:
        seen = apollo(server, operations, tmp_path)
    assert [(r["sentText"], r["codes"]) for r in seen["requests"]] == [
        (False, []),  # in the manifest: answered by its hash at once
        (False, ["PERSISTED_QUERY_NOT_FOUND"]),
        (True, ["QUERY_NOT_IN_SAFELIST"]),  # its text, refused
    ]
    assert seen["results"][0]["data"]["entity"]["name"] == "Ada"
    assert seen["results"][1] == {"data": None, "codes": ["QUERY_NOT_IN_SAFELIST"]}
