"""The long-lived collaborators the lifespan builds once and every request shares."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api.auth import Authenticator
from api.gateway_token import GatewayToken
from api.graph_checks import GraphChecks
from api.settings import Settings
from graph.driver import Graph
from vectorstores.base import Neo4jVectorIndex, VectorStore


@dataclass
class Services:
    settings: Settings
    graph: Graph
    authenticator: Authenticator
    query_embedder: Any = None  # embedding.query_cache.QueryEmbedder once the embedder is set up
    vector_store: VectorStore = field(default_factory=Neo4jVectorIndex)
    gateway_token: GatewayToken | None = None  # FEDERATION_GATEWAY_TOKEN, when set
    # Index problems already logged (resolvers/entity_search.py tells the operator once).
    lexical_warnings: set[str] = field(default_factory=set)
    # The start checks of the graph, run again until they pass (api/graph_checks.py).
    graph_checks: GraphChecks | None = None
