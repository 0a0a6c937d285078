"""Builds the embedder the settings name (contract §9: `EMBEDDER`, `EMBEDDER_URL`,
`EMBEDDER_MODEL`, `EMBEDDER_DIM`, `EMBEDDER_API_KEY`).

Settings are parsed at the edge (api/ reads the environment); this checks that they make
sense together, and says which one to set when they do not.

>>> create_embedder("hash", dimension=16, url=None, model=None, api_key=None).identity
EmbedderIdentity(kind='hash', model='blake2b-words-trigrams-v1', dimension=16)
"""

from __future__ import annotations

from embedding import hashing, minilm
from embedding.base import Embedder, EmbedderConfigError

KINDS = ("minilm", "openai", "hash")
MAX_DIMENSION = 4096  # the most a Neo4j vector index takes
# How the MiniLM model may be named in EMBEDDER_MODEL (it may also be left unset).
MINILM_NAMES = frozenset(
    {minilm.MODEL_NAME.lower(), f"sentence-transformers/{minilm.MODEL_NAME}".lower()}
)


def create_embedder(
    kind: str,
    *,
    dimension: int | None,
    url: str | None,
    model: str | None,
    api_key: str | None,
    threads: int | None = None,
    precision: str = "fp32",
) -> Embedder:
    """The embedder of kind `minilm`, `openai` or `hash`, configured and ready to embed.

    Settings a kind does not use (a URL for `hash`, say) are ignored. MiniLM loads its
    weights here, so a missing or altered model fails at start, not at the first query;
    `threads` (None: min(2, cores)) and `precision` (`fp32` or `int8`) are MiniLM's.
    """
    chosen = kind.strip().lower()
    if dimension is not None and not 1 <= dimension <= MAX_DIMENSION:
        raise EmbedderConfigError(
            f"EMBEDDER_DIM must be between 1 and {MAX_DIMENSION}, got {dimension}"
        )
    if chosen == "minilm":
        if dimension is not None and dimension != minilm.DIMENSION:
            raise EmbedderConfigError(
                f"EMBEDDER=minilm makes {minilm.DIMENSION}-dimensional vectors, but "
                f"EMBEDDER_DIM is {dimension}: unset EMBEDDER_DIM or set it to "
                f"{minilm.DIMENSION}"
            )
        if model and model.strip().lower() not in MINILM_NAMES:
            raise EmbedderConfigError(
                f"EMBEDDER=minilm runs {minilm.MODEL_NAME} only, but EMBEDDER_MODEL is "
                f"{model!r}: unset EMBEDDER_MODEL, or set EMBEDDER=openai to use another model"
            )
        if precision not in minilm.PRECISIONS:
            raise EmbedderConfigError(
                f"EMBEDDER_PRECISION must be one of {', '.join(minilm.PRECISIONS)}, "
                f"got {precision!r}"
            )
        return minilm.MiniLMEmbedder(threads=threads, precision=precision)
    if chosen == "hash":
        return hashing.HashEmbedder(hashing.DEFAULT_DIMENSION if dimension is None else dimension)
    if chosen == "openai":
        if not url or not model or dimension is None:
            missing = [
                name
                for name, value in (
                    ("EMBEDDER_URL", url),
                    ("EMBEDDER_MODEL", model),
                    ("EMBEDDER_DIM", dimension),
                )
                if value is None or value == ""
            ]
            raise EmbedderConfigError(
                f"EMBEDDER=openai needs {', '.join(missing)}: set EMBEDDER_URL to the "
                "endpoint's base (e.g. http://127.0.0.1:8080/v1), EMBEDDER_MODEL to the "
                "model's name and EMBEDDER_DIM to its number of dimensions "
                "(and EMBEDDER_API_KEY if it wants a key)"
            )
        # Imported here: httpx (and the command-line tools it brings) cost every command's
        # start-up a tenth of a second of CPU, and only this embedder uses it.
        from embedding.openai_compatible import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(
            url=url, model=model, dimension=dimension, api_key=api_key or None
        )
    raise EmbedderConfigError(f"EMBEDDER must be one of {', '.join(KINDS)}; got {kind!r}")
