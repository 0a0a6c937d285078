"""The checks of one line that need the graph (contract §10), as a pure function of its answers.

contract §10: a line may point at entities and passages stored before (a relation's
`source`/`target`, `passageIds`, an entity's `mentions`) as well as at its own, and an id that
exists nowhere makes the line invalid. And a version is new text (a document that exists gets
its next version), so its passages need ids no stored passage has
(a passage belongs to one version of one document). A document keeps its workspace.

The graph's answers come from one read (`graph.stored_references`); this names every problem
with its field path, as the bundle's own checks do, so the reason reads the same.
"""

from __future__ import annotations

from graph.stored_references import StoredReferences, TakenPassage
from ingest.bundle_checks import LineChecker
from ingest.document_version import DocumentVersion


def reference_problems(version: DocumentVersion, stored: StoredReferences) -> str | None:
    """Why the line cannot be written given what the graph holds, or None when it can."""
    check = LineChecker(None, (), ())
    document = version.document
    if stored.workspace is not None and stored.workspace != document.workspace:
        check.fail(
            "document.workspace",
            f"document {document.id} belongs to workspace {stored.workspace!r}, "
            f"not {document.workspace!r}; a document cannot move",
        )
    positions = {passage.id: index for index, passage in enumerate(version.passages)}
    for taken in stored.taken:
        check.fail(
            f"passages[{positions[taken.id]}].id", _taken(taken, document.id, stored.retired)
        )
    if stored.taken_count > len(stored.taken):
        check.fail("passages", f"{stored.taken_count - len(stored.taken)} more ids are stored")
    for index, entity in enumerate(version.entities):
        for mention, passage_id in enumerate(entity.mentions):
            if passage_id not in positions and passage_id not in stored.found_passages:
                check.fail(
                    f"entities[{index}].mentions[{mention}]", _nowhere("passage", passage_id)
                )
    own_entities = {entity.id for entity in version.entities}
    for index, relation in enumerate(version.relations):
        for end in ("source", "target"):
            entity_id = getattr(relation, end)
            if entity_id not in own_entities and entity_id not in stored.found_entities:
                check.fail(f"relations[{index}].{end}", _nowhere("entity", entity_id))
        for support, passage_id in enumerate(relation.passage_ids):
            if passage_id not in positions and passage_id not in stored.found_passages:
                check.fail(
                    f"relations[{index}].passageIds[{support}]", _nowhere("passage", passage_id)
                )
    return None if check.ok else check.reason()


def _nowhere(kind: str, identifier: str) -> str:
    return f"{kind} {identifier} is neither in this line nor in the graph"


def _taken(taken: TakenPassage, document_id: str, retired: bool) -> str:
    owner = (
        "this document"
        if taken.document_id == document_id
        else f"document {taken.document_id or '(none)'}"
    )
    where = f"{taken.id} is already a passage of {owner} (version {taken.version})"
    if taken.job_status == "RUNNING":
        return (
            f"{where}, written by job {taken.job_id}, which never finished: when no load is "
            "running, `evidencegraph jobs recover --older-than 0s` removes what it wrote"
        )
    if retired and taken.document_id == document_id:
        return (
            f"{where}, which was deleted: the very line it was deleted as brings it back, but"
            " a changed line needs new passage ids, or the deleted ones removed first by"
            " `evidencegraph purge` (run it, then load the line again)"
        )
    return f"{where}; a new version needs new passage ids"
