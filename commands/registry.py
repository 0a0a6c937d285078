"""The command groups `evidencegraph` offers, in help order, by the module that holds each.

A command's module is imported only when it is needed: to run that command, or for the full
help. `evidencegraph load` then starts without the GraphQL server, the MCP server and their
dependencies (about a second of CPU on this machine, per process).
"""

from __future__ import annotations

import argparse
import importlib
from typing import Protocol

# Each module's `register(subcommands)` adds the parser of the command named here.
COMMANDS: dict[str, str] = {
    "demo": "commands.demo_command",
    "serve": "commands.serve_command",
    "mcp": "commands.mcp_command",
    "neo4j": "commands.neo4j_command",
    "schema": "commands.graph_schema_command",
    "load": "commands.load_command",
    "documents": "commands.documents_command",
    "eval": "commands.eval_command",
    "jobs": "commands.jobs_command",
    "delete": "commands.delete_command",
    "purge": "commands.purge_command",
    "reembed": "commands.reembed_command",
    "vectors": "commands.vectors_command",
    "export-schema": "commands.export_schema_command",
}


class _CommandModule(Protocol):
    def register(self, subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """Adds the command's parser and sets its `handler`."""


def register(
    subcommands: argparse._SubParsersAction[argparse.ArgumentParser], command: str | None = None
) -> None:
    """Adds the parser of `command` when it names one, else of every command (for the help,
    or an error that lists them)."""
    names = [command] if command in COMMANDS else list(COMMANDS)
    for name in names:
        module: _CommandModule = importlib.import_module(COMMANDS[name])
        module.register(subcommands)
