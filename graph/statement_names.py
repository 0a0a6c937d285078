"""The name of a Cypher statement, for traces and logs: never its parameters, never its text.

A statement is named after the constant that holds it (`graph.lookups.PASSAGES_BY_ID`); one a
function builds (the walk's steps, which name relation types) carries its builder's name
(`named`); any other is named after the function in `graph/` that sent it.

>>> from graph.lookups import PASSAGES_BY_ID
>>> statement_name(PASSAGES_BY_ID)
'graph.lookups.PASSAGES_BY_ID'
>>> statement_name(named("graph.walk.next_step", "RETURN 1"))
'graph.walk.next_step'
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec

P = ParamSpec("P")

# Modules of graph/ that only carry statements for others, never own one.
_PLUMBING = frozenset({__name__, "graph.driver"})


class NamedStatement(str):
    """A statement built at run time, with the name of what built it."""

    statement_name: str

    def __new__(cls, name: str, text: str) -> NamedStatement:
        statement = super().__new__(cls, text)
        statement.statement_name = name
        return statement


def named(name: str, text: str) -> str:
    return NamedStatement(name, text)


def builds_statement(build: Callable[P, str]) -> Callable[P, str]:
    """Marks a function that builds a statement: what it returns carries its name."""
    name = f"{build.__module__}.{build.__name__}"

    @wraps(build)
    def building(*args: P.args, **kwargs: P.kwargs) -> str:
        return NamedStatement(name, build(*args, **kwargs))

    return building


class _Constants:
    """Statement text → the constant holding it, over every module of graph/ imported so far
    (read again when another one has been imported since)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.modules_seen = 0

    def lookup(self, query: str) -> str | None:
        found = self.names.get(query)
        if found is None:
            modules = [m for m in list(sys.modules) if m.startswith("graph.")]
            if len(modules) != self.modules_seen:
                self.modules_seen = len(modules)
                self.names = self._read(modules)
                found = self.names.get(query)
        return found

    @staticmethod
    def _read(modules: list[str]) -> dict[str, str]:
        names: dict[str, str] = {}
        for module_name in modules:
            module = sys.modules.get(module_name)
            for attribute, value in vars(module or object()).items():
                if attribute.isupper() and isinstance(value, str):
                    names.setdefault(value, f"{module_name}.{attribute}")
        return names


_constants = _Constants()


def _sender() -> str:
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("graph.") and module not in _PLUMBING:
            return f"{module}.{frame.f_code.co_name}"
        frame = frame.f_back  # type: ignore[assignment]
    return "statement"


def statement_name(query: str) -> str:
    name = getattr(query, "statement_name", None)
    if isinstance(name, str):
        return name
    return _constants.lookup(query) or _sender()
