"""create_embedder: the settings of contract §9, and messages that name the one to fix."""

from __future__ import annotations

from typing import Any

import pytest

from api.embedder_setup import configured_dimension
from api.settings import Settings, SettingsError
from embedding.base import Embedder, EmbedderConfigError, EmbedderIdentity
from embedding.factory import create_embedder
from embedding.hashing import HashEmbedder
from embedding.minilm import MiniLMEmbedder
from embedding.openai_compatible import OpenAICompatibleEmbedder

UNSET: dict[str, Any] = {"dimension": None, "url": None, "model": None, "api_key": None}


def make(kind: str, **settings: Any) -> Embedder:
    return create_embedder(kind, **(UNSET | settings))


def test_minilm_is_the_real_model() -> None:
    embedder = make(" MiniLM ", dimension=384, model="sentence-transformers/all-MiniLM-L6-v2")
    assert isinstance(embedder, MiniLMEmbedder)
    assert isinstance(embedder, Embedder)
    assert embedder.identity.describe() == "minilm all-MiniLM-L6-v2 (384 dimensions)"


def test_minilm_takes_its_threads_and_precision_from_the_settings() -> None:
    settings = Settings.from_environ({"EMBEDDER_THREADS": "1", "EMBEDDER_PRECISION": "int8"})
    assert (settings.embedder_threads, settings.embedder_precision) == (1, "int8")
    embedder = make(
        "minilm", threads=settings.embedder_threads, precision=settings.embedder_precision
    )
    assert isinstance(embedder, MiniLMEmbedder)
    assert (embedder.threads, embedder.precision) == (1, "int8")
    defaults = Settings.from_environ({})
    assert (defaults.embedder_threads, defaults.embedder_precision) == (None, "fp32")


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"EMBEDDER_THREADS": "0"}, "EMBEDDER_THREADS"),
        ({"EMBEDDER_THREADS": "two"}, "EMBEDDER_THREADS"),
        ({"EMBEDDER_PRECISION": "fp16"}, "EMBEDDER_PRECISION='fp16' is not one of: fp32, int8"),
    ],
)
def test_minilm_runtime_settings_out_of_range_are_refused(
    environ: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.from_environ(environ)
    with pytest.raises(EmbedderConfigError, match="EMBEDDER_PRECISION must be one of fp32, int8"):
        make("minilm", precision="fp16")


def test_minilm_refuses_another_dimension_or_model() -> None:
    with pytest.raises(EmbedderConfigError, match=r"EMBEDDER_DIM is 768.*set it to 384"):
        make("minilm", dimension=768)
    with pytest.raises(EmbedderConfigError, match=r"EMBEDDER_MODEL.*EMBEDDER=openai"):
        make("minilm", model="bge-small-en-v1.5")


def test_hash_defaults_to_384_dimensions() -> None:
    embedder = make("hash", url="http://ignored.invalid")
    assert isinstance(embedder, HashEmbedder)
    assert embedder.identity.dimension == 384
    assert make("hash", dimension=32).identity.dimension == 32


def test_openai_with_every_setting() -> None:
    embedder = make(
        "openai",
        url="http://127.0.0.1:8080/v1",
        model="bge-small-en-v1.5",
        dimension=384,
        api_key="k",
    )
    assert isinstance(embedder, OpenAICompatibleEmbedder)
    assert embedder.identity == EmbedderIdentity("openai", "bge-small-en-v1.5", 384)
    embedder.close()


@pytest.mark.parametrize(
    ("settings", "missing"),
    [
        ({}, "EMBEDDER_URL, EMBEDDER_MODEL, EMBEDDER_DIM"),
        ({"url": "http://127.0.0.1:8080", "model": "m"}, "EMBEDDER_DIM"),
        ({"url": "", "model": "m", "dimension": 8}, "EMBEDDER_URL"),
        ({"url": "http://127.0.0.1:8080", "dimension": 8}, "EMBEDDER_MODEL"),
    ],
)
def test_openai_names_what_is_missing(settings: dict[str, Any], missing: str) -> None:
    with pytest.raises(EmbedderConfigError, match=f"needs {missing}:"):
        make("openai", **settings)


@pytest.mark.parametrize("dimension", [0, -3, 5000])
def test_dimension_out_of_range(dimension: int) -> None:
    with pytest.raises(EmbedderConfigError, match="EMBEDDER_DIM must be between 1 and 4096"):
        make("hash", dimension=dimension)


def test_unknown_kind_lists_the_choices() -> None:
    with pytest.raises(EmbedderConfigError, match="EMBEDDER must be one of minilm, openai, hash"):
        make("bert")
    assert issubclass(EmbedderConfigError, ValueError)


@pytest.mark.parametrize(
    "environ",
    [
        {"EMBEDDER": "minilm", "EMBEDDER_DIM": "768"},
        {"EMBEDDER": "openai", "EMBEDDER_MODEL": "m"},
        {"EMBEDDER": "hash", "EMBEDDER_DIM": "0"},
    ],
)
def test_commands_that_load_no_model_refuse_what_the_embedder_would(
    environ: dict[str, str],
) -> None:
    """`schema apply` and `vectors sync` read the dimension without loading a model; they
    refuse the settings `create_embedder` refuses, instead of creating indexes nothing serves."""
    try:
        settings = Settings.from_environ(environ)
    except SettingsError:
        return  # refused even earlier, while reading the settings
    with pytest.raises(EmbedderConfigError):
        create_embedder(
            settings.embedder,
            dimension=settings.embedder_dim,
            url="http://127.0.0.1:9/v1",
            model=settings.embedder_model,
            api_key=None,
        )
    with pytest.raises(SettingsError):
        configured_dimension(settings)
