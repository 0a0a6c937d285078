"""An entity's in-scope mentions, read within the scope and in evidence order: the reads that
keep a hub as cheap as an ordinary entity (contract §5), through what graph/mention_order.py
keeps. graph/visibility.py composes them into the visibility rule's fragments.

The scope decides which order index a read seeks (its *shape*, `scope_shape`):
- `everywhere` (no filter): `mention_order` from the entity, in evidence order;
- `workspaces`: `mention_workspace_order`, one workspace after the other, each in evidence
  order, merged, so mentions in other workspaces are never read;
- `documents` (with or without workspaces): `mention_order`, one document after the other.
Each statement is built for one shape (the caller picks it from the request's scope), so Neo4j
plans only that shape's reads; `shape=None` builds every shape's, each reading nothing unless
the scope is its own, for a statement that must serve any scope.

An entity not read in order (`mention_order.in_order`: sparse, or its mentions not all
ordered) is read from the entity, every mention, as contract §2's model alone allows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, LiteralString, get_args

from contract.scope import Scope
from graph.mention_order import (
    ENTITY_KEY,
    WORKSPACE_KEY,
    entity_workspace,
    in_order,
    seek_hint,
)
from graph.statement_names import named

ScopeShape = Literal["everywhere", "workspaces", "documents"]
SHAPES: tuple[ScopeShape, ...] = get_args(ScopeShape)


def scope_shape(scope: Scope) -> ScopeShape:
    """Which order index reads `scope`'s mentions (see the module docstring)."""
    if scope.document_ids is not None:
        return "documents"
    return "everywhere" if scope.workspaces is None else "workspaces"


def for_each_shape(name: str, build: Callable[[ScopeShape], str]) -> Mapping[ScopeShape, str]:
    """A statement `build` makes for each shape, each named `name` (the constant holding the
    `everywhere` one, say), so traces name them alike (graph/statement_names.py)."""
    return {shape: named(name, build(shape)) for shape in SHAPES}


def any_mention(
    entity: LiteralString,
    chunk: LiteralString,
    document: LiteralString,
    where: LiteralString,
    shape: ScopeShape | None,
) -> LiteralString:
    """Whether `entity` mentions a `chunk` of a `document` for which `where` holds (clauses
    may follow it); stops at the first. `where` must hold the scope's filter: the seeks only
    narrow what is read.

    An entity read in order is read in evidence order in every shape, `everywhere` too: read
    the plain way, in store order, a hub whose first mentions are superseded passages would be
    read through all of them before the first visible one, so what the check costs would
    depend on how the store happened to lay the mentions out."""
    mention = chunk + "Mention"
    in_workspaces = (
        f"{mention}.orderEntityWorkspace IN"
        f" [workspace IN $scopeWorkspaces | {entity_workspace(entity + '.id', 'workspace')}]"
    )
    then = _document_of(chunk, document, where)

    def seek(key: LiteralString, condition: LiteralString) -> LiteralString:
        """The ordered mentions `condition` picks, through the order index `key`."""
        return (
            f"EXISTS {{ MATCH ()-[{mention}:MENTIONED_IN]->({chunk}){seek_hint(mention, key)}"
            f" WHERE {condition} AND {mention}.orderPosition IS NOT NULL"
            f" AND {mention}.orderPassageId IS NOT NULL{then} }}"
        )

    of_entity = f"{mention}.orderEntityId = {entity}.id"
    by_shape: dict[ScopeShape, LiteralString] = {
        "everywhere": seek(ENTITY_KEY, f"{of_entity} AND {mention}.orderDocumentId >= ''"),
        "workspaces": seek(
            WORKSPACE_KEY, f"{in_workspaces} AND {mention}.orderDocumentId IS NOT NULL"
        ),
        "documents": seek(
            ENTITY_KEY, f"{of_entity} AND {mention}.orderDocumentId IN $scopeDocumentIds"
        ),
    }
    plain = (
        f"EXISTS {{ MATCH ({entity})-[:MENTIONED_IN]->({chunk}:Chunk)"
        f"<-[:HAS_PART]-({document}:Document) WHERE {where} }}"
    )
    if shape is not None:
        return f"CASE WHEN {in_order(entity)} THEN {by_shape[shape]} ELSE {plain} END"
    return (
        f"CASE WHEN NOT {in_order(entity)} THEN {plain}"
        f" WHEN $scopeDocumentIds IS NOT NULL THEN {by_shape['documents']}"
        f" WHEN $scopeWorkspaces IS NOT NULL THEN {by_shape['workspaces']}"
        f" ELSE {by_shape['everywhere']} END"
    )


