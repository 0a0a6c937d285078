"""Which checkout a bench runs: its own virtual environment's commands.

A before-and-after comparison runs the service from another checkout (`--tree`, say one of
`main`). That checkout's code must run with the packages it pinned, so its commands come from
its own `.venv` (`make setup` there installs the checkout itself as an editable package); a
checkout without one runs with this environment's commands, its code first on the path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent


def executable(tree: Path, name: str) -> str:
    """`name` (`python`, `evidencegraph`) from `tree`'s own environment, else this one's."""
    own = tree.resolve() / ".venv" / "bin" / name
    if own.exists():
        return str(own)
    return str(Path(sys.executable).parent / name)


def environment(tree: Path, settings: Mapping[str, str]) -> dict[str, str]:
    """This process's environment plus `settings`, with `tree`'s code first on the path."""
    return {**os.environ, **settings, "PYTHONPATH": str(tree.resolve())}
