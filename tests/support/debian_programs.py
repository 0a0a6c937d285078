"""The Debian programs the tests drive as real parts: Chromium (the browser tests), redis-server
(the shared store of the front door, tests/support/redis_server.py) and nginx (the proxy of the
scale-out, tests/support/nginx_proxy.py).

Each is installed on first use with Debian's own client (`apt-get install`), so a fresh
clone's `make test` brings what it needs from the repository's own files; nothing else is
fetched. When one cannot be installed the test fails saying what is missing: it never skips.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
REDIS_SERVER = Path("/usr/bin/redis-server")
NGINX = Path("/usr/sbin/nginx")
INSTALL_LOCK = Path(tempfile.gettempdir()) / "evidencegraph-debian-install.lock"
DPKG_WAIT_SECONDS = 600


def set_up(command: list[str], cwd: Path | None = None, timeout: float = 600) -> str:
    """Run a set-up command (an install, a build); its output, or fail the test with it."""
    try:
        done = subprocess.run(
            command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.fail(f"`{' '.join(command)}` could not run: {error}", pytrace=False)
    if done.returncode != 0:
        pytest.fail(
            f"`{' '.join(command)}` failed ({done.returncode}):\n{done.stdout[-3000:]}"
            f"\n{done.stderr[-3000:]}",
            pytrace=False,
        )
    return done.stdout


def debian_program(program: Path, package: str) -> Path:
    """`program`, installed from Debian's `package` with apt-get when missing. The test
    workers of one run may need one at once: they take turns (a lock file), and apt-get waits
    for another dpkg rather than failing."""
    if program.is_file():
        return program
    if shutil.which("apt-get") is None:
        pytest.fail(
            f"{program} is missing and there is no apt-get to install it; install "
            f"Debian's `{package}` package.",
            pytrace=False,
        )
    with INSTALL_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not program.is_file():  # another worker may have installed it meanwhile
            waiting = ["-o", f"DPkg::Lock::Timeout={DPKG_WAIT_SECONDS}"]
            set_up(["apt-get", *waiting, "update"], timeout=900)
            set_up(["apt-get", *waiting, "install", "-y", package], timeout=1800)
    if not program.is_file():
        pytest.fail(f"`apt-get install {package}` did not provide {program}", pytrace=False)
    return program


def redis_server() -> Path:
    """Debian's redis-server (7.x), installed with apt-get when missing; never started as the
    system's service (the tests start their own)."""
    return debian_program(REDIS_SERVER, "redis-server")


def nginx() -> Path:
    """Debian's nginx, installed with apt-get when missing; the tests run it as their own child
    with a configuration of their own, never the system's service."""
    return debian_program(NGINX, "nginx")
