"""Traced BERT graphs (hindsight_core/_traced_bert.py) give the eager model's vectors, release the GIL,
and leave every other model on its eager path."""

from __future__ import annotations

import random
import sys
import threading
import time

import numpy as np
import pytest

from hindsight_core import _traced_bert
from hindsight_core._packed_encode import encode_packed
from hindsight_core._traced_bert import encode_padded, packed_forward, padded_forward
from hindsight_core.testing import HashEmbedder

WORDS = ("the quick brown fox jumps over a lazy dog Caroline Melanie adoption agency painted "
         "sunrise May 2023 billing moved to port 9090 after maintenance").split()


@pytest.fixture(scope="module")
def model(bundled_model):
    return bundled_model


def test_the_bundled_model_is_traced_for_both_passes(model) -> None:
    assert padded_forward(model) is not None
    assert packed_forward(model) is not None
    assert padded_forward(model) is padded_forward(model)  # traced once, then kept


def test_traced_vectors_equal_the_models_own_encode(model) -> None:
    rng = random.Random(3)
    batches = [[" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 40))) for _ in range(rng.randint(1, 16))]
               for _ in range(25)]
    batches += [["x"], ["  padded with spaces  ", "tabs\tand\nnewlines"], ["word " * 400]]  # truncated at 256
    for texts in batches:
        traced = encode_padded(model, texts)
        assert traced is not None and traced.shape == (len(texts), 384) and traced.dtype == np.float32
        eager = model.encode(texts, normalize_embeddings=True, show_progress_bar=False)
        assert np.abs(traced - eager).max() <= 1e-6, texts


def test_packed_texts_on_the_traced_graph_equal_the_eager_packed_pass(model, monkeypatch) -> None:
    monkeypatch.setenv("HINDSIGHT_ONNX", "0")  # the traced graph, not ONNX Runtime (tests/unit/test_onnx_bert.py)
    texts = ['When did Joanna first watch "Eternal Sunshine of the Spotless Mind"?', "eternal", "sunshine", "mind"]
    traced = encode_packed(model, texts)
    monkeypatch.setattr(_traced_bert, "packed_forward", lambda m: None)
    eager = encode_packed(model, texts)
    assert traced is not None and eager is not None
    assert np.abs(traced - eager).max() <= 1e-6


def test_a_traced_pass_does_not_wait_for_a_busy_python_thread(model) -> None:
    # eager, every torch op takes the GIL back from the busy thread (tens of times slower);
    # traced, the pass runs in C++ without it. A ratio of the two in one run, not a wall-clock bound.
    # The handover only happens while the busy thread is running: on a machine with no core to spare
    # it is off the CPU most of the time and rarely holds the GIL, and there is nothing to measure.
    import os

    import torch

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    if cores < 2 or load > cores - 0.5:  # this test's own process counts about 1 in the load
        pytest.skip(f"needs a spare core for the busy thread (load {load:.1f} on {cores} cores)")

    forward = padded_forward(model)
    features = model.preprocess(["What did Caroline research about adoption agencies?"])
    inputs = (features["input_ids"], features["attention_mask"], features["token_type_ids"])
    eager = _traced_bert._Padded(model[0].auto_model)

    def median_ms(fn) -> float:
        times = []
        for _ in range(7):
            began = time.perf_counter()
            fn(*inputs)
            times.append(time.perf_counter() - began)
        return sorted(times)[3]

    stop = threading.Event()

    def busy() -> None:
        n = 0
        while not stop.is_set():
            n += 1

    from hindsight_core.embeddings import _one_thread

    switch = sys.getswitchinterval()
    with torch.inference_mode(), _one_thread():  # as small calls run (embeddings._encode_small)
        forward(*inputs)
        spinner = threading.Thread(target=busy)
        # the interpreter's default handover interval, set explicitly: it is what an op waits for
        # the GIL, and another test or plugin may have changed it
        sys.setswitchinterval(0.005)
        spinner.start()
        try:
            traced_ms, eager_ms = median_ms(forward), median_ms(eager)
        finally:
            stop.set()
            spinner.join()
            sys.setswitchinterval(switch)
    assert traced_ms * 3 < eager_ms, (traced_ms, eager_ms)


def test_other_models_keep_their_eager_path() -> None:
    embedder = HashEmbedder()
    assert padded_forward(embedder) is None and packed_forward(embedder) is None
    assert encode_padded(embedder, ["a"]) is None


def test_a_graph_that_fails_its_probe_is_not_used(model, monkeypatch) -> None:
    import torch

    real_trace = torch.jit.trace

    def wrong_trace(module, example, **kw):
        graph = real_trace(module, example, **kw)
        return lambda *a: graph(*a) + 1.0  # a graph whose outputs differ from the eager pass

    fresh = _traced_bert._trace
    monkeypatch.setattr(torch.jit, "trace", wrong_trace)
    assert fresh(model, "padded") is None
    monkeypatch.setattr(torch.jit, "trace", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("no TorchScript")))
    assert fresh(model, "packed") is None


def test_threads_sharing_a_graph_each_get_their_own_vectors(model, from_threads) -> None:
    rng = random.Random(5)
    calls = [[" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 20))) for _ in range(rng.randint(1, 6))]
             for _ in range(24)]
    alone = [encode_padded(model, texts) for texts in calls]
    together = from_threads(lambda texts: encode_padded(model, texts), calls)
    assert all(np.array_equal(a, b) for a, b in zip(together, alone))


def test_tracing_logs_no_loss_warning(model) -> None:
    """The tracer reads every attribute of the model; transformers 5 logs a loss warning when its
    `loss_function` is read (no loss is computed here), which reached every user's console."""
    import logging

    once = getattr(logging.Logger.warning_once, "cache_clear", None)  # transformers' warn-once cache
    if once is not None:
        once()
    logged: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: logged.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("transformers.modeling_utils")
    logger.addHandler(handler)
    try:
        assert _traced_bert._trace(model, "padded") is not None
    finally:
        logger.removeHandler(handler)
    assert not [m for m in logged if "loss_type" in m]
    assert logger.level == logging.NOTSET  # restored
