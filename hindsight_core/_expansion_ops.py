"""Learning a bank's vocabulary for keyword expansion in its background queue, off the recall path.

:func:`schedule_learning` queues :func:`learn_vocabulary` once per bank (while one is queued or
running, more triggers do nothing, so a stream of captures or recalls never restarts its debounce).
It is triggered after every capture write when the bank's recall config expands, and by a recall that
finds the vocabulary behind the bank (opened without a snapshot, units imported). The job embeds the
new units' words in chunks of :data:`~hindsight_core.retrieval.expansion.LEARN_CHUNK` one-word texts,
with no lock held while the model runs, until every unit stored is covered. See
:mod:`hindsight_core.retrieval.expansion`.

Three things keep vocabulary learning from slowing recalls on a small, busy CPU:

* word vectors are kept per embedder across banks (:data:`WORD_CACHE_WORDS`
  of them, least recently used dropped first), so a bank that left the engine's cache and is
  rebuilt, or a new bank using common words, learns them without a model call. Words are keyed
  by a hash: the cache holds no bank's text as such;
* recall looks its question words up in the same cache (a word asked before, in any bank, is not
  embedded again) and keeps the ones it embeds;
* after each model call the job pauses :data:`PACE` times as long as the call took, so learning
  a big vocabulary never holds a core for long stretches.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from hindsight_core._bank_state import schedule
from hindsight_core._text_vectors import PerEmbedder, VectorCache, embed_through
from hindsight_core.retrieval.expansion import LEARN_CHUNK, vocabulary_of

if TYPE_CHECKING:
    from hindsight_core.storage.unit_store import UnitStore

__all__ = ["learn_vocabulary", "schedule_learning", "forget_word_vectors", "word_vectors_of", "WORD_CACHE_WORDS", "PACE",
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
_CACHES = PerEmbedder(WORD_CACHE_WORDS)


def forget_word_vectors() -> None:
    """Drop every embedder's kept word vectors (what a new process starts with)."""
    _CACHES.clear()


def word_vectors_of(embedder: Any) -> VectorCache | None:
    """The word vectors kept for ``embedder`` (recall looks its question words up there first and
    keeps the ones it embeds), or None for an embedder that cannot be weakly referenced."""
    return _CACHES.of(embedder)


def _embed_words(embedder: Any, words: list[str]) -> tuple[np.ndarray, float]:
    """``words``' vectors (kept ones from the embedder's cache, the rest from one model call) and the
    seconds the model call took (0 when every word was kept)."""
    vectors, _, seconds = embed_through(word_vectors_of(embedder), embedder, words)
    return vectors, seconds


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
