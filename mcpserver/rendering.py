"""A tool's answer as an agent reads it: the structured content, a short text rendering that
quotes each hit's evidence with its document title and each edge's kind and evidence, both cut
to MCP_MAX_RESULT_CHARS with a note saying what was cut and how to narrow (contract §12)."""

from __future__ import annotations

import copy
import json
from typing import Any

from mcpserver.answering import Json, ToolAnswer

QUOTE_CHARS = 300  # a quoted passage in the text rendering; the structured content has it all
CLIPPED_TEXT_CHARS = 1000  # a passage text in structured content that had to be cut
NARROW = {
    "search_entities": "lower `limit` or `supportLimit`, or narrow with `labels` or `scope`",
    "search_passages": "lower `limit`, or narrow with `scope`",
    "walk": "narrow with `relationTypes`, or lower `maxEdges`, `maxNodes` or `depth`",
    "get_entity": "lower `maxEdges` or `supportLimit`, or walk with `relationTypes`",
    "get_passage": "read it through `search_passages` hits instead",
    "entity_labels": "search with `labels` you already know",
}


def quote(passage: Json) -> str:
    text = " ".join(passage["text"].split())
    if len(text) > QUOTE_CHARS:
        text = text[: QUOTE_CHARS - 1] + "…"
    document = passage["document"]
    title = document["title"] or f"document {document['id']}"
    return f'"{text}" — {title} (passage {passage["id"]})'


def _entity_line(entity: Json) -> str:
    labels = ", ".join(entity["labels"])
    return f"{entity['name']} [{labels}] (id {entity['id']})"


def _edges(content: Json, lines: list[str]) -> None:
    names = {node["id"]: node["name"] for node in content["nodes"]}
    names.setdefault(content["start"]["id"], content["start"]["name"])
    for edge in content["edges"]:
        source = names.get(edge["sourceId"], edge["sourceId"])
        target = names.get(edge["targetId"], edge["targetId"])
        lines.append(
            f"- {source} -[{edge['type']}]-> {target}: {edge['kind']}, depth {edge['depth']}"
        )
        lines.extend(f"    evidence: {quote(p)}" for p in edge["evidence"])
    if content["truncatedBy"]:
        lines.append(
            "Cut by the bounds "
            + ", ".join(content["truncatedBy"])
            + ": raise that bound, or narrow with relationTypes, and walk again."
        )


def render(tool: str, content: Json) -> str:
    lines: list[str] = []
    if tool == "search_entities":
        lines.append(f"{len(content['hits'])} entities found.")
        for n, hit in enumerate(content["hits"], 1):
            lines.append(f"{n}. {_entity_line(hit['entity'])}: {hit['status']}")
            if hit["status"] == "UNSUPPORTED":
                lines.append("    no current passage supports it; do not state it as fact")
            lines.extend(f"    evidence: {quote(p)}" for p in hit["evidence"])
    elif tool == "search_passages":
        lines.append(f"{len(content['hits'])} passages found.")
        lines.extend(f"{n}. {quote(hit['passage'])}" for n, hit in enumerate(content["hits"], 1))
    elif tool == "walk":
        lines.append(
            f"Walk from {_entity_line(content['start'])}: {len(content['nodes'])} entities, "
            f"{len(content['edges'])} edges."
        )
        _edges(content, lines)
    elif tool == "get_entity":
        entity = content["entity"]
        if entity is None:
            return "No entity with this id is visible in your scope."
        lines.append(f"{_entity_line(entity)}: {content['status']}")
        if entity["description"]:
            lines.append(f"description: {entity['description']}")
        lines.extend(f"evidence: {quote(p)}" for p in content["evidence"])
        relations = content["relations"]
        lines.append(f"{len(relations['edges'])} relations:")
        _edges(relations, lines)
    elif tool == "get_passage":
        passage = content["passage"]
        if passage is None:
            return "No passage with this id is visible in your scope."
        document = passage["document"]
        lines.append(
            f"Passage {passage['id']}, position {passage['position']} of "
            f"{document['title'] or 'document ' + document['id']} "
            f"(workspace {document['workspace']}, version {passage['version']}):"
        )
        lines.append(passage["text"])
    else:
        lines.extend(
            f"{label['label']}: fulltext index {label['fulltextIndex']}, "
            f"vector index {label['vectorIndex']}"
            for label in content["labels"]
        )
    return "\n".join(lines)


def _list_at(content: Json, path: str) -> list[Any]:
    value: Any = content
    for key in path.split("."):
        value = value[key]
    assert isinstance(value, list)
    return value


def _size(tool: str, content: Json) -> int:
    return len(render(tool, content)) + len(json.dumps(content, ensure_ascii=False))


def _clip_texts(content: Any, most: int) -> bool:
    """Every passage text in `content` cut to `most` characters; True if one was longer."""
    clipped = False
    if isinstance(content, dict):
        for key, value in content.items():
            if key == "text" and isinstance(value, str) and len(value) > most:
                content[key] = value[: max(most - 1, 0)] + "…"
                clipped = True
            else:
                clipped = _clip_texts(value, most) or clipped
    elif isinstance(content, list):
        for item in content:
            clipped = _clip_texts(item, most) or clipped
    return clipped


def fit(tool: str, answer: ToolAnswer, max_chars: int) -> tuple[Json, str]:
    """The structured content and its text, together at most `max_chars` characters. Gentlest
    first: passage texts clipped to CLIPPED_TEXT_CHARS (every hit and edge keeps its evidence,
    and get_passage reads a passage whole), then lists cut from their end in the answer's
    order, then passage texts clipped shorter; a note says what was cut."""
    content = answer.content
    if _size(tool, content) <= max_chars:
        return content, render(tool, content)
    content = copy.deepcopy(content)
    budget = max_chars - 1000  # room for the note, which goes in both the text and the JSON
    cut: list[str] = []
    if _clip_texts(content, CLIPPED_TEXT_CHARS):
        cut.append(
            f"passage texts after {CLIPPED_TEXT_CHARS} characters (get_passage reads one whole)"
        )
    for path in answer.cuttable:
        if _size(tool, content) <= budget:
            break
        items = _list_at(content, path)
        total = len(items)
        kept_all = items[:]
        # The most items that fit lies in [low, high]; one is always kept, its texts clipped
        # below if need be, so that a cut answer still answers.
        low, high = min(1, total), total
        while low < high:
            middle = (low + high + 1) // 2
            items[:] = kept_all[:middle]
            if _size(tool, content) <= budget:
                low = middle
            else:
                high = middle - 1
        items[:] = kept_all[:low]
        if low < total:
            cut.append(f"{total - low} of {total} {path.rsplit('.', 1)[-1]}")
    if _size(tool, content) > budget:
        low, high = 0, CLIPPED_TEXT_CHARS
        while low < high:
            middle = (low + high + 1) // 2
            trial = copy.deepcopy(content)
            _clip_texts(trial, middle)
            if _size(tool, trial) <= budget:
                low = middle
            else:
                high = middle - 1
        _clip_texts(content, low)
        cut.append(f"passage texts after {low} characters")
    note = (
        f"Cut to fit {max_chars} characters (MCP_MAX_RESULT_CHARS): left out "
        + "; ".join(cut)
        + f". The rest is in order, best first. To see what was cut, {NARROW[tool]}."
    )
    content["cut"] = note
    return content, render(tool, content) + "\n" + note
