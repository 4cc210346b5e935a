"""The query pass on ONNX Runtime (hindsight_core/_onnx_bert.py): built only when a process keeps
embedding small calls, checked before use, the model's own vectors, and never in the way."""

from __future__ import annotations

import random
import weakref

import numpy as np
import pytest

from hindsight_core import _onnx_bert
from hindsight_core._onnx_bert import BUILD_AFTER_CALLS, onnx_packed, wait_for_onnx
from hindsight_core._packed_encode import encode_packed
from hindsight_core.testing import HashEmbedder

pytest.importorskip("onnxruntime", reason="pip install 'hindsight-memory' installs onnxruntime")

WORDS = ("the quick brown fox jumps over a lazy dog Caroline Melanie adoption agency painted "
         "sunrise May 2023 billing moved to port 9090 after maintenance").split()


@pytest.fixture(scope="module")
def model(bundled_model):
    assert wait_for_onnx(bundled_model, timeout=300), "the bundled model's ONNX Runtime pass did not build"
    return bundled_model


def _calls(seed: int, n: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [[" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 30))) for _ in range(rng.randint(1, 8))]
            for _ in range(n)]


def test_small_calls_on_onnx_runtime_get_the_models_own_vectors(model) -> None:
    assert onnx_packed(model) is not None
    for texts in [*_calls(3, 30), ["x"], ["  spaces  ", "tabs\tand\nnewlines"]]:
        fast = encode_packed(model, texts)
        assert fast is not None and fast.shape == (len(texts), 384) and fast.dtype == np.float32
        eager = model.encode(texts, normalize_embeddings=True, show_progress_bar=False)
        assert np.abs(fast - eager).max() < 1e-5, texts  # float32 rounding, not another encoding


def test_calls_longer_than_a_packed_sequence_keep_the_models_path(model) -> None:
    assert encode_packed(model, ["word " * 300, "ok"]) is None  # over PACK_MAX_TOKENS packed


def test_the_switch_turns_it_off(model, monkeypatch) -> None:
    monkeypatch.setenv("HINDSIGHT_ONNX", "0")
    assert onnx_packed(model) is None and not wait_for_onnx(model)
    assert encode_packed(model, ["pottery"]) is None  # one text: the traced graph, as before


def test_other_models_never_get_it() -> None:
    assert onnx_packed(HashEmbedder()) is None and not wait_for_onnx(HashEmbedder())
    assert onnx_packed(object()) is None


def test_threads_sharing_the_pass_each_get_their_own_vectors(model, from_threads) -> None:
    calls = _calls(5, 24)
    alone = [encode_packed(model, texts) for texts in calls]
    together = from_threads(lambda texts: encode_packed(model, texts), calls)
    assert all(np.array_equal(a, b) for a, b in zip(together, alone))


class _StandIn:
    """A weakly referable object standing for a model whose pass takes no export to build."""


def test_the_build_starts_only_after_a_process_keeps_making_small_calls(monkeypatch) -> None:
    built: list[object] = []

    def fake_build(model):
        built.append(model)
        return lambda *arrays: "the pass"

    monkeypatch.setattr(_onnx_bert, "mean_pooled_bert", lambda m: True)
    monkeypatch.setattr(_onnx_bert, "_build", fake_build)
    monkeypatch.setattr(_onnx_bert, "_states", weakref.WeakKeyDictionary())
    stand_in = _StandIn()
    assert all(onnx_packed(stand_in) is None for _ in range(BUILD_AFTER_CALLS - 1))
    assert built == [] and _onnx_bert._states[stand_in].thread is None  # a short-lived process never exports
    onnx_packed(stand_in)  # the call that starts it, in the background
    _onnx_bert._states[stand_in].thread.join(10)
    assert built == [stand_in] and onnx_packed(stand_in)() == "the pass"
    assert wait_for_onnx(stand_in, timeout=10) and built == [stand_in]  # built once


def test_a_pass_that_fails_its_check_or_its_export_is_not_used(model, monkeypatch, caplog) -> None:
    monkeypatch.setattr(_onnx_bert, "_TOLERANCE", -1.0)  # no pass can match the eager one this closely
    assert _onnx_bert._build(model) is None
    assert "differ from the eager pass" in caplog.text

    def no_exporter(weights, folder, attention):
        raise RuntimeError("no exporter here")

    monkeypatch.setattr(_onnx_bert, "_export_in_child", no_exporter)
    assert _onnx_bert._build(model) is None
    assert "no exporter here" in caplog.text


def test_a_failed_export_process_says_why(tmp_path) -> None:
    with pytest.raises(RuntimeError, match="export process exited with"):
        _onnx_bert._export_in_child(str(tmp_path), str(tmp_path), "sdpa")  # no model in that folder


def test_building_it_leaves_this_processs_warnings_alone(model) -> None:
    # the exporter runs in a child process: nothing it does shows here (no tracer warnings, no filters)
    import warnings

    before = list(warnings.filters)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert _onnx_bert._build(model) is not None
    assert [str(w.message) for w in seen] == [] and warnings.filters == before


def test_a_process_that_exits_during_the_export_leaves_no_child_and_no_files(tmp_path) -> None:
    # a short-lived process that reaches the build (a CLI command, a notebook) must not leave the
    # export running, nor its temporary folder behind
    import os
    import subprocess
    import sys

    if not os.path.isdir("/proc"):
        pytest.skip("reads the running processes from /proc (Linux)")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    script = ("import os, time\n"
              "from hindsight_core.embeddings import SentenceTransformerEmbedder\n"
              "e = SentenceTransformerEmbedder()\n"
              f"for n in range({BUILD_AFTER_CALLS + 2}): e.embed([f'question {{n}}', 'word'])\n"
              "time.sleep(3)\n"  # the export is under way (it takes about 10 s) when this process ends
              "mine = [p for p in os.listdir('/proc') if p.isdigit() and os.path.exists(f'/proc/{p}/cmdline')\n"
              "        and b'_onnx_export' in open(f'/proc/{p}/cmdline', 'rb').read()]\n"
              "print('exporting' if mine else 'not exporting')\n")
    done = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, TMPDIR=str(scratch)),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "exporting" in done.stdout.splitlines(), (done.stdout, done.stderr[-2000:])
    exporting = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if str(scratch).encode() in f.read():
                    exporting.append(pid)
        except OSError:
            continue
    assert exporting == [] and list(scratch.glob("hindsight-onnx-*")) == []  # torch keeps its own files there
