"""The visibility rule (contract §1), written once and composed into every read.

    in scope (passage)  its document is in the effective scope
    current  (passage)  chunk.version = document.currentVersion AND (chunk.jobId IS NULL OR
                        the :Job with that id has status 'COMMITTED')
    visible  (passage)  in scope AND current
    published (passage) its version is one its document has reached (chunk.version <=
                        document.currentVersion) AND its job, if it names one, is COMMITTED:
                        the current passage or a superseded one, never one of a version a
                        commit has not yet made current
    retired  (document) its current version is a retirement (`evidencegraph delete`): a
                        version with no passages, listed in `document.retiredVersions`
    returnable (entity) at least one in-scope published passage of a document that is not
                        retired mentions it
    supported  (entity) at least one visible passage mentions it

A passage of a version not yet published is nothing to any reader (contract §2: everything a
job writes stays invisible until it commits), so what a commit links to it before it moves
the version shows nowhere (graph/jobs.py COMMIT_JOB; docs/graph-model.md, "Readers").

Every fragment reads the scope from the parameters `$scopeWorkspaces` and
`$scopeDocumentIds` (`contract.scope.Scope.cypher_parameters()`; null means no filter), and
the fragments about an entity's mentions read `$denseMentions`
(`graph.mention_order.mention_parameters()`); `graph.lookups.scoped` adds both.
The fragments are functions of the Cypher variable names they test, evaluated once at import
time into the query constants of the other modules; no value is ever formatted into Cypher.

Hubs (contract §5: "an entity with 100,000 relations or 100,000 mentions costs about what an
ordinary one does"): every fragment about an entity's mentions stops at the first mention that
decides it, and reads a dense entity's mentions through the order indexes of
graph/mention_order.py, in evidence order and within the scope, so a read of its evidence
reads about the passages it returns. An entity those indexes do not hold whole is read the
plain way, every mention (`mention_order.in_order` says which).
"""

from __future__ import annotations

from typing import LiteralString

from graph.mention_order import in_order
from graph.mention_reads import ScopeShape, any_mention, evidence_after, mentions_in_order


def document_in_scope(document: LiteralString) -> LiteralString:
    """`document` (a :Document) is in the effective scope."""
    return (
        f"(($scopeWorkspaces IS NULL OR {document}.workspace IN $scopeWorkspaces)"
        f" AND ($scopeDocumentIds IS NULL OR {document}.id IN $scopeDocumentIds))"
    )


def passage_current(passage: LiteralString, current_version: LiteralString) -> LiteralString:
    """`passage` belongs to the current, committed version of its document, whose current
    version is the Cypher expression `current_version` (usually `document.currentVersion`).

    A chunk that names a job is current only when that job exists and is COMMITTED, so a
    RUNNING or FAILED job's chunks are never current, whatever version they carry.
    """
    return (
        f"({passage}.version = {current_version}"
        f" AND ({passage}.jobId IS NULL"
        f" OR EXISTS {{ MATCH (writer:Job {{id: {passage}.jobId}})"
        f" WHERE writer.status = 'COMMITTED' }}))"
    )


def passage_published(passage: LiteralString, document: LiteralString) -> LiteralString:
    """`passage` (of `document`) belongs to a version its document has reached: the current
    one or a superseded one, written by a committed job (or by none).

    The job is tested only inside a `CASE` on the version, so it is read after the version it
    is decided with, as `entity_supported` does (docs/graph-model.md, "Readers").
    """
    return (
        f"CASE WHEN {passage}.version <= {document}.currentVersion"
        f" THEN ({passage}.jobId IS NULL"
        f" OR EXISTS {{ MATCH (publisher:Job {{id: {passage}.jobId}})"
        f" WHERE publisher.status = 'COMMITTED' }}) ELSE false END"
    )


def document_retired(document: LiteralString) -> LiteralString:
    """`document`'s current version is a retirement (graph/retirement.py): it was deleted.

    Decided by `currentVersion` alone: a retirement lists its version in `retiredVersions`
    when it begins, long before its commit can make that version current, and the list only
    grows until purge drops versions below the current one, so reading the version decides.
    A retirement has no passages, so nothing of a retired document is current either.
    """
    return version_retired(document, f"{document}.currentVersion")


def version_retired(document: LiteralString, version: LiteralString) -> LiteralString:
    """`version` (a version of `document` read once, say by an aggregation) is a retirement."""
    return f"({version} IN coalesce({document}.retiredVersions, []))"


def entity_returnable(entity: LiteralString, shape: ScopeShape | None = None) -> LiteralString:
    """At least one in-scope published passage of a document that is not retired mentions
    `entity` (it may appear, maybe UNSUPPORTED); stops at the first one found. A deleted
    document's passages count for nothing: an entity only they mention is not returned
    (docs/graph-model.md, "Deleting a document"), read in order or not. `shape`: the scope's
    (graph/mention_reads.py), or None for a statement that serves any scope."""
    return any_mention(
        entity,
        "mentionChunk",
        "mentionDoc",
        f"{document_in_scope('mentionDoc')} AND NOT {document_retired('mentionDoc')}"
        f" AND {passage_published('mentionChunk', 'mentionDoc')}",
        shape,
    )


