"""A tool's answer as a model reads it (contract §12; issue 39): short, and saying aloud what a
model must not guess.

- Every entity carries its id where the next call needs it.
- Evidence: each cited passage is quoted once per answer, `[n] "…" — title (passage id)`, a
  window of its text around the names it is cited for (mcpserver/quoting.py), and referred to
  as `[n]` after that; with `evidence` IDS the ids alone, with NONE nothing. A hit or entity
  says how many passages support it in all ("3 of 14 passages") and which call reads the rest.
- A search says each hit's score and ranks; that nothing matched the query's words, when so
  (found by meaning only: probably not in the graph); and that the hits reached `limit`.
- A walk lists one line per edge: `- → NAME (id …): TYPE, KIND [1] [2]`, → for an edge stored
  from the start, ← for one stored towards it; the passages follow the edges, each once.

The structured content holds the same items; the text is what the size cut budgets
(mcpserver/fitting.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcpserver.content import DESCRIPTION_CHARS, clipped
from mcpserver.quoting import ELLIPSIS

Json = dict[str, Any]


def _plural(count: int, word: str, plural: str = "") -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def entity_line(entity: Json) -> str:
    labels = ", ".join(entity["labels"])
    return f"{entity['name']} [{labels}] (id {entity['id']})"


class Quoter:
    """Says each passage of one answer once: the first citation quotes it (or, with `evidence`
    IDS, names it), later ones refer back by its number."""

    def __init__(self, content: Json, texts: Mapping[str, str], mode: str) -> None:
        # describe_graph's `documents` is a list of what the scope holds, not of cited ones.
        self.passages: Json = content.get("passages", {})
        documents = content.get("documents", {})
        self.documents: Json = documents if isinstance(documents, dict) else {}
        self.texts = texts
        self.mode = mode
        self.numbers: dict[str, int] = {}
        self.waiting: list[str] = []  # numbered, not yet quoted (a walk quotes after its edges)
        self.quotes = 0
        # An answer whose passages are all of one document names it once, not on every quote.
        titles = {_title(document) for document in self.documents.values()}
        self.one_title = titles.pop() if len(titles) == 1 else None

    def number(self, passage_id: str) -> int:
        if passage_id not in self.numbers:
            self.numbers[passage_id] = len(self.numbers) + 1
            self.waiting.append(passage_id)
        return self.numbers[passage_id]

    def quoted(self, passage_id: str) -> str:
        """`"…" — title (passage id)`: the window the structured content names."""
        passage = self.passages[passage_id]
        text = self.texts.get(passage_id, "")
        start, end = passage.get("quoteStart", 0), passage.get("quoteEnd", 0)
        excerpt = " ".join(text[start:end].split())
        excerpt = (ELLIPSIS if start > 0 else "") + excerpt + (ELLIPSIS if end < len(text) else "")
        self.quotes += 1
        if self.one_title is not None:
            return f'"{excerpt}" (passage {passage_id})'
        title = _title(self.documents[passage["documentId"]])
        return f'"{excerpt}" — {title} (passage {passage_id})'

    def cite(self, passage_id: str) -> str:
        """The line that cites a passage now: quoted the first time, `[n] (above)` after."""
        first = passage_id not in self.numbers
        number = self.number(passage_id)
        if not first:
            return f"[{number}] (above)"
        self.waiting.remove(passage_id)
        if self.mode == "IDS":
            return f"[{number}] passage {passage_id}"
        return f"[{number}] {self.quoted(passage_id)}"

    def references(self, passage_ids: Sequence[str]) -> str:
        """` [1] [2]` for an edge's line; the passages are quoted by `rest()`."""
        if self.mode == "NONE" or not passage_ids:
            return ""
        return " " + " ".join(f"[{self.number(pid)}]" for pid in passage_ids)

    def rest(self) -> list[str]:
        """The passages numbered but not yet quoted, each once."""
        lines = [self.cite_waiting(pid) for pid in list(self.waiting)]
        self.waiting.clear()
        return lines

    def cite_waiting(self, passage_id: str) -> str:
        number = self.numbers[passage_id]
        if self.mode == "IDS":
            return f"[{number}] passage {passage_id}"
        return f"[{number}] {self.quoted(passage_id)}"


def _title(document: Json) -> str:
    return str(document["title"] or f"document {document['id']}")


def _total(item: Json, cursor_call: str) -> str:
    """`3 of 14 passages` and, when there are more, the call that reads them."""
    shown = len(item.get("evidenceIds", []))
    total = item.get("evidenceTotal", shown)
    more = "+" if item.get("evidenceTotalAtLeast") else ""
    said = f"{shown} of {total}{more} passages" if more or total != shown else f"{shown} passages"
    if total == 1 and shown == 1:
        said = "1 passage"
    if "evidenceCursor" in item:
        said += f'; the rest: get_evidence with cursor "{item["evidenceCursor"]}"'
    elif total > shown:
        said += f"; the rest: get_evidence with {cursor_call}"
    return said


