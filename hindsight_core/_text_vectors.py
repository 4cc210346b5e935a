"""Vectors of short texts a recall embeds, kept per embedder so one request embeds each text once.

One agent step often embeds the same text several times: ``recall_context`` recalls lessons for the
task, then memories for it, then compares it with lesson goals it has met before. A least-recently-used
table per embedder (held weakly: it goes with its embedder) answers the repeats without the model.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

from hindsight_core.embed_batching import urgent

__all__ = ["embed_cached", "MAX_TEXTS"]

#: Texts kept per embedder (384 floats each for the default model: about 6 MiB at most).
MAX_TEXTS = 4096

_TABLES: "weakref.WeakKeyDictionary[Any, OrderedDict[str, np.ndarray]]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def embed_cached(embedder: Any, texts: Sequence[str], also: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray]:
    """Vectors of ``texts`` (served from the table when embedded before, then kept) and of ``also``
    (always embedded, not kept: e.g. single words that have their own table), from at most one model
    call, made as urgent (a recall is waiting).

    Returns:
        ``(vectors of texts, vectors of also)``, rows in the order given, as the embedder returns them.
    """
    try:
        with _LOCK:
            table = _TABLES.setdefault(embedder, OrderedDict())
    except TypeError:  # an embedder that takes no weak reference: nothing is kept
        table = OrderedDict()
    with _LOCK:
        missing = [t for t in dict.fromkeys(texts) if t not in table]
    fresh = np.zeros((0, 0), dtype=np.float32)
    if missing or also:
        with urgent():  # go before captures' texts queued for the model (embed_batching)
            fresh = np.asarray(embedder.embed([*missing, *also]), dtype=np.float32)
    with _LOCK:
        for text, vector in zip(missing, fresh):
            table[text] = vector
        known = {t: table[t] for t in texts if t in table}
        for text in known:
            table.move_to_end(text)
        while len(table) > MAX_TEXTS:
            table.popitem(last=False)
    for text, vector in zip(missing, fresh):  # evicted at once (a tiny table): still answered
        known.setdefault(text, vector)
    rows = [known[t] for t in texts]
    return (np.stack(rows) if rows else np.zeros((0, fresh.shape[1] if fresh.ndim == 2 else 0), np.float32),
            fresh[len(missing):])
