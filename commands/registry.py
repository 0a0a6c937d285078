"""The command groups `evidencegraph` offers, in help order."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from commands import (
    delete_command,
    demo_command,
    eval_command,
    export_schema_command,
    graph_schema_command,
    jobs_command,
    load_command,
    mcp_command,
    neo4j_command,
    purge_command,
    reembed_command,
    serve_command,
    vectors_command,
)

Register = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

REGISTERED: list[Register] = [
    demo_command.register,
    serve_command.register,
    mcp_command.register,
    neo4j_command.register,
    graph_schema_command.register,
    load_command.register,
    eval_command.register,
    jobs_command.register,
    delete_command.register,
    purge_command.register,
    reembed_command.register,
    vectors_command.register,
    export_schema_command.register,
]
