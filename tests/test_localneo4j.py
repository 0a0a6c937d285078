"""`localneo4j` and `evidencegraph neo4j`: a real Neo4j 5.26 Community, fetched, started, queried
and stopped (contract §11).

Nothing skips. The module reads the test session's own real server, which `private_server`
started in a temporary home on a free loopback port (never 7687: other test runs share the
machine), or starts one like it when the session uses `NEO4J_URI`'s; the stop test starts a
server of its own, and the start-up failure tests start real JVMs that really fail. Only the
Maven and Java failure paths use stand-in executables, since a broken Maven or an old Java
cannot be had for real.
"""

from __future__ import annotations

import os
import re
import socket
import stat
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from xml.etree import ElementTree

import pytest
from neo4j import Driver, GraphDatabase
from neo4j.exceptions import ServiceUnavailable

from commands.main import main
from localneo4j import server as server_module
from localneo4j.jars import COMPLETE_MARKER
from localneo4j.launch import java_major_version, server_settings
from localneo4j.pytest_server import private_server
from localneo4j.server import (
    NEO4J_VERSION,
    PID_FILE,
    LocalServer,
    Neo4jUnavailable,
    PortInUse,
    ServerStatus,
    cache_root,
    ensure_jars,
    free_port,
    start,
    status,
    stop,
)


@pytest.fixture(scope="module")
def server(
    session_server: LocalServer | None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalServer]:
    """The test session's own server, started by `private_server` like any other (a JVM start
    is the slowest step of a run, and these tests only read it or start it again, which
    returns it); a server of the module's own when the session uses `NEO4J_URI`'s. The tests
    that stop a server or make one fail start their own."""
    if session_server is not None:
        yield session_server
        return
    started = private_server(tmp_path_factory.mktemp("neo4j"))
    try:
        yield started
    finally:
        stop(started.home)


@pytest.fixture(scope="module")
def driver(server: LocalServer) -> Iterator[Driver]:
    with GraphDatabase.driver(server.bolt_uri, auth=None) as bolt:
        yield bolt


def test_the_server_is_neo4j_5_26_community(driver: Driver) -> None:
    records, _, _ = driver.execute_query(
        "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition"
    )
    components = [(r["name"], r["versions"], r["edition"]) for r in records]
    assert components == [("Neo4j Kernel", [NEO4J_VERSION], "community")]


@pytest.fixture
def probe_tidied(driver: Driver) -> Iterator[None]:
    """The probe's nodes and indexes go when the test ends: they live in the session's own
    server, which the next module on this worker reads (a 3-dimensional vector index left here
    once stopped every app of test_graphql_http.py at start, whose embedder makes 8)."""
    yield
    driver.execute_query("DROP INDEX probe_names IF EXISTS")
    driver.execute_query("DROP INDEX probe_vectors IF EXISTS")
    driver.execute_query("MATCH (n:Probe) DELETE n")


@pytest.mark.usefixtures("probe_tidied")
def test_fulltext_and_vector_indexes_come_online_and_answer(driver: Driver) -> None:
    rows = [
        {"name": "graphite pencil", "embedding": [1.0, 0.0, 0.0]},
        {"name": "ink fountain pen", "embedding": [0.0, 1.0, 0.0]},
        {"name": "graphite powder", "embedding": [0.7, 0.0, 0.7]},
    ]
    # Data first, indexes second: population of existing nodes is the path that has stalled.
    driver.execute_query(
        "UNWIND $rows AS row CREATE (:Probe {name: row.name, embedding: row.embedding})",
        rows=rows,
    )
    driver.execute_query(
        "CREATE FULLTEXT INDEX probe_names IF NOT EXISTS FOR (n:Probe) ON EACH [n.name]"
    )
    driver.execute_query(
        "CREATE VECTOR INDEX probe_vectors IF NOT EXISTS FOR (n:Probe) ON (n.embedding) "
        "OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'cosine'}}"
    )
    driver.execute_query("CALL db.awaitIndexes(120)")

    indexes, _, _ = driver.execute_query(
        "SHOW INDEXES YIELD name, type, state WHERE name STARTS WITH 'probe_' "
        "RETURN name, type, state ORDER BY name"
    )
    assert [(i["name"], i["type"], i["state"]) for i in indexes] == [
        ("probe_names", "FULLTEXT", "ONLINE"),
        ("probe_vectors", "VECTOR", "ONLINE"),
    ]

    by_words, _, _ = driver.execute_query(
        "CALL db.index.fulltext.queryNodes('probe_names', $q, {limit: $k}) YIELD node, score "
        "RETURN node.name AS name, score",
        q="graphite",
        k=5,
    )
    assert sorted(r["name"] for r in by_words) == ["graphite pencil", "graphite powder"]
    assert all(r["score"] > 0 for r in by_words)

    by_vector, _, _ = driver.execute_query(
        "CALL db.index.vector.queryNodes('probe_vectors', $k, $vector) YIELD node, score "
        "RETURN node.name AS name, score",
        k=2,
        vector=[0.9, 0.1, 0.0],
    )
    assert [r["name"] for r in by_vector] == ["graphite pencil", "graphite powder"]
    assert by_vector[0]["score"] > by_vector[1]["score"]


