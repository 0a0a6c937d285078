"""neo4j-graphrag's own `SimpleKGPipeline`, run offline on a short text into a source server:
the graph `load --format neo4j-graphrag` imports, as the package writes it.

Everything is the package's own code but two stand-ins:

- the model: `ScriptedLLM` answers each chunk's extraction prompt with the JSON a model would
  give for that chunk (the prompt-based path, `LLMInterface.ainvoke`), so no model is called
  and the graph is the same on every run; the embedder is the project's hash embedder behind
  neo4j-graphrag's `Embedder` interface (evaluation/peer.py), so chunks carry vectors as they
  would;
- one statement of the writer: the test server is Neo4j Community without the APOC plugin,
  and neo4j-graphrag's `Neo4jWriter` merges each relationship with
  `apoc.merge.relationship(start, type, {}, properties, end, properties)`. `PlainCypherWriter`
  is that writer with this one statement written in plain Cypher (5.26's dynamic types),
  which merges the same relationship and sets the same properties. Entity resolution merges
  nodes with `apoc.refactor.mergeNodes`, so it is off (`perform_entity_resolution=False`):
  the same name extracted from two chunks stays two nodes, as it does in any graph written
  without resolution, and the importer merges them by label and name (docs/import-neo4j.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import neo4j
from neo4j_graphrag.components.kg_writer import Neo4jWriter
from neo4j_graphrag.components.text_splitters.fixed_size_splitter import FixedSizeSplitter
from neo4j_graphrag.components.types import Neo4jRelationship
from neo4j_graphrag.experimental.pipeline.kg_builder import SimpleKGPipeline
from neo4j_graphrag.llm.base import LLMInterface
from neo4j_graphrag.llm.types import LLMResponse

from embedding.hashing import HashEmbedder
from evaluation.peer import MiniLMForPeer

# A relationship as neo4j-graphrag's Neo4jWriter merges it, without APOC.
UPSERT_RELATIONSHIPS = (
    "UNWIND $rows AS row"
    " MATCH (start:__KGBuilder__ {__tmp_internal_id: row.start_node_id}),"
    " (end:__KGBuilder__ {__tmp_internal_id: row.end_node_id})"
    " MERGE (start)-[rel:$(row.type)]->(end)"
    " SET rel += row.properties"
)


class ScriptedLLM(LLMInterface):
    """Answers an extraction prompt with the scripted JSON of the first chunk text it holds."""

    def __init__(self, answers: Mapping[str, dict[str, Any]]) -> None:
        super().__init__(model_name="scripted")
        self.answers = dict(answers)
        self.prompts: list[str] = []

    def invoke(self, input: str, *args: Any, **kwargs: Any) -> LLMResponse:
        self.prompts.append(input)
        for text, answer in self.answers.items():
            if text in input:
                return LLMResponse(content=json.dumps(answer))
        return LLMResponse(content=json.dumps({"nodes": [], "relationships": []}))

    async def ainvoke(self, input: str, *args: Any, **kwargs: Any) -> LLMResponse:
        return self.invoke(input)


class PlainCypherWriter(Neo4jWriter):
    """neo4j-graphrag's writer, its one APOC statement in plain Cypher (module docstring)."""

    def _upsert_relationships(self, rels: list[Neo4jRelationship]) -> None:
        self.driver.execute_query(
            UPSERT_RELATIONSHIPS,
            parameters_={"rows": self._relationships_to_rows(rels)},
            database_=self.neo4j_database,
        )


async def run_pipeline(
    uri: str,
    text: str,
    answers: Mapping[str, dict[str, Any]],
    *,
    schema: dict[str, list[Any]],
    file_path: str,
    chunk_size: int,
    dimension: int = 8,
) -> ScriptedLLM:
    """Run SimpleKGPipeline on `text` (cut every `chunk_size` characters, as its
    FixedSizeSplitter does) into the server at `uri`; the model that answered, with the
    prompts it read."""
    llm = ScriptedLLM(answers)
    with neo4j.GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver:
        pipeline = SimpleKGPipeline(
            llm=llm,
            driver=driver,
            embedder=MiniLMForPeer(HashEmbedder(dimension)),
            schema=schema,
            from_file=False,
            text_splitter=FixedSizeSplitter(
                chunk_size=chunk_size, chunk_overlap=0, approximate=False
            ),
            kg_writer=PlainCypherWriter(driver),
            perform_entity_resolution=False,
            on_error="RAISE",
        )
        await pipeline.run_async(text=text, file_path=file_path)
    return llm