def _evidence(item: Json, quoter: Quoter, lines: list[str], indent: str, owner_id: str) -> None:
    """An entity's evidence: its total, then each passage cited."""
    if quoter.mode == "NONE" or not (item.get("evidenceIds") or item.get("evidenceTotal")):
        return
    lines.append(f"{indent}evidence ({_total(item, f'entityId {owner_id}')}):")
    lines.extend(f"{indent}{quoter.cite(pid)}" for pid in item["evidenceIds"])


def _ranks(hit: Json) -> str:
    lexical = hit["lexicalRank"]
    semantic = hit["semanticRank"]
    said = f"score {hit['score']:.4g}"
    said += f", lexical rank {lexical}" if lexical is not None else ", no lexical rank"
    said += f", semantic rank {semantic}" if semantic is not None else ", no semantic rank"
    return said


def _search_header(
    content: Json, about: Mapping[str, Any], found: str, matched: bool, what: str, by: str
) -> list[str]:
    """The first lines of a search: how many hits; that nothing matched the query's words
    (`what` holds them: an entity's name, a passage), when so; that the hits reached `limit`."""
    hits = content["hits"]
    query, mode, limit = about.get("query", ""), about.get("mode", ""), about.get("limit", 0)
    lines = [f'{found} for "{query}" ({mode}).']
    if not hits and mode == "LEXICAL":
        lines.append(f'Nothing matched {by}: no {what} holds the words of "{query}".')
    elif hits and not matched:
        lines.append(
            f'Nothing matched {by}: no {what} holds the words of "{query}"; every hit was '
            "found by meaning only, so it is probably not in the graph. For word matches "
            "only, search again with `mode` LEXICAL."
        )
    if content.get("limitReached"):
        room = f"raise `limit` (now {limit}, at most 100)" if limit < 100 else "narrow the query"
        lines.append(f"Limit reached: more may match; {room}.")
    return lines


def _search_entities(content: Json, about: Mapping[str, Any], quoter: Quoter) -> list[str]:
    hits = content["hits"]
    found = _plural(len(hits), "entity", "entities")
    lines = _search_header(
        content, about, found, content["matchedByName"], "entity's name", "by name"
    )
    for n, hit in enumerate(hits, 1):
        entity = hit["entity"]
        lines.append(f"{n}. {entity_line(entity)}: {hit['status']}, {_ranks(hit)}")
        if entity.get("description"):
            lines.append(f"   {clipped(entity['description'], DESCRIPTION_CHARS)}")
        if hit["status"] == "UNSUPPORTED":
            lines.append("   no current passage supports it; do not state it as fact")
        _evidence(hit, quoter, lines, "   ", entity["id"])
    return lines


def _search_passages(content: Json, about: Mapping[str, Any], quoter: Quoter) -> list[str]:
    hits = content["hits"]
    found = _plural(len(hits), "passage")
    lines = _search_header(
        content, about, found, content["matchedByWords"], "passage", "by its words"
    )
    for n, hit in enumerate(hits, 1):
        passage = content["passages"][hit["passageId"]]
        lines.append(
            f"{n}. position {passage['position']}, {passage['length']} characters; {_ranks(hit)}"
        )
        lines.append(f"   {quoter.cite(hit['passageId'])}")
    if hits:
        lines.append("Read one whole: get_passage with its passage id.")
    return lines


def _edge_line(
    edge: Json, near: str | None, names: Mapping[str, str], quoter: Quoter, ids: bool, grouped: bool
) -> str:
    """`- → NAME (id …): KIND [1]` from `near`; `- NAME → NAME: KIND` for an edge between two
    others (with their ids unless `ids` is False: the text named them already)."""
    source, target = edge["sourceId"], edge["targetId"]

    def named(entity_id: str) -> str:
        name = names.get(entity_id, "")
        return f"{name} (id {entity_id})" if ids else name

    if near == source:
        ends = f"→ {named(target)}"
    elif near == target:
        ends = f"← {named(source)}"
    else:
        ends = f"{named(source)} → {named(target)}"
    line = f"- {ends}: {edge['kind']}" if grouped else f"- {ends}: {edge['type']}, {edge['kind']}"
    if edge["depth"] > 1 and near is not None and near not in (source, target):
        line += f", depth {edge['depth']}"
    if edge.get("description") is not None and edge.get("weight") is not None:
        line += f", weight {edge['weight']:g}"
    line += quoter.references(edge["evidenceIds"])
    if quoter.mode != "NONE" and (
        edge.get("evidenceTotalAtLeast") or edge.get("evidenceTotal", 0) > len(edge["evidenceIds"])
    ):
        line += f" ({_total(edge, '')})"
    return line


