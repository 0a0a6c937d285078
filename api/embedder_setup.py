"""The embedder the settings name (SPEC §9), and the start-up check that it fits the graph.

"The embedder's dimension must match the vector indexes; a mismatch stops the service at start
with a clear message."
"""

from __future__ import annotations

from api.settings import Settings, SettingsError
from embedding import hashing, minilm
from embedding.base import Embedder, EmbedderConfigError
from embedding.factory import create_embedder
from graph.index_catalog import IndexCatalog


def embedder_from(settings: Settings) -> Embedder:
    try:
        return create_embedder(
            settings.embedder,
            dimension=settings.embedder_dim,
            url=settings.embedder_url,
            model=settings.embedder_model,
            api_key=str(settings.embedder_api_key) if settings.embedder_api_key else None,
        )
    except EmbedderConfigError as error:
        raise SettingsError(str(error)) from error


def configured_dimension(settings: Settings) -> int:
    """The dimension the configured embedder makes, without loading a model."""
    if settings.embedder == "minilm":
        return minilm.DIMENSION
    if settings.embedder_dim is not None:
        return settings.embedder_dim
    if settings.embedder == "hash":
        return hashing.DEFAULT_DIMENSION
    raise SettingsError("EMBEDDER=openai needs EMBEDDER_DIM, the dimension of its vectors")


def check_dimension(catalog: IndexCatalog, dimension: int) -> None:
    """Stop when a vector index was built for another dimension than the embedder makes."""
    found = catalog.vector_dimensions()
    others = sorted(found - {dimension})
    if others:
        raise SettingsError(
            f"The graph's vector indexes hold {', '.join(map(str, others))}-dimensional vectors, "
            f"but the configured embedder makes {dimension}-dimensional ones. Set EMBEDDER "
            "(and EMBEDDER_DIM) to the embedder that made the stored vectors, or re-load the "
            "data with this one."
        )
