"""What an answer needs besides the caller's scope, typed: the graph, the query embedder, the
vector store and the retrieval settings. The api layer builds one per request from what its
lifespan started; nothing here reads the environment."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Protocol

from graph.driver import Graph
from retrieval.lexical_rule import LexicalRule
from vectorstores.base import Neo4jVectorIndex, VectorStore


class QueryEmbedding(Protocol):
    """Embeds one query (embedding.query_cache.QueryEmbedder, or a test's scripted one); a
    cache shares vectors only within one `partition` (the workspaces a search reads)."""

    async def embed_query(self, text: str, partition: Hashable = None) -> tuple[float, ...]: ...


@dataclass(frozen=True)
class AnswerSettings:
    """The settings the searches and the walk read (RETRIEVAL_*, GRAPH_OWNED_RELATION_TYPES)."""

    lexical: LexicalRule
    rrf_k: int
    graph_owned_relation_types: tuple[str, ...]


@dataclass(frozen=True)
class AnswerContext:
    graph: Graph
    settings: AnswerSettings
    query_embedder: QueryEmbedding
    vector_store: VectorStore = field(default_factory=Neo4jVectorIndex)
    # Index problems already logged, shared by every request of one app, so that the operator
    # is told each once (answers/entity_search.py).
    lexical_warnings: set[str] = field(default_factory=set)
