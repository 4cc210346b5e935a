"""The bundled BERT model's forward pass as TorchScript graphs, which run without holding the GIL.

Eager PyTorch runs a BERT forward pass as about a hundred Python-level module calls, and every torch
op hands the GIL back and takes it again. While another thread runs Python, each take-back waits up
to that thread's switch interval (5 ms): one query's forward pass, 9-11 ms alone, took 650 ms beside
a single busy Python thread on a 2-core machine. On a loaded engine the recalls' own Python work is
that busy thread, so their queries spent most of their time there. A traced graph runs the whole
pass in C++ with the GIL released: 14 ms beside the same busy thread, and about 1.5 ms less alone.
Mean pooling and normalisation are part of the graph, and its inputs are built with numpy (which
keeps the GIL on such small arrays), so a whole embedding call gives the GIL back about twice
(tokenizer, graph) instead of once per torch op: beside a busy Python thread, a recall's query
call (question and new words, packed) took 83 ms instead of 200 (20 recalls, profiled).

``torch.jit.trace`` records the ops that one example runs. For the inputs used here BERT's forward
has no branch on its inputs' values (transformers' SDPA mask code keeps the mask while tracing, and
its one shape check never pads a mask as long as its sequence), so one graph serves any batch size
and length. Each graph is checked against the eager model on a padded probe before it is used, and
anything unexpected (no ``torch.jit``, a failed trace, a different output) leaves the model on its
eager path. The graph's hidden states equal the eager pass's bit for bit (300 random batches of 1-16
texts of 1-40 words); the vectors equal ``SentenceTransformer.encode``'s up to float32 rounding (at
most 1.5e-8 per component over LoCoMo conversation 3's 629 turns and 260 questions in 330 calls of
1-16 texts, 267 of them bit-identical; ``tests/unit/test_traced_bert.py`` checks 1e-6).

Only a sentence-transformer that is exactly (BERT transformer, mean pooling, normalisation), such
as the bundled all-MiniLM-L6-v2, is traced; any other model is encoded as it always was.

Example:
    >>> from hindsight_core.testing import HashEmbedder
    >>> encode_padded(HashEmbedder(), ["not a BERT sentence-transformer"]) is None
    True
"""

from __future__ import annotations

import contextlib
import copy
import logging
import threading
import warnings
import weakref
from typing import Any, Callable, Iterator, Sequence

import numpy as np

__all__ = ["mean_pooled_bert", "padded_forward", "packed_forward", "packed_inputs", "encode_padded", "encode_packed_ids"]

#: the pass's inputs -> unit-normalised mean-pooled vectors, shape (texts, dim)
Forward = Callable[..., Any]

_PACKABLE_TYPES = frozenset({"bert"})
#: Largest difference from the eager pass a traced graph may show on its probe (it shows 0.0).
_PROBE_TOLERANCE = 1e-6
_PROBE_TEXTS = ["a short probe", "a longer probe sentence, padded less than the short one is"]

# Per model, kept as long as the model lives (keyed by the model itself: an id() is reused).
_bert: "weakref.WeakKeyDictionary[Any, bool]" = weakref.WeakKeyDictionary()
_graphs: "weakref.WeakKeyDictionary[Any, dict[str, Forward | None]]" = weakref.WeakKeyDictionary()
_BUILD_LOCK = threading.Lock()  # one trace per model and kind, even when first calls race


def mean_pooled_bert(model: Any) -> bool:
    """Whether ``model`` is a sentence-transformer of exactly (BERT transformer, mean pooling, normalise)."""
    try:
        return _bert[model]
    except (KeyError, TypeError):  # TypeError: not weakly referable (no torch module): never a BERT
        pass
    try:
        modules = list(model)
        names = [type(m).__name__ for m in modules]
        pooling = modules[1].get_config_dict() if len(modules) > 1 else {}
        bert = modules[0].auto_model
        answer = (names == ["Transformer", "Pooling", "Normalize"]
                  and pooling.get("pooling_mode") == "mean" and pooling.get("include_prompt", True)
                  and bert.config.model_type in _PACKABLE_TYPES
                  and getattr(bert.config, "position_embedding_type", "absolute") == "absolute"
                  and bert.config._attn_implementation in ("sdpa", "eager"))
    except (AttributeError, IndexError, TypeError):
        answer = False
    try:
        _bert[model] = answer
    except TypeError:
        pass
    return answer


