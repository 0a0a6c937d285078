"""Tool arguments read from JSON, each wrong type or value refused as MALFORMED with the
argument's GraphQL name, exactly as the GraphQL fields refuse it (the SDK's own schema check is
off, so that every refusal carries the contract's code)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from contract.errors import Malformed
from contract.scope import Grant, Scope, effective_scope
from mcpserver import cursor


class Arguments:
    """One call's arguments; `done()` refuses any name the tool does not take."""

    def __init__(self, values: Mapping[str, Any] | None) -> None:
        self._values = dict(values or {})
        self._read: set[str] = set()

    def _get(self, name: str) -> Any:
        self._read.add(name)
        return self._values.get(name)

    def text(self, name: str) -> str:
        value = self._get(name)
        if not isinstance(value, str):
            raise Malformed(name, "a string is required")
        return value

    def integer(self, name: str, default: int) -> int:
        value = self._get(name)
        if value is None:
            return default
        # JSON has one number type; 3.0 is an integer, True is not, and neither is NaN or an
        # infinity (which Python's JSON reads, and which int() cannot convert).
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Malformed(name, "must be an integer")
        if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
            raise Malformed(name, "must be an integer")
        return int(value)

    def names(self, name: str) -> list[str] | None:
        return _names(self._values, name, name) if self._get(name) is not None else None

    def choice(self, name: str, choices: tuple[str, ...], default: str) -> str:
        value = self._get(name)
        if value is None:
            return default
        if value not in choices:
            raise Malformed(name, f"must be one of {', '.join(choices)}")
        return str(value)

    def scope(self, grant: Grant) -> Scope:
        """The effective scope (contract §1) of the optional `scope` argument."""
        value = self._get("scope")
        if value is None:
            return effective_scope(grant)
        if not isinstance(value, dict) or set(value) - {"workspaces", "documentIds"}:
            raise Malformed("scope", "an object with `workspaces` and/or `documentIds`")
        return effective_scope(grant, _names(value, "workspaces"), _names(value, "documentIds"))

    def position(self, tool: str) -> int:
        """Where the optional `cursor` argument continues this call's answer; 0 without one."""
        value = self._get(cursor.ARGUMENT)
        return 0 if value is None else cursor.decode(value, tool, self._values)

    def cursor_at(self, tool: str, position: int) -> str:
        """The cursor that continues this call's answer at `position`."""
        return cursor.encode(tool, self._values, position)

    def done(self) -> None:
        unknown = sorted(set(self._values) - self._read)
        if unknown:
            raise Malformed(unknown[0], "this tool takes no such argument")


def _names(values: Mapping[str, Any], key: str, argument: str | None = None) -> list[str] | None:
    value = values.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise Malformed(argument or f"scope.{key}", "must be a list of strings")
    return value
