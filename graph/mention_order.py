"""Mentions kept in evidence order, so that a hub costs what an ordinary entity does.

contract §3: evidence is "up to `supportLimit` visible passages, ordered by document id then
position"; contract §5: "an entity with 100,000 relations or 100,000 mentions costs about what
an ordinary one does". Through the graph alone, the first few of an entity's passages in that
order are known only once every one of its mentions has been read and sorted, and whether a
workspace holds one of them only once the mentions before it have been read. So the service
keeps, as contract §2 allows ("anything extra it keeps for speed is derived and maintained by
the service itself, and its absence must not change an answer"):

- on each `MENTIONED_IN` relationship, facts that never change once its passage exists
  (but for the workspace, should another pipeline move the document):
  `orderEntityId` (the entity's id), `orderEntityWorkspace` (that id, a space, and the
  workspace of the passage's document), `orderDocumentId`, `orderPosition`, `orderPassageId`
  (the passage's document id, position and id);
- two relationship range indexes over them: `mention_order` (entity, document, position,
  passage) and `mention_workspace_order` (entity and workspace, document, position, passage).
  Neo4j reads a range index in its order, so a read of an entity's mentions (in one workspace,
  or in one document) in evidence order stops after the few it keeps. The two indexes lead
  with different properties, so Neo4j cannot take one for the other: read by entity alone,
  `mention_order` would hold a hub's mentions in every workspace;
- on each entity, `orderedMentions`: how many of its `MENTIONED_IN` relationships carry all
  five, i.e. are in both indexes.

When a read uses them (`in_order`): when an entity has more than `DENSE_MENTIONS` mentions and its
`orderedMentions` equals its `MENTIONED_IN` degree, a count Neo4j keeps per node (reading it
reads no relationship). A mention another pipeline adds without the properties changes the
degree and not the counter, so that entity is read the plain way, every mention, as before:
slower, never different. Up to `DENSE_MENTIONS` mentions the plain way costs no more.

Who writes them: the commit that creates a mention (`ORDER_NEW_MENTIONS` in graph/jobs.py),
recovery when it removes a failed job's chunks and purge when it removes passages
(`FORGET_MENTIONS_OF_CHUNK`, in graph/jobs.py and graph/purge.py), and
`evidencegraph schema apply` (`order_mentions`), which fills graphs written before this existed
or by other pipelines, and keys anew the mentions of a document another pipeline moved to
another workspace (`orderEntityWorkspace` holds the workspace the document had when the
mention was ordered; until then the moved mentions are not found by a read of the new
workspace's mentions in order, which is why docs/graph-model.md asks for `schema apply` after
such a move). A writer of the service that removes a mention without going through
`FORGET_MENTIONS_OF_CHUNK` leaves a counter above the degree: that entity is read the plain way
until the next `schema apply`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from graph.driver import Graph

# Above this many mentions an entity is read through the order indexes (when its counter
# says they hold every mention); at or below it, every mention is read and sorted. Statements
# receive it as `$denseMentions` (`mention_parameters`), so tests can send every entity the
# ordered way.
DENSE_MENTIONS = 32


def mention_parameters() -> dict[str, object]:
    """The parameters `in_order` reads."""
    return {"denseMentions": DENSE_MENTIONS}


# The two order indexes: each leads with its own property, then evidence order.
ENTITY_KEY: LiteralString = "orderEntityId"
WORKSPACE_KEY: LiteralString = "orderEntityWorkspace"
_EVIDENCE_ORDER: tuple[LiteralString, ...] = ("orderDocumentId", "orderPosition", "orderPassageId")


def _order_index(name: LiteralString, key: LiteralString) -> LiteralString:
    properties = ", ".join(f"m.{p}" for p in (key, *_EVIDENCE_ORDER))
    return f"CREATE INDEX {name} IF NOT EXISTS FOR ()-[m:MENTIONED_IN]-() ON ({properties})"


ORDER_INDEXES: tuple[LiteralString, ...] = (
    _order_index("mention_order", ENTITY_KEY),
    _order_index("mention_workspace_order", WORKSPACE_KEY),
)


def seek_hint(mention: LiteralString, key: LiteralString) -> LiteralString:
    """A planner hint: read `mention` by seeking the order index that leads with `key`.
    Without it Neo4j may plan, as its statistics move, a scan of the whole index in its order
    that filters on the entity: the same order, every entity's mentions read (seen in
    tests/test_hub_reads.py)."""
    return f" USING INDEX SEEK {mention}:MENTIONED_IN({', '.join((key, *_EVIDENCE_ORDER))})"


def in_order(entity: LiteralString) -> LiteralString:
    """`entity` is read through the order indexes: it is dense, and every one of its
    mentions is in both."""
    return (
        f"(coalesce({entity}.orderedMentions > $denseMentions, false)"
        f" AND {entity}.orderedMentions = COUNT {{ ({entity})-[:MENTIONED_IN]->() }})"
    )


def is_ordered(mention: LiteralString) -> LiteralString:
    """`mention` (a MENTIONED_IN relationship) is in both order indexes."""
    return (
        f"({mention}.orderEntityId IS NOT NULL AND {mention}.orderEntityWorkspace IS NOT NULL"
        f" AND {mention}.orderDocumentId IS NOT NULL AND {mention}.orderPosition IS NOT NULL"
        f" AND {mention}.orderPassageId IS NOT NULL)"
    )


def entity_workspace(entity_id: LiteralString, workspace: LiteralString) -> LiteralString:
    """The `orderEntityWorkspace` key of an entity id and a workspace (an id holds no space)."""
    return f"{entity_id} + ' ' + {workspace}"


# Ids are ordered only when made of printable ASCII (canonical UUIDs are, contract §2): Neo4j's
# index orders strings by code point and Cypher by UTF-16 unit, which agree there.
_PRINTABLE_ASCII: LiteralString = r"'[\\x{20}-\\x{7E}]+'"


def _orderable(value: LiteralString) -> LiteralString:
    return f"({value} IS :: STRING NOT NULL AND {value} =~ {_PRINTABLE_ASCII})"


def workspace_order_key(entity: LiteralString, document: LiteralString) -> LiteralString:
    """The `orderEntityWorkspace` a mention of `entity` in a passage of `document` should
    carry: null (not ordered) when the id or the workspace is unlike the model's."""
    return (
        f"CASE WHEN {_orderable(entity + '.id')} AND NOT {entity}.id CONTAINS ' '"
        f" AND {document}.workspace IS :: STRING NOT NULL"
        f" THEN {entity_workspace(entity + '.id', document + '.workspace')} END"
    )