def _edges(
    edges: Sequence[Json],
    near: str | None,
    names: Mapping[str, str],
    quoter: Quoter,
    ids: bool = True,
    grouped: bool = True,
) -> list[str]:
    """The edges, one line each; when `grouped`, under a line naming their type whenever it
    changes, else each naming its own."""
    lines = []
    kind = None
    for edge in edges:
        if grouped and edge["type"] != kind:
            kind = edge["type"]
            same = sum(1 for other in edges if other["type"] == kind)
            lines.append(f"{kind} ({same}):" if same > 1 else f"{kind}:")
        lines.append(_edge_line(edge, near, names, quoter, ids, grouped))
        if edge.get("description"):
            lines.append(f"    description: {clipped(edge['description'], DESCRIPTION_CHARS)}")
    return lines


def _passages_cited(quoter: Quoter) -> list[str]:
    rest = quoter.rest()
    return ["Passages cited:", *rest] if rest else []


def _walk(content: Json, about: Mapping[str, Any], quoter: Quoter) -> list[str]:
    start = content["start"]
    names = {node["id"]: node["name"] for node in content["nodes"]}
    names[start["id"]] = start["name"]
    edges = content["edges"]
    lines = [
        f"Walk from {entity_line(start)}, depth {about.get('depth', 1)}: "
        f"{_plural(len(edges), 'edge')}, {_plural(len(content['nodes']), 'entity', 'entities')} "
        "reached (→ stored from the start, ← towards it)."
    ]
    lines += _edges(edges, start["id"], names, quoter)
    return lines + _passages_cited(quoter)


def _walk_between(content: Json, about: Mapping[str, Any], quoter: Quoter) -> list[str]:
    one, other = content["entity"], content["other"]
    names = {node["id"]: node["name"] for node in [one, other, *content["via"]]}
    edges = content["edges"]
    direct = [e for e in edges if {e["sourceId"], e["targetId"]} == {one["id"], other["id"]}]
    through = [e for e in edges if e not in direct]
    steps = about.get("depth", 2)
    lines = [
        f"Between {entity_line(one)} and {entity_line(other)}, within {_plural(steps, 'step')}: "
        f"{_plural(len(direct), 'direct relation')}, "
        f"{_plural(len(content['via']), 'entity', 'entities')} in between."
    ]
    if not edges:
        lines.append("No relation in your scope connects them within these steps.")
    if direct:
        lines.append("Direct (→ stored from the first, ← towards it):")
        lines += _edges(direct, one["id"], names, quoter, ids=False, grouped=False)
    for via in content["via"]:
        lines.append(f"Through {entity_line(via)}:")
        path = [e for e in through if via["id"] in (e["sourceId"], e["targetId"])]
        lines += _edges(path, None, names, quoter, ids=False, grouped=False)
    return lines + _passages_cited(quoter)


def _get_entity(content: Json, about: Mapping[str, Any], quoter: Quoter) -> list[str]:
    entity = content["entity"]
    if entity is None:
        return ["No entity with this id is visible in your scope."]
    lines = [f"{entity_line(entity)}: {content['status']}"]
    if entity.get("description"):
        lines.append(f"description: {' '.join(entity['description'].split())}")
    if content["status"] == "UNSUPPORTED":
        lines.append("no current passage supports it; do not state it as fact")
    _evidence(content, quoter, lines, "", entity["id"])
    relations = content["relations"]
    names = {node["id"]: node["name"] for node in relations["nodes"]}
    names[entity["id"]] = entity["name"]
    lines.append(
        f"{_plural(len(relations['edges']), 'relation')} (→ stored from it, ← towards it):"
    )
    lines += _edges(relations["edges"], entity["id"], names, quoter)
    return lines + _passages_cited(quoter)


def _get_entities(content: Json, about: Mapping[str, Any], quoter: Quoter) -> list[str]:
    entries = content["entities"]
    lines = [f"{sum(e['entity'] is not None for e in entries)} of {len(entries)} found."]
    for n, entry in enumerate(entries, 1):
        entity = entry["entity"]
        if entity is None:
            lines.append(f"{n}. id {entry['id']}: not visible in your scope")
            continue
        lines.append(f"{n}. {entity_line(entity)}: {entry['status']}")
        if entity.get("description"):
            lines.append(f"   {clipped(entity['description'], DESCRIPTION_CHARS)}")
        _evidence(entry, quoter, lines, "   ", entity["id"])
    return lines


