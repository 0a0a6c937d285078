"""The command groups `evidencegraph` offers, in help order."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from commands import schema_command

Register = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

REGISTERED: list[Register] = [
    schema_command.register,
]
