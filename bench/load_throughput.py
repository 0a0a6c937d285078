"""How fast `evidencegraph load` writes a bundle: passages per second, with the embeddings in
the file and with the embeddings computed by the loader.

    NEO4J_URI=bolt://127.0.0.1:PORT .venv/bin/python bench/load_throughput.py \\
        --passages 50000 --embeddings given|computed --embedder hash|minilm [--wipe]

It generates a bundle (documents of 100 passages of about 100 words of real prose, 20 entities
each, half of them shared by every document, 40 relations each) in a temporary folder, loads it
through the same loader as the command (without the progress display) into the database
NEO4J_URI names, then creates the indexes. The database must be empty, or `--wipe` must say it
may be emptied: point it at a scratch server (`evidencegraph neo4j start --home /tmp/x --port
0`), never at one that holds data you want. MiniLM embeds some tens of passages a second
at best on two cores (bench/notebook.md): measure it on a few thousand passages and
extrapolate.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as `evidencegraph` sets it

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import neo4j
import numpy as np

from embedding.factory import create_embedder
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from ingest.bundle import read_bundle
from ingest.load_source import make_searchable
from ingest.loader import Loader

SOURCE = Path(__file__).parent.parent / "data" / "graphrag-operation-dulce" / "source-text.md"
PER_DOCUMENT, ENTITIES, SHARED, RELATIONS, WORDS = 100, 20, 10, 40, 100


def uid(kind: int, n: int) -> str:
    return f"00000000-0000-4000-{8000 + kind:04x}-{n:012x}"


def generate(path: Path, passages: int, dimension: int | None) -> int:
    """Write the bundle; the number of lines. `dimension`: embeddings in the file, or None."""
    words = SOURCE.read_text(encoding="utf-8").split()
    randomness = np.random.default_rng(7)

    def vector() -> list[float]:
        values = randomness.standard_normal(dimension or 0)
        unit: list[float] = np.round(values / np.linalg.norm(values), 5).tolist()
        return unit

    lines = -(-passages // PER_DOCUMENT)
    with path.open("w", encoding="utf-8") as out:
        for d in range(lines):
            first = d * PER_DOCUMENT
            numbers = range(first, min(first + PER_DOCUMENT, passages))
            rows: list[dict[str, Any]] = []
            for position, n in enumerate(numbers):
                start = (n * WORDS) % (len(words) - WORDS)
                rows.append(
                    {
                        "id": uid(2, n),
                        "position": position,
                        "text": " ".join(words[start : start + WORDS]) + f" ({n})",
                    }
                )
            # Half the entities are shared by every document (they merge by id), half are new.
            entity_numbers = list(range(SHARED)) + [
                SHARED + d * (ENTITIES - SHARED) + i for i in range(ENTITIES - SHARED)
            ]
            entities = [
                {
                    "id": uid(3, e),
                    "labels": ["Person" if e % 2 else "Place"],
                    "name": f"Entity {e}",
                    "description": f"something said about entity {e}",
                    "mentions": [rows[(e * 7 + k) % len(rows)]["id"] for k in range(5)],
                }
                for e in entity_numbers
            ]
            relations = [
                {
                    "id": uid(4, d * RELATIONS + r),
                    "type": "RELATED_TO",
                    "source": entities[r % ENTITIES]["id"],
                    "target": entities[(r * 3 + 1) % ENTITIES]["id"],
                    "passageIds": [rows[r % len(rows)]["id"]],
                }
                for r in range(RELATIONS)
            ]
            if dimension:
                for item in [*rows, *entities]:
                    item["embedding"] = vector()
            document = {"id": uid(1, d), "workspace": "bench"}
            line = {"document": document, "passages": rows, "entities": entities}
            out.write(json.dumps({**line, "relations": relations}) + "\n")
    return lines


async def run(arguments: argparse.Namespace) -> None:
    embedder = create_embedder(
        arguments.embedder, dimension=arguments.dimension, url=None, model=None, api_key=None
    )
    dimension = embedder.identity.dimension
    with tempfile.TemporaryDirectory() as folder:
        bundle = Path(folder) / "bench.jsonl"
        started = time.monotonic()
        given = dimension if arguments.embeddings == "given" else None
        lines = generate(bundle, arguments.passages, given)
        size = bundle.stat().st_size / 1e6
        print(f"bundle: {lines} lines, {size:.0f} MB, in {time.monotonic() - started:.1f} s")
        async with neo4j.AsyncGraphDatabase.driver(
            os.environ["NEO4J_URI"], auth=None, notifications_min_severity="OFF"
        ) as driver:
            graph = Graph(driver)
            await empty(graph, arguments.wipe)
            loader = Loader(graph, QueryEmbedder(embedder, size=0), documents_total=lines)
            result = await loader.load(read_bundle(bundle, dimensions=dimension))
            totals = result.totals
            loading = totals.elapsed
            started = time.monotonic()
            await make_searchable(graph, totals.labels, dimension)
            indexing = time.monotonic() - started
    print(f"{arguments.embedder}, embeddings {arguments.embeddings}:")
    for line in totals.summary_lines():
        print(f"  {line}")
    print(f"  load: {totals.passages / loading:.0f} passages/s ({loading:.1f} s)")
    print(f"  indexes ONLINE after a further {indexing:.1f} s")
    if result.rejections:
        print(f"  REJECTED {len(result.rejections)}: {result.rejections[0]}")


async def empty(graph: Graph, wipe: bool) -> None:
    rows = await graph.read("MATCH (n) RETURN count(n) AS n", {})
    if rows[0]["n"] and not wipe:
        raise SystemExit("the database is not empty: use a scratch server, or --wipe")
    await graph.auto_commit(
        "MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 20000 ROWS", {}
    )
    await graph.auto_commit("MATCH (n) CALL (n) { DELETE n } IN TRANSACTIONS OF 20000 ROWS", {})
    indexes = await graph.read(
        "SHOW INDEXES YIELD name, type WHERE type IN ['FULLTEXT', 'VECTOR'] RETURN name", {}
    )
    for row in indexes:
        await graph.write("DROP INDEX $name", {"name": row["name"]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passages", type=int, default=50_000)
    parser.add_argument("--embeddings", choices=["given", "computed"], default="given")
    parser.add_argument("--embedder", choices=["hash", "minilm"], default="hash")
    parser.add_argument("--dimension", type=int, default=None, help="hash only (default 384)")
    parser.add_argument("--wipe", action="store_true", help="empty the database first")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
