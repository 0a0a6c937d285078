"""Every test module starts from the known graph, and a module that leaves anything behind is
named (tests/support/known_graph.py, `module_starts_from_known_graph` in tests/conftest.py).

The check is proven twice: `leftovers` against the session's real server, and a whole pytest run
of two modules (a subprocess, against this worker's server through `NEO4J_URI`, so no second
JVM starts) in which the first leaves an index and a node behind and the second, run after it,
still starts from the known graph.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import neo4j

from graph.driver import Graph
from tests.support import known_graph

LEAKY_MODULE = textwrap.dedent(
    """
    def test_leaves_an_index_and_a_node(known_graph_driver):
        known_graph_driver.execute_query(
            "CREATE VECTOR INDEX probe_vectors IF NOT EXISTS FOR (n:Probe) ON (n.embedding)"
            " OPTIONS {indexConfig: {`vector.dimensions`: 3}}"
        )
        known_graph_driver.execute_query("CREATE (:Probe {name: 'left'})")
    """
)

NEXT_MODULE = textwrap.dedent(
    """
    def test_starts_from_the_known_graph(known_graph_driver, server_settings_at_start):
        left = known_graph.leftovers(known_graph_driver, server_settings_at_start)
        assert not left, str(left)
    """
)


async def test_leftovers_names_each_thing_the_known_graph_does_not_hold(
    graph: Graph, known_graph_driver: neo4j.Driver, server_settings_at_start: dict[str, str]
) -> None:
    assert not known_graph.leftovers(known_graph_driver, server_settings_at_start)
    await graph.write("CREATE FULLTEXT INDEX probe_names FOR (n:Probe) ON EACH [n.name]", {})
    await graph.write("DROP INDEX chunk_job_id", {})
    await graph.write("CREATE (:Probe)-[:NEXT]->(:Probe)", {})

    left = str(known_graph.leftovers(known_graph_driver, server_settings_at_start))

    assert "nodes (the 5 largest label sets: 2 Probe)" in left
    assert "1 relationships" in left
    assert "indexes or constraints the service does not create: ['probe_names']" in left
    assert "the service's own indexes or constraints dropped: ['chunk_job_id']" in left
    known_graph.reset(known_graph_driver)
    assert not known_graph.leftovers(known_graph_driver, server_settings_at_start)


def test_a_changed_setting_is_named(known_graph_driver: neo4j.Driver) -> None:
    now = known_graph.settings(known_graph_driver)
    as_if_started_with = {**now, "db.transaction.timeout": "1s"}

    left = str(known_graph.leftovers(known_graph_driver, as_if_started_with))

    assert f"db.transaction.timeout: '1s' -> {now['db.transaction.timeout']!r}" in left


def test_a_module_that_leaves_anything_behind_fails_by_name_and_the_next_starts_known(
    neo4j_uri: str, tmp_path: Path, known_graph_driver: neo4j.Driver
) -> None:
    (tmp_path / "test_a_leaky.py").write_text(LEAKY_MODULE)
    (tmp_path / "test_b_next.py").write_text(
        "from tests.support import known_graph\n" + NEXT_MODULE
    )
    try:
        run = subprocess.run(
            [
                *(sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:randomly"),
                *("-p", "no:cacheprovider", "-q", "-rA", "-o", "addopts="),
                *("-o", "asyncio_default_fixture_loop_scope=session"),
                *("test_a_leaky.py", "test_b_next.py"),
            ],
            env={**os.environ, "NEO4J_URI": neo4j_uri},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        known_graph.reset(known_graph_driver)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "2 passed, 1 error" in out, out
    assert "test_a_leaky.py left behind: nodes (the 5 largest label sets: 1 Probe)" in out, out
    assert "indexes or constraints the service does not create: ['probe_vectors']" in out, out
    assert "PASSED test_b_next.py::test_starts_from_the_known_graph" in out, out