def test_status_reports_the_running_server(server: LocalServer) -> None:
    assert status(server.home) == ServerStatus(
        running=True, pid=server.pid, bolt_uri=server.bolt_uri, home=server.home
    )
    assert server.bolt_uri == f"bolt://127.0.0.1:{server.port}"
    assert server.port != 7687


def test_start_again_returns_the_running_server(server: LocalServer) -> None:
    assert start(server.home) == server
    assert start(server.home, port=server.port) == server
    assert start(server.home, port=0) == server
    with pytest.raises(Neo4jUnavailable, match=f"already runs on port {server.port}"):
        start(server.home, port=free_port())


def test_cli_start_prints_the_uri_of_the_running_server(
    server: LocalServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["neo4j", "start", "--home", str(server.home)]) == 0
    assert capsys.readouterr().out == f"{server.bolt_uri}\n"

    assert main(["neo4j", "status", "--home", str(server.home)]) == 0
    out = capsys.readouterr().out
    assert server.bolt_uri in out
    assert str(server.pid) in out
    assert str(server.home) in out


def test_cli_status_of_a_home_without_server_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["neo4j", "status", "--home", str(tmp_path)]) == 1
    assert "Not running" in capsys.readouterr().out
    assert main(["neo4j", "stop", "--home", str(tmp_path)]) == 0


@pytest.mark.parametrize(
    "argv",
    [["neo4j"], ["neo4j", "restart"], ["neo4j", "start", "--port", "70000"]],
    ids=["no-action", "unknown-action", "bad-port"],
)
def test_cli_bad_usage_exits_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2


@pytest.mark.slow
def test_stop_ends_the_server_and_frees_its_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = start(tmp_path / "home", port=0)
    assert (own.home / "run" / PID_FILE).is_file()

    assert main(["neo4j", "stop", "--home", str(own.home)]) == 0
    assert "Stopped" in capsys.readouterr().out

    assert status(own.home) == ServerStatus(running=False, pid=None, bolt_uri=None, home=own.home)
    assert not (own.home / "run" / PID_FILE).exists()
    with pytest.raises(ProcessLookupError):
        os.kill(own.pid, 0)
    with GraphDatabase.driver(own.bolt_uri, auth=None) as bolt, pytest.raises(ServiceUnavailable):
        bolt.verify_connectivity()
    with socket.socket() as probe:
        # As a server binds: the closed connections' TIME_WAIT does not block a new listener.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", own.port))
    assert stop(own.home) is False


