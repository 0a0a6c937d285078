"""A tool's answer as a model reads it: a short text that names every entity with its id and
quotes each piece of evidence where it mentions what the answer is about (mcpserver/quoting.py),
with its document title and passage id (contract §12; issue 29, points 1 and 5). The structured
content holds the passages themselves, once each; the text only quotes them, so the size cut
(mcpserver/fitting.py) does not count the same passage twice."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcpserver.quoting import ELLIPSIS, quote

Json = dict[str, Any]

QUOTE_CHARS = 240  # one quoted window of a passage in the text
DESCRIPTION_CHARS = 200  # an entity's description in a search line, an edge's in a walk


def clipped(text: str | None, most: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= most else text[: most - 1] + ELLIPSIS


def quoted(content: Json, passage_id: str, focus: Sequence[str], whole: Mapping[str, str]) -> str:
    """A passage quoted around the first of `focus` it holds, with its document's title. The
    quote is taken from the whole text (`whole`, by passage id, kept aside by the size cut)
    when the structured content holds only an excerpt, so that it still holds the mention."""
    passage = content["passages"][passage_id]
    if passage_id in whole:
        passage = {**passage, "text": whole[passage_id], "textStart": 0}
    text = quote(passage["text"], focus, QUOTE_CHARS)
    # A passage the size cut shortened is itself an excerpt: say so on the side it was cut.
    start = passage.get("textStart", 0)
    if start > 0 and not text.startswith(ELLIPSIS):
        text = ELLIPSIS + text
    if start + len(passage["text"]) < passage["length"] and not text.endswith(ELLIPSIS):
        text += ELLIPSIS
    document = content["documents"][passage["documentId"]]
    title = document["title"] or f"document {document['id']}"
    return f'"{text}" — {title} (passage {passage_id})'


def entity_line(entity: Json) -> str:
    labels = ", ".join(entity["labels"])
    return f"{entity['name']} [{labels}] (id {entity['id']})"


def passage_focus(tool: str, content: Json, query_words: Sequence[str]) -> dict[str, list[str]]:
    """For each passage an answer cites, what its quote should show: the names of the entities
    it is evidence for, then the query's words."""
    focus: dict[str, list[str]] = {pid: [] for pid in content.get("passages", {})}

    def cite(passage_ids: Sequence[str], names: Sequence[str]) -> None:
        for pid in passage_ids:
            if pid in focus:
                focus[pid].extend(name for name in names if name not in focus[pid])

    if tool == "search_entities":
        for hit in content["hits"]:
            cite(hit["evidenceIds"], [hit["entity"]["name"]])
    elif tool == "get_entities":
        for entry in content["entities"]:
            if entry["entity"] is not None:
                cite(entry["evidenceIds"], [entry["entity"]["name"]])
    elif tool in ("walk", "get_entity"):
        relations = content if tool == "walk" else content.get("relations")
        if tool == "get_entity" and content.get("entity"):
            cite(content["evidenceIds"], [content["entity"]["name"]])
        if relations:
            names = _names(content)
            for edge in relations["edges"]:
                cite(edge["evidenceIds"], [names[edge["sourceId"]], names[edge["targetId"]]])
    for words in focus.values():
        words.extend(word for word in query_words if word not in words)
    return focus


def _names(content: Json) -> dict[str, str]:
    start = content.get("start") or content["entity"]
    nodes = content["nodes"] if "start" in content else content["relations"]["nodes"]
    names = {node["id"]: node["name"] for node in nodes}
    names[start["id"]] = start["name"]
    return names


def _edges(content: Json, relations: Json, lines: list[str], whole: Mapping[str, str]) -> None:
    names = _names(content)
    for edge in relations["edges"]:
        source = f"{names.get(edge['sourceId'], '')} (id {edge['sourceId']})"
        target = f"{names.get(edge['targetId'], '')} (id {edge['targetId']})"
        weight = "" if edge.get("weight") is None else f", weight {edge['weight']:g}"
        lines.append(
            f"- {source} -[{edge['type']}]-> {target}: {edge['kind']}, depth {edge['depth']}"
            + weight
        )
        if edge.get("description"):
            # Quoted as an entity's description is: what extraction said, a claim.
            lines.append(f"    description: {clipped(edge['description'], DESCRIPTION_CHARS)}")
        focus = [names.get(edge["sourceId"], ""), names.get(edge["targetId"], "")]
        lines.extend(
            f"    evidence: {quoted(content, p, focus, whole)}" for p in edge["evidenceIds"]
        )


