"""The size cut (contract §12): a tool's structured content and its text together at most
MCP_MAX_RESULT_CHARS characters, with a note saying what was left out and exactly which call
reads it (issue 29, point 3).

Gentlest first: passage texts cut to a window of CLIPPED_TEXT_CHARS around what the answer is
about (every hit and edge keeps its evidence, and `textStart` says where the excerpt starts, so
get_passage with that offset reads on); then fewer items (hits, edges, characters of a passage),
always one, the rest reachable through `nextCursor` or the call the note names; then passage
texts cut shorter.
"""

from __future__ import annotations

import json
from typing import Any

from mcpserver.answering import Json, ToolAnswer
from mcpserver.quoting import window
from mcpserver.rendering import passage_focus, render

CLIPPED_TEXT_CHARS = 1000  # a passage text in structured content when the answer is too large
NOTE_ROOM = 1000  # kept free for the note, which goes in both the text and the JSON
ITEMS = {
    "search_entities": "hits",
    "search_passages": "hits",
    "walk": "edges",
    "get_entity": "relations",
    "get_passage": "characters",
    "entity_labels": "labels",
    "describe_graph": "labels and relation types",
    "get_entities": "entities",
}


def _whole_texts(content: Json) -> dict[str, str]:
    return {pid: passage["text"] for pid, passage in content.get("passages", {}).items()}


def _text(tool: str, content: Json, answer: ToolAnswer, whole: dict[str, str]) -> str:
    return render(tool, content, answer.focus, answer.advice, whole)


def _size(tool: str, content: Json, answer: ToolAnswer, whole: dict[str, str]) -> int:
    return len(_text(tool, content, answer, whole)) + len(json.dumps(content, ensure_ascii=False))


def clip_passages(tool: str, content: Json, answer: ToolAnswer, most: int) -> bool:
    """Every passage text in `content` cut to at most `most` characters around its focus; True
    if one was longer."""
    focus = passage_focus(tool, content, answer.focus)
    clipped = False
    for passage in content.get("passages", {}).values():
        if len(passage["text"]) > most:
            kept = window(passage["text"], focus[passage["id"]], most + 2)  # no ellipses kept
            passage["text"] = passage["text"][kept.start : kept.end]
            passage["textStart"] = passage.get("textStart", 0) + kept.start
            clipped = True
    return clipped


def _most_that_fit(low: int, high: int, fits: Any) -> int:
    """The largest n in [low, high] with fits(n), given fits(low) or nothing better exists."""
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def fit(tool: str, answer: ToolAnswer, max_chars: int) -> tuple[Json, str]:
    """The structured content and its text, together at most `max_chars` characters."""
    content: Json = answer.build(answer.items)
    # The quotes are taken from the whole texts, even where the content holds an excerpt.
    whole = _whole_texts(content)
    if _size(tool, content, answer, whole) <= max_chars:
        return content, _text(tool, content, answer, whole)
    budget = max_chars - NOTE_ROOM
    cut: list[str] = []

    def built(count: int, most: int) -> Json:
        trial: Json = answer.build(count)
        clip_passages(tool, trial, answer, most)
        return trial

    if clip_passages(tool, content, answer, CLIPPED_TEXT_CHARS):
        cut.append(
            f"passage texts cut to {CLIPPED_TEXT_CHARS} characters around what they are cited "
            "for (`textStart` is where each starts; get_passage with that offset reads on)"
        )
    count = answer.items
    if _size(tool, content, answer, whole) > budget and count > 1:
        count = _most_that_fit(
            1, count, lambda n: _size(tool, built(n, CLIPPED_TEXT_CHARS), answer, whole) <= budget
        )
        content = built(count, CLIPPED_TEXT_CHARS)
    if _size(tool, content, answer, whole) > budget:
        most = _most_that_fit(
            0, CLIPPED_TEXT_CHARS, lambda n: _size(tool, built(count, n), answer, whole) <= budget
        )
        content = built(count, most)
        cut.append(f"passage texts cut to {most} characters")
    more = ""
    if count < answer.items:
        position = answer.start + count
        cut.insert(0, f"{answer.items - count} of {answer.items} {ITEMS[tool]}")
        more = f" To read the rest, {answer.continuation(position)}."
        if answer.cursor is not None:
            content["nextCursor"] = answer.cursor(position)
    note = (
        f"Cut to fit {max_chars} characters (MCP_MAX_RESULT_CHARS): left out "
        + "; ".join(cut)
        + "."
        + more
    )
    content["cut"] = note
    return content, _text(tool, content, answer, whole) + "\n" + note
