"""The checks of one line that need the graph (contract §10), as a pure function of its answers.

contract §10: a line may point at entities and passages stored before (a relation's
`source`/`target`, `passageIds`, an entity's `mentions`) as well as at its own, and an id that
exists nowhere makes the line invalid. And a version is new text (a document that exists gets
its next version), so its passages need ids no stored passage has
(a passage belongs to one version of one document). A document keeps its workspace.

contract §2 "Ownership": a job of workspace W changes only W's entities and relations and
links only W's passages, so a line is refused when it names an entity stored with another
owner or with none (another pipeline's, or an earlier release's until `evidencegraph schema
apply` gives it its owner), a relation stored with another owner or with none, or a stored
passage whose document is another workspace's.

The graph's answers come from one read (`graph.stored_references`); this names every problem
with its field path, as the bundle's own checks do, so the reason reads the same.

contract §10: "A line that loses a race for a new id to another workspace's concurrent load is
refused with its reason". An id new at that read may be taken by another workspace's load before
the line's job commits: the job finds out before its commit (graph/new_id_race.py, and
`jobs.begin_job` for the document), and `race_problems` and `document_race_problem` say why the
line is refused then.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graph.new_id_race import NewIdTaken
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
    owners = _Ownership(check, document.workspace, positions, stored)
    for index, entity in enumerate(version.entities):
        owners.entity(f"entities[{index}].id", entity.id)
        for mention, passage_id in enumerate(entity.mentions):
            owners.passage(f"entities[{index}].mentions[{mention}]", passage_id)
    own_entities = {entity.id for entity in version.entities}
    for index, relation in enumerate(version.relations):
        owners.relation(f"relations[{index}].id", relation.id)
        for end in ("source", "target"):
            entity_id = getattr(relation, end)
            if entity_id in own_entities:
                continue  # its owner is checked with the entity's own id
            if entity_id in stored.found_entities:
                owners.entity(f"relations[{index}].{end}", entity_id)
            else:
                check.fail(f"relations[{index}].{end}", _nowhere("entity", entity_id))
        for support, passage_id in enumerate(relation.passage_ids):
            owners.passage(f"relations[{index}].passageIds[{support}]", passage_id)
    return None if check.ok else check.reason()


def race_problems(version: DocumentVersion, lost: NewIdTaken) -> str:
    """Why the line is refused when another workspace's load took its new entity ids after the
    line was checked: each id at its path, and what to do."""
    check = LineChecker(None, (), ())
    positions = {entity.id: index for index, entity in enumerate(version.entities)}
    for taken in lost.taken:
        where = positions.get(taken.entity_id)
        path = "entities" if where is None else f"entities[{where}].id"
        if taken.job_id is None:
            check.fail(
                path,
                f"entity {taken.entity_id} was stored by another workspace's load (or, with no "
                "owner, by another pipeline) after this line was checked; a load changes only "
                "its own workspace's entities: give it another id",
            )
        else:
            check.fail(
                path,
                f"entity {taken.entity_id} is being written by another workspace's load at the "
                f"same time (job {taken.job_id}): load this line again once that load has "
                "finished (a job that never finishes is removed by `evidencegraph jobs recover`)",
            )
    if lost.total > len(lost.taken):
        check.fail("entities", f"{lost.total - len(lost.taken)} more ids are taken")
    return check.reason()


def document_race_problem(version: DocumentVersion) -> str:
    """Why the line is refused when another workspace's load created its new document after
    the line was checked."""
    check = LineChecker(None, (), ())
    check.fail(
        "document.id",
        f"document {version.document.id} was created by another workspace's load after this "
        "line was checked; a document cannot move: give it another id",
    )
    return check.reason()


@dataclass(frozen=True, slots=True)
class _Ownership:
    """contract §2 "Ownership" for one line of `workspace`: what it names must be its own."""

    check: LineChecker
    workspace: str
    positions: Mapping[str, int]  # the line's own passages
    stored: StoredReferences

    def entity(self, path: str, entity_id: str) -> None:
        """A stored entity the line names is the workspace's (a new one is)."""
        if entity_id in self.stored.found_entities:
            self._owned(path, "entity", entity_id, self.stored.found_entities[entity_id])

    def relation(self, path: str, relation_id: str) -> None:
        if relation_id in self.stored.found_relations:
            self._owned(path, "relation", relation_id, self.stored.found_relations[relation_id])

    def passage(self, path: str, passage_id: str) -> None:
        """A passage a mention or relation names: the line's own, or a stored one of the
        workspace's documents."""
        if passage_id in self.positions:
            return
        if passage_id not in self.stored.found_passages:
            self.check.fail(path, _nowhere("passage", passage_id))
            return
        home = self.stored.found_passages[passage_id]
        if home != self.workspace:
            self.check.fail(
                path,
                f"passage {passage_id} is a passage of workspace {home!r}'s document, not "
                f"{self.workspace!r}'s; a load links only its own workspace's passages",
            )

    def _owned(self, path: str, kind: str, identifier: str, owner: str | None) -> None:
        if owner == self.workspace:
            return
        whose = (
            "has no owner (another pipeline's, or loaded by an earlier release: "
            "`evidencegraph schema apply` gives those their owners)"
            if owner is None
            else f"belongs to workspace {owner!r}"
        )
        self.check.fail(
            path,
            f"{kind} {identifier} {whose}, not to {self.workspace!r}; a load changes only its "
            f"own workspace's {kind}s: give it another id",
        )


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