def padded_forward(model: Any) -> Forward | None:
    """``model``'s traced pass over a padded batch ``(input_ids, attention_mask, token_type_ids)``
    to normalised mean-pooled vectors, or None when it cannot be traced (then use the eager model)."""
    return _graph(model, "padded")


def packed_forward(model: Any) -> Forward | None:
    """``model``'s traced pass over packed texts (:func:`packed_inputs`) to normalised mean-pooled
    vectors, or None."""
    return _graph(model, "packed")


def packed_inputs(ids: Sequence[Sequence[int]]) -> tuple[Any, Any, Any, Any]:
    """Texts' token ids end to end as one sequence, as the packed pass takes them: ``(input_ids,
    segment, position_ids, lengths)``, where ``segment`` gives each token's text (the pass builds
    from it the mask that lets each token see only its own text, and pools by it), positions restart
    at 0 for each text, and ``lengths`` (float) holds each text's token count.

    Built with numpy on these small arrays and handed to torch without a copy: numpy holds the GIL
    through them, while every torch op would give it back and wait to take it again."""
    import torch

    lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
    total = int(lengths.sum())
    return (torch.from_numpy(np.fromiter((t for x in ids for t in x), dtype=np.int64, count=total)[None]),
            torch.from_numpy(np.repeat(np.arange(len(ids), dtype=np.int64), lengths)),
            torch.from_numpy(np.fromiter((p for x in ids for p in range(len(x))), dtype=np.int64, count=total)[None]),
            torch.from_numpy(lengths.astype(np.float32)))


def encode_padded(model: Any, texts: Sequence[str]) -> np.ndarray | None:
    """Unit-normalised float32 vectors of ``texts`` from ``model``'s traced graph, equal to
    ``model.encode(texts, normalize_embeddings=True)``; None when the model has no traced graph."""
    forward = padded_forward(model)
    if forward is None:
        return None
    import torch

    features = _features(model, list(texts))
    with torch.inference_mode():
        return forward(*_padded_inputs(features)).numpy()


def encode_packed_ids(model: Any, ids: Sequence[Sequence[int]]) -> np.ndarray:
    """Unit-normalised float32 vectors of texts given as token ids, from one packed pass of a
    mean-pooled BERT ``model`` (see ``_packed_encode``): on its traced graph when it has one, else
    the same computation run eagerly."""
    import torch

    forward = packed_forward(model) or _Packed(model[0].auto_model)
    with torch.inference_mode():
        return forward(*packed_inputs(ids)).numpy()


def _features(model: Any, texts: list[str]) -> Any:
    """Token features exactly as ``model.encode`` makes them (sentence-transformers' own preprocessing)."""
    preprocess = getattr(model, "preprocess", None) or model.tokenize  # ``tokenize`` before v6
    return preprocess(texts)


def _padded_inputs(features: Any) -> tuple[Any, Any, Any]:
    import torch

    ids = features["input_ids"]
    types = features.get("token_type_ids")
    return ids, features["attention_mask"], torch.zeros_like(ids) if types is None else types


def _graph(model: Any, kind: str) -> Forward | None:
    if not mean_pooled_bert(model):
        return None
    graphs = _graphs.get(model)
    if graphs is not None and kind in graphs:
        return graphs[kind]
    with _BUILD_LOCK:
        graphs = _graphs.setdefault(model, {})
        if kind not in graphs:
            graphs[kind] = _trace(model, kind)
        return graphs[kind]


class _Padded:
    """BERT over a padded batch, mean-pooled over each text's tokens and normalised: the
    sentence-transformer's whole pipeline in one traced graph, so a call gives the GIL back once."""

    def __init__(self, bert: Any) -> None:
        self.bert = bert

    def __call__(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
        import torch

        hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids,
                           return_dict=False)[0]
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        means = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)  # the Pooling module's mean
        return torch.nn.functional.normalize(means, dim=1)


