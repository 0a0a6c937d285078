"""Passage ids made from what a version holds, for readers whose source keeps a chunk's id
when its document changes (contract §2: a passage is one piece of one version, so a new
version needs passage ids no stored passage has).

A reader drafts each document's line with its passages under draft ids (stable per workspace,
from the source's own ids), in the order the lines are loaded; a line may name earlier lines'
passages (a relation's support). `with_content_ids` then gives every passage its final id from
the content hash of its line as drafted (naming earlier lines' passages by their final ids),
`final_id(passage, fingerprint)`. An unchanged document gets the ids and the content hash it
had, so the loader finds it unchanged; any change to it, or to an earlier passage it names,
gives new ids, and it loads as its next version. Entities and relations keep their ids.
Used by ingest/graphrag.py and ingest/source_graph_mapping.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from ingest.document_version import DocumentVersion, EntityInput, PassageInput, RelationInput

FinalId = Callable[[PassageInput, str], str]  # (drafted passage, its line's fingerprint) -> id


def with_content_ids(drafts: list[DocumentVersion], final_id: FinalId) -> list[DocumentVersion]:
    """The lines of `drafts`, in order, with every passage under its final id."""
    final: dict[str, str] = {}  # draft id -> final id, for the lines done so far
    versions = []
    for draft in drafts:
        draft = _renamed(draft, final)
        fingerprint = draft.content_hash()
        for passage in draft.passages:
            final[passage.id] = final_id(passage, fingerprint)
        versions.append(_renamed(draft, final))
    return versions


def _renamed(version: DocumentVersion, final: Mapping[str, str]) -> DocumentVersion:
    """`version` with the passages `final` names under their final ids."""

    def ids(passage_ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(final.get(p, p) for p in passage_ids)

    passages: list[PassageInput] = [replace(p, id=final.get(p.id, p.id)) for p in version.passages]
    entities: list[EntityInput] = [replace(e, mentions=ids(e.mentions)) for e in version.entities]
    relations: list[RelationInput] = [
        replace(r, passage_ids=ids(r.passage_ids)) for r in version.relations
    ]
    return DocumentVersion(version.document, passages, entities, relations)
