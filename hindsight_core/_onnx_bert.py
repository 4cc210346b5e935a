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
alone), exported by ``torch.onnx`` from the folder the model was loaded from, in a child process
(:mod:`~hindsight_core._onnx_export`: the exporter changes process-wide state while it runs), into a
temporary folder deleted once the session has read it: nothing is downloaded or kept on disk. The
child takes about 10 s of one core, most of it imports; the serving process grows by about 130 MB
(the session's copy of the weights). So it is built only in a process that keeps making small
calls: after :data:`BUILD_AFTER_CALLS` of them, on a background thread (a process that exits
meanwhile stops the child at once and does not wait). Until it is ready, and whenever anything fails (no ``onnxruntime``
or ``onnx`` installed, a model not loaded from a folder, a failed export, a graph whose vectors
differ from the eager pass's on two probes; the reason is logged on ``hindsight.embeddings``),
calls run on the traced torch graph as before.
``HINDSIGHT_ONNX=0`` turns it off.

Example:
    >>> from hindsight_core.testing import HashEmbedder
    >>> onnx_packed(HashEmbedder()) is None  # only the bundled kind of model has this pass
    True
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from typing import Any, Callable

import numpy as np

from hindsight_core._traced_bert import _as_module, _Packed, _probe, _probe_variant, mean_pooled_bert, packed_inputs

__all__ = ["onnx_packed", "wait_for_onnx", "export_packed", "BUILD_AFTER_CALLS"]

#: Small calls a process makes before the pass is built: a short-lived process (one CLI command)
#: never pays for the export; a serving one builds it within its first queries.
BUILD_AFTER_CALLS = 16
_TOLERANCE = 1e-6  # largest difference from the eager pass on the probes (it shows about 2e-7)
_EXPORT_TIMEOUT_S = 600.0  # the child process; about 10 s on an idle 2-core machine, most of it imports
_NAMES = ("input_ids", "segment", "position_ids", "lengths")
GRAPH_FILE = "query_pass.onnx"  # what the child process writes in its folder
_POLL_S = 0.1  # how often the background thread looks at the child (and whether the process is exiting)

log = logging.getLogger("hindsight.embeddings")

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
        if state.calls >= BUILD_AFTER_CALLS:
            _start(model, state)
    return state.forward


def wait_for_onnx(model: Any, timeout: float | None = None) -> bool:
    """Start ``model``'s ONNX Runtime pass now if it is not started, wait for it, and say whether it
    is in use (False: not available here, or not built within ``timeout`` seconds)."""
    if os.environ.get("HINDSIGHT_ONNX", "1") == "0" or not mean_pooled_bert(model):
        return False
    with _LOCK:
        state = _states.setdefault(model, _State())
        _start(model, state)
    state.thread.join(timeout)
    return state.forward is not None


def _start(model: Any, state: _State) -> None:
    """Start ``model``'s build in the background unless it is started (hold ``_LOCK``)."""
    if state.thread is None:
        state.thread = threading.Thread(target=_build_into, args=(model, state), name="hindsight-onnx-export")
        state.thread.start()


def _build_into(model: Any, state: _State) -> None:
    state.forward = _build(model)


def _build(model: Any) -> PackedPass | None:
    """Export the packed pass in a child process, open it in ONNX Runtime and check it against the
    eager pass; None (the reason logged) on any failure."""
    try:
        import onnxruntime
        import torch

        bert = model[0].auto_model
        weights = bert.config._name_or_path  # the folder the model was loaded from
        if not os.path.isdir(weights):
            return None  # nothing on disk a child process could load
        eager = _ExportablePacked(bert)
        example = _probe(model, "packed")
        probes = (example, _probe_variant(model, example, "packed"))  # the traced graph's checks
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # small calls run on one thread each (embeddings._one_thread)
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        with tempfile.TemporaryDirectory(prefix="hindsight-onnx-") as folder:
            _export_in_child(weights, folder, bert.config._attn_implementation)
            session = onnxruntime.InferenceSession(os.path.join(folder, GRAPH_FILE), options,
                                                   providers=["CPUExecutionProvider"])

        def forward(*arrays: np.ndarray) -> np.ndarray:
            return session.run(None, dict(zip(_NAMES, arrays)))[0]

        for inputs in probes:
            with torch.no_grad():
                expected = eager(*inputs).numpy()
            worst = float(np.abs(forward(*(x.numpy() for x in inputs)) - expected).max())
            if worst > _TOLERANCE:
                raise RuntimeError(f"its vectors differ from the eager pass's by {worst:.2g} on a probe")
    except _Abandoned:
        return None
    except Exception as exc:  # noqa: BLE001 - any trouble: the traced torch pass, as before
        log.warning("the query's model pass stays on torch (ONNX Runtime pass not built: %s)", exc)
        return None
    return forward


class _Abandoned(Exception):
    """The process is exiting: the export was stopped, nothing to report."""


def _export_in_child(weights: str, folder: str, attention: str) -> None:
    """Run :mod:`~hindsight_core._onnx_export` on the model in ``weights``, writing into ``folder``.

    The child is polled rather than waited for: when the main thread has finished (the process is
    exiting), it is stopped at once, so a short-lived process never waits for an export."""
    if not threading.main_thread().is_alive():
        raise _Abandoned
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # this copy of hindsight_core
    env = dict(os.environ, OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               PYTHONPATH=os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p))
    messages = os.path.join(folder, "export.log")
    with open(messages, "wb") as err:
        child = subprocess.Popen([sys.executable, "-m", "hindsight_core._onnx_export", weights, folder, attention],
                                 env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + _EXPORT_TIMEOUT_S
    while child.poll() is None:
        exiting = not threading.main_thread().is_alive()
        if exiting or time.monotonic() > deadline:
            child.kill()
            child.wait()
            if exiting:
                raise _Abandoned
            raise RuntimeError(f"the export process took over {_EXPORT_TIMEOUT_S:.0f} s")
        time.sleep(_POLL_S)
    if child.returncode != 0:
        with open(messages, "rb") as err:
            last = err.read().decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        raise RuntimeError(f"the export process exited with {child.returncode}: {last[0]}")


def export_packed(bert: Any, path: str) -> None:
    """Write ``bert``'s packed pass (the inputs of :func:`~hindsight_core._traced_bert.packed_inputs`
    to normalised mean-pooled vectors) to ``path`` as an ONNX graph. Run by the child process."""
    import torch

    example = packed_inputs([[101, 1037, 2460, 102], [101, 1037, 2936, 15113, 6251, 102]])
    with torch.no_grad():
        torch.onnx.export(_as_module(_ExportablePacked(bert)), example, path, dynamo=False, opset_version=17,
                          input_names=list(_NAMES), output_names=["vectors"],
                          dynamic_axes={"input_ids": {1: "tokens"}, "segment": {0: "tokens"},
                                        "position_ids": {1: "tokens"}, "lengths": {0: "texts"}})


class _ExportablePacked(_Packed):
    """The packed pass of :class:`~hindsight_core._traced_bert._Packed`, summing each text's states
    by a one-hot product: the exporter turns ``index_add_`` into a graph that ONNX Runtime runs
    wrongly (vectors off by 0.1-0.4), while this form exports exactly."""

    @staticmethod
    def _sums(hidden: Any, segment: Any, lengths: Any) -> Any:
        import torch

        owner = (segment[None, :] == torch.arange(lengths.shape[0])[:, None]).to(hidden.dtype)  # (texts, tokens)
        return owner @ hidden
