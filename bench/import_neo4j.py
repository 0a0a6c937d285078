"""How fast `load --format neo4j-graphrag` imports a graph, beside the GraphRAG loader on the same
data: the Christmas Carol GraphRAG output written into a source Neo4j as neo4j-graphrag's
SimpleKGPipeline lays its graphs out (docs/import-neo4j.md), then both imported.

    .venv/bin/python bench/import_neo4j.py --source bolt://127.0.0.1:PORT1 \\
        --target bolt://127.0.0.1:PORT2 --folder ../shared/datasets/graphrag-christmas-carol

Both servers must be scratch servers (`evidencegraph neo4j start --home /tmp/x --port 0`):
the source is emptied and written, the target emptied before each import. The source layout:
one `:Document {path}`, each text unit a `:Chunk {text, index}` `FROM_DOCUMENT` it and
`NEXT_CHUNK` the next, each entity `:__KGBuilder__:__Entity__:<Type> {name, description}`
`FROM_CHUNK` every text unit it names, each relationship `RELATED_TO {description, weight}`.
Each import runs through `load_source` with the hash embedder (8 dimensions), so what is
measured is reading, mapping and writing, not a model; it prints entities, chunks and
relations per second of each, from the load's start to its summary (indexes excluded).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import time
from contextlib import redirect_stdout
from pathlib import Path

import neo4j

from embedding.hashing import HashEmbedder
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from ingest.graphrag import label_for_type
from ingest.graphrag_tables import locate_tables
from ingest.load_source import Source, load_source
from ingest.source_graph_import import GraphSource, parse_source_uri

WIPE = "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS"


async def write_source(uri: str, folder: Path) -> dict[str, int]:
    """The folder's graph in neo4j-graphrag's layout, in the source database."""
    tables = locate_tables(folder)
    units = sorted(tables.text_units.rows(), key=lambda row: row["human_readable_id"] or 0)
    entities = tables.entities.rows()
    relationships = tables.relationships.rows()
    async with neo4j.AsyncGraphDatabase.driver(uri, auth=None) as driver:
        async with driver.session() as session:
            await (await session.run(WIPE)).consume()
        await driver.execute_query("CREATE (:__KGBuilder__:Document {path: 'christmas-carol.txt'})")
        await driver.execute_query(
            "MATCH (d:Document) UNWIND $units AS unit"
            " CREATE (c:__KGBuilder__:Chunk {text: unit.text, index: unit.index, unit: unit.id})"
            " CREATE (c)-[:FROM_DOCUMENT]->(d)",
            {
                "units": [
                    {"id": u["id"], "text": u["text"], "index": i} for i, u in enumerate(units)
                ]
            },
        )
        await driver.execute_query(
            "MATCH (a:Chunk), (b:Chunk) WHERE b.index = a.index + 1 CREATE (a)-[:NEXT_CHUNK]->(b)"
        )
        rows = [
            {"title": e["title"], "type": label_for_type(e["type"]),
             "description": e["description"], "units": list(e["text_unit_ids"] or [])}
            for e in entities
        ]  # fmt: skip
        await driver.execute_query(
            "UNWIND $rows AS row CREATE (e:__KGBuilder__:__Entity__ {name: row.title,"
            " description: row.description}) SET e:$(row.type)"
            " WITH e, row UNWIND row.units AS unit MATCH (c:Chunk {unit: unit})"
            " CREATE (e)-[:FROM_CHUNK]->(c)",
            {"rows": rows},
        )
        edges = [
            {"source": r["source"], "target": r["target"], "description": r["description"],
             "weight": float(r["weight"] or 1.0)}
            for r in relationships
        ]  # fmt: skip
        await driver.execute_query(
            "UNWIND $rows AS row MATCH (a:__Entity__ {name: row.source})"
            " MATCH (b:__Entity__ {name: row.target})"
            " CREATE (a)-[:RELATED_TO {description: row.description, weight: row.weight}]->(b)",
            {"rows": edges},
        )
    return {"chunks": len(units), "entities": len(entities), "relationships": len(relationships)}


async def timed_load(target: str, source: Source | GraphSource) -> tuple[float, str]:
    async with neo4j.AsyncGraphDatabase.driver(target, auth=None) as driver:
        graph = Graph(driver)
        await graph.auto_commit(WIPE, {})
        embedder = QueryEmbedder(HashEmbedder(8), size=0)
        started = time.perf_counter()
        with redirect_stdout(io.StringIO()) as out:
            await load_source(graph, embedder, source)
        return time.perf_counter() - started, out.getvalue()


def rates(label: str, seconds: float, counts: dict[str, int]) -> str:
    per = {kind: n / seconds for kind, n in counts.items()}
    return (
        f"{label}: {seconds:.2f} s; {per['entities']:.0f} entities/s, {per['chunks']:.0f}"
        f" chunks/s, {per['relations']:.0f} relations/s"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--folder", type=Path, required=True, help="a GraphRAG output folder")
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    written = await write_source(arguments.source, arguments.folder)
    print(f"source: {written}")
    graph_source = GraphSource(parse_source_uri(arguments.source), "neo4j-graphrag", "bench")
    folder_source = Source(arguments.folder, "graphrag", "bench")
    for run in range(1, arguments.runs + 1):
        for label, source in (("graphrag", folder_source), ("neo4j-graphrag", graph_source)):
            seconds, summary = await timed_load(arguments.target, source)
            written_line = next(line for line in summary.splitlines() if line.startswith("written"))
            numbers = [
                int(word.replace(",", ""))
                for word in written_line.split()
                if word.replace(",", "").isdigit()
            ]
            counts = dict(zip(("chunks", "entities", "relations"), numbers, strict=True))
            print(f"run {run} {rates(label, seconds, counts)} ({written_line})")


if __name__ == "__main__":
    asyncio.run(main())