def mentions_in_order(
    entity: LiteralString,
    imports: LiteralString,
    *,
    where: LiteralString,
    chunk: LiteralString,
    document: LiteralString,
    shape: ScopeShape | None,
    limit: LiteralString | None = None,
    after: LiteralString | None = None,
) -> LiteralString:
    """A `CALL` clause binding `chunk` (a :Chunk) and `document` (its :Document): the mentions
    of `entity` (read in order) for which `where` holds (it must hold the scope's filter), the
    first `limit` of them in evidence order (all without a limit). `imports` are the variables
    the clause uses, `entity` among them. Rows leave in no promised order: sort them again.

    `after`: an expression of `imports`, a page cursor's key `[document id, position, passage
    id]` or null; only mentions after it in evidence order are read (`evidence_after`).

    Neo4j reads a range index in its order, and the LIMIT stops the read. A read after a key
    seeks too: the rest of the key's document from its position on, then the documents after
    it, so it reads about what a first page reads however deep the key is.
    """
    mention = chunk + "Mention"
    cut = f" LIMIT {limit}" if limit is not None else ""
    order = f"{mention}.orderDocumentId, {mention}.orderPosition, {mention}.orderPassageId"
    tail = _document_of(chunk, document, where)
    if after is not None:
        return _mentions_after(entity, imports, where, chunk, document, shape, cut, after)
    seek = (
        f"MATCH ()-[{mention}:MENTIONED_IN]->({chunk}){seek_hint(mention, ENTITY_KEY)}"
        f" WHERE {mention}.orderEntityId"
    )
    rest = f" AND {mention}.orderPosition IS NOT NULL AND {mention}.orderPassageId IS NOT NULL"
    everywhere_key, workspaces = _shape_inputs(entity, shape)
    branches = {
        "everywhere": (
            f"WITH {imports}, {everywhere_key} AS {chunk}Key"
            f" {seek} = {chunk}Key AND {mention}.orderDocumentId >= ''{rest}{tail}"
            f" WITH {chunk}, {document}, {mention}"
            f" ORDER BY {mention}.orderEntityId, {order}{cut} RETURN {chunk}, {document}"
        ),
        "workspaces": (
            f"UNWIND {workspaces} AS {chunk}Workspace"
            f" CALL ({imports}, {chunk}Workspace) {{"
            f" MATCH ()-[{mention}:MENTIONED_IN]->({chunk}){seek_hint(mention, WORKSPACE_KEY)}"
            f" WHERE {mention}.orderEntityWorkspace"
            f" = {entity_workspace(entity + '.id', chunk + 'Workspace')}"
            f" AND {mention}.orderDocumentId >= ''{rest}{tail}"
            f" WITH {chunk}, {document}, {mention}"
            f" ORDER BY {mention}.orderEntityWorkspace, {order}{cut}"
            f" RETURN {chunk}, {document}, {mention} }}"
            f" WITH {chunk}, {document}, {mention} ORDER BY {order}{cut}"
            f" RETURN {chunk}, {document}"
        ),
        "documents": (
            f"UNWIND $scopeDocumentIds AS {chunk}DocumentId"
            f" CALL ({imports}, {chunk}DocumentId) {{"
            f" {seek} = {entity}.id AND {mention}.orderDocumentId = {chunk}DocumentId"
            f" AND {mention}.orderPosition >= {_LEAST_INTEGER}"
            f" AND {mention}.orderPassageId IS NOT NULL{tail}"
            f" WITH {chunk}, {document}, {mention}"
            f" ORDER BY {mention}.orderEntityId, {order}{cut}"
            f" RETURN {chunk}, {document}, {mention} }}"
            f" WITH {chunk}, {document}, {mention} ORDER BY {order}{cut}"
            f" RETURN {chunk}, {document}"
        ),
    }
    chosen = SHAPES if shape is None else (shape,)
    return f"CALL ({imports}) {{ " + " UNION ALL ".join(branches[s] for s in chosen) + " }"


def evidence_after(
    document_id: LiteralString,
    position: LiteralString,
    passage_id: LiteralString,
    after: LiteralString,
) -> LiteralString:
    """The passage keyed (`document_id`, `position`, `passage_id`) comes after the key `after`
    (`[document id, position, passage id]`, or null for before everything) in evidence order
    (contract §3: document id, then position, then passage id)."""
    return (
        f"({after} IS NULL OR {document_id} > {after}[0] OR ({document_id} = {after}[0]"
        f" AND ({position} > {after}[1] OR ({position} = {after}[1]"
        f" AND {passage_id} > {after}[2]))))"
    )


