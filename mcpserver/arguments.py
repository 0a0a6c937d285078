"""Tool arguments read from JSON, each wrong type or value refused as MALFORMED with the
argument's GraphQL name, exactly as the GraphQL fields refuse it (the SDK's own schema check is
off, so that every refusal carries the contract's code).

MCP's own leniency and help (issue 39, points 3 and 6): an id written in upper case is read in
lower case (a UUID's letters are case-blind; GraphQL still asks for the canonical form), and an
argument the tool does not take is refused with the names of those it takes."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from contract.errors import Malformed
from contract.scope import Grant, Scope, effective_scope
from mcpserver import cursor

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def lower_uuid(value: str) -> str:
    """A UUID in lower case; anything else as it is (and refused by the id check).

    >>> lower_uuid("1A2A301E-E03E-5C31-AF62-20B272DCA25E"), lower_uuid("Dulce")
    ('1a2a301e-e03e-5c31-af62-20b272dca25e', 'Dulce')
    """
    return value.lower() if _UUID.fullmatch(value) else value


@dataclass(frozen=True, slots=True)
class ScopeRequest:
    """The optional `scope` argument as given: what it names, not yet checked against the
    grant (mcpserver/known_names.py does, then contract/scope.py)."""

    workspaces: list[str] | None = None
    document_ids: list[str] | None = None

    def effective(self, grant: Grant) -> Scope:
        return effective_scope(grant, self.workspaces, self.document_ids)


class Arguments:
    """One call's arguments; `done()` refuses any name the tool does not take, naming those it
    takes (`accepted`, the tool's schema's properties)."""

    def __init__(self, values: Mapping[str, Any] | None, accepted: Sequence[str] = ()) -> None:
        self._values = dict(values or {})
        self._read: set[str] = set()
        self._accepted = tuple(accepted)
        if accepted:  # before any value is read, so the refusal names what the tool takes
            self._refuse(sorted(set(self._values) - set(accepted)))

    def _refuse(self, unknown: Sequence[str]) -> None:
        if unknown:
            takes = ", ".join(self._accepted) if self._accepted else "none"
            raise Malformed(unknown[0], f"this tool takes no such argument; it takes: {takes}")

    def _get(self, name: str) -> Any:
        self._read.add(name)
        return self._values.get(name)

    def given(self, name: str) -> bool:
        return self._values.get(name) is not None

    def text(self, name: str) -> str:
        value = self._get(name)
        if not isinstance(value, str):
            raise Malformed(name, "a string is required")
        return value

    def optional_text(self, name: str) -> str | None:
        return None if self._get(name) is None else self.text(name)

    def identifier(self, name: str) -> str:
        """An id: a string, a UUID's upper-case letters read in lower case."""
        return lower_uuid(self.text(name))

    def identifiers(self, name: str) -> list[str] | None:
        values = self.names(name)
        return None if values is None else [lower_uuid(value) for value in values]

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

    def scope(self) -> ScopeRequest:
        """The optional `scope` argument: its workspaces and document ids (a UUID's upper-case
        letters read in lower case)."""
        value = self._get("scope")
        if value is None:
            return ScopeRequest()
        if not isinstance(value, dict) or set(value) - {"workspaces", "documentIds"}:
            raise Malformed("scope", "an object with `workspaces` and/or `documentIds`")
        documents = _names(value, "documentIds")
        return ScopeRequest(
            _names(value, "workspaces"),
            None if documents is None else [lower_uuid(document) for document in documents],
        )

    def position(self, tool: str) -> int:
        """Where the optional `cursor` argument continues this call's answer; 0 without one."""
        value = self._get(cursor.ARGUMENT)
        return 0 if value is None else cursor.decode(value, tool, self._values)

    def cursor_at(self, tool: str, position: int) -> str:
        """The cursor that continues this call's answer at `position`."""
        return cursor.encode(tool, self._values, position)

    def done(self) -> None:
        """Refuse an argument the tool did not read (a tool that takes none included)."""
        self._refuse(sorted(set(self._values) - self._read))


def _names(values: Mapping[str, Any], key: str, argument: str | None = None) -> list[str] | None:
    value = values.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise Malformed(argument or f"scope.{key}", "must be a list of strings")
    return value
