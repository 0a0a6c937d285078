"""contract §1, §3 and §5 in plain Python over a `scope_world.World`: what a caller may see.
Written from the contract's words, independently of the service's Cypher, to judge its answers.

    in scope (passage)  its document is in the effective scope
    current  (passage)  chunk.version = document.currentVersion AND (chunk.jobId is null OR
                        the :Job with that id has status 'COMMITTED')
    visible  (passage)  in scope AND current
    published (passage) chunk.version <= document.currentVersion AND its job, if it names one,
                        is COMMITTED (§2: what a job writes is hidden until it commits, and a
                        version the document has not reached is not yet committed)
    retired  (document) its current version is listed in its `retiredVersions` (deleted)
    returnable (entity) an in-scope published passage of a document that is not retired
                        mentions it; SUPPORTED when a visible one does
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.support.scope_world import Chunk, Relation, World

EDGE_EVIDENCE = 3  # contract §5: up to 3 passages per ASSERTION


class ForbiddenScope(Exception):
    """The requested scope names a workspace the caller is not granted (contract §7)."""


@dataclass(frozen=True)
class Scope:
    workspaces: frozenset[str] | None
    document_ids: frozenset[str] | None


def effective(
    grant: frozenset[str] | None, workspaces: list[str] | None, document_ids: list[str] | None
) -> Scope:
    """grant ∩ scope.workspaces ∩ scope.documentIds; naming an ungranted workspace is an error."""
    if workspaces is not None and grant is not None and not set(workspaces) <= grant:
        raise ForbiddenScope
    chosen = frozenset(workspaces) if workspaces is not None else grant
    return Scope(chosen, None if document_ids is None else frozenset(document_ids))


@dataclass
class Oracle:
    world: World
    scope: Scope

    def document_in_scope(self, document_id: str) -> bool:
        document = self.world.documents[document_id]
        return (self.scope.workspaces is None or document.workspace in self.scope.workspaces) and (
            self.scope.document_ids is None or document.id in self.scope.document_ids
        )

    def current(self, chunk: Chunk) -> bool:
        document = self.world.documents[chunk.document_id]
        committed = chunk.job_id is None or self.world.jobs.get(chunk.job_id) == "COMMITTED"
        return chunk.version == document.current_version and committed

    def published(self, chunk: Chunk) -> bool:
        document = self.world.documents[chunk.document_id]
        committed = chunk.job_id is None or self.world.jobs.get(chunk.job_id) == "COMMITTED"
        return chunk.version <= document.current_version and committed

    def visible(self, chunk_id: str) -> bool:
        chunk = self.world.chunks.get(chunk_id)
        return (
            chunk is not None and self.document_in_scope(chunk.document_id) and self.current(chunk)
        )

    def document_visible(self, document_id: str) -> bool:
        """A document a lookup returns: in scope, with a committed version."""
        document = self.world.documents.get(document_id)
        return (
            document is not None
            and document.current_version >= 1
            and not document.retired
            and self.document_in_scope(document_id)
        )

    def ordered(self, chunk_ids: tuple[str, ...]) -> list[str]:
        """Visible ones among `chunk_ids`, by document id, position, id (contract §3, §5)."""
        chunks = [self.world.chunks[c] for c in set(chunk_ids) if self.visible(c)]
        return [c.id for c in sorted(chunks, key=lambda c: (c.document_id, c.position, c.id))]

    def returnable(self, entity_id: str) -> bool:
        entity = self.world.entities.get(entity_id)
        return entity is not None and any(
            self.document_in_scope(chunk.document_id)
            and not self.world.documents[chunk.document_id].retired
            and self.published(chunk)
            for chunk in (self.world.chunks[c] for c in entity.mentions)
        )

    def evidence(self, entity_id: str) -> list[str]:
        return self.ordered(self.world.entities[entity_id].mentions)

    def supported(self, entity_id: str) -> bool:
        return self.returnable(entity_id) and bool(self.evidence(entity_id))

    # The walk (contract §5), for graphs too small to reach any bound but DEPTH.
    def edge(self, relation: Relation) -> tuple[str, list[str]] | None:
        """(kind, evidence ids) of a relation whose ends are returnable, or None (dropped)."""
        if not (self.returnable(relation.source) and self.returnable(relation.target)):
            return None
        if not relation.passage_ids:
            return ("PATH", [])
        evidence = self.ordered(relation.passage_ids)
        return ("ASSERTION", evidence[:EDGE_EVIDENCE]) if evidence else None

    def around(self, nodes: set[str]) -> dict[str, Relation]:
        return {
            r.id: r
            for r in self.world.relations
            if (r.source in nodes or r.target in nodes) and self.edge(r) is not None
        }

    def walk(self, start: str, depth: int) -> dict[str, object] | None:
        """Nodes, edges (id → (kind, evidence, depth)) and whether DEPTH cut the walk."""
        if not self.supported(start):
            return None
        reached = {start: 0}
        edges: dict[str, tuple[str, list[str], int]] = {}
        frontier = {start}
        for step in range(1, depth + 1):
            found = {i: r for i, r in self.around(frontier).items() if i not in edges}
            for relation_id, relation in found.items():
                kind, evidence = self.edge(relation)  # type: ignore[misc]
                edges[relation_id] = (kind, evidence, step)
                for end in (relation.source, relation.target):
                    reached.setdefault(end, step)
            frontier = {node for node, at in reached.items() if at == step}
        beyond = any(
            r.source not in reached or r.target not in reached
            for r in self.around(frontier).values()
        )
        return {"nodes": set(reached), "edges": edges, "depth_cut": beyond}
