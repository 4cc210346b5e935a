"""Learning a bank's vocabulary for keyword expansion in its background queue, off the recall path.

:func:`schedule_learning` queues :func:`learn_vocabulary` once per bank (while one is queued or
running, more triggers do nothing, so a stream of captures or recalls never restarts its debounce).
It is triggered after every capture write when the bank's recall config expands, and by a recall that
finds the vocabulary behind the bank (opened without a snapshot, units imported). The job embeds the
new units' words in chunks of :data:`~hindsight_core.retrieval.expansion.LEARN_CHUNK` one-word texts,
with no lock held while the model runs, until every unit stored is covered. See
:mod:`hindsight_core.retrieval.expansion`.

Three things keep vocabulary learning from slowing recalls on a small, busy CPU:

* word vectors are kept per embedder across banks (:class:`WordCache`, :data:`WORD_CACHE_WORDS`
  of them, least recently used dropped first), so a bank that left the engine's cache and is
  rebuilt, or a new bank using common words, learns them without a model call. Words are keyed
  by a hash: the cache holds no bank's text as such;
* recall looks its question words up in the same cache (a word asked before, in any bank, is not
  embedded again) and keeps the ones it embeds;
* after each model call the job pauses :data:`PACE` times as long as the call took, so learning
  a big vocabulary never holds a core for long stretches.
"""

from __future__ import annotations

import hashlib
import threading
import time
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from hindsight_core._bank_state import schedule
from hindsight_core.retrieval.expansion import LEARN_CHUNK, vocabulary_of

if TYPE_CHECKING:
    from hindsight_core.storage.unit_store import UnitStore

__all__ = ["learn_vocabulary", "schedule_learning", "forget_word_vectors", "word_vectors_of", "WordCache", "WORD_CACHE_WORDS", "PACE",
           "LEARN_DELAY_S"]

#: Word vectors kept per embedder: a 600-turn conversation uses about 2,000 distinct words and
#: chat banks share most of them; 16,384 rows of 384 float32 are 24 MB.
WORD_CACHE_WORDS = 16_384
#: Pause after each model call of the learning job, as a multiple of the call's duration: 1.0 keeps
#: the job to about half of one core, so recalls beside it on a 2-core machine are not starved.
PACE = 1.0
#: Seconds a learning job waits after the capture that queued it, so that a stream of single captures
#: (a chat agent, an importer calling ``capture`` per turn) shares one model call per this many seconds
#: instead of paying one small call per capture; eviction and ``drain()`` run it at once.
LEARN_DELAY_S = 2.0
_CACHES: "weakref.WeakKeyDictionary[Any, WordCache]" = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


class WordCache:
    """Word vectors of one embedder, keyed by a hash of the word, least recently used dropped first."""

    def __init__(self, size: int = WORD_CACHE_WORDS) -> None:
        self.size = size
        self._rows: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(word: str) -> bytes:
        return hashlib.blake2b(word.encode(), digest_size=16).digest()

    def get(self, words: Sequence[str]) -> list[np.ndarray | None]:
        """Each word's kept vector, or None."""
        out: list[np.ndarray | None] = []
        with self._lock:
            for word in words:
                key = self._key(word)
                row = self._rows.get(key)
                if row is not None:
                    self._rows.move_to_end(key)
                out.append(row)
        return out

    def put(self, words: Sequence[str], vectors: np.ndarray) -> None:
        with self._lock:
            for word, row in zip(words, np.asarray(vectors, dtype=np.float32)):
                key = self._key(word)
                self._rows[key] = row
                self._rows.move_to_end(key)  # a word already kept is refreshed too
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)


def forget_word_vectors() -> None:
    """Drop every embedder's kept word vectors (what a new process starts with)."""
    with _CACHES_LOCK:
        _CACHES.clear()


def word_vectors_of(embedder: Any) -> WordCache | None:
    """The word vectors kept for ``embedder`` (recall looks its question words up there first and
    keeps the ones it embeds), or None for an embedder that cannot be weakly referenced."""
    with _CACHES_LOCK:
        try:
            cache = _CACHES.get(embedder)
            if cache is None:
                cache = _CACHES[embedder] = WordCache()
        except TypeError:
            return None
        return cache


def _embed_words(embedder: Any, words: list[str]) -> tuple[np.ndarray, float]:
    """``words``' vectors (kept ones from the embedder's cache, the rest from one model call) and the
    seconds the model call took (0 when every word was kept)."""
    cache = word_vectors_of(embedder)
    kept = cache.get(words) if cache is not None else [None] * len(words)
    new = [w for w, row in zip(words, kept) if row is None]
    seconds = 0.0
    if new:
        started = time.perf_counter()
        fresh = np.asarray(embedder.embed(new), dtype=np.float32)
        seconds = time.perf_counter() - started
        if cache is not None:
            cache.put(new, fresh)
        rows = iter(fresh)
        kept = [row if row is not None else next(rows) for row in kept]
    return np.stack(kept), seconds


def learn_vocabulary(store: "UnitStore", chunk: int = LEARN_CHUNK, pace: float = PACE) -> int:
    """Embed the words of every unit of the bank not learnt yet, ``chunk`` words per model call,
    pausing ``pace`` times each call's duration after it; returns how many words were learnt."""
    learnt = 0
    while True:
        with store.read() as index:
            vocab = vocabulary_of(index)
            revision = index.revision
            words, ids, complete = vocab.missing_at_most(index.units, revision, limit=chunk)
        seconds = 0.0
        if words:  # no lock held
            vectors, seconds = _embed_words(store.embedder, words)
            vocab.learn(words, vectors, ids, revision if complete else None)
        else:
            vocab.learn([], [], ids, revision if complete else None)
        learnt += len(words)
        if complete:
            return learnt
        if pace and seconds:
            time.sleep(pace * seconds)


def schedule_learning(store: "UnitStore") -> bool:
    """Queue :func:`learn_vocabulary` in the bank's background queue unless one is queued or running;
    True when this call queued it. Never blocks or fails the caller."""
    vocab = vocabulary_of(store.index)
    if not vocab.claim():
        return False

    def job() -> None:
        try:
            learn_vocabulary(store)
        finally:
            vocab.release()

    # deferred like a write-back: captures in the next LEARN_DELAY_S share one job (fewer, fuller model
    # calls), and a bank the engine wants to evict has it run at once instead of waiting
    if not schedule(store, "vocabulary", job, delay_s=LEARN_DELAY_S):
        vocab.release()
        return False
    return True
