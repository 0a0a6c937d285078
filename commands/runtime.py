"""What every command that talks to Neo4j shares: settings from the environment, one driver,
and errors printed as one clear line with the right exit code."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

from api.lifespan import create_driver
from api.settings import Settings, SettingsError

# The exit codes are defined once, in commands.main, which imports no command module at load.
from commands.main import EXIT_FAILURE as EXIT_FAILURE
from commands.main import EXIT_OK as EXIT_OK
from commands.main import EXIT_USAGE as EXIT_USAGE
from contract.errors import BackendUnavailable
from graph.driver import Graph

log = logging.getLogger("evidencegraph")


def say(message: str) -> None:
    """A progress or error line for the person at the terminal: stderr, at once."""
    print(message, file=sys.stderr, flush=True)


@asynccontextmanager
async def open_graph(settings: Settings) -> AsyncIterator[Graph]:
    driver = create_driver(settings)
    try:
        yield Graph(driver, settings.neo4j_database)
    finally:
        await driver.close()


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
