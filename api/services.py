"""The long-lived collaborators the lifespan builds once and every request shares."""

from __future__ import annotations

from dataclasses import dataclass, field

from answers.context import AnswerContext, AnswerSettings, QueryEmbedding
from api.auth import Authenticator
from api.gateway_token import GatewayToken
from api.graph_checks import GraphChecks
from api.plan_readiness import PlanReadiness
from api.settings import Settings
from graph.driver import Graph
from vectorstores.base import Neo4jVectorIndex, VectorStore


@dataclass
class Services:
    settings: Settings
    graph: Graph
    authenticator: Authenticator
    query_embedder: QueryEmbedding | None = None  # set once the embedder is loaded
    vector_store: VectorStore = field(default_factory=Neo4jVectorIndex)
    gateway_token: GatewayToken | None = None  # FEDERATION_GATEWAY_TOKEN, when set
    # Index problems already logged (answers/entity_search.py tells the operator once).
    lexical_warnings: set[str] = field(default_factory=set)
    # The start checks of the graph, run again until they pass (api/graph_checks.py).
    graph_checks: GraphChecks | None = None
    # Plans warmed before ready and again when Neo4j lost them (api/plan_readiness.py);
    # None with PLAN_WARMING=false.
    plan_readiness: PlanReadiness | None = None

    async def ensure_graph_checked(self) -> None:
        """Return once the graph's start checks have passed; BackendUnavailable while they
        cannot (api/graph_checks.py). Every door runs it before it answers from the graph:
        `/graphql` before it executes a request, `/mcp` and `evidencegraph mcp` before each
        tool call (`checked_answer_context`), `/readyz` for its answer."""
        if self.graph_checks is not None:
            await self.graph_checks.ensure()

    async def checked_answer_context(self) -> AnswerContext:
        """`answer_context()` once the graph's start checks have passed (`ensure_graph_checked`)."""
        await self.ensure_graph_checked()
        return self.answer_context()

    def answer_context(self) -> AnswerContext:
        """What the searches and the walk read, from the collaborators as they are now (built
        per request: tests and benchmarks swap the graph or the embedder of a running app)."""
        if self.query_embedder is None:
            raise RuntimeError("the lifespan has not loaded the embedder")
        return AnswerContext(
            graph=self.graph,
            settings=AnswerSettings(
                lexical=self.settings.lexical,
                rrf_k=self.settings.rrf_k,
                graph_owned_relation_types=self.settings.graph_owned_relation_types,
            ),
            query_embedder=self.query_embedder,
            vector_store=self.vector_store,
            lexical_warnings=self.lexical_warnings,
        )
