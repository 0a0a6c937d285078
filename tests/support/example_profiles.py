"""The hypothesis profiles of the property tests that write a graph per example: a CI profile,
a thorough one and a quick one, the choice read from an environment variable. Every example
writes and reads the real Neo4j, so none is timed (`deadline=None`), and the graph fixture is a
function-scoped one used by every example on purpose (one app and schema per test run)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings


def graph_example_profiles(prefix: str, variable: str, ci: int, thorough: int, quick: int) -> str:
    """Register `<prefix>-ci`, `<prefix>-thorough` and `<prefix>-quick` with these numbers of
    examples; the name `variable` chooses, `<prefix>-ci` by default."""
    settings.register_profile(
        f"{prefix}-ci",
        max_examples=ci,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    parent = settings.get_profile(f"{prefix}-ci")
    settings.register_profile(f"{prefix}-thorough", parent=parent, max_examples=thorough)
    settings.register_profile(f"{prefix}-quick", parent=parent, max_examples=quick)
    return os.environ.get(variable, f"{prefix}-ci")