def order_properties(
    mention: LiteralString, entity: LiteralString, chunk: LiteralString, document: LiteralString
) -> LiteralString:
    """A SET clause giving `mention` (from `entity` to `chunk` of `document`) its order
    properties. A value unlike the model's (an id that is not printable ASCII, a position
    that is not an integer) is left out, so that mention is not ordered and its entity is
    read the plain way: the index never has to order values Cypher would order otherwise."""
    return (
        f" SET {mention}.orderEntityId = CASE WHEN {_orderable(entity + '.id')}"
        f" AND NOT {entity}.id CONTAINS ' ' THEN {entity}.id END,"
        f" {mention}.orderPassageId = CASE WHEN {_orderable(chunk + '.id')}"
        f" THEN {chunk}.id END,"
        f" {mention}.orderDocumentId = CASE WHEN {_orderable(document + '.id')}"
        f" THEN {document}.id END,"
        f" {mention}.orderPosition = CASE WHEN {chunk}.position IS :: INTEGER NOT NULL"
        f" THEN {chunk}.position END,"
        f" {mention}.orderEntityWorkspace = {workspace_order_key(entity, document)}"
    )


# The part of a commit's mention writing that keeps the order (graph/jobs.py LINK_STAGED_ENTITIES
# and PUBLISH_VERSION): for the rows `e` (an :Entity), `m` (a mention just merged) and `c` (its
# passage), the properties, then the counter grown by the mentions that were not ordered before
# (each once, should a line name a passage twice), read under the entity's write lock (taken by
# setting a property the statement removes, as graph/jobs.py BEGIN_JOB does) so two commits never
# lose an increment. An entity that had no counter, or mentions from elsewhere, gets one below its
# degree, so it is read the plain way until `schema apply` counts it.
ORDER_NEW_MENTIONS: LiteralString = (
    "SET e.orderLock = true"
    " WITH e, m, c, " + is_ordered("m") + " AS wasOrdered"
    " OPTIONAL MATCH (orderDoc:Document)-[:HAS_PART]->(c)"
    " WITH e, m, c, wasOrdered, head(collect(orderDoc)) AS orderDoc"
    + order_properties("m", "e", "c", "orderDoc")
    + " WITH e, count(DISTINCT CASE WHEN NOT wasOrdered AND "
    + is_ordered("m")
    + " THEN m END) AS ordered"
    " SET e.orderedMentions = coalesce(e.orderedMentions, 0) + ordered"
    " REMOVE e.orderLock"
)

