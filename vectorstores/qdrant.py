"""Qdrant as the external vector store: one collection of entity vectors per entity label.

Runs embedded in the process (qdrant-client's local mode: a folder on disk, or `:memory:`), so
no server is needed; or against a Qdrant server (`QDRANT_URL`, with `QDRANT_API_KEY`), which
several replicas of the service share (a local folder is locked by the one process that opens
it). Both go through the same client calls below. Local mode searches exactly (brute force),
which keeps the seed's rule simple: the first read is a prefix of the read at the cap; a
server searches its HNSW index, approximately, as Neo4j's vector index does. `max_results` caps
every read, as a hosted store's own limit would.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterable, Sequence
from pathlib import Path

from qdrant_client import AsyncQdrantClient, models

from vectorstores.base import Neighbour

COLLECTION_PREFIX = "evidencegraph_"


def collection_for(label: str) -> str:
    """A collection name for a label; labels may hold any character, collection names not."""
    safe = re.sub(r"[^A-Za-z0-9_-]", lambda m: f"~{ord(m.group()):x}", label)
    return COLLECTION_PREFIX + safe


class QdrantVectorStore:
    name = "qdrant"
    in_graph = False

    def __init__(
        self,
        location: Path | str,
        max_results: int,
        dimension: int,
        *,
        api_key: str | None = None,
    ) -> None:
        self.max_results: int | None = max_results
        self.dimension = dimension
        if str(location).startswith(("http://", "https://")):
            self.client = AsyncQdrantClient(url=str(location), api_key=api_key)
        elif str(location) == ":memory:":
            self.client = AsyncQdrantClient(location=":memory:")
        else:
            Path(location).mkdir(parents=True, exist_ok=True)
            self.client = AsyncQdrantClient(path=str(location))

    async def nearest(self, label: str, vector: Sequence[float], k: int) -> list[Neighbour]:
        collection = collection_for(label)
        if not await self.client.collection_exists(collection):
            return []
        limit = min(k, self.max_results) if self.max_results else k
        response = await self.client.query_points(collection, query=list(vector), limit=limit)
        return [(str(point.id), float(point.score)) for point in response.points]

    async def replace_label(
        self, label: str, vectors: AsyncIterable[tuple[str, Sequence[float]]], batch: int = 512
    ) -> int:
        """Make the label's collection hold exactly `vectors` (entity id, embedding)."""
        collection = collection_for(label)
        if await self.client.collection_exists(collection):
            await self.client.delete_collection(collection)
        await self.client.create_collection(
            collection,
            vectors_config=models.VectorParams(
                size=self.dimension, distance=models.Distance.COSINE
            ),
        )
        written = 0
        points: list[models.PointStruct] = []
        async for entity_id, vector in vectors:
            points.append(models.PointStruct(id=entity_id, vector=list(vector)))
            if len(points) >= batch:
                await self.client.upsert(collection, points=points)
                written += len(points)
                points = []
        if points:
            await self.client.upsert(collection, points=points)
            written += len(points)
        return written

    async def close(self) -> None:
        await self.client.close()
