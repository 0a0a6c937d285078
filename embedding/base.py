"""What every embedder is (contract §9): an identity, a synchronous `embed`, and `close`.

Vectors are L2-normalised, so a dot product is a cosine and any store (Neo4j's vector index,
Qdrant) ranks them the same way. The identity is what gets recorded beside stored vectors:
vectors from different identities are not comparable, and the service refuses to start on a
mismatch.

Errors an embedder raises:

    EmbedderConfigError (ValueError)      the settings are wrong, or a remote endpoint says so
                                          (key refused, unknown URL or model, other
                                          dimension); the message names the setting to change
    EmbedderRequestError (RuntimeError)   a remote endpoint refused a request for a reason that
                                          retrying will not fix (e.g. input too long)
    contract.errors.BackendUnavailable    a remote embedder cannot be reached, or keeps failing
                                          after retries; its message is safe for clients
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

EmbedderKind = Literal["minilm", "openai", "hash"]


class EmbedderConfigError(ValueError):
    """The embedder cannot work as configured; the message says what to set."""


class EmbedderRequestError(RuntimeError):
    """A remote embedder refused a request, and sending it again would not help."""


@dataclass(frozen=True)
class EmbedderIdentity:
    """Which model made a vector: two vectors compare only when their identities are equal.

    >>> EmbedderIdentity("minilm", "all-MiniLM-L6-v2", 384).describe()
    'minilm all-MiniLM-L6-v2 (384 dimensions)'
    """

    kind: EmbedderKind
    model: str
    dimension: int

    def describe(self) -> str:
        return f"{self.kind} {self.model} ({self.dimension} dimensions)"


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors, one per text, in order.

    `embed` is synchronous and CPU or network bound: async code calls it through
    `embedding.query_cache.QueryEmbedder`, which runs it off the event loop.
    """

    @property
    def identity(self) -> EmbedderIdentity: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    def close(self) -> None: ...


def unit_vectors(matrix: npt.NDArray[np.floating[Any]]) -> list[list[float]]:
    """Each row scaled to unit L2 length, as lists; an all-zero row stays zero (no direction).

    The floor on the norm is the one `torch.nn.functional.normalize` uses, so MiniLM vectors
    match sentence-transformers' `Normalize` step.
    """
    rows = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    vectors: list[list[float]] = (rows / np.maximum(norms, np.float32(1e-12))).tolist()
    return vectors
