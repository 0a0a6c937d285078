"""`PassageHit`: one passage search result."""

from __future__ import annotations

import strawberry

from contract.scope import Scope
from graph.passage_search import PassageHitRecord
from resolvers.passage import Passage


@strawberry.type(description="A visible passage found by `searchPassages`.")
class PassageHit:
    passage: Passage = strawberry.field(description="The passage found.")
    score: float = strawberry.field(
        description=(
            "HYBRID: the reciprocal rank fusion score Σ 1/(k + rank) over the two lists. "
            "LEXICAL: the full-text (Lucene) score. SEMANTIC: the cosine similarity."
        )
    )
    lexical_rank: int | None = strawberry.field(
        description="1-based rank among visible passages in the lexical list; null if absent."
    )
    semantic_rank: int | None = strawberry.field(
        description="1-based rank among visible passages in the semantic list; null if absent."
    )

    @classmethod
    def from_record(cls, record: PassageHitRecord, scope: Scope) -> PassageHit:
        return cls(
            passage=Passage.from_record(record.passage, scope),
            score=record.score,
            lexical_rank=record.lexical_rank,
            semantic_rank=record.semantic_rank,
        )
