"""The embedder the settings name (contract §9), and the check that it fits the graph.

"The embedder's dimension must match the vector indexes; a mismatch stops the service at start
with a clear message." Where a `load` recorded the embedder that made the vectors
(`graph.embedder_record`), the configured one must also be that very embedder: same dimension
is not enough when the model differs. `serve` and `load` both run this check.
"""

from __future__ import annotations

from api.settings import Settings, SettingsError
from embedding import hashing, minilm
from embedding.base import Embedder, EmbedderConfigError, EmbedderIdentity
from embedding.factory import create_embedder
from embedding.mismatch import EmbedderMismatch, check_recorded
from graph.driver import Graph
from graph.embedder_record import read_recorded_embedder
from graph.index_catalog import IndexCatalog, read_index_catalog


def embedder_from(settings: Settings) -> Embedder:
    try:
        return create_embedder(
            settings.embedder,
            dimension=settings.embedder_dim,
            url=settings.embedder_url,
            model=settings.embedder_model,
            api_key=str(settings.embedder_api_key) if settings.embedder_api_key else None,
            threads=settings.embedder_threads,
            precision=settings.embedder_precision,
        )
    except EmbedderConfigError as error:
        raise SettingsError(str(error)) from error


def configured_identity(settings: Settings) -> EmbedderIdentity:
    """The identity the configured embedder will have, without loading a model or calling an
    endpoint (for checks that should fail in a second, before MiniLM's weights load)."""
    dimension = configured_dimension(settings)
    if settings.embedder == "minilm":
        return EmbedderIdentity("minilm", minilm.MODEL_NAME, dimension)
    if settings.embedder == "hash":
        return EmbedderIdentity("hash", hashing.MODEL_NAME, dimension)
    if not settings.embedder_model:
        raise SettingsError("EMBEDDER=openai needs EMBEDDER_MODEL, the model's name")
    return EmbedderIdentity("openai", settings.embedder_model, dimension)


def configured_dimension(settings: Settings) -> int:
    """The dimension the configured embedder makes, without loading a model; the settings
    checked as `embedding.factory.create_embedder` checks them, so `schema apply` refuses
    what `serve` would."""
    if settings.embedder == "minilm":
        if settings.embedder_dim not in (None, minilm.DIMENSION):
            raise SettingsError(
                f"EMBEDDER=minilm makes {minilm.DIMENSION}-dimensional vectors, but "
                f"EMBEDDER_DIM is {settings.embedder_dim}: unset EMBEDDER_DIM or set it to "
                f"{minilm.DIMENSION}"
            )
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


async def check_graph_embedder(graph: Graph, identity: EmbedderIdentity) -> IndexCatalog:
    """Stop (`SettingsError`) when the graph's vectors were made by another embedder: the one
    its record names, or, without a record, one of another dimension. Reads only; returns the
    index catalog it read, for the caller's other checks."""
    try:
        check_recorded(await read_recorded_embedder(graph), identity)
    except EmbedderMismatch as error:
        raise SettingsError(str(error)) from error
    catalog = await read_index_catalog(graph)
    check_dimension(catalog, identity.dimension)
    return catalog
