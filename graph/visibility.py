"""The visibility rule (contract §1), written once and composed into every read.

    in scope (passage)  its document is in the effective scope
    current  (passage)  chunk.version = document.currentVersion AND (chunk.jobId IS NULL OR
                        the :Job with that id has status 'COMMITTED')
    visible  (passage)  in scope AND current
    returnable (entity) at least one in-scope passage mentions it
    supported  (entity) at least one visible passage mentions it

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


def passage_visible(passage: LiteralString, document: LiteralString) -> LiteralString:
    """`passage` is in scope and current."""
    return (
        f"({document_in_scope(document)}"
        f" AND {passage_current(passage, document + '.currentVersion')})"
    )


def entity_returnable(entity: LiteralString) -> LiteralString:
    """At least one in-scope passage mentions `entity` (it may appear, maybe UNSUPPORTED)."""
    return (
        f"EXISTS {{ MATCH ({entity})-[:MENTIONED_IN]->(:Chunk)<-[:HAS_PART]-(mentionDoc:Document)"
        f" WHERE {document_in_scope('mentionDoc')} }}"
    )


def entity_supported(entity: LiteralString) -> LiteralString:
    """At least one visible passage mentions `entity`."""
    return (
        f"EXISTS {{ MATCH ({entity})-[:MENTIONED_IN]->(supportChunk:Chunk)"
        f"<-[:HAS_PART]-(supportDoc:Document)"
        f" WHERE {passage_visible('supportChunk', 'supportDoc')} }}"
    )


def current_version_once(document: LiteralString, passages: LiteralString) -> LiteralString:
    """A pipeline stage that reads each document's current version once per statement.

    Neo4j reads are read-committed: a statement reading many passages while a job commits
    could see the old version for some rows and the new one for others. Grouping the
    passages (`passages`, a list) by document first, then reading `currentVersion` once per
    document, keeps every document whole within one statement's answer. Binds
    `{document}CurrentVersion`.
    """
    return (
        f" WITH {document}, collect({passages}) AS {passages}Grouped"
        f" WITH {document}, {document}.currentVersion AS {document}CurrentVersion,"
        f" {passages}Grouped"
    )


def keep_current(document: LiteralString, passage: LiteralString) -> LiteralString:
    """A pipeline stage after rows of in-scope (`document`, `passage`): keeps the current
    passages, each document's version read once (`current_version_once`). Leaves exactly
    `passage` and `document` bound."""
    return (
        current_version_once(document, passage) + f" UNWIND {passage}Grouped AS {passage}"
        f" WITH {passage}, {document}"
        f" WHERE {passage_current(passage, document + 'CurrentVersion')}"
    )


def evidence_order(document: LiteralString, passage: LiteralString) -> LiteralString:
    """contract §3 evidence order: by document id, then position, then passage id."""
    return f"ORDER BY {document}.id, {passage}.position, {passage}.id"


def document_visible(document: LiteralString) -> LiteralString:
    """`document` is in scope and has a committed version (`currentVersion` 0 means none)."""
    return f"({document}.currentVersion >= 1 AND {document_in_scope(document)})"


def visible_passages_of_entity(entity: LiteralString, limit: LiteralString) -> LiteralString:
    """A subquery body up to its RETURN: up to `limit` visible passages mentioning `entity`
    as rows of `c` (the :Chunk) and `d` (its :Document), in evidence order."""
    return (
        f"MATCH ({entity})-[:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)"
        f" WHERE {document_in_scope('d')}"
        + keep_current("d", "c")
        + f" WITH c, d {evidence_order('d', 'c')} LIMIT {limit}"
    )