def document_versions(
    document: LiteralString, into: LiteralString, known: LiteralString = "[]"
) -> LiteralString:
    """The end of a subquery over rows binding `document`: RETURN `into`, a list of
    `[document id, currentVersion]` pairs, each document read once, leaving out the
    documents the pairs `known` already hold (the caller adds `known` to `into`).

    The versions are read inside one aggregation, which finishes before the statement goes
    on, so every `currentVersion` a statement decides with is read before any job it then
    reads, and each document is read once per statement (docs/graph-model.md, "Readers").
    """
    return (
        f" WITH DISTINCT {document} WHERE NOT {document}.id IN [pair IN {known} | pair[0]]"
        f" RETURN collect([{document}.id, {document}.currentVersion]) AS {into}"
    )


def version_of(versions: LiteralString, document: LiteralString) -> LiteralString:
    """The version `versions` (pairs from `document_versions`) holds for `document`; null,
    so nothing of the document is current, when it holds none."""
    return f"head([pair IN {versions} WHERE pair[0] = {document}.id | pair[1]])"


def passage_current_in(
    passage: LiteralString, document: LiteralString, versions: LiteralString
) -> LiteralString:
    """`passage` (of `document`) is current by the versions read into `versions`."""
    return passage_current(passage, version_of(versions, document))


def entity_supported(entity: LiteralString, shape: ScopeShape | None = None) -> LiteralString:
    """At least one visible passage mentions `entity`; stops at the first one found.

    Each mentioning document's version is read by an aggregation of its own, and the
    passage's job is tested only once its version matched, so the check never reads a job
    before the version it decides with.
    """
    return any_mention(
        entity,
        "supportChunk",
        "supportDoc",
        document_in_scope("supportDoc")
        + " CALL (supportDoc) { RETURN max(supportDoc.currentVersion) AS supportVersion }"
        " WITH supportChunk, supportVersion"
        " WHERE CASE WHEN supportChunk.version = supportVersion"
        f" THEN {passage_current('supportChunk', 'supportVersion')} ELSE false END",
        shape,
    )


def versions_of_mentions(
    entities: LiteralString,
    into: LiteralString,
    limit: LiteralString | None = None,
    shape: ScopeShape | None = None,
    after: LiteralString | None = None,
) -> LiteralString:
    """A subquery body: the versions (`document_versions`) of the in-scope documents needed to
    decide the first `limit` visible passages of each of `entities` (a list of :Entity nodes),
    bound to `into`; with no `limit`, of every in-scope document that mentions one of them.
    With a `limit` it also binds `{into}Looked`, which `visible_passages_of_entity` reads.

    An entity read in order (graph/mention_order.py) is not read whole. A first look, which
    decides nothing, finds its first `limit` passages in evidence order that are visible as the
    graph is read now (`shape` picks the order index for the scope, as for
    `entity_returnable`); the versions of their documents are then read, in one aggregation
    with every other entity's, each document once, and those passages are decided again with
    them. The answer shows a document the look found nothing in as the look saw it, without
    a passage of this entity. Should a version read differ from the one the look saw (a commit
    landed in between), the entity is decided the plain way, from every mention, with the
    versions of all its in-scope documents, read in a second aggregation: each before any job
    the answer is decided with, as the rule asks (docs/graph-model.md, "Readers").

    `{into}Looked`: for each entity, `{entity: id, passages: [the look's passages],
    whole: read it the plain way}`.

    `after`: for a page (contract: `evidencePage`), an expression of `versionEntity` giving
    that entity's cursor key (`mention_reads.evidence_after`), so the look finds the first
    `limit` passages after it; each entity appears once in `entities`.
    """
    if limit is None:
        return (
            f"UNWIND {entities} AS versionEntity"
            " MATCH (versionEntity)-[:MENTIONED_IN]->(:Chunk)<-[:HAS_PART]-(versionDoc:Document)"
            f" WHERE {document_in_scope('versionDoc')}" + document_versions("versionDoc", into)
        )
    looked = mentions_in_order(
        "versionEntity",
        "versionEntity" if after is None else "versionEntity, lookAfter",
        where=document_in_scope("lookDoc")
        + " AND "
        + passage_current("lookChunk", "lookDoc.currentVersion"),
        limit=limit,
        chunk="lookChunk",
        document="lookDoc",
        shape=shape,
        after=None if after is None else "lookAfter",
    )
    look_after: LiteralString = "" if after is None else f", {after} AS lookAfter"
    every_document = (
        " MATCH (versionEntity)-[:MENTIONED_IN]->(:Chunk)<-[:HAS_PART]-(versionDoc:Document)"
        f" WHERE {document_in_scope('versionDoc')}"
    )
    changed = (
        "any(pair IN plan.seen"
        " WHERE head([read IN firstVersions WHERE read[0] = pair[0] | read[1]]) <> pair[1])"
    )
    return (
        f"WITH {entities} AS versionEntities"
        " CALL (versionEntities) {"
        " UNWIND versionEntities AS versionEntity"
        f" WITH versionEntity, {in_order('versionEntity')} AS inOrder"
        " CALL (versionEntity, inOrder) {"
        f" WITH versionEntity{look_after} WHERE inOrder AND {limit} > 0 {looked}"
        f" WITH lookChunk, lookDoc {evidence_order('lookDoc', 'lookChunk')}"
        # A passage found current has the version its document's read gave: its own.
        " RETURN collect(lookChunk) AS passages,"
        " collect(DISTINCT [lookDoc.id, lookChunk.version]) AS seen"
        " }"
        " RETURN collect({entity: versionEntity, inOrder: inOrder, passages: passages,"
        " seen: seen}) AS versionPlans"
        " }"
        " CALL (versionPlans) {"
        " UNWIND versionPlans AS plan"
        " CALL (plan) {"
        f" WITH plan.entity AS versionEntity WHERE NOT plan.inOrder AND {limit} > 0"
        f"{every_document} RETURN versionDoc"
        " UNION ALL"
        " UNWIND plan.seen AS pair MATCH (versionDoc:Document {id: pair[0]}) RETURN versionDoc"
        " }" + document_versions("versionDoc", "firstVersions") + " }"
        " CALL (versionPlans, firstVersions) {"
        " UNWIND versionPlans AS plan"
        f" WITH plan.entity AS versionEntity WHERE plan.inOrder AND {changed}"
        f"{every_document}"
        + document_versions("versionDoc", "moreVersions", "firstVersions")
        + " }"
        f" RETURN firstVersions + moreVersions AS {into},"
        " [plan IN versionPlans | {entity: plan.entity.id, passages: plan.passages,"
        f" whole: NOT plan.inOrder OR {changed}}}] AS {into}Looked"
    )


