"""Entity labels (seed step 2, contract §6 `entityLabels`): each label with the state of its two
indexes, from one read of the index catalog."""

from __future__ import annotations

from dataclasses import dataclass

from answers.context import AnswerContext
from graph.index_catalog import read_index_catalog


@dataclass(frozen=True)
class LabelIndexes:
    label: str
    fulltext_state: str  # ONLINE | POPULATING | FAILED | MISSING
    vector_state: str


async def entity_labels(context: AnswerContext) -> list[LabelIndexes]:
    catalog = await read_index_catalog(context.graph, configuration=False)
    labels = []
    for label in catalog.entity_labels():
        indexes = catalog.label_indexes(label)
        labels.append(LabelIndexes(label, indexes.fulltext_state.value, indexes.vector_state.value))
    return labels
