"""`EntityHit`: one entity search result with its status, ranks and evidence."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, cast

import strawberry

from contract.scope import Scope
from graph.entity_search import EntityHitRecord
from loaders import Loaders
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
    # Plain data, read like every other field of the hit (no resolver: a resolver costs
    # Strawberry an Info object and an argument pass per hit): the passages the search read
    # with the hits when the query selects `evidence`, else `PendingPassages`, which graphql-core
    # awaits only if the field is resolved after all.
    evidence: list[Passage] = strawberry.field(
        description="The passages of `evidenceIds`, in the same order."
    )

    @classmethod
    def from_record(
        cls, record: EntityHitRecord, scope: Scope, loaders: Loaders, with_passages: bool = False
    ) -> EntityHit:
        evidence_ids = [strawberry.ID(i) for i in record.evidence_ids]
        return cls(
            entity=Entity.from_record(record.entity, scope),
            status=EntityStatus.SUPPORTED if record.supported else EntityStatus.UNSUPPORTED,
            score=record.score,
            lexical_rank=record.lexical_rank,
            semantic_rank=record.semantic_rank,
            evidence_ids=evidence_ids,
            evidence=(
                [Passage.from_record(p, scope) for p in record.passages]
                if with_passages
                else cast("list[Passage]", PendingPassages(loaders, list(record.evidence_ids)))
            ),
        )


class PendingPassages:
    """Evidence passages the search did not read: loaded (batched with every other passage of
    the request) when awaited, which graphql-core does only if the field is resolved. Not a
    coroutine, so an unresolved one leaves no "never awaited" warning."""

    __slots__ = ("ids", "loaders")

    def __init__(self, loaders: Loaders, ids: list[str]) -> None:
        self.loaders = loaders
        self.ids = ids

    def __await__(self) -> Generator[Any, None, list[Passage]]:
        return visible_passages(self.loaders, self.ids).__await__()