def _get_evidence(content: Json, about: Mapping[str, Any], quoter: Quoter) -> list[str]:
    entity = content["entity"]
    if entity is None:
        return ["No entity (or relation) with these ids is visible in your scope."]
    whose = entity_line(entity)
    if "other" in content:
        whose = f"the relation {whose} – {entity_line(content['other'])} ({content['edgeId']})"
    shown = content["evidenceIds"]
    first = content["first"]
    total = content.get("evidenceTotal", first + len(shown))
    more = "+" if content.get("evidenceTotalAtLeast") else ""
    span = f"passages {first + 1}–{first + len(shown)}" if shown else "no more passages"
    lines = [f"Evidence of {whose}: {span} of {total}{more}."]
    lines += [quoter.cite(pid) for pid in shown]
    if "evidenceCursor" in content:
        lines.append(f'The rest: get_evidence with cursor "{content["evidenceCursor"]}".')
    return lines


def _get_passage(content: Json, about: Mapping[str, Any], quoter: Quoter) -> list[str]:
    passage = content["passage"]
    if passage is None:
        return ["No passage with this id is visible in your scope."]
    document = passage["document"]
    end = passage["offset"] + len(passage["text"])
    lines = [
        f"Passage {passage['id']}, position {passage['position']} of "
        f"{document['title'] or 'document ' + document['id']} "
        f"(workspace {document['workspace']}, version {passage['version']}), "
        f"characters {passage['offset']}–{end} of {passage['length']}:",
        passage["text"],
    ]
    if passage["nextOffset"] is not None:
        left = passage["length"] - passage["nextOffset"]
        lines.append(
            f"Read on: get_passage with id {passage['id']} and offset {passage['nextOffset']} "
            f"({_plural(left, 'character')} left)."
        )
    return lines


def _counts(counts: Sequence[Json], at_least: bool) -> str:
    if not counts:
        return "none"
    prefix = "at least " if at_least else ""
    return ", ".join(f"{c['name']} {prefix}{c['count']}" for c in counts)


def _describe_graph(content: Json, about: Mapping[str, Any], quoter: Quoter) -> list[str]:
    granted = content["grantedWorkspaces"]
    scope = content["scope"]
    lines = [
        "Granted workspaces: "
        + (", ".join(granted) if granted is not None else "every workspace (no authentication)")
        + "."
    ]
    if scope["workspaces"] != granted or scope["documentIds"] is not None:
        read = ", ".join(scope["workspaces"] or ["every workspace"])
        if scope["documentIds"] is not None:
            read += f"; {_plural(len(scope['documentIds']), 'document')}"
        lines.append(f"This call read: {read}.")
    workspaces = content["workspaces"]
    lines.append(
        "Workspaces with documents you may read (the names `scope.workspaces` takes): "
        + (
            ", ".join(f"{w['name']} ({_plural(w['documents'], 'document')})" for w in workspaces)
            if workspaces
            else "none"
        )
        + "."
    )
    documents = content["documents"]
    if documents:
        lines.append(
            "Documents: "
            + "; ".join(
                f"{d['title'] or 'untitled'} (id {d['id']}, workspace {d['workspace']}, "
                f"{_plural(d['passages'], 'passage')})"
                for d in documents
            )
            + (f"; and {content['moreDocuments']} more" if content["moreDocuments"] else "")
            + "."
        )
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
    return lines


def _entity_labels(content: Json, about: Mapping[str, Any], quoter: Quoter) -> list[str]:
    return [
        f"{label['label']}: fulltext index {label['fulltextIndex']}, "
        f"vector index {label['vectorIndex']}"
        for label in content["labels"]
    ]


RENDERERS = {
    "search_entities": _search_entities,
    "search_passages": _search_passages,
    "walk": _walk,
    "walk_between": _walk_between,
    "get_entity": _get_entity,
    "get_entities": _get_entities,
    "get_evidence": _get_evidence,
    "get_passage": _get_passage,
    "describe_graph": _describe_graph,
    "entity_labels": _entity_labels,
}


def render(
    tool: str,
    content: Json,
    texts: Mapping[str, str],
    about: Mapping[str, Any],
    advice: Sequence[str],
) -> str:
    """The text of an answer; `texts` holds the whole texts of the passages it cites, by id,
    which its quotes are windows of."""
    quoter = Quoter(content, texts, about.get("evidence", "QUOTES"))
    lines = RENDERERS[tool](content, about, quoter)
    if quoter.quotes and quoter.one_title is not None:
        lines.append(f"Every passage quoted is from {quoter.one_title}.")
    return "\n".join([*lines, *advice])
