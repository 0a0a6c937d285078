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
`$scopeDocumentIds` (`contract.scope.Scope.cypher_parameters()`; null means no filter).
The fragments are functions of the Cypher variable names they test, evaluated once at import
time into the query constants of the other modules; no value is ever formatted into Cypher.
"""

from __future__ import annotations

from typing import LiteralString


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
    return f"({document}.currentVersion IN coalesce({document}.retiredVersions, []))"


def entity_returnable(entity: LiteralString) -> LiteralString:
    """At least one in-scope published passage of a document that is not retired mentions
    `entity` (it may appear, maybe UNSUPPORTED). A deleted document's passages count for
    nothing: an entity only they mention is not returned (docs/graph-model.md, "Deleting a
    document")."""
    return (
        f"EXISTS {{ MATCH ({entity})-[:MENTIONED_IN]->(mentionChunk:Chunk)"
        f"<-[:HAS_PART]-(mentionDoc:Document)"
        f" WHERE {document_in_scope('mentionDoc')} AND NOT {document_retired('mentionDoc')}"
        f" AND {passage_published('mentionChunk', 'mentionDoc')} }}"
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


def entity_supported(entity: LiteralString) -> LiteralString:
    """At least one visible passage mentions `entity`; stops at the first one found.

    Each mentioning document's version is read by an aggregation of its own, and the
    passage's job is tested only once its version matched, so the check never reads a job
    before the version it decides with.
    """
    return (
        f"EXISTS {{ MATCH ({entity})-[:MENTIONED_IN]->(supportChunk:Chunk)"
        f"<-[:HAS_PART]-(supportDoc:Document)"
        f" WHERE {document_in_scope('supportDoc')}"
        " CALL (supportDoc) { RETURN max(supportDoc.currentVersion) AS supportVersion }"
        " WITH supportChunk, supportVersion"
        " WHERE CASE WHEN supportChunk.version = supportVersion"
        f" THEN {passage_current('supportChunk', 'supportVersion')} ELSE false END }}"
    )


def versions_of_mentions(entities: LiteralString, into: LiteralString) -> LiteralString:
    """A subquery body: the versions (`document_versions`) of every in-scope document with a
    passage that mentions one of `entities` (a list of :Entity nodes), bound to `into`."""
    return (
        f"UNWIND {entities} AS versionEntity"
        " MATCH (versionEntity)-[:MENTIONED_IN]->(:Chunk)<-[:HAS_PART]-(versionDoc:Document)"
        f" WHERE {document_in_scope('versionDoc')}" + document_versions("versionDoc", into)
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
    entity: LiteralString, limit: LiteralString, versions: LiteralString
) -> LiteralString:
    """A subquery body up to its RETURN: up to `limit` passages mentioning `entity` that are
    in scope and current by `versions`, as rows of `c` (the :Chunk) and `d` (its :Document),
    in evidence order."""
    return (
        f"MATCH ({entity})-[:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)"
        f" WHERE {document_in_scope('d')} AND {passage_current_in('c', 'd', versions)}"
        f" WITH c, d {evidence_order('d', 'c')} LIMIT {limit}"
    )
