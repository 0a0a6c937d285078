"""Vectors of different embedders do not mix (contract §9): what the graph recorded as the maker of
its vectors, and the error that names the settings to change when another embedder is set.

The graph keeps one record (written by the first `load`, see `graph.embedder_record`). A search
embeds its query with the configured embedder and compares it with stored vectors: if another
model made them, every similarity is noise even when the dimensions agree. So `load` and
`serve` refuse a configured embedder that differs from the record.

>>> recorded = RecordedEmbedder("hash", "blake2b-words-trigrams-v1", 8)
>>> recorded.settings()
'EMBEDDER=hash EMBEDDER_DIM=8'
"""

from __future__ import annotations

from dataclasses import dataclass

from embedding.base import EmbedderIdentity


@dataclass(frozen=True, slots=True)
class RecordedEmbedder:
    """The embedder a graph says made its vectors. Plain strings: a record written by a later
    version of the service may name a kind this one does not know."""

    kind: str
    model: str
    dimension: int

    @classmethod
    def of(cls, identity: EmbedderIdentity) -> RecordedEmbedder:
        return cls(identity.kind, identity.model, identity.dimension)

    def matches(self, identity: EmbedderIdentity) -> bool:
        return self == RecordedEmbedder.of(identity)

    def describe(self) -> str:
        return f"{self.kind} {self.model} ({self.dimension} dimensions)"

    def settings(self) -> str:
        """The environment settings that select this embedder again."""
        if self.kind == "minilm":
            return "EMBEDDER=minilm"
        if self.kind == "hash":
            return f"EMBEDDER=hash EMBEDDER_DIM={self.dimension}"
        if self.kind == "openai":
            return (
                f"EMBEDDER=openai EMBEDDER_MODEL={self.model} EMBEDDER_DIM={self.dimension} "
                "(with EMBEDDER_URL set to an endpoint that serves that model)"
            )
        return f"EMBEDDER={self.kind} with model {self.model} ({self.dimension} dimensions)"


class EmbedderMismatch(ValueError):
    """The configured embedder is not the one that made the graph's vectors."""

    def __init__(self, recorded: RecordedEmbedder, configured: EmbedderIdentity) -> None:
        super().__init__(
            f"The graph's vectors were made by {recorded.describe()}, but the configured "
            f"embedder is {configured.describe()}; their vectors cannot be compared. Set "
            f"{recorded.settings()} to match the stored vectors, or load the data into a fresh "
            "database with the embedder you want."
        )
        self.recorded = recorded
        self.configured = configured


def check_recorded(recorded: RecordedEmbedder | None, configured: EmbedderIdentity) -> None:
    """Raise `EmbedderMismatch` unless the graph has no record or records `configured`."""
    if recorded is not None and not recorded.matches(configured):
        raise EmbedderMismatch(recorded, configured)
