"""What every command that talks to Neo4j shares: settings from the environment, one driver
(`api.lifespan.open_graph`), and errors printed as one clear line with the right exit code."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from api.settings import Settings, SettingsError
from commands.exit_codes import EXIT_FAILURE, EXIT_USAGE
from contract.errors import BackendUnavailable

log = logging.getLogger("evidencegraph")


def say(message: str) -> None:
    """A progress or error line for the person at the terminal: stderr, at once."""
    print(message, file=sys.stderr, flush=True)


def run_command(work: Callable[[Settings], Coroutine[Any, Any, int]]) -> int:
    """Run an async command body with settings from the environment; map failures to exits."""
    try:
        settings = Settings.from_environ()
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return asyncio.run(work(settings))
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BackendUnavailable:
        print(
            f"error: Neo4j cannot be reached at {settings.neo4j_uri}. "
            "Start it (`evidencegraph neo4j start`) or set NEO4J_URI.",
            file=sys.stderr,
        )
        return EXIT_FAILURE
