"""Loading document versions into the graph: contract §10's rules, line by line.

contract §10: one line is one job; a document that exists gets its next version; entities
merge by id across documents; a line may point at entities and passages stored before (a
relation's `source`/`target`, `passageIds`, an entity's `mentions`) as well as at its own, and
an id that exists nowhere makes it invalid; a missing `embedding` is computed by the configured
embedder; an invalid line is reported with its number and nothing of it is written.

How each line goes, in order, so that nothing is written for a line that cannot be loaded:

    1. the reader's checks (`ingest.bundle`: JSON, fields, ids, embedding lengths)
    2. one read of what the graph holds of the line's ids, and whose they are
       (`graph.stored_references`)
    3. unchanged: the document's current committed version has the line's content hash, so
       the line was loaded before and nothing is written (a reload is cheap and idempotent);
       restored: the document was deleted and the line is the version it was deleted as, so
       the deletion is undone and nothing is written (`graph.restoration`)
    4. the checks that need the graph (`ingest.reference_check`), ownership among them: a
       line of workspace W names only W's entities, relations and passages (contract §2)
    5. the job (`ingest.job_writer`): begin, batches, commit; fail_job on any failure. A new
       id that another workspace's load took since step 2 (graph/new_id_race.py; the
       document's at the job's beginning) fails the job before its commit and refuses the
       line with its reason: a line is never reported loaded with parts of it dropped

Before the first job, the id constraints are made sure of (every write looks ids up; without
them each look-up scans a label and a load slows down as the graph grows), and the graph
records which embedder made its vectors (`graph.embedder_record`; the command checked
beforehand that it is this one).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from neo4j.exceptions import ClientError

from embedding.mismatch import check_recorded
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from graph.embedder_record import record_embedder
from graph.graph_schema import apply_constraints
from graph.jobs import WorkspaceMismatch
from graph.new_id_race import NewIdTaken
from graph.restoration import Restoration, restore_retired
from graph.stored_references import RelationEnds, stored_references
from ingest.bundle import LineError
from ingest.document_version import DocumentVersion
from ingest.job_writer import JobWriter
from ingest.load_report import (
    DocumentOutcome,
    LoadObserver,
    LoadTotals,
    Outcome,
    Rejection,
    SilentObserver,
)
from ingest.reference_check import document_race_problem, race_problems, reference_problems

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LoadResult:
    totals: LoadTotals
    rejections: list[Rejection]


class Loader:
    """Loads versions one job at a time through one `Graph` with one embedder."""

    def __init__(
        self,
        graph: Graph,
        embedder: QueryEmbedder,
        observer: LoadObserver | None = None,
        documents_total: int | None = None,
    ) -> None:
        self._graph = graph
        self._embedder = embedder
        self._observer = observer or SilentObserver()
        self.totals = LoadTotals(documents_total=documents_total)
        self._writer = JobWriter(graph, embedder, self.totals, self._progress)
        self._prepared = False

    def _progress(self) -> None:
        self._observer.progress(self.totals)

    async def load(self, lines: Iterable[tuple[int, DocumentVersion | LineError]]) -> LoadResult:
        """Load every line; invalid ones are reported, the rest still load."""
        rejections: list[Rejection] = []
        for number, line in lines:
            reason = await self.load_line(line)
            if reason is not None:
                rejection = Rejection(number, reason)
                rejections.append(rejection)
                self.totals.rejected += 1
                self._observer.rejected(rejection)
            self._progress()
        return LoadResult(self.totals, rejections)

    async def load_line(self, line: DocumentVersion | LineError) -> str | None:
        """Load one line; the reason it was rejected, or None (loaded or unchanged)."""
        if isinstance(line, LineError):
            return line.reason
        version = line
        own_passages = [passage.id for passage in version.passages]
        stored = await stored_references(
            self._graph,
            version.document.id,
            own_passages,
            version.external_passage_ids(),
            version.named_entity_ids(),
            [RelationEnds(r.id, r.source, r.target) for r in version.relations],
        )
        content_hash = version.content_hash()
        labels = {label for entity in version.entities for label in entity.labels}
        if stored.content_hash == content_hash:
            self.totals.unchanged += 1
            self.totals.labels |= labels  # its indexes are (re)checked at the end all the same
            self._done(version, Outcome.UNCHANGED)
            return None
        if stored.retired:
            restoration = await restore_retired(self._graph, version.document.id, content_hash)
            if restoration is Restoration.RESTORED:
                self.totals.restored += 1
                self.totals.labels |= labels
                self._done(version, Outcome.RESTORED)
                return None
            if restoration is Restoration.JOB_UNDER_WAY:
                return (
                    f"document {version.document.id} was deleted, and another load or delete"
                    " of it is under way: load the line again once that has finished"
                )
        problems = reference_problems(version, stored)
        if problems is not None:
            return problems
        try:
            # The first batch is embedded while the graph is prepared (before the first job).
            await self._writer.write(version, content_hash, before_job=self._prepare_graph)
        except ClientError as error:
            if not self._prepared:
                raise  # the graph's constraints or embedder record failed, not this line
            # The graph refused a statement (a constraint, say, when another load wrote the
            # same ids meanwhile): the job was failed and cleaned up; the other lines go on.
            log.debug("line refused by Neo4j", exc_info=True)
            return f"Neo4j refused the write ({error.code}): {error.message}"
        except NewIdTaken as lost:
            # Another workspace's load took a new entity id of the line since step 2: the job
            # was failed before its commit, so nothing of the line is written (contract §10).
            return race_problems(version, lost)
        except WorkspaceMismatch:
            return document_race_problem(version)  # the same, for the document's id
        self.totals.loaded += 1
        self.totals.labels |= labels
        self._done(version, Outcome.NEW if stored.workspace is None else Outcome.NEW_VERSION)
        return None

    def _done(self, version: DocumentVersion, outcome: Outcome) -> None:
        document = version.document
        self.totals.documents.append(
            DocumentOutcome(document.id, document.workspace, document.title, outcome)
        )

    async def _prepare_graph(self) -> None:
        if self._prepared:
            return
        await apply_constraints(self._graph)
        recorded = await record_embedder(self._graph, self._embedder.identity)
        # Another load may have recorded a different embedder since the command's check.
        check_recorded(recorded, self._embedder.identity)
        self._prepared = True
