"""The peer, side by side: neo4j-graphrag's `HybridRetriever` and `VectorRetriever` over the same
graph, the same embeddings and the same query embedder (MiniLM, through an adapter).

neo4j-graphrag is the optional extra `peer` (`pip install -e '.[peer]'`), never a runtime
dependency; this module is imported only when the eval is asked for the peer.

A retriever reads one vector index and one FULLTEXT index, while the service searches one pair
per entity label. The eval gives the peer both shapes:
- `one index`: a FULLTEXT index on `:Entity(name)` (the default variant's analyzer) and a
  VECTOR index on `:Entity(embedding)`, created for the peer over the very same properties
  (`Entity` is on every entity node and is not an entity label, so the service never reads
  them), and dropped afterwards;
- `per label`: the service's own two indexes of each label, one retriever per label, the
  per-label lists merged by the retriever's score (max per entity), best `top_k` kept.
The query text is passed as a user would type it: the peer sends it to Lucene as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, LiteralString

import neo4j
from neo4j_graphrag.embeddings.base import Embedder as PeerEmbedder
from neo4j_graphrag.exceptions import SearchQueryParseError
from neo4j_graphrag.retrievers import HybridRetriever, VectorRetriever
from neo4j_graphrag.types import RetrieverResultItem

from embedding.base import Embedder
from evaluation.metrics import Answer, Hit
from evaluation.queryset import LabelledQuery
from graph.lexical_index import ENTITY_ANALYZER

PEER_FULLTEXT = "eval_peer_entity_name"
PEER_VECTOR = "eval_peer_entity_embedding"

_CREATE_FULLTEXT: LiteralString = (
    "CREATE FULLTEXT INDEX eval_peer_entity_name IF NOT EXISTS FOR (n:Entity) ON EACH [n.name]"
    " OPTIONS {indexConfig: {`fulltext.analyzer`: $analyzer}}"
)
_CREATE_VECTOR: LiteralString = (
    "CREATE VECTOR INDEX eval_peer_entity_embedding IF NOT EXISTS FOR (n:Entity)"
    " ON (n.embedding) OPTIONS {indexConfig: {`vector.dimensions`: $dimension,"
    " `vector.similarity_function`: 'cosine'}}"
)
_DROP: tuple[LiteralString, ...] = (
    "DROP INDEX eval_peer_entity_name IF EXISTS",
    "DROP INDEX eval_peer_entity_embedding IF EXISTS",
)


class MiniLMForPeer(PeerEmbedder):
    """neo4j-graphrag's embedder interface over the service's embedder (the same vectors)."""

    def __init__(self, embedder: Embedder) -> None:
        super().__init__()
        self._embedder = embedder

    def embed_query(self, text: str) -> list[float]:
        [vector] = self._embedder.embed([text])
        return vector


def _item(record: neo4j.Record) -> RetrieverResultItem:
    node = record.get("node")
    return RetrieverResultItem(
        content=str(node["id"]), metadata={"name": node["name"], "score": record.get("score")}
    )


Search = Callable[[str, int], list[RetrieverResultItem]]


@dataclass(frozen=True)
class PeerMethod:
    name: str
    searches: tuple[Search, ...]  # one per index pair; merged by score

    def hits(self, query: str, top_k: int) -> tuple[Hit, ...]:
        best: dict[str, tuple[float, str]] = {}
        for search in self.searches:
            for item in search(query, top_k):
                metadata = item.metadata or {}
                score = float(metadata["score"])
                if item.content not in best or score > best[item.content][0]:
                    best[item.content] = (score, str(metadata["name"]))
        ranked = sorted(best.items(), key=lambda pair: (-pair[1][0], pair[0]))
        return tuple(Hit(entity_id, name) for entity_id, (_, name) in ranked[:top_k])

    def answer(self, query: LabelledQuery) -> Answer:
        try:
            return Answer(query, self.hits(query.query, 5), self.hits(query.query, 10))
        except SearchQueryParseError as error:
            return Answer(query, (), (), error=str(error))


def create_peer_indexes(driver: neo4j.Driver, dimension: int) -> None:
    driver.execute_query(_CREATE_FULLTEXT, {"analyzer": ENTITY_ANALYZER})
    driver.execute_query(_CREATE_VECTOR, {"dimension": dimension})
    driver.execute_query("CALL db.awaitIndexes(300)")


def drop_peer_indexes(driver: neo4j.Driver) -> None:
    for statement in _DROP:
        driver.execute_query(statement)


def peer_methods(
    driver: neo4j.Driver, embedder: Embedder, label_indexes: Sequence[tuple[str, str]]
) -> list[PeerMethod]:
    """The peer's rows: hybrid (naive and linear ranker) and vector over one index pair, and
    hybrid per label; `label_indexes` are the service's (fulltext, vector) names per label."""
    adapter = MiniLMForPeer(embedder)
    returned = ["id", "name"]

    def hybrid(fulltext: str, vector: str, **options: Any) -> Search:
        retriever = HybridRetriever(
            driver, vector, fulltext, adapter, return_properties=returned, result_formatter=_item
        )
        return lambda q, k: retriever.search(query_text=q, top_k=k, **options).items

    vector_retriever = VectorRetriever(
        driver, PEER_VECTOR, adapter, return_properties=returned, result_formatter=_item
    )
    return [
        PeerMethod("peer HybridRetriever (one index)", (hybrid(PEER_FULLTEXT, PEER_VECTOR),)),
        PeerMethod(
            "peer HybridRetriever linear α=0.5 (one index)",
            (hybrid(PEER_FULLTEXT, PEER_VECTOR, ranker="linear", alpha=0.5),),
        ),
        PeerMethod(
            "peer HybridRetriever per label",
            tuple(hybrid(fulltext, vector) for fulltext, vector in label_indexes),
        ),
        PeerMethod(
            "peer VectorRetriever (one index)",
            (lambda q, k: vector_retriever.search(query_text=q, top_k=k).items,),
        ),
    ]
