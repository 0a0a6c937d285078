"""The field checks of one bundle line (contract §2 ids, §10 format), collecting every problem.

Each check records what is wrong under the field's path (`entities[2].mentions[0]`) and
returns a stand-in (`""`, `-1`, `()`) so checking can go on and report the whole line at once;
a line with any problem is never built into a version.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any, TypeGuard

from contract.arguments import MAX_NAME_LENGTH, has_control_character
from contract.identifiers import is_canonical_uuid
from contract.relation_claims import WEIGHT, claim_problem, is_finite_number
from graph.cypher_names import is_load_name
from graph.jobs import STAGED_RELATION_KEYS
from graph.ownership import OWNER, SOURCE_ID
from ingest.document_version import PropertyValue

MAX_REPORTED = 5  # problems named in a reason; the rest are counted
_INT64_MAX = 2**63 - 1  # Neo4j integers are 64-bit
# Relation properties the write path itself sets; a bundle property must not overwrite them.
# `workspace` is the relation's owner and `sourceId` its id in a loaded file (graph/ownership).
RESERVED_RELATION_PROPERTIES = ("id", "passageIds", OWNER, SOURCE_ID, *STAGED_RELATION_KEYS)
_STAND_INS: tuple[object, ...] = ("", -1)


class LineChecker:
    def __init__(
        self,
        dimensions: int | None,
        graph_owned_labels: Collection[str],
        graph_owned_relation_types: Collection[str],
    ) -> None:
        self._dimensions = dimensions
        self._owned_labels = graph_owned_labels
        self._owned_types = graph_owned_relation_types
        self._problems: list[str] = []
        self._count = 0

    @property
    def ok(self) -> bool:
        return self._count == 0

    def reason(self) -> str:
        more = self._count - len(self._problems)
        return "; ".join(self._problems) + (f"; and {more} more" if more else "")

    def fail(self, path: str, message: str) -> None:
        self._count += 1
        if len(self._problems) < MAX_REPORTED:
            self._problems.append(f"{path or 'line'}: {message}")

    def fields(self, value: object, path: str, allowed: Sequence[str]) -> dict[str, Any]:
        """The object at `path` with every allowed key present, absent ones as `MISSING`.

        Keys the format lacks are reported. Not an object: reported once, and its fields come
        back as `_UNCHECKABLE` so they are not reported again.
        """
        if not isinstance(value, dict):
            self._wrong(value, path, "an object")
            return dict.fromkeys(allowed, _UNCHECKABLE)
        for key in value:
            if key not in allowed:
                self.fail(_join(path, key), f"unknown field (expected {', '.join(allowed)})")
        return {**dict.fromkeys(allowed, MISSING), **value}

    def items(self, value: object, path: str, *, required: bool) -> list[tuple[object, str]]:
        """The elements of the array at `path` with their paths; an absent optional one is empty."""
        if value is MISSING and not required:
            return []
        if not isinstance(value, list):
            self._wrong(value, path, "an array")
            return []
        return [(item, f"{path}[{index}]") for index, item in enumerate(value)]

    def text(self, value: object, path: str, *, nonempty: bool = False) -> str:
        if not isinstance(value, str):
            self._wrong(value, path, "a string")
            return ""
        if nonempty and not value.strip():
            self.fail(path, "is empty")
        return value

    def workspace(self, value: object, path: str, held: str | None) -> str:
        """A line's `document.workspace` (contract §10). In a load held to workspace `held`
        (`load --workspace W` with a bundle) every line is W's: a line naming none (absent or
        null) takes W, a line naming anything else is refused. Names are compared exactly, so
        a look-alike (another case, a zero-width space, another normal form) is another name."""
        if held is None:
            return self.text(value, path, nonempty=True)
        if _absent(value):
            return held
        if not isinstance(value, str):
            self._wrong(value, path, "a string")
        elif value != held:
            self.fail(
                path,
                f"names workspace {_show(value)}, but this load is held to workspace "
                f"{_show(held)} (--workspace): every line must name it, or name none",
            )
        return held

    def optional_text(self, value: object, path: str) -> str | None:
        return None if _absent(value) else self.text(value, path)

    def uuid(self, value: object, path: str) -> str:
        if not isinstance(value, str):
            self._wrong(value, path, "a canonical lowercase UUID string")
            return ""
        if not is_canonical_uuid(value):
            self.fail(path, f"{_show(value)} is not a canonical lowercase UUID")
            return ""
        return value

    def uuids(self, value: object, path: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            self._wrong(value, path, "an array of ids")
            return ()
        return tuple(self.uuid(item, f"{path}[{index}]") for index, item in enumerate(value))

    def position(self, value: object, path: str) -> int:
        if _is_integer(value) and 0 <= value <= _INT64_MAX:
            return value
        self._wrong(value, path, "a non-negative integer")
        return -1

    def embedding(self, value: object, path: str) -> tuple[float, ...] | None:
        if _absent(value):
            return None  # the loader computes it
        if not isinstance(value, list):
            self._wrong(value, path, "an array of numbers")
            return None
        if not value:
            self.fail(path, "is empty")
            return None
        for index, number in enumerate(value):
            if not is_finite_number(number):
                self.fail(f"{path}[{index}]", f"{_show(number)} is not a finite number")
                return None
        if self._dimensions is not None and len(value) != self._dimensions:
            self.fail(path, f"has {len(value)} numbers, expected {self._dimensions}")
            return None
        return tuple(float(number) for number in value)

    def labels(self, value: object, path: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            self._wrong(value, path, "an array of labels")
            return ()
        if not value:
            self.fail(path, "is empty; an entity needs at least one label")
            return ()
        owned = self._owned_labels
        names = [self._name(item, f"{path}[{i}]", owned) for i, item in enumerate(value)]
        self.unique([(name, f"{path}[{i}]") for i, name in enumerate(names)])
        return tuple(names)

    def relation_type(self, value: object, path: str) -> str:
        return self._name(value, path, self._owned_types, kind="relation type")

    def properties(self, value: object, path: str) -> dict[str, PropertyValue]:
        if _absent(value):
            return {}
        if not isinstance(value, dict):
            self._wrong(value, path, "an object")
            return {}
        for key, item in value.items():
            if not key:
                self.fail(f"{path}[{_show(key)}]", "a property name is empty")
            elif key in RESERVED_RELATION_PROPERTIES:
                self.fail(_join(path, key), "is a property the write path sets itself")
            elif not _is_property_value(item):
                self._wrong(item, _join(path, key), "a string, a finite number or a boolean")
            elif (problem := claim_problem(key, item)) is not None:
                self.fail(_join(path, key), problem)  # contract/relation_claims.py
        return value

    def claim(self, name: str, value: object, path: str) -> dict[str, PropertyValue]:
        """A relation's optional `description` or `weight` (contract/relation_claims.py) as
        the property it is stored as; absent or null: none."""
        if _absent(value):
            return {}
        if name == WEIGHT and not is_finite_number(value):
            self._wrong(value, path, "a finite number")  # says what it got
        elif not isinstance(value, str | int | float):
            self._wrong(value, path, "a string")
        elif (problem := claim_problem(name, value)) is not None:
            self.fail(path, problem)
        else:
            return {name: value}
        return {}

    def unique(self, values: Sequence[tuple[object, str]]) -> None:
        """Name every value that repeats an earlier one; stand-ins never collide."""
        first: dict[object, str] = {}
        for value, path in values:
            if value in _STAND_INS:
                continue
            if value in first:
                self.fail(path, f"{_show(value)} repeats {first[value]}")
            else:
                first[value] = path

    def _name(self, value: object, path: str, owned: Collection[str], kind: str = "label") -> str:
        if not isinstance(value, str):
            self._wrong(value, path, f"a {kind} string")
        elif not value.strip():
            self.fail(path, "is empty")
        elif value in owned:
            self.fail(path, f"{_show(value)} is a graph-owned {kind}")
        elif len(value) > MAX_NAME_LENGTH:
            self.fail(path, f"is longer than {MAX_NAME_LENGTH} characters")
        elif has_control_character(value):
            self.fail(path, f"{_show(value)} contains a control character")
        elif not is_load_name(value):
            # contract §10; the rule is graph/cypher_names.py's: schema commands write labels
            # as text
            self.fail(
                path,
                f"{_show(value)} is not a {kind} name: use ASCII letters, digits and `_`,"
                " starting with a letter",
            )
        else:
            return value
        return ""

    def _wrong(self, value: object, path: str, expected: str) -> None:
        if value is MISSING:
            self.fail(path, "is missing")
        elif value is not _UNCHECKABLE:
            self.fail(path, f"must be {expected}, got {_kind(value)}")


class _Marker:
    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


# An absent key, told apart from an explicit null (which optional fields accept).
MISSING: Any = _Marker("MISSING")
# A field of something that is not an object: its parent is reported, it is not.
_UNCHECKABLE: Any = _Marker("UNCHECKABLE")


def _absent(value: object) -> bool:
    return value is None or value is MISSING or value is _UNCHECKABLE


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_integer(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_property_value(value: object) -> bool:
    if isinstance(value, str | bool):
        return True
    if _is_integer(value):
        return -_INT64_MAX - 1 <= value <= _INT64_MAX
    return is_finite_number(value)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {_show(value)}"
    return "an array" if isinstance(value, list) else "an object"


def _show(value: object) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= 60 else shown[:59] + "…"
