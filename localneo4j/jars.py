"""The Neo4j Community jars, fetched once per machine with Maven and shared by every home.

Neo4j publishes its server as ordinary jars; `pom.xml` (next to this module) names one
dependency, `org.neo4j:neo4j`, whose runtime closure is the whole server (about 210 jars,
120 MB). They live in `<cache_root>/neo4j-<version>/lib`, outside any working tree, so every
server home, test run and CI rerun on the machine reuses one copy.

A fetch copies into a staging directory next to `lib` and renames it into place only once it
is complete (a marker file inside says so), so a fetch killed half-way never leaves a partial
cache that later starts would trust.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from localneo4j.errors import Neo4jUnavailable
from localneo4j.filelock import file_lock

NEO4J_VERSION = "5.26.31"

# Written last into a complete lib directory; its absence means "not fetched".
COMPLETE_MARKER = ".complete"
_STAGING_PREFIX = "lib.partial-"
# A cold fetch took 29 s here; allow for a slow network before calling it a failure.
_FETCH_TIMEOUT_SECONDS = 30 * 60
_OUTPUT_TAIL_LINES = 60


def cache_root() -> Path:
    """`$EVIDENCEGRAPH_CACHE`, or `~/.cache/evidencegraph` when it is unset or empty."""
    configured = os.environ.get("EVIDENCEGRAPH_CACHE", "")
    if configured:
        return Path(configured).expanduser().resolve()
    return Path.home() / ".cache" / "evidencegraph"


def lib_dir() -> Path:
    """Where the jars of `NEO4J_VERSION` live once fetched (they may not be there yet)."""
    return cache_root() / f"neo4j-{NEO4J_VERSION}" / "lib"


def ensure_jars(log: Callable[[str], None] = print) -> Path:
    """Return the complete lib directory, fetching it with Maven first if needed.

    Raises `Neo4jUnavailable`, carrying Maven's output, when the fetch fails.
    """
    lib = lib_dir()
    if (lib / COMPLETE_MARKER).is_file():
        return lib
    with file_lock(lib.parent / "fetch.lock"):
        # Another process may have completed the fetch while this one waited for the lock.
        if not (lib / COMPLETE_MARKER).is_file():
            _fetch(lib, log)
    return lib


def _fetch(lib: Path, log: Callable[[str], None]) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise Neo4jUnavailable(
            "Maven (`mvn`) is not on PATH; it is needed once per machine to fetch the Neo4j "
            f"{NEO4J_VERSION} jars into {lib}. Install Maven 3.6 or newer and try again."
        )
    # Holding the lock means nobody else is fetching: leftovers are from killed fetches, and a
    # lib directory without its marker was never completed by this module.
    for leftover in lib.parent.glob(f"{_STAGING_PREFIX}*"):
        shutil.rmtree(leftover, ignore_errors=True)
    if lib.exists():
        shutil.rmtree(lib)
    # Run Maven on a copy of the pom in the cache, so it never writes next to the installed one.
    pom = lib.parent / "pom.xml"
    pom.write_bytes(resources.files("localneo4j").joinpath("pom.xml").read_bytes())
    staging = Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=lib.parent))
    log(f"Fetching the Neo4j {NEO4J_VERSION} jars (about 120 MB, once per machine) into {lib}")
    began = time.monotonic()
    try:
        _copy_dependencies(mvn, pom, staging)
        jars = sorted(path.name for path in staging.glob("*.jar"))
        (staging / COMPLETE_MARKER).write_text("\n".join(jars) + "\n", encoding="utf-8")
        staging.rename(lib)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    log(f"Fetched {len(jars)} jars in {time.monotonic() - began:.0f} s")


def _copy_dependencies(mvn: str, pom: Path, output: Path) -> None:
    command = [
        mvn,
        "-B",
        "-q",
        "-f",
        str(pom),
        "dependency:copy-dependencies",
        "-DincludeScope=runtime",
        f"-DoutputDirectory={output}",
    ]
    try:
        result = subprocess.run(  # noqa: S603 (fixed arguments; mvn found on PATH)
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=_FETCH_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise Neo4jUnavailable(
            f"Maven did not finish fetching the Neo4j jars within {_FETCH_TIMEOUT_SECONDS} s."
        ) from error
    expected = output / f"neo4j-{NEO4J_VERSION}.jar"
    if result.returncode != 0 or not expected.is_file():
        tail = "\n".join(result.stdout.splitlines()[-_OUTPUT_TAIL_LINES:])
        raise Neo4jUnavailable(
            f"Fetching the Neo4j {NEO4J_VERSION} jars failed (mvn exit code "
            f"{result.returncode}{'' if result.returncode else f', no {expected.name}'}). "
            "Check that Maven can reach its repository (proxy settings live in "
            f"~/.m2/settings.xml). Command: {' '.join(command)}\n--- mvn output ---\n{tail}"
        )
