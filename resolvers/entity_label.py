"""`EntityLabel`: a searchable entity label and the state of its two indexes (seed step 2)."""

from __future__ import annotations

import strawberry

from graph.index_catalog import IndexCatalog, read_index_catalog
from resolvers.context import Info
from resolvers.enums import IndexState


@strawberry.type(
    description=(
        "An entity label (a label with a vector index on `embedding`) and its indexes. "
        "`searchEntities` needs both ONLINE."
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
    def all_from_catalog(cls, catalog: IndexCatalog) -> list[EntityLabel]:
        labels = []
        for label in catalog.entity_labels():
            indexes = catalog.label_indexes(label)
            labels.append(
                cls(
                    label=label,
                    fulltext_index=IndexState(indexes.fulltext_state.value),
                    vector_index=IndexState(indexes.vector_state.value),
                )
            )
        return labels


async def entity_labels(info: Info) -> list[EntityLabel]:
    info.context.caller_grant()  # labels carry no data, but every operation authenticates
    return EntityLabel.all_from_catalog(
        await read_index_catalog(info.context.graph, configuration=False)
    )