# Before a chunk `c` is deleted with its relationships: the counters of the entities whose
# ordered mentions go with it, each read under the entity's write lock (taken by setting a
# property the same statement removes, as graph/jobs.py BEGIN_JOB does), so two removals never
# lose a decrement.
FORGET_MENTIONS_OF_CHUNK: LiteralString = (
    "CALL (c) {"
    " MATCH (forgetting:Entity)-[gone:MENTIONED_IN]->(c) WHERE " + is_ordered("gone") + ""
    " WITH forgetting, count(gone) AS removed"
    " SET forgetting.orderLock = true"
    " SET forgetting.orderedMentions = forgetting.orderedMentions - removed"
    " REMOVE forgetting.orderLock"
    " }"
)

# `schema apply`, step 1: the order properties of every mention without them, in bounded
# transactions; each entity touched loses its counter (read the plain way until step 2).
_FILL_MENTION_ORDER: LiteralString = (
    "MATCH (e:Entity)-[m:MENTIONED_IN]->(c:Chunk) WHERE NOT " + is_ordered("m") + ""
    " CALL (e, m, c) {"
    " OPTIONAL MATCH (orderDoc:Document)-[:HAS_PART]->(c)"
    " WITH e, m, c, head(collect(orderDoc)) AS orderDoc"
    + order_properties("m", "e", "c", "orderDoc")
    + " SET e.orderedMentions = null"
    " } IN TRANSACTIONS OF 10000 ROWS"
)

# Step 1 too: the mentions whose `orderEntityWorkspace` is not their document's workspace any
# more (another pipeline moved the document): their properties again, their entity recounted.
# Until then a read of the new workspace's mentions in order would not find them (contract §2:
# a stale copy must not change an answer). Returns how many it re-keyed.
_REKEY_MOVED_MENTIONS: LiteralString = (
    "MATCH (e:Entity)-[m:MENTIONED_IN]->(c:Chunk) WHERE m.orderEntityWorkspace IS NOT NULL"
    " CALL (c) { OPTIONAL MATCH (orderDoc:Document)-[:HAS_PART]->(c)"
    " RETURN head(collect(orderDoc)) AS orderDoc }"
    " WITH e, m, c, orderDoc"
    " WHERE m.orderEntityWorkspace <> coalesce(" + workspace_order_key("e", "orderDoc") + ", '')"
    " CALL (e, m, c, orderDoc) {"
    + order_properties("m", "e", "c", "orderDoc")
    + " SET e.orderedMentions = null"
    " } IN TRANSACTIONS OF 10000 ROWS"
    " RETURN count(m) AS rekeyed"
)

# Step 2: every entity whose counter is missing or differs from its degree is counted again,
# under its write lock (the first SET), so a commit running beside it adds to an exact count.
_COUNT_ORDERED_MENTIONS: LiteralString = (
    "MATCH (e:Entity)"
    " WHERE e.orderedMentions IS NULL"
    " OR e.orderedMentions <> COUNT { (e)-[:MENTIONED_IN]->() }"
    " CALL (e) {"
    " SET e.orderedMentions = -1"
    " SET e.orderedMentions = COUNT { (e)-[m:MENTIONED_IN]->() WHERE " + is_ordered("m") + " }"
    " } IN TRANSACTIONS OF 1000 ROWS"
)

_ORDER_STATE: LiteralString = (
    "MATCH (e:Entity) WHERE e.orderedMentions > $denseMentions"
    " RETURN count(e) AS dense,"
    " count(CASE WHEN " + in_order("e") + " THEN 1 END) AS inOrder"
)


@dataclass(frozen=True)
class MentionOrderReport:
    dense: int  # entities with more than DENSE_MENTIONS ordered mentions
    in_order: int  # of those, the ones every read takes through the order indexes
    rekeyed: int = 0  # mentions whose document had moved to another workspace, keyed anew


async def order_mentions(graph: Graph) -> MentionOrderReport:
    """Fill the order properties and counters (see the module docstring). Idempotent; on a
    graph the service wrote, it reads every mention once and writes nothing."""
    for statement in ORDER_INDEXES:
        await graph.write(statement, {})
    [moved] = await graph.auto_commit_rows(_REKEY_MOVED_MENTIONS, {})
    await graph.auto_commit(_FILL_MENTION_ORDER, {})
    await graph.auto_commit(_COUNT_ORDERED_MENTIONS, {})
    [row] = await graph.read(_ORDER_STATE, mention_parameters())
    return MentionOrderReport(
        dense=int(row["dense"]), in_order=int(row["inOrder"]), rekeyed=int(moved["rekeyed"])
    )
