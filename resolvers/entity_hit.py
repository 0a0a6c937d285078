"""`EntityHit`: one entity search result with its status, ranks and evidence."""

from __future__ import annotations

from typing import cast

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
    # The evidence passages, when the search read them with the hits (the query selects
    # `evidence`): then the field is plain data, with no await and no loader round.
    passages: strawberry.Private[list[Passage] | None] = None

    @classmethod
    def from_record(
        cls, record: EntityHitRecord, scope: Scope, with_passages: bool = False
    ) -> EntityHit:
        return cls(
            entity=Entity.from_record(record.entity, scope),
            status=EntityStatus.SUPPORTED if record.supported else EntityStatus.UNSUPPORTED,
            score=record.score,
            lexical_rank=record.lexical_rank,
            semantic_rank=record.semantic_rank,
            evidence_ids=[strawberry.ID(i) for i in record.evidence_ids],
            scope=scope,
            passages=[Passage.from_record(p) for p in record.passages] if with_passages else None,
        )

    @strawberry.field(description="The passages of `evidenceIds`, in the same order.")
    def evidence(self, info: Info) -> list[Passage]:
        # A plain resolver: ten awaited loader calls cost 1.7 ms of Python per ten-hit search
        # here (bench/search_latency.py), more than the rest of the hits' fields. graphql-core
        # also takes an awaitable from a plain resolver: that is how passages the search did
        # not read are loaded, batched, in the rare request that needs it.
        if self.passages is not None:
            return self.passages
        loaders = info.context.loaders(self.scope)
        pending = visible_passages(loaders, [str(i) for i in self.evidence_ids])
        return cast("list[Passage]", pending)
