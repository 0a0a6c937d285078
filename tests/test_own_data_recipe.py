"""The README's "Loading your own data", run as written: examples/own-data-recipe.sh loads a
GraphRAG folder into a workspace, prints its document ids, lists its documents, writes an API key
file for the workspace, serves with AUTH_MODE=apikeys, queries with the key and has a wrong key
refused, against the test session's Neo4j (the test embedder, so it takes seconds)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from graph.document_list import list_documents
from graph.driver import Graph
from tests.conftest import TEST_DIMENSION
from tests.support.node_tools import REPOSITORY
from tests.support.serving import free_port

RECIPE = REPOSITORY / "examples" / "own-data-recipe.sh"


def run_recipe(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The script in a process group of its own, so that a time-out ends the service it started
    as well (its EXIT trap does not run when it is killed)."""
    process = subprocess.Popen(
        [str(RECIPE)],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        # Seconds on a quiet machine; minutes when six engineers' tests share its 2 cores.
        out, err = process.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"the recipe did not finish within 900 s:\n{out}\n{err}")
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


async def test_the_own_data_recipe_runs_as_the_readme_says(
    neo4j_uri: str, graph: Graph, tmp_path: Path
) -> None:
    keys_file = tmp_path / "config" / "api-keys.json"
    keys_file.parent.mkdir()
    # A key handed out before, for another workspace, is kept.
    keys_file.write_text(json.dumps({"an-existing-key-for-globex-0123": ["globex"]}))
    bin_dir = Path(sys.executable).parent
    environment = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "NEO4J_URI": neo4j_uri,
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
        "EVIDENCEGRAPH": str(bin_dir / "evidencegraph"),
        "PYTHON": sys.executable,
        "WORKSPACE": "dulce",
        "PORT": str(free_port()),
        "KEYS_FILE": str(keys_file),
        "QUERY": "Alex Mercer",
        # What is checked is the recipe, not its time: a busy 2-core machine can take more
        # than the default 10 s for the first search on a cold page cache.
        "NEO4J_QUERY_TIMEOUT_SECONDS": "120",
        "REQUEST_TIMEOUT_SECONDS": "150",
        "READY_SECONDS": "600",
    }
    done = await asyncio.to_thread(run_recipe, environment)
    out = done.stdout
    assert done.returncode == 0, f"{out}\n{done.stderr}"

    # The load named the one document of the folder, which `documents` then lists.
    [listed] = await list_documents(graph, "dulce")
    assert f"document {listed.id} (new) in dulce: " in out
    assert f"\n{listed.id}\tdulce\t1\t{listed.passages}\t" in out
    assert f"workspaces: dulce (1 document, {listed.passages} passages)" in out

    # The key file grants the workspace, readable by its owner only.
    keys = json.loads(keys_file.read_text())
    [key] = [key for key, granted in keys.items() if granted == ["dulce"]]
    assert len(key) >= 32
    assert keys_file.stat().st_mode & 0o077 == 0
    assert keys["an-existing-key-for-globex-0123"] == ["globex"] and len(keys) == 2

    # The query with the key found evidence in the workspace; the wrong key was refused.
    assert "evidence from ['dulce']" in out
    assert "status 401" in out and '"UNAUTHENTICATED"' in out
    # Nothing of the key reached the output.
    assert key not in out and key not in done.stderr
