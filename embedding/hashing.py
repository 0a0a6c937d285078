"""The `hash` embedder (contract §9, `EMBEDDER=hash`): deterministic vectors without a model.

Feature hashing: every lowercase word and every character trigram of a word (with `^`/`$`
marking its ends) adds ±weight to one of `dimension` buckets, chosen by blake2b so the
vectors are the same in every process and on every machine (Python's `hash()` is salted per
process). Texts that share words share buckets, so their cosine is higher; trigrams give
partial credit to word forms (`founder`, `founded`). It knows nothing of meaning: use it for
tests and demos where the model's weight or an endpoint is unwanted.

>>> embedder = HashEmbedder(dimension=64)
>>> [round(sum(v * v for v in vector), 6) for vector in embedder.embed(["Acme Corp"])]
[1.0]
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Sequence

import numpy as np

from embedding.base import EmbedderConfigError, EmbedderIdentity, unit_vectors

# Part of the identity recorded with stored vectors: change it whenever the features, weights
# or hashing below change, so vectors made the old way are refused rather than mixed in.
MODEL_NAME = "blake2b-words-trigrams-v1"
DEFAULT_DIMENSION = 384
WORD_WEIGHT = 1.0
TRIGRAM_WEIGHT = 0.5
_WORD = re.compile(r"\w+")


@functools.lru_cache(maxsize=65536)
def _bucket(feature: str) -> int:
    """A stable 64-bit hash of a feature (words repeat, so it is cached)."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8, person=b"eg-hash")
    return int.from_bytes(digest.digest(), "little")


def features(text: str) -> list[tuple[str, float]]:
    """The weighted features of a text: its words, then each word's character trigrams.

    A text without a word character (empty, punctuation) is one feature, itself, so every
    text gets a non-zero vector (a zero vector has no cosine).
    """
    words = _WORD.findall(text.lower())
    if not words:
        return [("\x00" + text, WORD_WEIGHT)]
    found = [("w:" + word, WORD_WEIGHT) for word in words]
    for word in words:
        marked = f"^{word}$"
        found.extend(("t:" + marked[i : i + 3], TRIGRAM_WEIGHT) for i in range(len(marked) - 2))
    return found


class HashEmbedder:
    """Deterministic feature-hashing vectors of `dimension` numbers, unit length."""

    def __init__(self, dimension: int = DEFAULT_DIMENSION) -> None:
        if dimension < 1:
            raise EmbedderConfigError(
                f"EMBEDDER_DIM must be a positive number of dimensions, got {dimension}"
            )
        self.identity = EmbedderIdentity("hash", MODEL_NAME, dimension)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        dimension = self.identity.dimension
        vectors = np.zeros((len(texts), dimension), dtype=np.float64)
        for row, text in enumerate(texts):
            names, weights = zip(*features(text), strict=True)
            hashes = np.fromiter(map(_bucket, names), dtype=np.uint64, count=len(names))
            # The top bit picks the sign, so colliding features cancel on average instead of
            # piling up: the expected dot product of unrelated texts stays zero.
            signs = np.where(hashes >> np.uint64(63), -1.0, 1.0)
            buckets = (hashes % np.uint64(dimension)).astype(np.intp)
            vectors[row] = np.bincount(
                buckets, weights=signs * np.asarray(weights), minlength=dimension
            )
        return unit_vectors(vectors)

    def close(self) -> None:
        """Nothing to release."""
