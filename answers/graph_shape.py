"""The shape of the graph in one scope (MCP `describe_graph`, issue 29 point 7): entity labels
and relation types with their counts, as graph/graph_shape.py reads them. The graph-owned
relation types (contract §2, GRAPH_OWNED_RELATION_TYPES) are never counted, as they are never
walked."""

from __future__ import annotations

from answers.context import AnswerContext
from contract.scope import Scope
from graph.graph_shape import GraphShape, graph_shape


async def describe_graph(context: AnswerContext, effective: Scope) -> GraphShape:
    return await graph_shape(context.graph, effective, context.settings.graph_owned_relation_types)
