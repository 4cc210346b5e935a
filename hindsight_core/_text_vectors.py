"""Vectors of texts kept per embedder, so a text the model embedded moments ago is not embedded again.

Two tables per embedder use it, each least recently used dropped first, held weakly (they go with
their embedder):

* recall's texts (:func:`embed_cached`): one agent step often embeds the same text several times
  (``recall_context`` recalls lessons for the task, then memories for it, then compares it with
  lesson goals it has met before);
* single words for keyword expansion (:mod:`hindsight_core._expansion_ops`), shared by every bank.

Texts are keyed by a hash: a table holds no text as such.
"""

from __future__ import annotations

import hashlib
import threading
import time
import weakref
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

from hindsight_core.embed_batching import urgent

__all__ = ["VectorCache", "PerEmbedder", "embed_through", "embed_cached", "MAX_TEXTS"]

#: Texts kept per embedder for recall (384 floats each for the default model: about 6 MiB at most).
MAX_TEXTS = 4096


class VectorCache:
    """Vectors of texts for one embedder, keyed by a hash of the text, least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._rows: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.blake2b(text.encode(), digest_size=16).digest()

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        """Each text's kept vector, or None."""
        out: list[np.ndarray | None] = []
        with self._lock:
            for text in texts:
                key = self._key(text)
                row = self._rows.get(key)
                if row is not None:
                    self._rows.move_to_end(key)
                out.append(row)
        return out

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        with self._lock:
            for text, row in zip(texts, np.asarray(vectors, dtype=np.float32)):
                key = self._key(text)
                self._rows[key] = row
                self._rows.move_to_end(key)  # a text already kept is refreshed too
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)


class PerEmbedder:
    """One :class:`VectorCache` of ``size`` texts per embedder, held weakly."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._tables: "weakref.WeakKeyDictionary[Any, VectorCache]" = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def of(self, embedder: Any) -> VectorCache | None:
        """``embedder``'s table, or None for an embedder that cannot be weakly referenced."""
        with self._lock:
            try:
                table = self._tables.get(embedder)
                if table is None:
                    table = self._tables[embedder] = VectorCache(self.size)
            except TypeError:
                return None
            return table

    def clear(self) -> None:
        with self._lock:
            self._tables.clear()


def embed_through(table: VectorCache | None, embedder: Any, texts: Sequence[str],
                  also: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray, float]:
    """Vectors of ``texts`` (from ``table`` when kept there; the rest embedded and kept) and of ``also``
    (always embedded, not kept), from at most one model call.

    Returns:
        ``(vectors of texts, vectors of also, seconds the model call took: 0 when there was none)``,
        rows in the order given.
    """
    kept = table.get(texts) if table is not None else [None] * len(texts)
    missing = list(dict.fromkeys(t for t, row in zip(texts, kept) if row is None))
    fresh = np.zeros((0, 0), dtype=np.float32)
    seconds = 0.0
    if missing or also:
        started = time.perf_counter()
        fresh = np.asarray(embedder.embed([*missing, *also]), dtype=np.float32)
        seconds = time.perf_counter() - started
        if table is not None and missing:
            table.put(missing, fresh[:len(missing)])
    new = dict(zip(missing, fresh))
    rows = [row if row is not None else new[t] for t, row in zip(texts, kept)]
    width = fresh.shape[1] if fresh.ndim == 2 and fresh.size else 0
    return (np.stack(rows) if rows else np.zeros((0, width), np.float32)), fresh[len(missing):], seconds


_RECALLED = PerEmbedder(MAX_TEXTS)


def embed_cached(embedder: Any, texts: Sequence[str], also: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray]:
    """:func:`embed_through` recall's table of ``embedder``, as urgent (a recall is waiting: its
    model call goes before captures' texts queued for the model, see :mod:`~hindsight_core.embed_batching`).

    Returns:
        ``(vectors of texts, vectors of also)``, rows in the order given.
    """
    with urgent():
        vectors, others, _ = embed_through(_RECALLED.of(embedder), embedder, texts, also)
    return vectors, others
