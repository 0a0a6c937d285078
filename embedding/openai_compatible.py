"""The `openai` embedder (contract §9, `EMBEDDER=openai`): any OpenAI-compatible `/v1/embeddings`.

OpenAI, Text Embeddings Inference, vLLM, Ollama and LiteLLM all serve this route. Texts go
out in batches (`batch_size` inputs a request); a batch that meets a rate limit (429), a
server error (5xx) or a network failure is sent again after an exponential backoff with
jitter, or after the server's `Retry-After`. What retrying cannot fix fails at once, with a
message that names the setting to change: a refused key (401/403), an unknown route or
model (404), vectors of another dimension than `EMBEDDER_DIM`.

Nothing here puts the key or the URL's credentials into a message or a log line.

>>> embedder = OpenAICompatibleEmbedder(
...     url="http://127.0.0.1:8080/v1", model="bge-small-en-v1.5", dimension=384
... )
"""

from __future__ import annotations

import email.utils
import logging
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt

from contract.errors import BackendUnavailable
from embedding.base import (
    EmbedderConfigError,
    EmbedderIdentity,
    EmbedderRequestError,
    unit_vectors,
)

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 64
DEFAULT_TIMEOUT = 30.0  # seconds for one request; connecting gets at most CONNECT_TIMEOUT
CONNECT_TIMEOUT = 5.0
DEFAULT_ATTEMPTS = 5  # tries per batch, the first included
DEFAULT_BACKOFF = 0.5  # seconds before the first retry; doubles with each one
MAX_WAIT = 30.0  # no single wait is longer, whatever Retry-After asks
RETRIED_STATUS = frozenset({408, 429}) | frozenset(range(500, 600))


def endpoint_for(url: str) -> httpx.URL:
    """The embeddings route for EMBEDDER_URL, which may name the server, its `/v1`, or the route.

    >>> str(endpoint_for("http://127.0.0.1:8080"))
    'http://127.0.0.1:8080/v1/embeddings'
    >>> str(endpoint_for("https://example.test/openai/v1/"))
    'https://example.test/openai/v1/embeddings'
    """
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as error:
        raise EmbedderConfigError(
            "EMBEDDER_URL is not a valid URL: set it to the server's base, "
            "e.g. http://127.0.0.1:8080/v1"
        ) from error
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise EmbedderConfigError(
            "EMBEDDER_URL must be an http:// or https:// URL with a host, "
            f"e.g. http://127.0.0.1:8080/v1; got {redacted(parsed)}"
        )
    path = parsed.path.rstrip("/")
    if not path.endswith("/embeddings"):
        path += "/embeddings" if path.endswith("/v1") else "/v1/embeddings"
    return parsed.copy_with(path=path)


def redacted(url: httpx.URL) -> str:
    """The URL without user info, query or fragment: what is safe to log."""
    port = f":{url.port}" if url.port else ""
    return f"{url.scheme}://{url.host}{port}{url.path}"