def _mentions_after(
    entity: LiteralString,
    imports: LiteralString,
    where: LiteralString,
    chunk: LiteralString,
    document: LiteralString,
    shape: ScopeShape | None,
    cut: LiteralString,
    after: LiteralString,
) -> LiteralString:
    """`mentions_in_order` after the key `after`: each shape's seek split in two, the key's own
    document from its position on (a range on the index's third property, the first two
    equal) and the documents after it (a range on the second), each read in the index's order
    and cut, then merged. With no key (null) the first reads nothing and the second all."""
    mention = chunk + "Mention"
    order = f"{mention}.orderDocumentId, {mention}.orderPosition, {mention}.orderPassageId"
    beyond = evidence_after(
        f"{mention}.orderDocumentId", f"{mention}.orderPosition", f"{mention}.orderPassageId", after
    )
    tail = _document_of(chunk, document, f"{where} AND {beyond}")
    rest = f" AND {mention}.orderPosition IS NOT NULL AND {mention}.orderPassageId IS NOT NULL"

    def split(lead: LiteralString, key: LiteralString, inputs: LiteralString) -> LiteralString:
        """Both halves of one seek of the index that leads with `lead` equal to `key`."""
        seek = (
            f"MATCH ()-[{mention}:MENTIONED_IN]->({chunk}){seek_hint(mention, lead)}"
            f" WHERE {mention}.{lead} = {key}"
        )
        cut_in_order = (
            f" WITH {chunk}, {document}, {mention}"
            f" ORDER BY {mention}.{lead}, {order}{cut} RETURN {chunk}, {document}, {mention}"
        )
        return (
            f"CALL ({inputs}) {{"
            f" {seek} AND {mention}.orderDocumentId = {after}[0]"
            f" AND {mention}.orderPosition >= {after}[1]"
            f" AND {mention}.orderPassageId IS NOT NULL{tail}{cut_in_order}"
            " UNION ALL"
            f" {seek} AND {mention}.orderDocumentId > coalesce({after}[0], ''){rest}{tail}"
            f"{cut_in_order} }}"
        )

    merged = (
        f" WITH {chunk}, {document}, {mention} ORDER BY {order}{cut} RETURN {chunk}, {document}"
    )
    everywhere_key, workspaces = _shape_inputs(entity, shape)
    branches = {
        "everywhere": (
            f"WITH {imports}, {everywhere_key} AS {chunk}Key "
            + split(ENTITY_KEY, f"{chunk}Key", f"{imports}, {chunk}Key")
            + merged
        ),
        "workspaces": (
            f"UNWIND {workspaces} AS {chunk}Workspace "
            + split(
                WORKSPACE_KEY,
                entity_workspace(entity + ".id", chunk + "Workspace"),
                f"{imports}, {chunk}Workspace",
            )
            + merged
        ),
        # One seek per document in scope, from the key's position in the key's document, from
        # the start in a later one, nothing in an earlier one.
        "documents": (
            f"UNWIND [documentId IN $scopeDocumentIds"
            f" WHERE documentId >= coalesce({after}[0], '')] AS {chunk}DocumentId"
            f" CALL ({imports}, {chunk}DocumentId) {{"
            f" MATCH ()-[{mention}:MENTIONED_IN]->({chunk}){seek_hint(mention, ENTITY_KEY)}"
            f" WHERE {mention}.orderEntityId = {entity}.id"
            f" AND {mention}.orderDocumentId = {chunk}DocumentId"
            f" AND {mention}.orderPosition >= CASE WHEN {chunk}DocumentId = {after}[0]"
            f" THEN {after}[1] ELSE {_LEAST_INTEGER} END"
            f" AND {mention}.orderPassageId IS NOT NULL{tail}"
            f" WITH {chunk}, {document}, {mention}"
            f" ORDER BY {mention}.orderEntityId, {order}{cut}"
            f" RETURN {chunk}, {document}, {mention} }}" + merged
        ),
    }
    chosen = SHAPES if shape is None else (shape,)
    return f"CALL ({imports}) {{ " + " UNION ALL ".join(branches[s] for s in chosen) + " }"


def _shape_inputs(
    entity: LiteralString, shape: ScopeShape | None
) -> tuple[LiteralString, LiteralString]:
    """The entity key the "everywhere" branch seeks and the workspaces the "workspaces" branch
    unwinds. With every shape in one statement (`shape` None), each reads nothing unless the
    scope is its own: a null key, an empty UNWIND (a filter on parameters alone may be planned
    after the read)."""
    if shape is not None:
        return f"{entity}.id", "$scopeWorkspaces"
    return (
        f"CASE WHEN $scopeWorkspaces IS NULL AND $scopeDocumentIds IS NULL THEN {entity}.id END",
        "CASE WHEN $scopeDocumentIds IS NULL THEN $scopeWorkspaces END",
    )


def _document_of(chunk: LiteralString, document: LiteralString, where: LiteralString) -> str:
    """After a seek binding `chunk`: its `document`, then `where`. In a subquery of its own, so
    Neo4j plans the seek first: in one pattern it may start from the documents instead (in a
    subquery expression it did, reading every mention of every document)."""
    return (
        f" CALL ({chunk}) {{ MATCH ({document}:Document)-[:HAS_PART]->({chunk}:Chunk)"
        f" RETURN {document} }} WITH * WHERE {where}"
    )


# The least INTEGER: `orderPosition >= it` holds for every ordered mention and lets Neo4j read
# one document's mentions in the index's order.
_LEAST_INTEGER: LiteralString = "-9223372036854775808"
