"""The part of a passage a model should read: a window around the first mention of what the
answer is about (an entity's name, else the query's words), so that a quote of a 6,000-character
passage still holds the words that made it evidence (issue 29, point 1). Pure functions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class Window:
    """`text[start:end]` of a passage, with an ellipsis marking each side that was cut."""

    start: int
    end: int
    excerpt: str


def mention_at(text: str, focus: Sequence[str]) -> int | None:
    """Where the first of `focus` (tried in order: the best clue first) occurs in `text`, ignoring
    case and any run of spaces; None when none does."""
    for term in focus:
        words = term.split()
        if not words:
            continue
        pattern = r"\s+".join(re.escape(word) for word in words)
        found = re.search(pattern, text, re.IGNORECASE)
        if found:
            return found.start()
    return None


def window(text: str, focus: Sequence[str], width: int) -> Window:
    """At most `width` characters of `text` (ellipses included) around the first mention of
    `focus`, the mention a third of the way in so that the sentence it opens is read; the start
    of the text when nothing in `focus` occurs in it."""
    if len(text) <= width:
        return Window(0, len(text), text)
    at = mention_at(text, focus)
    room = max(width - 2, 1)  # one ellipsis on each side at most
    start = 0 if at is None else max(0, min(at - room // 3, len(text) - room))
    end = min(len(text), start + room)
    excerpt = text[start:end]
    return Window(
        start,
        end,
        (ELLIPSIS if start > 0 else "") + excerpt + (ELLIPSIS if end < len(text) else ""),
    )


def quote(text: str, focus: Sequence[str], width: int) -> str:
    """The window as one line: runs of white space shown as one space."""
    return " ".join(window(text, focus, width).excerpt.split())
