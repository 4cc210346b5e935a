"""The bundled BERT model's packed pass on ONNX Runtime: a recall's query model call in two thirds of the time.

A recall embeds its question, the question without the speakers it names and the question's new
words in one small call (:mod:`~hindsight_core._packed_encode`). On one core, TorchScript runs that
pass op by op; ONNX Runtime runs the same graph after its own graph optimisations (fused layer norms
and activations, pre-packed matrix weights). Measured side by side on LoCoMo conversation 3's 260
questions (each with a lower-cased copy, one thread, an idle 2-core machine): 20.3 ms p50 / 26.4 p95
traced, 12.9 / 16.8 on ONNX Runtime; beside a busy Python thread, 55 ms against 21 (its run holds
the GIL even less). The vectors are the same computation: at most 2e-7 from the traced pass per
component.

The graph is the packed pass (any set of texts up to ``PACK_MAX_TOKENS`` tokens, each encoded as if
alone), exported from the eager model by ``torch.onnx`` in this process through a temporary file
deleted at once, never downloaded or kept on disk. The export takes about 2 s of one core and the
process grows by about 170 MB (the session's copy of the weights, about 100, and what the exporter
leaves behind), so it is built only in a process that keeps making small calls: after
:data:`BUILD_AFTER_CALLS` of them, on a background thread (not a daemon: a process that exits
while it runs waits for it rather than killing it inside torch). Until it is ready, and whenever
anything fails (no ``onnxruntime`` or ``onnx`` installed, a failed export, a graph whose vectors
differ from the eager pass's on two probes), calls run on the traced torch graph as before.
``HINDSIGHT_ONNX=0`` turns it off.

Example:
    >>> from hindsight_core.testing import HashEmbedder
    >>> onnx_packed(HashEmbedder()) is None  # only the bundled kind of model has this pass
    True
"""

from __future__ import annotations

import os
import tempfile
import threading
import warnings
import weakref
from typing import Any, Callable

import numpy as np

from hindsight_core._traced_bert import _as_module, _Packed, mean_pooled_bert, packed_inputs

__all__ = ["onnx_packed", "wait_for_onnx", "BUILD_AFTER_CALLS"]

#: Small calls a process makes before the pass is built: a short-lived process (one CLI command)
#: never pays for the export; a serving one builds it within its first queries.
BUILD_AFTER_CALLS = 16
_TOLERANCE = 1e-6  # largest difference from the eager pass on the probes (it shows about 2e-7)
_NAMES = ("input_ids", "segment", "position_ids", "lengths")

#: numpy arrays of :func:`~hindsight_core._traced_bert.packed_inputs` -> (texts, dim) float32 vectors
PackedPass = Callable[..., np.ndarray]


class _State:
    def __init__(self) -> None:
        self.calls = 0
        self.forward: PackedPass | None = None
        self.thread: threading.Thread | None = None


_states: "weakref.WeakKeyDictionary[Any, _State]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def onnx_packed(model: Any) -> PackedPass | None:
    """``model``'s packed pass on ONNX Runtime when it is built and checked, else None (and, once
    ``model`` has been asked for it :data:`BUILD_AFTER_CALLS` times, its build starts in the
    background). Takes the numpy arrays of :func:`~hindsight_core._traced_bert.packed_inputs`."""
    if os.environ.get("HINDSIGHT_ONNX", "1") == "0":
        return None
    try:
        state = _states.get(model)
    except TypeError:  # not weakly referable: not a torch model
        return None
    if state is not None and state.forward is not None:
        return state.forward
    if not mean_pooled_bert(model):
        return None
    with _LOCK:
        state = _states.setdefault(model, _State())
        state.calls += 1
        if state.thread is None and state.calls >= BUILD_AFTER_CALLS:
            state.thread = threading.Thread(target=_build_into, args=(model, state), name="hindsight-onnx-export")
            state.thread.start()
    return state.forward


def wait_for_onnx(model: Any, timeout: float | None = None) -> bool:
    """Start ``model``'s ONNX Runtime pass now if it is not started, wait for it, and say whether it
    is in use (False: not available here, or not built within ``timeout`` seconds)."""
    if os.environ.get("HINDSIGHT_ONNX", "1") == "0" or not mean_pooled_bert(model):
        return False
    with _LOCK:
        state = _states.setdefault(model, _State())
        if state.thread is None:
            state.thread = threading.Thread(target=_build_into, args=(model, state), name="hindsight-onnx-export")
            state.thread.start()
    state.thread.join(timeout)
    return state.forward is not None


def _build_into(model: Any, state: _State) -> None:
    state.forward = _build(model)


def _build(model: Any) -> PackedPass | None:
    """Export the packed pass, open it in ONNX Runtime and check it against the eager pass; None on
    any failure."""
    try:
        import onnxruntime
        import torch

        tokenizer = model[0].tokenizer
        eager = _ExportablePacked(model[0].auto_model)
        probes = [tokenizer(["a short probe", "a longer probe sentence, padded less than the short one is"])["input_ids"]]
        probes.append([probes[0][0][:3], probes[0][1][:6], probes[0][0][:2]])  # other shapes than the export's
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # small calls run on one thread each (embeddings._one_thread)
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # through a temporary file, not bytes in memory: the process keeps 90 MB less
        with tempfile.TemporaryDirectory(prefix="hindsight-onnx-") as folder:
            path = os.path.join(folder, "query_pass.onnx")
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the exporter's tracer hints, answered by the probe check
                torch.onnx.export(_as_module(eager), packed_inputs(probes[0]), path, dynamo=False, opset_version=17,
                                  input_names=list(_NAMES), output_names=["vectors"],
                                  dynamic_axes={"input_ids": {1: "tokens"}, "segment": {0: "tokens"},
                                                "position_ids": {1: "tokens"}, "lengths": {0: "texts"}})
            session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])

        def forward(*arrays: np.ndarray) -> np.ndarray:
            return session.run(None, dict(zip(_NAMES, arrays)))[0]

        for ids in probes:
            inputs = packed_inputs(ids)
            with torch.no_grad():
                expected = eager(*inputs).numpy()
            if float(np.abs(forward(*(x.numpy() for x in inputs)) - expected).max()) > _TOLERANCE:
                return None
    except Exception:  # noqa: BLE001 - any trouble: the traced torch pass, as before
        return None
    return forward


class _ExportablePacked(_Packed):
    """The packed pass of :class:`~hindsight_core._traced_bert._Packed`, pooling by a one-hot
    product: the exporter turns its in-place ``index_add_`` into a graph that ONNX Runtime runs
    wrongly (vectors off by 0.1-0.4), while this form exports exactly."""

    def __call__(self, input_ids: Any, segment: Any, position_ids: Any, lengths: Any) -> Any:
        import torch

        mask = (segment[:, None] == segment[None, :])[None, None]  # each token sees its own text
        hidden = self.bert(input_ids=input_ids, attention_mask=mask, position_ids=position_ids,
                           token_type_ids=torch.zeros_like(input_ids), return_dict=False)[0][0]
        owner = (segment[None, :] == torch.arange(lengths.shape[0])[:, None]).to(hidden.dtype)  # (texts, tokens)
        return torch.nn.functional.normalize((owner @ hidden) / lengths[:, None], dim=1)
