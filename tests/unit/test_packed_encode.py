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


def test_packing_leaves_the_padding_of_the_models_own_tokenizer_alone(model) -> None:
    """A fast tokenizer resets its padding at every call: an unpadded call beside ``model.encode``
    on another thread once switched padding off under it ("Unable to create tensor ...")."""
    backend = model[0].tokenizer.backend_tokenizer
    model.tokenize(["a short one", "a rather longer text than the first"])  # what encode does: pads
    padding = backend.padding
    assert padding is not None
    assert encode_packed(model, [QUESTION, "eternal", "sunshine", "spotless"]) is not None
    assert backend.padding == padding  # the packed call tokenized on its own copy


def test_an_unpadded_call_beside_a_padded_batch_on_another_thread(model) -> None:
    import threading

    batch = [("word " * (i % 30 + 1)).strip() for i in range(64)]
    errors: list[BaseException] = []

    def pack() -> None:
        for _ in range(300):
            encode_packed(model, [QUESTION, "eternal", "sunshine"])

    worker = threading.Thread(target=pack)
    worker.start()
    while worker.is_alive():
        try:
            model.encode(batch, normalize_embeddings=True, show_progress_bar=False)
        except ValueError as exc:  # padding switched off under the batch
            errors.append(exc)
    worker.join()
    assert errors == []
