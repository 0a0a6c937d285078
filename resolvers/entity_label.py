"""`EntityLabel`: a searchable entity label and the state of its two indexes (seed step 2)."""

from __future__ import annotations

import strawberry

from answers import entity_labels as answers_labels
from resolvers.context import Info
from resolvers.enums import IndexState


@strawberry.type(
    description=(
        "An entity label (a label with a vector index on `embedding`) under which your scope "
        "has an entity, and its indexes. `searchEntities` needs both ONLINE."
    )
)
class EntityLabel:
    label: str = strawberry.field(description="The label, e.g. `Person`.")
    fulltext_index: IndexState = strawberry.field(
        description="The FULLTEXT index on the name, used by lexical search."
    )
    vector_index: IndexState = strawberry.field(
        description="The VECTOR index on the embedding, used by semantic search."
    )

    @classmethod
    def from_record(cls, record: answers_labels.LabelIndexes) -> EntityLabel:
        return cls(
            label=record.label,
            fulltext_index=IndexState(record.fulltext_state),
            vector_index=IndexState(record.vector_state),
        )


async def entity_labels(info: Info) -> list[EntityLabel]:
    # The caller's whole grant: a label is listed only where it holds a returnable entity.
    records = await answers_labels.entity_labels(info.context.answers, info.context.scope(None))
    return [EntityLabel.from_record(record) for record in records]
