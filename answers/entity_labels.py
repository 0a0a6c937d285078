"""Entity labels (seed step 2, contract §6 `entityLabels`, MCP `entity_labels`): each entity
label under which the caller's scope has a returnable entity, with the state of its two
indexes (issue 38 §5: a label only other workspaces' entities carry is not listed).

Two statements, whatever the number of labels: the index catalog, then which of its labels the
scope holds (graph/scope_labels.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from answers.context import AnswerContext
from contract.scope import Scope
from graph.index_catalog import read_index_catalog
from graph.scope_labels import labels_in_scope


@dataclass(frozen=True)
class LabelIndexes:
    label: str
    fulltext_state: str  # ONLINE | POPULATING | FAILED | MISSING
    vector_state: str


async def entity_labels(context: AnswerContext, effective: Scope) -> list[LabelIndexes]:
    catalog = await read_index_catalog(context.graph, configuration=False)
    labels = []
    for label in await labels_in_scope(context.graph, effective, catalog):
        indexes = catalog.label_indexes(label)
        labels.append(LabelIndexes(label, indexes.fulltext_state.value, indexes.vector_state.value))
    return labels
