"""`EntityHit`: one entity search result with its status, ranks and evidence."""

from __future__ import annotations

import strawberry

from contract.scope import Scope
from graph.entity_search import EntityHitRecord
from resolvers.context import Info
from resolvers.entity import Entity, visible_passages
from resolvers.enums import EntityStatus
from resolvers.passage import Passage


@strawberry.type(
    description=(
        "An entity found by `searchEntities`, with the passages that support it. An entity "
        "comes back only when a passage in scope mentions it."
    )
)
class EntityHit:
    entity: Entity = strawberry.field(description="The entity found.")
    status: EntityStatus = strawberry.field(
        description="SUPPORTED when a visible passage mentions it; else UNSUPPORTED."
    )
    score: float = strawberry.field(
        description=(
            "HYBRID: the reciprocal rank fusion score Σ 1/(k + rank) over the two lists. "
            "LEXICAL: the full-text (Lucene) score. SEMANTIC: the cosine similarity."
        )
    )
    lexical_rank: int | None = strawberry.field(
        description=(
            "1-based rank in the lexical list among entities you may see; null when the "
            "lexical search did not find it (or did not run)."
        )
    )
    semantic_rank: int | None = strawberry.field(
        description=(
            "1-based rank in the semantic list among entities you may see; null when the "
            "semantic search did not find it (or did not run)."
        )
    )
    evidence_ids: list[strawberry.ID] = strawberry.field(
        description=(
            "Up to `supportLimit` visible passages that mention the entity, ordered by "
            "document id then position. Empty when UNSUPPORTED."
        )
    )
    scope: strawberry.Private[Scope]

    @classmethod
    def from_record(cls, record: EntityHitRecord, scope: Scope) -> EntityHit:
        return cls(
            entity=Entity.from_record(record.entity, scope),
            status=EntityStatus.SUPPORTED if record.supported else EntityStatus.UNSUPPORTED,
            score=record.score,
            lexical_rank=record.lexical_rank,
            semantic_rank=record.semantic_rank,
            evidence_ids=[strawberry.ID(i) for i in record.evidence_ids],
            scope=scope,
        )

    @strawberry.field(description="The passages of `evidenceIds`, in the same order.")
    async def evidence(self, info: Info) -> list[Passage]:
        loaders = info.context.loaders(self.scope)
        return await visible_passages(loaders, [str(i) for i in self.evidence_ids])
