"""Owner stamping: a graph an earlier release loaded gets its owners (contract §2 "Ownership").

Releases before ownership wrote no `workspace` on entities or relations and no `workspaceKey`
(graph/ownership.py) on entities or passages. `evidencegraph schema apply` derives them from
what the graph states, and nothing else:

- an entity gets `workspace` (and `workspaceKey`) when every one of its mentions is a passage
  of a document, and all those documents are in one workspace;
- a relation gets `workspace` when every passage its `passageIds` lists is a passage of a
  document, all in one workspace; a path (no `passageIds`) between two entities that one
  workspace owns takes that workspace;
- every passage (`:Chunk`) gets its document's `workspaceKey`.

Everything else stays unowned and is listed with the reason (`UNDECIDED_*`), never guessed:
an unowned entity or relation is read exactly as before (contract §2: "may be mentioned from
any workspace and answers by the rules below"), so leaving one undecided changes no answer.
An entity or relation that has an owner keeps it; an owned entity without a key gets one.

The keys are reconciled with the owners on every run (contract §2: a stale copy must not
change an answer). Another pipeline may change an owner without touching the key: remove an
entity's `workspace` to share it, set one, or move a document to another workspace (its
passages keep the old workspace's key). A key that is not its owner's makes the lexical read
offer the node to the wrong workspaces' callers and hide it from the right ones. So every
entity's key is made its owner's (removed when it has none), and every passage's its
document's (removed when it has no single document with a workspace); the report counts each
stale key fixed (`StepReport.fixed`). graph/mention_order.py does the same for the workspace
the mention order keeps (`order_mentions`).

Each step walks its label in pages of `PAGE` ids (the id constraint's index gives them in
order), and each page is written in transactions of `BATCH` rows (`CALL … IN TRANSACTIONS`),
so a graph of any size is stamped in bounded transactions with progress after every page.
Run again, it writes nothing new and reports the same undecided ids.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, LiteralString

from contract.graph_owned import GRAPH_OWNED_RELATION_TYPES
from graph.driver import Graph
from graph.ownership import OWNER, OWNER_KEY, workspace_key

# Ids per page (one statement, and one progress line), rows per transaction within a page.
PAGE = 10_000
BATCH = 1_000
# Undecided ids the report names (all of them are counted).
SHOWN_UNDECIDED = 20

UNDECIDED_NOT_MENTIONED = "no passage mentions it"
UNDECIDED_PASSAGES_MISSING = "a passage it names is missing or has no document with a workspace"
UNDECIDED_SEVERAL_WORKSPACES = "its passages lie in several workspaces"
UNDECIDED_PATH_ENDS = "a path whose two ends are not owned by one workspace"
UNDECIDED_NO_DOCUMENT = "no document with a workspace holds it"

assert (OWNER, OWNER_KEY) == ("workspace", "workspaceKey")  # the names written below

# The workspaces the keys are computed for: every document's, and every owner already stored.
WORKSPACES: LiteralString = (
    "MATCH (d:Document) WHERE d.workspace IS :: STRING NOT NULL"
    " RETURN DISTINCT d.workspace AS workspace"
    " UNION MATCH (e:Entity) WHERE e.workspace IS :: STRING NOT NULL"
    " RETURN DISTINCT e.workspace AS workspace"
)

ENTITY_COUNT: LiteralString = "MATCH (e:Entity) RETURN count(e) AS total"
CHUNK_COUNT: LiteralString = "MATCH (c:Chunk) RETURN count(c) AS total"

# The last id of the next page: read in the order of the id constraint's index.
NEXT_ENTITY_PAGE: LiteralString = (
    "MATCH (e:Entity) WHERE e.id > $after WITH e.id AS id ORDER BY id LIMIT $page"
    " RETURN count(id) AS size, max(id) AS last"
)
NEXT_CHUNK_PAGE: LiteralString = (
    "MATCH (c:Chunk) WHERE c.id > $after WITH c.id AS id ORDER BY id LIMIT $page"
    " RETURN count(id) AS size, max(id) AS last"
)


def _homes(passage: LiteralString) -> LiteralString:
    """The workspaces of the documents holding `passage` (none when it has no such document)."""
    return (
        f"COLLECT {{ MATCH (home:Document)-[:HAS_PART]->({passage})"
        " WHERE home.workspace IS :: STRING NOT NULL RETURN DISTINCT home.workspace }"
    )


# The distinct workspaces of a list of `homes` lists.
_UNION_OF_HOMES: LiteralString = (
    "reduce(owners = [], h IN collect(homes) | owners + [w IN h WHERE NOT w IN owners])"
)


# The key an owner expression (`owner`: a workspace, or null for none) gives, from `$keys`.
def _key_of(owner: LiteralString) -> LiteralString:
    return f"CASE WHEN {owner} IS :: STRING THEN $keys[{owner}] END"


def _differs(stored: LiteralString, wanted: LiteralString) -> LiteralString:
    """The stored key is not the wanted one (either may be null: absent)."""
    return f"coalesce({stored}, '') <> coalesce({wanted}, '')"


def _set_key(node: LiteralString, stored: LiteralString, key: LiteralString) -> LiteralString:
    """Make `node`'s key `key` (null: remove it) where `stored`, the key it has, differs."""
    return (
        f" FOREACH (k IN CASE WHEN {key} IS NOT NULL AND {_differs(stored, key)}"
        f" THEN [{key}] ELSE [] END | SET {node}.workspaceKey = k)"
        f" FOREACH (_ IN CASE WHEN {key} IS NULL AND {stored} IS NOT NULL THEN [1] ELSE [] END |"
        f" REMOVE {node}.workspaceKey)"
    )