def _entities(content: Json, lines: list[str], whole: Mapping[str, str]) -> None:
    entries = content["entities"]
    lines.append(f"{sum(e['entity'] is not None for e in entries)} of {len(entries)} found.")
    for n, entry in enumerate(entries, 1):
        entity = entry["entity"]
        if entity is None:
            lines.append(f"{n}. id {entry['id']}: not visible in your scope")
            continue
        lines.append(f"{n}. {entity_line(entity)}: {entry['status']}")
        if entity["description"]:
            lines.append(f"    {clipped(entity['description'], DESCRIPTION_CHARS)}")
        lines.extend(
            f"    evidence: {quoted(content, p, [entity['name']], whole)}"
            for p in entry["evidenceIds"]
        )


def _counts(counts: Sequence[Json], at_least: bool) -> str:
    if not counts:
        return "none"
    prefix = "at least " if at_least else ""
    return ", ".join(f"{c['name']} {prefix}{c['count']}" for c in counts)


def _shape(content: Json, lines: list[str]) -> None:
    granted = content["grantedWorkspaces"]
    scope = content["scope"]
    lines.append(
        "Granted workspaces: "
        + (", ".join(granted) if granted is not None else "every workspace (no authentication)")
        + "."
    )
    if scope["workspaces"] != granted or scope["documentIds"] is not None:
        read = ", ".join(scope["workspaces"] or ["every workspace"])
        if scope["documentIds"] is not None:
            read += f"; {len(scope['documentIds'])} documents"
        lines.append(f"This call read: {read}.")
    lines.append(
        "Entity labels (entities a visible passage mentions): "
        + _counts(content["labels"], content["labelsAtLeast"])
        + "."
    )
    lines.append(
        "Relation types (relations a walk can follow; the names `relationTypes` takes): "
        + _counts(content["relationTypes"], content["relationTypesAtLeast"])
        + "."
    )


def render(
    tool: str,
    content: Json,
    query_words: Sequence[str],
    advice: Sequence[str],
    whole: Mapping[str, str] | None = None,
) -> str:
    """The text of an answer; `whole` holds the whole texts of passages the size cut shortened
    in `content`, by id, for the quotes."""
    whole = whole or {}
    lines: list[str] = []
    if tool == "search_entities":
        lines.append(f"{len(content['hits'])} entities found.")
        for n, hit in enumerate(content["hits"], 1):
            entity = hit["entity"]
            lines.append(f"{n}. {entity_line(entity)}: {hit['status']}")
            if entity["description"]:
                lines.append(f"    {clipped(entity['description'], DESCRIPTION_CHARS)}")
            if hit["status"] == "UNSUPPORTED":
                lines.append("    no current passage supports it; do not state it as fact")
            focus = [entity["name"], *query_words]
            lines.extend(
                f"    evidence: {quoted(content, p, focus, whole)}" for p in hit["evidenceIds"]
            )
    elif tool == "search_passages":
        lines.append(f"{len(content['hits'])} passages found.")
        lines.extend(
            f"{n}. {quoted(content, hit['passageId'], query_words, whole)}"
            for n, hit in enumerate(content["hits"], 1)
        )
    elif tool == "walk":
        lines.append(
            f"Walk from {entity_line(content['start'])}: {len(content['nodes'])} more entities, "
            f"{len(content['edges'])} edges."
        )
        _edges(content, content, lines, whole)
    elif tool == "get_entity":
        entity = content["entity"]
        if entity is None:
            return "No entity with this id is visible in your scope."
        lines.append(f"{entity_line(entity)}: {content['status']}")
        if entity["description"]:
            lines.append(f"description: {' '.join(entity['description'].split())}")
        lines.extend(
            f"evidence: {quoted(content, p, [entity['name']], whole)}"
            for p in content["evidenceIds"]
        )
        relations = content["relations"]
        lines.append(f"{len(relations['edges'])} relations:")
        _edges(content, relations, lines, whole)
    elif tool == "get_passage":
        passage = content["passage"]
        if passage is None:
            return "No passage with this id is visible in your scope."
        document = passage["document"]
        end = passage["offset"] + len(passage["text"])
        lines.append(
            f"Passage {passage['id']}, position {passage['position']} of "
            f"{document['title'] or 'document ' + document['id']} "
            f"(workspace {document['workspace']}, version {passage['version']}), "
            f"characters {passage['offset']}–{end} of {passage['length']}:"
        )
        lines.append(passage["text"])
    elif tool == "get_entities":
        _entities(content, lines, whole)
    elif tool == "describe_graph":
        _shape(content, lines)
    else:
        lines.extend(
            f"{label['label']}: fulltext index {label['fulltextIndex']}, "
            f"vector index {label['vectorIndex']}"
            for label in content["labels"]
        )
    lines.extend(advice)
    return "\n".join(lines)
