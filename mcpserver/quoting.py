"""The part of a passage a model should read: a window around where it mentions what the answer
is about (contract §12: "quotes are windows around the mention (by the name's tokens; for an
edge, both ends' names)"), so that a quote of a 6,000-character passage holds the words that
made it evidence. Pure functions.

A name is found by its words, as the lexical search reads a query (retrieval/lexical_rule.py
`content_words`: case and punctuation folded, a possessive 's, function words and one-letter
fragments left out): "EBENEZER SCROOGE" is mentioned where the passage says "Ebenezer Scrooge",
"Scrooge" or "Scrooge's". The whole name, its words in order, is the stronger mention; any one
of its words (of three letters or more, when it has such) still counts.

A passage cited for several things at once (a walk's passage, cited by many edges, is quoted
once per answer) gets the window that holds the most of their names, the first-named weighing
most; of equal windows, the first mention's, with the mention a third of the way in.

    >>> text = "x " * 200 + "Then Ebenezer Scrooge's clerk, Bob Cratchit, spoke. " + "y " * 200
    >>> found = quote(text, ["SCROOGE", "BOB CRATCHIT"], 80)
    >>> "Scrooge" in found and "Cratchit" in found
    True
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from retrieval.lexical_rule import content_words

ELLIPSIS = "…"
# A run of letters, or a run of digits: the atoms content_words splits a name into.
_ATOM = re.compile(r"[^\W\d_]+|\d+")
MENTIONS_PER_NAME = 64  # enough to place a window; bounds the work on a long passage
WHOLE_NAME_BONUS = 0.5  # a name found whole weighs a little more than by one of its words


@dataclass(frozen=True, slots=True)
class Window:
    """`text[start:end]` of a passage, with an ellipsis marking each side that was cut."""

    start: int
    end: int
    excerpt: str


@dataclass(frozen=True, slots=True)
class Mention:
    start: int
    end: int
    target: int  # which of the names (their index)
    whole: bool  # every word of the name, in order


def name_words(name: str) -> list[str]:
    """The words a name is found by: its content words, those of three letters or more when it
    has any (`MR. FEZZIWIG` is found by "fezziwig", not by every "Mr").

    >>> name_words("MR. FEZZIWIG"), name_words("Scrooge's nephew"), name_words("The Who")
    (['fezziwig'], ['scrooge', 'nephew'], ['the', 'who'])
    """
    words = content_words(name) or [w for w in _ATOM.findall(name.lower()) if w]
    long_ones = [word for word in words if len(word) >= 3]
    return long_ones or words


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """Each atom of `text` with its place, as `name_words` writes a word: lowercased the way
    the lexical rule does: the atoms of its lower case ("AAİA" is "aai" and "a", since the
    lower case of "İ" adds a mark), each spanning the atom it came from, so a name is found
    in a passage that writes it as the name does."""
    return [
        (word, m.start(), m.end())
        for m in _ATOM.finditer(text)
        for word in _ATOM.findall(m.group().lower())
    ]


def mentions(text: str, names: Sequence[str]) -> list[Mention]:
    """Where each of `names` is mentioned in `text`, by its words (at most MENTIONS_PER_NAME
    each), in text order."""
    tokens = _tokens(text)
    found: list[Mention] = []
    for target, name in enumerate(names):
        words = name_words(name)
        if not words:
            continue
        wanted = set(words)
        count = 0
        for at, (token, start, end) in enumerate(tokens):
            if token not in wanted:
                continue
            run = [t for t, _, _ in tokens[at : at + len(words)]]
            whole = run == words
            last = tokens[at + len(words) - 1][2] if whole else end
            found.append(Mention(start, last, target, whole))
            count += 1
            if count >= MENTIONS_PER_NAME:
                break
    return sorted(found, key=lambda m: (m.start, m.target))


def _score(
    found: Sequence[Mention], starts: Sequence[int], start: int, end: int, weights: Sequence[float]
) -> float:
    """The weight of the names with a mention inside [start, end) (`starts`: the mentions'
    starts, sorted, for the bisection)."""
    covered: dict[int, bool] = {}
    for mention in found[bisect_left(starts, start) : bisect_left(starts, end)]:
        if mention.end <= end:
            covered[mention.target] = covered.get(mention.target, False) or mention.whole
    return sum(weights[t] + (WHOLE_NAME_BONUS if whole else 0.0) for t, whole in covered.items())


def _snap(text: str, start: int, end: int, keep: tuple[int, int] | None) -> tuple[int, int]:
    """Move the window's edges off the middle of a word, never past the span `keep` (the
    mentions it was placed around)."""
    low, high = keep if keep is not None else (end, start)
    while 0 < start < min(low, end) and text[start - 1].isalnum() and text[start].isalnum():
        start += 1
    while max(high, start) < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end -= 1
    return start, end


def window(text: str, names: Sequence[str], width: int) -> Window:
    """At most `width` characters of `text` (ellipses included) around the mentions of `names`
    (the first weighing most): the mention a third of the way in, so the sentence it opens is
    read; the start of the text when no name is mentioned."""
    if len(text) <= width:
        return Window(0, len(text), text)
    room = max(width - 2, 1)  # one ellipsis on each side at most
    found = mentions(text, names)
    starts = [mention.start for mention in found]
    weights = [2.0 if n == 0 else 1.0 for n in range(len(names))]
    best, best_score = 0, 0.0
    for mention in found:
        for candidate in (mention.start - room // 3, mention.end - room + room // 3):
            start = max(0, min(candidate, len(text) - room))
            if start > mention.start or mention.end > start + room:
                continue
            score = _score(found, starts, start, start + room, weights)
            if score > best_score:  # a tie keeps the first: the earlier mention, a third in
                best, best_score = start, score
    end = min(len(text), best + room)
    inside = [m for m in found if best <= m.start and m.end <= end]
    keep = (min(m.start for m in inside), max(m.end for m in inside)) if inside else None
    start, end = _snap(text, best, end, keep)
    return Window(
        start,
        end,
        (ELLIPSIS if start > 0 else "") + text[start:end] + (ELLIPSIS if end < len(text) else ""),
    )


def quote(text: str, names: Sequence[str], width: int) -> str:
    """The window as one line: runs of white space shown as one space."""
    return " ".join(window(text, names, width).excerpt.split())
