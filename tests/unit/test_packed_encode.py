"""Packed encoding (hindsight_core/_packed_encode.py) gives the bundled model's own vectors."""

from __future__ import annotations

import numpy as np
import pytest

from hindsight_core._packed_encode import encode_packed
from hindsight_core.testing import HashEmbedder

QUESTION = 'When did Joanna first watch "Eternal Sunshine of the Spotless Mind"?'


@pytest.fixture(scope="module")
def model(bundled_model):
    return bundled_model


def test_a_question_with_its_words_packs_to_the_padded_batchs_vectors(model) -> None:
    texts = [QUESTION, "When did first watch Eternal Sunshine of the Spotless Mind?", "eternal", "sunshine", "spotless"]
    packed = encode_packed(model, texts)
    assert packed is not None and packed.shape == (5, 384) and packed.dtype == np.float32
    batched = model.encode(texts, normalize_embeddings=True, show_progress_bar=False)
    assert np.abs(packed - batched).max() < 1e-5  # float32 rounding, not another encoding
    assert np.allclose(np.linalg.norm(packed, axis=1), 1.0, atol=1e-6)


def test_calls_that_padding_hardly_grows_go_through_the_model_unchanged(model, monkeypatch) -> None:
    monkeypatch.setenv("HINDSIGHT_ONNX", "0")  # the torch path; on ONNX Runtime every small call is packed
    assert encode_packed(model, [QUESTION]) is None
    assert encode_packed(model, ["pottery", "camping"]) is None  # same length: nothing padded
    assert encode_packed(model, [QUESTION * 20, "ok"]) is None  # longer than PACK_MAX_TOKENS packed


def test_other_embedders_are_never_packed() -> None:
    assert encode_packed(HashEmbedder(), [QUESTION, "a"]) is None