# Step 1, one page of entities: those without an owner, and those whose key is not their
# owner's (none, another workspace's, or one left from an owner another pipeline removed). An
# entity is decided when it has mentions and every one lies in a document of one workspace.
STAMP_ENTITIES: LiteralString = (
    "MATCH (e:Entity) WHERE e.id > $after AND e.id <= $last"
    " AND (e.workspace IS NULL OR " + _differs("e.workspaceKey", _key_of("e.workspace")) + ")"
    " CALL (e) {"
    " CALL (e) {"
    " OPTIONAL MATCH (e)-[:MENTIONED_IN]->(c)"
    " WITH c, " + _homes("c") + " AS homes"
    " RETURN count(c) AS mentions,"
    " count(CASE WHEN c IS NOT NULL AND size(homes) = 0 THEN 1 END) AS homeless,"
    " " + _UNION_OF_HOMES + " AS owners"
    " }"
    " WITH e, mentions, homeless, owners,"
    " CASE WHEN e.workspace IS NULL AND mentions > 0 AND homeless = 0 AND size(owners) = 1"
    " THEN owners[0] END AS stamped"
    " WITH e, mentions, homeless, owners, stamped, e.workspaceKey AS storedKey,"
    " " + _key_of("coalesce(stamped, e.workspace)") + " AS key"
    " FOREACH (owner IN CASE WHEN stamped IS NULL THEN [] ELSE [stamped] END |"
    " SET e.workspace = owner)" + _set_key("e", "storedKey", "key") + " RETURN stamped,"
    " CASE WHEN storedKey IS NOT NULL AND " + _differs("storedKey", "key") + ""
    " THEN e.id END AS fixed,"
    " CASE WHEN e.workspace IS NOT NULL THEN null"
    " WHEN mentions = 0 THEN $notMentioned"
    " WHEN homeless > 0 THEN $passagesMissing"
    " ELSE $severalWorkspaces END AS reason,"
    " owners"
    " } IN TRANSACTIONS OF $batch ROWS"
    " WITH e, stamped, fixed, reason, owners"
    " RETURN count(stamped) AS stamped, count(fixed) AS fixed,"
    " collect(CASE WHEN reason IS NOT NULL"
    " THEN {id: e.id, reason: reason, workspaces: owners} END) AS undecided"
)

# Step 2, the relations leaving one page of entities (so, once each), after step 1 has
# stamped every entity: a path's owner is its ends' owner.
STAMP_RELATIONS: LiteralString = (
    "MATCH (s:Entity) WHERE s.id > $after AND s.id <= $last"
    " MATCH (s)-[r]->(t:Entity) WHERE r.workspace IS NULL AND NOT type(r) IN $graphOwned"
    " CALL (s, r, t) {"
    " CALL (r) {"
    " UNWIND coalesce(r.passageIds, []) AS passageId"
    " OPTIONAL MATCH (c:Chunk {id: passageId})"
    " WITH passageId, c, CASE WHEN c IS NULL THEN [] ELSE " + _homes("c") + " END AS homes"
    " RETURN count(passageId) AS listed,"
    " count(CASE WHEN size(homes) = 0 THEN 1 END) AS homeless,"
    " " + _UNION_OF_HOMES + " AS owners"
    " }"
    " WITH r, s, t, listed, homeless, owners,"
    " CASE WHEN listed > 0 AND homeless = 0 AND size(owners) = 1 THEN owners[0]"
    " WHEN listed = 0 AND s.workspace IS :: STRING AND s.workspace = t.workspace"
    " THEN s.workspace END AS stamped"
    " FOREACH (owner IN CASE WHEN stamped IS NULL THEN [] ELSE [stamped] END |"
    " SET r.workspace = owner)"
    " RETURN stamped,"
    " CASE WHEN stamped IS NOT NULL THEN null"
    " WHEN listed = 0 THEN $pathEnds"
    " WHEN homeless > 0 THEN $passagesMissing"
    " ELSE $severalWorkspaces END AS reason,"
    " CASE WHEN listed = 0 THEN [w IN [s.workspace, t.workspace] WHERE w IS NOT NULL]"
    " ELSE owners END AS workspaces"
    " } IN TRANSACTIONS OF $batch ROWS"
    " WITH r, stamped, reason, workspaces"
    # (relations carry no key: nothing to fix; an aggregate, so no rows still give one)
    " RETURN count(stamped) AS stamped, sum(0) AS fixed,"
    " collect(CASE WHEN reason IS NOT NULL"
    " THEN {id: coalesce(r.id, elementId(r)), reason: reason, workspaces: workspaces} END)"
    " AS undecided"
)

