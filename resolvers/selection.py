"""What the query selects below a field, so a resolver reads only what will be returned."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from strawberry.types.nodes import FragmentSpread, InlineFragment, SelectedField, Selection

from resolvers.context import Info


def _children(selections: Iterable[Selection]) -> Iterable[SelectedField]:
    """The fields of a selection set, looking through fragments."""
    for selection in selections:
        if isinstance(selection, SelectedField):
            yield selection
        elif isinstance(selection, FragmentSpread | InlineFragment):
            yield from _children(selection.selections)


def selects(info: Info, path: Sequence[str]) -> bool:
    """True when some field at `path` (field names below this one) is selected.

    >>> # For `searchEntities { evidence { text } }`: selects(info, ["evidence"]) is True.
    """
    level: list[SelectedField] = list(_children(info.selected_fields))
    for name in path:
        level = [
            child for field in level for child in _children(field.selections) if child.name == name
        ]
        if not level:
            return False
    return True
