"""The vector store the settings ask for (`VECTOR_STORE`, `QDRANT_URL` or `QDRANT_PATH`,
`VECTOR_STORE_MAX_RESULTS`)."""

from __future__ import annotations

from pathlib import Path

from api.settings import Settings, SettingsError
from vectorstores.base import Neo4jVectorIndex, VectorStore

DEFAULT_QDRANT_PATH = Path("~/.cache/evidencegraph/qdrant").expanduser()


def create_vector_store(settings: Settings, dimension: int) -> VectorStore:
    if settings.vector_store == "neo4j":
        return Neo4jVectorIndex()
    try:
        from vectorstores.qdrant import QdrantVectorStore
    except ImportError as missing:
        raise SettingsError(
            "VECTOR_STORE=qdrant needs qdrant-client: pip install 'evidencegraph[qdrant]'"
        ) from missing
    return QdrantVectorStore(
        settings.qdrant_url or settings.qdrant_path or DEFAULT_QDRANT_PATH,
        max_results=settings.vector_store_max_results,
        dimension=dimension,
        api_key=str(settings.qdrant_api_key) if settings.qdrant_api_key else None,
    )
