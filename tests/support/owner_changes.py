"""Owners as the service's loaders write them, and owner changes as another pipeline makes them
(contract §2 "Ownership"; issue 38 §6), over a `scope_world.World`.

The owners: an entity whose mentions all lie in documents of one workspace may be owned by it
(drawn: owned, or shared and unowned as another pipeline leaves it); every other entity is
unowned. An owned entity carries its owner's key and every passage its document's
(graph/ownership.py), as the write path keeps them.

The changes, each keeping contract §2's rule that an owned entity is mentioned only by its
owner's passages, and none touching a key (another pipeline does not know of them):
- **remove** an entity's `workspace` (to share it), then maybe mention it from a passage of
  another workspace;
- **set** the `workspace` of an unowned entity whose mentions all lie in one workspace;
- **move** a document to another workspace, and with it its passages: an entity its owner
  owned that only the document mentions moves too, one mentioned elsewhere as well loses its
  owner (it is now shared).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, LiteralString

from hypothesis import strategies as st

from graph.ownership import workspace_key
from tests.support.scope_world import WORKSPACES, Entity, World

Owners = dict[str, str | None]  # entity id -> its owner, None when unowned

# The owners and keys of one world, as the write path leaves them.
WRITE_OWNERS: LiteralString = """
UNWIND $owned AS owned
MATCH (e:Entity {id: owned.id}) SET e.workspace = owned.workspace, e.workspaceKey = owned.key
WITH count(*) AS entities
MATCH (d:Document)-[:HAS_PART]->(c:Chunk) WHERE NOT d:Ballast
SET c.workspaceKey = $keys[d.workspace]
"""

REMOVE_OWNER: LiteralString = "MATCH (e:Entity {id: $entity}) REMOVE e.workspace"
SET_OWNER: LiteralString = "MATCH (e:Entity {id: $entity}) SET e.workspace = $workspace"
MENTION: LiteralString = (
    "MATCH (e:Entity {id: $entity}), (c:Chunk {id: $chunk}) MERGE (e)-[:MENTIONED_IN]->(c)"
)
MOVE_DOCUMENT: LiteralString = """
MATCH (d:Document {id: $document}) SET d.workspace = $workspace
WITH d
UNWIND $entities AS moved
MATCH (e:Entity {id: moved.id})
FOREACH (w IN CASE WHEN moved.owner IS NULL THEN [] ELSE [moved.owner] END | SET e.workspace = w)
FOREACH (_ IN CASE WHEN moved.owner IS NULL THEN [1] ELSE [] END | REMOVE e.workspace)
"""

# What reconciling must make true, read back: each entity's key its owner's, each passage's its
# document's (one document with a workspace: graph/owner_stamping.py), and the workspace each
# ordered mention keeps (graph/mention_order.py), against its document's.
KEYS: LiteralString = """
CALL () {
  MATCH (e:Entity) WHERE NOT e:Ballast
  RETURN collect([e.id, e.workspace, e.workspaceKey]) AS entities
}
CALL () {
  MATCH (c:Chunk) WHERE NOT c:Ballast
  RETURN collect([c.id, c.workspaceKey,
                  [(d:Document)-[:HAS_PART]->(c) | d.workspace]]) AS passages
}
CALL () {
  MATCH (e:Entity)-[m:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)
  WHERE NOT e:Ballast AND m.orderEntityWorkspace IS NOT NULL
  RETURN collect([e.id, d.workspace, m.orderEntityWorkspace]) AS mentions
}
RETURN entities, passages, mentions
"""


@dataclass(frozen=True)
class Keys:
    """The owner keys as stored: what the lexical reads filter by."""

    entities: dict[str, tuple[str | None, str | None]]  # id -> (owner, key)
    passages: dict[str, tuple[str | None, list[str]]]  # id -> (key, its documents' workspaces)
    mentions: list[tuple[str, str, str]]  # (entity id, document workspace, stored workspace)

    def stale_entities(self) -> set[str]:
        """Entities whose key is not their owner's (none for no owner)."""
        return {
            entity_id
            for entity_id, (owner, key) in self.entities.items()
            if key != (None if owner is None else workspace_key(owner))
        }

    def stale_passages(self) -> set[str]:
        return {
            passage_id
            for passage_id, (key, homes) in self.passages.items()
            if key != (workspace_key(homes[0]) if len(homes) == 1 else None)
        }

    def stale_mentions(self) -> int:
        return sum(stored != f"{entity} {home}" for entity, home, stored in self.mentions)