class OpenAICompatibleEmbedder:
    """Vectors from a remote OpenAI-compatible embeddings endpoint, unit length, in order.

    `transport` and `sleep` are for tests (an in-process transport, no real waiting).
    """

    def __init__(
        self,
        *,
        url: str,
        model: str,
        dimension: int,
        api_key: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        timeout: float = DEFAULT_TIMEOUT,
        attempts: int = DEFAULT_ATTEMPTS,
        backoff: float = DEFAULT_BACKOFF,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not model:
            raise EmbedderConfigError("EMBEDDER_MODEL is empty: set it to the model to ask for")
        if dimension < 1:
            raise EmbedderConfigError(
                f"EMBEDDER_DIM must be the model's number of dimensions, got {dimension}"
            )
        if batch_size < 1 or attempts < 1:
            raise ValueError("batch_size and attempts must be at least 1")
        self.identity = EmbedderIdentity("openai", model, dimension)
        self._endpoint = endpoint_for(url)
        self._batch_size = batch_size
        self._attempts = attempts
        self._backoff = backoff
        self._sleep = sleep
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT)),
            transport=transport,
            follow_redirects=False,
        )

    def __repr__(self) -> str:
        return f"OpenAICompatibleEmbedder({self.identity.describe()} at {self.where})"

    @property
    def where(self) -> str:
        return redacted(self._endpoint)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(self._embed_batch(list(texts[start : start + self._batch_size])))
        return vectors

    def close(self) -> None:
        self._client.close()

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        payload = {"model": self.identity.model, "input": texts}
        for attempt in range(1, self._attempts + 1):
            try:
                response = self._client.post(self._endpoint, json=payload)
            except httpx.TransportError as error:
                # Connect failures, timeouts, dropped connections: all worth another try.
                failure = type(error).__name__
                retry_after = None
            else:
                if response.status_code not in RETRIED_STATUS:
                    return self._vectors(response, len(texts))
                failure = f"HTTP {response.status_code}"
                retry_after = retry_after_seconds(response.headers.get("Retry-After"))
            if attempt == self._attempts:
                break
            wait = self._wait(attempt, retry_after)
            log.warning(
                "Embedding endpoint %s: %s on attempt %d of %d; retrying in %.2fs",
                self.where,
                failure,
                attempt,
                self._attempts,
                wait,
            )
            self._sleep(wait)
        log.error("Embedding endpoint %s: %s, giving up", self.where, failure)
        raise BackendUnavailable(
            f"The embedding service cannot be reached ({failure} after "
            f"{self._attempts} attempts); try again later."
        )

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        """Seconds before retry `attempt`: the server's `Retry-After`, else a jittered backoff.

        The jitter (a uniform draw from the upper half of the exponential bound) spreads out
        the retries of callers that failed together, so they do not hit the server in step.
        """
        if retry_after is not None:
            return min(retry_after, MAX_WAIT)
        bound = min(self._backoff * 2 ** (attempt - 1), MAX_WAIT)
        return random.uniform(bound / 2, bound)  # noqa: S311 (jitter, not a secret)

    def _vectors(self, response: httpx.Response, count: int) -> list[list[float]]:
        status = response.status_code
        if status in (401, 403):
            raise EmbedderConfigError(
                f"The embedding endpoint {self.where} refused the key (HTTP {status}): "
                "set EMBEDDER_API_KEY to a key it accepts"
            )
        if status == 404:
            raise EmbedderConfigError(
                f"The embedding endpoint answered 404 Not Found for {self.where} and model "
                f"{self.identity.model!r}: check EMBEDDER_URL (the server's base, e.g. "
                "http://host:port/v1) and EMBEDDER_MODEL"
            )
        if status != 200:
            raise EmbedderRequestError(
                f"The embedding endpoint {self.where} refused a batch of {count} texts "
                f"(HTTP {status}): {_excerpt(response)}"
            )
        try:
            data = response.json()["data"]
            by_index = {int(item["index"]): item["embedding"] for item in data}
        except (ValueError, KeyError, TypeError) as error:
            raise EmbedderRequestError(
                f"The answer of {self.where} is not an OpenAI embeddings response "
                "(no data[].index/embedding): check EMBEDDER_URL"
            ) from error
        if sorted(by_index) != list(range(count)):
            raise EmbedderRequestError(
                f"{self.where} returned {len(data)} embeddings with indexes "
                f"{sorted(by_index)[:5]}… for {count} inputs"
            )
        # The response's order is not promised: `index` says which input each vector is for.
        vectors = [by_index[i] for i in range(count)]
        for vector in vectors:
            if not isinstance(vector, list):
                raise EmbedderRequestError(
                    f"{self.where} returned embeddings that are not lists of numbers "
                    "(base64 encoding?): the endpoint must answer encoding_format=float"
                )
            if len(vector) != self.identity.dimension:
                raise EmbedderConfigError(
                    f"Model {self.identity.model!r} at {self.where} returns "
                    f"{len(vector)}-dimensional vectors, but EMBEDDER_DIM is "
                    f"{self.identity.dimension}: set EMBEDDER_DIM={len(vector)} (and build "
                    "the vector indexes for it) or choose another EMBEDDER_MODEL"
                )
        return unit_vectors(_as_float_matrix(vectors, self.where))


def _as_float_matrix(vectors: list[list[Any]], where: str) -> npt.NDArray[np.float64]:
    try:
        matrix = np.asarray(vectors, dtype=np.float64)
    except (ValueError, TypeError) as error:
        raise EmbedderRequestError(f"{where} returned embeddings with non-numbers") from error
    if not np.all(np.isfinite(matrix)):
        raise EmbedderRequestError(f"{where} returned embeddings with NaN or infinity")
    return matrix


def retry_after_seconds(value: str | None) -> float | None:
    """Retry-After as seconds from now: it is either a number of seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    if math.isnan(seconds):
        return None
    return max(0.0, seconds)


def _excerpt(response: httpx.Response, limit: int = 200) -> str:
    """The start of an error body: servers explain 400/413/422 there (e.g. input too long)."""
    text = " ".join(response.text.split())
    return text[:limit] + ("…" if len(text) > limit else "")
