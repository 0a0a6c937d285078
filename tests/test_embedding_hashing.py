"""The `hash` embedder: deterministic everywhere, and shared words mean a higher cosine."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from embedding.base import EmbedderConfigError, EmbedderIdentity
from embedding.hashing import MODEL_NAME, HashEmbedder, features

TEXTS = [
    "Who founded the Acme Corporation?",
    "The Acme Corporation was founded by Jane Doe in 1999.",
    "Heavy rain is expected over the mountains tonight.",
    "",
    "?!",
    "Zürich — naïve café 東京",
]


def test_same_vectors_in_another_process_with_another_hash_seed() -> None:
    """blake2b, not Python's per-process salted hash(): vectors survive a restart."""
    script = (
        "import json, sys; from embedding.hashing import HashEmbedder; "
        "print(json.dumps(HashEmbedder(dimension=96).embed(json.loads(sys.argv[1]))))"
    )
    environment = {**os.environ, "PYTHONHASHSEED": "12345"}
    output = subprocess.run(
        [sys.executable, "-c", script, json.dumps(TEXTS)],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(output) == HashEmbedder(dimension=96).embed(TEXTS)


def test_vectors_are_pinned() -> None:
    """A change to features, weights or hashing must come with a new MODEL_NAME (stored
    vectors are matched by identity); update these numbers only together with it."""
    vector = HashEmbedder(dimension=8).embed(["Acme founded"])[0]
    assert MODEL_NAME == "blake2b-words-trigrams-v1"
    assert [round(value, 4) for value in vector] == PINNED


PINNED = [-0.3849, -0.1925, 0.5774, -0.5774, 0.1925, -0.1925, 0.1925, -0.1925]


def test_unit_length_identity_and_order() -> None:
    embedder = HashEmbedder()
    assert embedder.identity == EmbedderIdentity("hash", MODEL_NAME, 384)
    vectors = np.array(embedder.embed(TEXTS))
    assert vectors.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert [embedder.embed([text])[0] for text in TEXTS] == vectors.tolist()


def test_shared_words_mean_higher_cosine() -> None:
    vectors = np.array(HashEmbedder().embed([*TEXTS[:3], "founders of acme"]))
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > 0.5
    assert similarity[0, 1] > similarity[0, 2] + 0.4
    # Trigrams give partial credit to word forms: "founders" ~ "founded", "acme" = "Acme".
    assert similarity[3, 1] > similarity[3, 2] + 0.2


def test_case_and_punctuation_do_not_matter() -> None:
    a, b = HashEmbedder().embed(["Acme Corporation!", "acme   corporation"])
    assert a == b


def test_texts_without_words_get_distinct_non_zero_vectors() -> None:
    empty, punctuation = np.array(HashEmbedder().embed(["", "?!"]))
    assert np.linalg.norm(empty) == pytest.approx(1.0)
    assert np.linalg.norm(punctuation) == pytest.approx(1.0)
    assert not np.allclose(empty, punctuation)


def test_features_are_words_then_marked_trigrams() -> None:
    assert [name for name, _ in features("Ab, cd")] == [
        "w:ab",
        "w:cd",
        "t:^ab",
        "t:ab$",
        "t:^cd",
        "t:cd$",
    ]


@pytest.mark.parametrize("dimension", [1, 7, 1536])
def test_any_positive_dimension(dimension: int) -> None:
    [vector] = HashEmbedder(dimension).embed(["some words here"])
    assert len(vector) == dimension


def test_dimension_must_be_positive() -> None:
    with pytest.raises(EmbedderConfigError, match="EMBEDDER_DIM"):
        HashEmbedder(0)


def test_refuses_a_bare_string() -> None:
    with pytest.raises(TypeError):
        HashEmbedder().embed("one text")