def test_an_occupied_port_is_named_before_anything_starts(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        expected = re.escape(f"Port {port} on 127.0.0.1 is already in use")
        with pytest.raises(PortInUse, match=expected):
            start(tmp_path / "home", port=port)
    assert not status(tmp_path / "home").running


@pytest.mark.slow
def test_the_servers_own_bind_failure_comes_with_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another process can take the port between the check and the server binding it; pretend
    # the check passed, so the server itself meets the taken port.
    monkeypatch.setattr(server_module, "port_taken", lambda port: False)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(PortInUse) as failure:
            start(tmp_path / "home", port=port)
    message = str(failure.value)
    assert "exited during start-up" in message
    assert f"lines of {tmp_path / 'home' / 'logs' / 'console.log'}" in message
    assert "Address already in use" in message
    assert not status(tmp_path / "home").running
    assert not (tmp_path / "home" / "run" / PID_FILE).exists()


def test_an_unknown_setting_fails_with_the_servers_log(tmp_path: Path) -> None:
    with pytest.raises(Neo4jUnavailable) as failure:
        start(tmp_path / "home", port=0, settings={"dbms.no_such_setting": "true"})
    message = str(failure.value)
    assert "exited during start-up" in message
    assert "console.log" in message
    # Neo4j's own words about the key: the log, not our message, names it.
    assert "Unrecognized setting. No declared setting with name: dbms.no_such_setting" in message
    assert not status(tmp_path / "home").running


def test_jars_are_cached_complete_outside_the_working_tree() -> None:
    lib = ensure_jars()
    assert lib == cache_root() / f"neo4j-{NEO4J_VERSION}" / "lib"
    assert (lib / COMPLETE_MARKER).is_file()
    assert (lib / f"neo4j-{NEO4J_VERSION}.jar").is_file()
    assert len(list(lib.glob("*.jar"))) > 150
    assert Path.cwd() not in lib.parents


def _fake_executable(path: Path, script: str) -> Path:
    path.write_text(f"#!/bin/sh\n{script}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_failed_fetch_carries_mavens_output_and_leaves_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_executable(bin_dir / "mvn", 'echo "[ERROR] Could not resolve org.neo4j:neo4j"; exit 1')
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("EVIDENCEGRAPH_CACHE", str(tmp_path / "cache"))
    with pytest.raises(Neo4jUnavailable, match=re.escape("Could not resolve org.neo4j:neo4j")):
        ensure_jars(log=lambda message: None)
    version_dir = tmp_path / "cache" / f"neo4j-{NEO4J_VERSION}"
    assert sorted(p.name for p in version_dir.iterdir()) == ["fetch.lock", "pom.xml"]


def test_a_fetch_replaces_what_killed_fetches_left_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # Stands in for Maven: writes the two jars it is "asked" for into -DoutputDirectory.
    _fake_executable(
        bin_dir / "mvn",
        'for a in "$@"; do case "$a" in -DoutputDirectory=*) out="${a#*=}";; esac; done\n'
        f'touch "$out/neo4j-{NEO4J_VERSION}.jar" "$out/neo4j-kernel-{NEO4J_VERSION}.jar"',
    )
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("EVIDENCEGRAPH_CACHE", str(tmp_path / "cache"))
    version_dir = tmp_path / "cache" / f"neo4j-{NEO4J_VERSION}"
    (version_dir / "lib.partial-killed").mkdir(parents=True)
    (version_dir / "lib").mkdir()  # no marker: a copy nobody finished
    (version_dir / "lib" / "half.jar").touch()

    lib = ensure_jars(log=lambda message: None)

    assert sorted(p.name for p in lib.iterdir()) == [
        COMPLETE_MARKER,
        f"neo4j-{NEO4J_VERSION}.jar",
        f"neo4j-kernel-{NEO4J_VERSION}.jar",
    ]
    assert not list(version_dir.glob("lib.partial-*"))


def test_the_pom_pins_the_version_the_code_names() -> None:
    pom = ElementTree.fromstring(resources.files("localneo4j").joinpath("pom.xml").read_bytes())
    dependencies = {d.findtext("artifactId"): d.findtext("version") for d in pom.iter("dependency")}
    assert dependencies == {"neo4j": NEO4J_VERSION}
    plugins = {p.findtext("artifactId"): p.findtext("version") for p in pom.iter("plugin")}
    plugin_version = tuple(int(part) for part in str(plugins["maven-dependency-plugin"]).split("."))
    assert plugin_version >= (3, 6, 1)


def test_an_unsupported_java_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bin").mkdir()
    banner = 'openjdk version "11.0.2" 2019-01-15'
    _fake_executable(tmp_path / "bin" / "java", f"echo '{banner}' >&2")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(Neo4jUnavailable, match=r"runs on Java 17 or 21, but .* is Java 11"):
        start(tmp_path / "home", port=0)


@pytest.mark.parametrize(
    ("banner", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('openjdk version "21" 2023-09-19', 21),
        ('java version "1.8.0_402"', 8),
        ("no version here", None),
    ],
)
def test_java_major_version(banner: str, major: int | None) -> None:
    assert java_major_version(banner) == major


def test_cache_root_honours_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVIDENCEGRAPH_CACHE", "/srv/eg-cache")
    assert cache_root() == Path("/srv/eg-cache")
    monkeypatch.delenv("EVIDENCEGRAPH_CACHE")
    assert cache_root() == Path.home() / ".cache" / "evidencegraph"


def test_settings_keep_the_server_on_loopback(tmp_path: Path) -> None:
    settings = server_settings(tmp_path, 12345)
    assert settings["server.default_listen_address"] == "127.0.0.1"
    assert settings["server.bolt.listen_address"] == "127.0.0.1:12345"
    assert settings["dbms.usage_report.enabled"] == "false"
    assert settings["server.directories.data"] == str(tmp_path / "data")
    with pytest.raises(ValueError, match=re.escape("server.default_listen_address")):
        server_settings(tmp_path, 12345, {"server.default_listen_address": "0.0.0.0"})