# Step 3, one page of passages: each keyed with its document's workspace (a passage without
# a key gets one; one whose document moved to another workspace gets the new one; one with no
# single document with a workspace keeps none). Only the passages whose key changes are
# written (`_set_key`); the undecided are listed whether they had a key or not.
KEY_CHUNKS: LiteralString = (
    "MATCH (c:Chunk) WHERE c.id > $after AND c.id <= $last"
    " WITH c, " + _homes("c") + " AS homes"
    " WITH c, homes, c.workspaceKey AS storedKey,"
    " CASE WHEN size(homes) = 1 THEN $keys[homes[0]] END AS key"
    " CALL (c, storedKey, key) {" + _set_key("c", "storedKey", "key") + " }"
    " IN TRANSACTIONS OF $batch ROWS"
    " RETURN count(CASE WHEN storedKey IS NULL THEN key END) AS stamped,"
    " count(CASE WHEN storedKey IS NOT NULL AND " + _differs("storedKey", "key") + ""
    " THEN c END) AS fixed,"
    " collect(CASE WHEN key IS NULL THEN {id: c.id,"
    " reason: CASE WHEN size(homes) = 0 THEN $noDocument ELSE $severalWorkspaces END,"
    " workspaces: homes} END) AS undecided"
)

_REASONS = {
    "notMentioned": UNDECIDED_NOT_MENTIONED,
    "passagesMissing": UNDECIDED_PASSAGES_MISSING,
    "severalWorkspaces": UNDECIDED_SEVERAL_WORKSPACES,
    "pathEnds": UNDECIDED_PATH_ENDS,
    "noDocument": UNDECIDED_NO_DOCUMENT,
}


@dataclass(frozen=True, order=True)
class Undecided:
    """Something left without an owner, and why."""

    id: str
    reason: str
    workspaces: tuple[str, ...]  # the workspaces its passages (or a path's ends) lie in


@dataclass
class StepReport:
    """What one step (entities, relations or passages) stamped and left undecided."""

    stamped: int = 0
    undecided: int = 0
    # Keys that did not match the owner (another workspace's, or one whose owner is gone),
    # made the owner's or removed: entities and passages only (relations carry no key).
    fixed: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    first_undecided: list[Undecided] = field(default_factory=list)  # by id, SHOWN_UNDECIDED

    def add(self, stamped: int, fixed: int, undecided: list[dict[str, Any]]) -> None:
        self.stamped += stamped
        self.fixed += fixed
        self.undecided += len(undecided)
        found = [
            Undecided(str(row["id"]), row["reason"], tuple(sorted(row["workspaces"])))
            for row in undecided
        ]
        self.reasons.update(item.reason for item in found)
        self.first_undecided = sorted(self.first_undecided + found)[:SHOWN_UNDECIDED]


@dataclass
class OwnerStampReport:
    entities: StepReport = field(default_factory=StepReport)
    relations: StepReport = field(default_factory=StepReport)
    passages: StepReport = field(default_factory=StepReport)


# Called after every page: the step ("entities", "relations", "passages"), the ids of its
# label walked so far, and how many there are.
Progress = Callable[[str, int, int], None]


def _no_progress(step: str, done: int, total: int) -> None:
    del step, done, total


async def stamp_owners(
    graph: Graph,
    progress: Progress = _no_progress,
    graph_owned_relation_types: tuple[str, ...] = GRAPH_OWNED_RELATION_TYPES,
) -> OwnerStampReport:
    """Stamp owners and keys where the graph decides them (see the module docstring)."""
    rows = await graph.read(WORKSPACES, {})
    keys = {row["workspace"]: workspace_key(row["workspace"]) for row in rows}
    [entities] = await graph.read(ENTITY_COUNT, {})
    [chunks] = await graph.read(CHUNK_COUNT, {})
    report = OwnerStampReport()
    parameters = {"keys": keys, "batch": BATCH, "graphOwned": list(graph_owned_relation_types)}
    parameters |= _REASONS
    steps: list[tuple[str, LiteralString, LiteralString, int, StepReport]] = [
        ("entities", NEXT_ENTITY_PAGE, STAMP_ENTITIES, entities["total"], report.entities),
        ("relations", NEXT_ENTITY_PAGE, STAMP_RELATIONS, entities["total"], report.relations),
        ("passages", NEXT_CHUNK_PAGE, KEY_CHUNKS, chunks["total"], report.passages),
    ]
    for step, next_page, stamp, total, step_report in steps:
        after, done = "", 0
        while True:
            [page] = await graph.read(next_page, {"after": after, "page": PAGE})
            if page["size"] == 0:
                break
            [result] = await graph.auto_commit_rows(
                stamp, {**parameters, "after": after, "last": page["last"]}
            )
            step_report.add(result["stamped"], result["fixed"], list(result["undecided"]))
            after, done = page["last"], done + page["size"]
            progress(step, done, total)
    return report
