"""Builds small graphs for tests through the real write path (graph/jobs.py).

Ids are fresh UUIDs; names are what tests talk about. An entity named in the versions of two
workspaces is a shared entity, as another pipeline writes them (contract §2 "Ownership"): it
has no owner. The write path makes every entity its workspace's, so the builder removes the
owner, as that pipeline would, before the second workspace's job commits. A document version
can be left RUNNING (`commit=False`) or marked FAILED without clean-up (`fail=True`) to model
unfinished jobs. `owner_keys` gives the version's entities and passages their owner key
(graph/ownership.py), as the service's write path keeps it (True), or takes it away, as another
pipeline writes a graph (False); None leaves what the write path wrote.
"""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, LiteralString

from graph import jobs
from graph.driver import Graph
from graph.ownership import workspace_key


def new_id() -> str:
    return str(uuid.uuid4())


def unit_vector(dimension: int, axis: int, weight: float = 1.0) -> list[float]:
    """A vector pointing mostly along `axis`; distinct axes are far apart (cosine 0)."""
    vector = [0.0] * dimension
    vector[axis % dimension] = weight
    vector[(axis + 1) % dimension] = 0.1
    return vector


@dataclass
class Version:
    document_id: str
    job: jobs.Job
    passage_ids: list[str]


@dataclass
class GraphBuilder:
    graph: Graph
    dimension: int = 8
    entity_ids: dict[str, str] = field(default_factory=dict)
    # entity id -> the one workspace whose versions name it, None once two do
    owners: dict[str, str | None] = field(default_factory=dict)

    def entity_id(self, name: str) -> str:
        return self.entity_ids.setdefault(name, new_id())

    async def version(
        self,
        workspace: str,
        texts: Sequence[str],
        *,
        document_id: str | None = None,
        title: str | None = None,
        mentions: dict[str, Sequence[int]] | None = None,
        labels: dict[str, Sequence[str]] | None = None,
        vectors: dict[str, list[float]] | None = None,
        descriptions: dict[str, str] | None = None,
        relations: Sequence[tuple[str, str, str, Sequence[int] | None]] = (),
        external_mentions: dict[str, Sequence[str]] | None = None,
        passage_vectors: dict[int, list[float]] | None = None,
        commit: bool = True,
        fail: bool = False,
        owner_keys: bool | None = None,
    ) -> Version:
        """Write one document version: passages `texts`, entities by name mentioning passage
        indexes, relations (source, type, target, passage indexes or None for a path)."""
        document_id = document_id or new_id()
        job = await jobs.begin_job(self.graph, document_id, workspace, title or "doc", None)
        passage_ids = [new_id() for _ in texts]
        await jobs.write_passages(
            self.graph,
            job,
            [
                {"id": pid, "position": i, "text": t, "embedding": (passage_vectors or {}).get(i)}
                for i, (pid, t) in enumerate(zip(passage_ids, texts, strict=True))
            ],
        )
        entities: list[dict[str, Any]] = []
        names = set((mentions or {}).keys()) | set((external_mentions or {}).keys())
        for name in sorted(names):
            entities.append(
                {
                    "id": self.entity_id(name),
                    "labels": list((labels or {}).get(name, ["Person"])),
                    "name": name,
                    "description": (descriptions or {}).get(name),
                    "embedding": (vectors or {}).get(
                        name,
                        unit_vector(self.dimension, zlib.crc32(name.encode()) % self.dimension),
                    ),
                    "mentions": [passage_ids[i] for i in (mentions or {}).get(name, ())]
                    + list((external_mentions or {}).get(name, ())),
                }
            )
        await jobs.write_entities(self.graph, job, entities)
        await jobs.write_relations(
            self.graph,
            job,
            [
                {
                    "id": new_id(),
                    "type": rel_type,
                    "source": self.entity_id(source),
                    "target": self.entity_id(target),
                    "passageIds": [] if support is None else [passage_ids[i] for i in support],
                }
                for source, rel_type, target, support in relations
            ],
        )
        # An entity a relation of this version ends at is named by it too (another pipeline
        # may relate two workspaces' entities).
        named = [e["id"] for e in entities] + [
            self.entity_id(end) for source, _, target, _ in relations for end in (source, target)
        ]
        await self._share_across_workspaces(workspace, list(dict.fromkeys(named)))
        if fail:
            await self.graph.write(
                "MATCH (j:Job {id: $id}) SET j.status = 'FAILED'", {"id": job.id}
            )
        elif commit:
            await jobs.commit_job(self.graph, job)
        if owner_keys is not None:  # entities are published by the commit
            await self.set_owner_keys(
                workspace if owner_keys else None,
                [self.entity_id(name) for name in names],
                passage_ids,
            )
        return Version(document_id, job, passage_ids)

    async def set_owner_keys(
        self, workspace: str | None, entity_ids: Sequence[str], passage_ids: Sequence[str] = ()
    ) -> None:
        """Set the owner key of `workspace` on these entities and passages; None removes it."""
        key = None if workspace is None else workspace_key(workspace)
        await self.graph.write(
            "UNWIND $entityIds AS id MATCH (e:Entity {id: id}) SET e.workspaceKey = $key"
            " WITH count(*) AS done"
            " UNWIND $passageIds AS id MATCH (c:Chunk {id: id}) SET c.workspaceKey = $key",
            {"entityIds": list(entity_ids), "passageIds": list(passage_ids), "key": key},
        )

    async def _share_across_workspaces(self, workspace: str, entity_ids: Sequence[str]) -> None:
        """Entities another workspace's versions named before lose their owner."""
        shared = [
            entity_id
            for entity_id in entity_ids
            if self.owners.setdefault(entity_id, workspace) not in (workspace, None)
        ]
        for entity_id in shared:
            self.owners[entity_id] = None
        if shared:
            await self.graph.write(UNOWN_ENTITIES, {"ids": shared})


UNOWN_ENTITIES: LiteralString = """
UNWIND $ids AS id
MATCH (e:Entity {id: id})
REMOVE e.workspace, e.workspaceKey
"""
