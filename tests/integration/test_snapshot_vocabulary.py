"""The keyword-expansion vocabulary (retrieval/expansion.py) is kept with a bank's index snapshot.

A bank reopened from its snapshot expands from the words it learnt before, without embedding them
again; a snapshot without a vocabulary, or with one that does not fit, still opens (no rebuild) and
the bank's background queue learns the words again. HashEmbedder throughout, no timing asserted.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hindsight_core import CacheConfig, MemoryEngine
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.expansion import Vocabulary, vocabulary_of
from hindsight_core.storage.live_index import LiveIndex
from hindsight_core.testing import HashEmbedder

ON = RecallConfig(expansion_weight=0.5)
CACHE = CacheConfig(snapshot_min_units=10)


class _Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += list(texts)
        return super().embed(texts)


def _write(folder, expand: bool) -> tuple[int, np.ndarray | None]:
    engine = MemoryEngine(folder, embedder=HashEmbedder(), cache=CACHE)
    bank = engine.bank("big", recall=ON if expand else RecallConfig(expansion_weight=0.0))
    bank.capture_many([{"text": f"Melanie went camping near lake {w} and painted pottery number {n}.", "session_id": "s1"}
                       for n, w in enumerate(["tahoe", "como", "garda", "geneva"] * 5)])
    assert engine.drain(30)
    vocab = vocabulary_of(engine._live_index("big"))
    size, pottery = len(vocab), vocab.vector_of("pottery")
    engine.close()
    assert engine._snapshots.path_for("big").exists()
    return size, pottery


def _reopen(folder, monkeypatch) -> tuple[MemoryEngine, _Counting, Vocabulary]:
    rebuilds: list[str] = []
    real = LiveIndex.rebuild
    monkeypatch.setattr(LiveIndex, "rebuild", lambda self: rebuilds.append("x") or real(self))
    emb = _Counting()
    engine = MemoryEngine(folder, embedder=emb, cache=CACHE)
    vocab = vocabulary_of(engine._live_index("big"))
    assert rebuilds == []  # opened from the snapshot
    return engine, emb, vocab


def test_a_bank_reopened_from_its_snapshot_keeps_its_vocabulary(tmp_path, monkeypatch):
    size, pottery = _write(tmp_path, expand=True)
    assert size >= 8 and pottery is not None
    engine, emb, vocab = _reopen(tmp_path, monkeypatch)
    assert len(vocab) == size and np.array_equal(vocab.vector_of("pottery"), pottery)
    engine.bank("big").recall("Which activities did Melanie enjoy?", k=3, config=ON)
    assert engine.drain(30)
    assert emb.texts == ["Which activities did Melanie enjoy?", "activities", "enjoy"]  # no vocabulary word again
    engine.close()  # and saved again, with the vocabulary
    engine, emb, vocab = _reopen(tmp_path, monkeypatch)
    assert len(vocab) == size
    engine.close()


def test_a_snapshot_without_a_vocabulary_opens_and_learns_it_in_the_background(tmp_path, monkeypatch):
    size, _ = _write(tmp_path, expand=False)
    assert size == 0
    engine, emb, vocab = _reopen(tmp_path, monkeypatch)
    assert len(vocab) == 0
    engine.bank("big").recall("Which activities?", k=3, config=ON)
    assert engine.drain(30)
    assert "pottery" in emb.texts and len(vocab) >= 8
    engine.close()


def test_a_vocabulary_that_does_not_fit_is_dropped_and_the_snapshot_still_opens(tmp_path, monkeypatch):
    real = Vocabulary.export_columns

    def wrong_dim(self, unit_ids):  # type: ignore[no-untyped-def]
        meta, arrays = real(self, unit_ids)
        return meta, dict(arrays, vectors=arrays["vectors"][:, :7].copy())

    monkeypatch.setattr(Vocabulary, "export_columns", wrong_dim)
    size, _ = _write(tmp_path, expand=True)
    assert size >= 8
    engine, _, vocab = _reopen(tmp_path, monkeypatch)
    assert len(vocab) == 0 and len(engine._live_index("big").units) == 20
    engine.close()
