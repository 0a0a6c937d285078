"""An exclusive advisory lock on a file, held for the duration of a `with` block.

The jar cache and each server home are shared between processes (parallel test runs, a
developer's shell, CI reruns); `fcntl.flock` makes them take turns, and the kernel releases the
lock when a holder dies, so a killed process never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Block until this process holds the lock on `path` (created if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