class _Packed(_Padded):
    """BERT over packed texts: a block-diagonal mask and positions restarting at each text, then
    each text's tokens mean-pooled and normalised."""

    def __call__(self, input_ids: Any, segment: Any, position_ids: Any, lengths: Any) -> Any:
        import torch

        mask = (segment[:, None] == segment[None, :])[None, None]  # (1, 1, total, total)
        hidden = self.bert(input_ids=input_ids, attention_mask=mask, position_ids=position_ids,
                           token_type_ids=torch.zeros_like(input_ids), return_dict=False)[0][0]
        return torch.nn.functional.normalize(self._sums(hidden, segment, lengths) / lengths[:, None], dim=1)

    @staticmethod
    def _sums(hidden: Any, segment: Any, lengths: Any) -> Any:
        """Each text's token states summed, (texts, dim)."""
        return hidden.new_zeros((lengths.shape[0], hidden.shape[1])).index_add_(0, segment, hidden)


_UNPADDED: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()
_UNPADDED_LOCK = threading.Lock()


def unpadded_ids(transformer: Any, texts: Sequence[str], max_length: int | None = None) -> list[list[int]]:
    """Token ids of ``texts``, unpadded (truncated at ``max_length`` when given), from a private copy
    of ``transformer``'s tokenizer.

    A fast tokenizer keeps its padding and truncation settings on the one Rust object and resets
    them at every call: an unpadded call on one thread switched padding off under a padded
    ``model.encode`` on another ("Unable to create tensor ... activate truncation and/or padding").
    The copy has settings of its own, and calls on it take turns (they are short)."""
    with _UNPADDED_LOCK:
        tokenizer = _UNPADDED.get(transformer)
        if tokenizer is None:
            tokenizer = _UNPADDED[transformer] = copy.deepcopy(transformer.tokenizer)
        options = {"truncation": True, "max_length": max_length} if max_length else {}
        return tokenizer(list(texts), **options)["input_ids"]


def _probe(model: Any, kind: str) -> tuple[Any, ...]:
    """Example inputs of ``kind``, with padding (or two packed texts) so the mask is really used."""
    if kind == "padded":
        return _padded_inputs(_features(model, _PROBE_TEXTS))
    return packed_inputs(unpadded_ids(model[0], _PROBE_TEXTS))


def _trace(model: Any, kind: str) -> Forward | None:
    """Trace ``kind`` and check it against the eager pass on a probe; None on any failure."""
    try:
        import torch

        eager = (_Padded if kind == "padded" else _Packed)(model[0].auto_model)
        module = _as_module(eager)
        example = _probe(model, kind)
        with torch.inference_mode(), warnings.catch_warnings(), _quiet("transformers.modeling_utils"):
            # deprecation notices and the tracer's "might be incorrect" hints, answered by the probe check;
            # the tracer's scan of every attribute reads transformers' `loss_function`, which logs
            # "`loss_type=None` ... unrecognized" (transformers 5): no loss is ever computed here
            warnings.simplefilter("ignore")
            graph = torch.jit.trace(module, example, check_trace=False)
            other = _probe_variant(model, example, kind)
            for inputs in (example, other):
                if float((graph(*inputs) - eager(*inputs)).abs().max()) > _PROBE_TOLERANCE:
                    return None
    except Exception:  # noqa: BLE001 - any trouble: the eager model, as before
        return None
    return graph


@contextlib.contextmanager
def _quiet(logger_name: str) -> Iterator[None]:
    """The named logger silenced below errors for the block, then restored."""
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _probe_variant(model: Any, example: tuple[Any, ...], kind: str) -> tuple[Any, ...]:
    """The probe with another shape (fewer or more texts, other lengths), so a graph frozen to
    the example's shape is caught before use."""
    if kind == "padded":
        return tuple(x[:1, :5] for x in example)
    first, second = unpadded_ids(model[0], _PROBE_TEXTS)
    return packed_inputs([first[:3], second[:6], first[:2]])


def _as_module(fn: _Padded) -> Any:
    """Wrap the callable in a ``torch.nn.Module`` (what ``torch.jit.trace`` records parameters from)."""
    import torch

    class _Module(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = fn.bert
            self._fn = fn

        def forward(self, *inputs: Any) -> Any:
            return self._fn(*inputs)

    return _Module().eval()
