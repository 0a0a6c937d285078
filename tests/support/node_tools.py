"""The outside tools the client tests drive: Node with the packages `tests/node/package.json`
pins, the GraphiQL files `web/package.json` pins, the evidence explorer `explorer/` builds, and
Debian's Chromium.

Each is installed on first use by its ordinary client (`npm ci` from the committed lockfile,
`apt-get install chromium`) and nothing is fetched at run time otherwise. When one cannot be
installed the test fails saying what is missing and how to install it: it never skips.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.debian_programs import CHROMIUM, debian_program, set_up

REPOSITORY = Path(__file__).resolve().parents[2]
NODE_DIR = REPOSITORY / "tests" / "node"
WEB_DIR = REPOSITORY / "web"
EXPLORER_DIR = REPOSITORY / "explorer"

MINIMUM_NODE_MAJOR = 20


def node() -> str:
    """The `node` executable (Node 20 or later), or fail saying how to get it."""
    found = shutil.which("node")
    if found is None or shutil.which("npm") is None:
        pytest.fail(
            "Node.js 20+ with npm is needed for the client tests (gateway, audit, browser); "
            "install it (e.g. `apt-get install nodejs npm`).",
            pytrace=False,
        )
    version = set_up([found, "--version"]).strip().lstrip("v")
    if int(version.split(".")[0]) < MINIMUM_NODE_MAJOR:
        pytest.fail(f"Node {version} is too old: the client tests need Node 20+.", pytrace=False)
    return found


def npm_packages(directory: Path) -> Path:
    """`directory/node_modules`, installed from its lockfile (`npm ci`) when missing."""
    node()
    if not (directory / "node_modules" / ".package-lock.json").is_file():
        set_up(["npm", "ci", "--no-audit", "--no-fund"], cwd=directory)
    return directory / "node_modules"


def explorer_built() -> Path:
    """`explorer/dist`, built from the lock (`npm ci`, `npm run build`) when it is missing or
    older than a source, as `make setup` builds it."""
    npm_packages(EXPLORER_DIR)
    built = EXPLORER_DIR / "dist" / "index.html"
    sources = [
        *(EXPLORER_DIR / "src").rglob("*"),
        *(EXPLORER_DIR / "scripts").rglob("*"),
        *(EXPLORER_DIR / name for name in ("index.html", "vite.config.ts", "codegen.ts")),
        REPOSITORY / "schema.graphql",
    ]
    newest = max(path.stat().st_mtime for path in sources if path.is_file())
    if not built.is_file() or built.stat().st_mtime < newest:
        set_up(["npm", "run", "build"], cwd=EXPLORER_DIR)
    return EXPLORER_DIR / "dist"


def chromium() -> Path:
    """Debian's Chromium, installed with apt-get when missing."""
    return debian_program(CHROMIUM, "chromium")


def run_script(
    script: str, *arguments: str, env: dict[str, str] | None = None, timeout: float = 300
) -> Any:
    """Run `tests/node/<script>` and return the JSON it prints last; fail on a crash."""
    npm_packages(NODE_DIR)
    done = subprocess.run(
        [node(), script, *arguments],
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        pytest.fail(
            f"node {script} exited {done.returncode} without a JSON result:\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}",
            pytrace=False,
        )