async def read_keys(graph: Any) -> Keys:
    [row] = await graph.read(KEYS, {})
    return Keys(
        entities={e[0]: (e[1], e[2]) for e in row["entities"]},
        passages={p[0]: (p[1], list(p[2])) for p in row["passages"]},
        mentions=[(m[0], m[1], m[2]) for m in row["mentions"]],
    )


def mention_homes(world: World, entity: Entity) -> set[str]:
    """The workspaces of the documents whose passages mention `entity`."""
    return {world.documents[world.chunks[c].document_id].workspace for c in entity.mentions}


@st.composite
def owners_of(draw: st.DrawFn, world: World) -> Owners:
    owners: Owners = {}
    for entity_id, entity in world.entities.items():
        homes = mention_homes(world, entity)
        owned = len(homes) == 1 and draw(st.sampled_from((True, True, False)))
        owners[entity_id] = homes.pop() if owned else None
    return owners


def owner_parameters(owners: Owners) -> dict[str, Any]:
    return {
        "owned": [
            {"id": entity_id, "workspace": owner, "key": workspace_key(owner)}
            for entity_id, owner in owners.items()
            if owner is not None
        ],
        "keys": {workspace: workspace_key(workspace) for workspace in WORKSPACES},
    }


@dataclass(frozen=True)
class Change:
    """One write of another pipeline: its statement and parameters."""

    statement: LiteralString
    parameters: dict[str, Any]


@st.composite
def pipeline_changes(draw: st.DrawFn, world: World, owners: Owners) -> list[Change]:
    """1–4 owner changes, applied to `world` and `owners` (the model) as they are drawn."""
    changes: list[Change] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(("remove", "set", "move")))
        if kind == "remove":
            owned = sorted(e for e, owner in owners.items() if owner is not None)
            if not owned:
                continue
            entity_id = draw(st.sampled_from(owned))
            owners[entity_id] = None
            changes.append(Change(REMOVE_OWNER, {"entity": entity_id}))
            # Shared: now mentioned from another workspace's passage too, maybe.
            others = sorted(
                c.id
                for c in world.chunks.values()
                if world.documents[c.document_id].workspace
                not in mention_homes(world, world.entities[entity_id])
            )
            share: bool = draw(st.booleans())
            if others and share:
                chunk = draw(st.sampled_from(others))
                entity = world.entities[entity_id]
                world.entities[entity_id] = replace(entity, mentions=(*entity.mentions, chunk))
                changes.append(Change(MENTION, {"entity": entity_id, "chunk": chunk}))
        elif kind == "set":
            settable = sorted(
                e
                for e, owner in owners.items()
                if owner is None and len(mention_homes(world, world.entities[e])) <= 1
            )
            if not settable:
                continue
            entity_id = draw(st.sampled_from(settable))
            homes = mention_homes(world, world.entities[entity_id])
            workspace = homes.pop() if homes else draw(st.sampled_from(WORKSPACES))
            owners[entity_id] = workspace
            changes.append(Change(SET_OWNER, {"entity": entity_id, "workspace": workspace}))
        else:
            document_id = draw(st.sampled_from(sorted(world.documents)))
            document = world.documents[document_id]
            workspace = draw(st.sampled_from([w for w in WORKSPACES if w != document.workspace]))
            world.documents[document_id] = replace(document, workspace=workspace)
            moved = []
            for entity_id, entity in world.entities.items():
                if owners[entity_id] != document.workspace or not any(
                    world.chunks[c].document_id == document_id for c in entity.mentions
                ):
                    continue
                homes = mention_homes(world, entity)
                owners[entity_id] = homes.pop() if len(homes) == 1 else None
                moved.append({"id": entity_id, "owner": owners[entity_id]})
            changes.append(
                Change(
                    MOVE_DOCUMENT,
                    {"document": document_id, "workspace": workspace, "entities": moved},
                )
            )
    return changes