def evidence_order(document: LiteralString, passage: LiteralString) -> LiteralString:
    """contract §3 evidence order: by document id, then position, then passage id."""
    return f"ORDER BY {document}.id, {passage}.position, {passage}.id"


def document_visible(document: LiteralString) -> LiteralString:
    """`document` is in scope and has a committed version (`currentVersion` 0 means none)
    that is not a retirement."""
    return (
        f"({document}.currentVersion >= 1 AND NOT {document_retired(document)}"
        f" AND {document_in_scope(document)})"
    )


def visible_passages_of_entity(
    entity: LiteralString,
    limit: LiteralString,
    versions: LiteralString,
    looked: LiteralString | None = None,
    after: LiteralString | None = None,
) -> LiteralString:
    """A subquery body up to its RETURN: up to `limit` passages mentioning `entity` that are
    in scope and current by `versions`, as rows of `c` (the :Chunk) and `d` (its :Document),
    in evidence order.

    `looked`: what `versions_of_mentions` with the same `limit` bound besides `versions`; an
    entity it read in order is decided from the passages its look found, read again here with
    `versions`, instead of from every mention.

    `after`: for a page, an expression of the row giving the cursor key: only passages after
    it in evidence order (`versions_of_mentions` with the same `after` looked after it too).
    """
    where = document_in_scope("d") + " AND " + passage_current_in("c", "d", versions)
    if after is not None:
        where += " AND " + evidence_after("d.id", "c.position", "c.id", "pageAfter")
    page_after: LiteralString = "" if after is None else f", {after} AS pageAfter"
    imported: LiteralString = "" if after is None else ", pageAfter"
    every = (
        f"MATCH (orderedEntity)-[:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)"
        f" WHERE {where} WITH c, d {evidence_order('d', 'c')} LIMIT {limit}"
    )
    if looked is None:
        return f"WITH {entity} AS orderedEntity, {versions}{page_after} {every}"
    return (
        f"WITH {entity} AS orderedEntity, {versions}{page_after},"
        f" head([plan IN {looked} WHERE plan.entity = {entity}.id]) AS plan"
        f" CALL (orderedEntity, {versions}, plan{imported}) {{"
        f" WITH orderedEntity, {versions}{imported} WHERE plan IS NULL OR plan.whole {every}"
        " RETURN c, d"
        " UNION ALL"
        f" WITH plan, {versions}{imported} WHERE NOT plan.whole UNWIND plan.passages AS c"
        f" MATCH (d:Document)-[:HAS_PART]->(c) WHERE {where} RETURN c, d"
        " }"
        f" WITH c, d {evidence_order('d', 'c')}"
    )
