"""Keyword query expansion from the bank's own vocabulary (retrieval/expansion.py)."""

from __future__ import annotations

import contextlib
from datetime import datetime, timezone
from typing import Sequence

import numpy as np

from hindsight_core import CaptureItem, MemoryEngine
from hindsight_core.retrieval import channels as ch
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core._expansion_ops import learn_vocabulary
from hindsight_core._text_vectors import VectorCache
from hindsight_core.retrieval.expansion import Vocabulary, expand, plan_expansion, query_words, unit_words, vocabulary_of
from hindsight_core.retrieval.memory_index import InMemoryBankIndex
from hindsight_core.retrieval.types import IndexedUnit
from hindsight_core.storage.keyword import tokenize
from hindsight_core.testing import HashEmbedder

NOW = datetime(2023, 6, 1, tzinfo=timezone.utc)


def _unit_vec(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


class _SynonymEmbedder:
    """HashEmbedder, except that a few one-word texts share a direction: "activities", "pottery"
    and "camping" are near each other, "budget" is elsewhere (stands in for a real model's word
    vectors, which the test must not depend on)."""

    GROUPS = {"activities": 0, "pottery": 0, "camping": 0}

    def __init__(self) -> None:
        self.inner = HashEmbedder(64)
        self.name = "synonyms-64"
        self.dim = 64
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = self.inner.embed(texts)
        for row, text in enumerate(texts):
            if text in self.GROUPS:
                v = np.zeros(out.shape[1], dtype=np.float32)
                v[self.GROUPS[text]] = 1.0
                v[1 + len(text) % 7] = 0.2  # near, not identical
                out[row] = v / np.linalg.norm(v)
        return out


def test_query_words_drop_stopwords_short_words_and_speakers() -> None:
    assert query_words("What activities does Melanie partake in?", {"melanie"}) == ["activities", "partake"]
    assert query_words("Did Jon go to the gym?", {"jon"}) == ["gym"]
    assert unit_words("Melanie said, \"I'm off to go swimming, swimming!\"") == ["melanie", "swimming"]


def test_vocabulary_collects_each_stem_once_and_only_new_units() -> None:
    vocab = Vocabulary()
    units = {"a": IndexedUnit("a", 0, "Pottery class and potteries", "world", "active", "user", None, None, None,
                              0.0, (), 0.5, 1.0, 0.0)}
    missing, ids = vocab.missing(units, revision=1)
    assert (missing, ids) == (["pottery", "class"], ["a"])  # "potteries" has pottery's stem
    assert vocab.missing(units, revision=1) == (missing, ids)  # not learnt yet (an embedding may fail)
    vocab.learn(missing, HashEmbedder(16).embed(missing), ids, revision=1)
    vocab.learn(missing, HashEmbedder(16).embed(missing), ids, revision=1)  # a concurrent recall's copy
    assert len(vocab) == 2
    assert vocab.missing(units, revision=1) == ([], [])  # same revision: no scan
    units["b"] = IndexedUnit("b", 1, "A pottery wheel", "world", "active", "user", None, None, None,
                             0.0, (), 0.5, 1.0, 0.0)
    assert vocab.missing(units, revision=2) == (["wheel"], ["b"])
    assert vocab.missing(units, revision=None) == (["wheel"], ["b"])  # no revision: always scans


def test_nearest_and_expand_keep_close_words_other_than_the_question_word() -> None:
    vocab = Vocabulary()
    words = ["activity", "pottery", "camping", "budget"]
    vocab.learn(words, np.stack([_unit_vec(1, 0, 0), _unit_vec(1, 0.3, 0), _unit_vec(1, 0.6, 0), _unit_vec(0, 0, 1)]))
    near = vocab.nearest(_unit_vec(1, 0, 0), 3, 0.5)
    assert [s for s, _ in near] == tokenize("activity pottery camping")
    assert near[0][1] > near[1][1] > near[2][1] >= 0.5

    extra = expand(["activities"], _unit_vec(1, 0, 0)[None, :], vocab, terms=3, min_cosine=0.5, weight=0.5)
    assert set(extra) == set(tokenize("pottery camping"))  # not the word's own stem, not "budget"
    assert abs(extra[tokenize("pottery")[0]] - 0.5 * float(_unit_vec(1, 0.3, 0)[0])) < 1e-3
    one = expand(["activities"], _unit_vec(1, 0, 0)[None, :], vocab, terms=1, min_cosine=0.5, weight=0.5)
    assert list(one) == tokenize("pottery")  # the nearest only
    frequent = {tokenize("pottery")[0]: 99}
    capped = expand(["activities"], _unit_vec(1, 0, 0)[None, :], vocab, terms=3, min_cosine=0.5, weight=0.5,
                    document_frequency=lambda s: frequent.get(s, 1), max_df=50)
    assert list(capped) == tokenize("camping")  # a word used everywhere is never added


def _index() -> InMemoryBankIndex:
    idx = InMemoryBankIndex()
    texts = ["I signed up for a pottery class yesterday", "We went camping at the beach",
             "The budget meeting ran late", "Lunch was great"]
    emb = HashEmbedder(64)
    for seq, text in enumerate(texts):
        idx.add(IndexedUnit(f"u{seq}", seq, text, "world", "active", "user", "s1", None, None,
                            NOW.timestamp(), (), 0.5, 1.0, 0.0), emb.embed([text])[0])
    return idx


def test_keyword_channel_matches_the_added_terms_and_keeps_the_query_terms() -> None:
    idx = _index()
    assert ch.keyword_channel("activities lunch", idx, 10) == ch.keyword_channel("activities lunch", idx, 10, extra_terms={})
    plain = [uid for uid, _ in ch.keyword_channel("activities lunch", idx, 10)]
    assert plain == ["u3"]
    extra = {tokenize("pottery")[0]: 0.4, tokenize("camping")[0]: 0.3}
    found = ch.keyword_channel("activities lunch", idx, 10, extra_terms=extra)
    assert [uid for uid, _ in found] == ["u3", "u0", "u1"]  # the query's own word weighs most
    assert ch.keyword_channel("activities lunch", idx, 10, archived=True, extra_terms=extra) == \
        ch.keyword_channel("activities lunch", idx, 10, archived=True)


def test_plan_embeds_only_the_question_words_the_bank_does_not_use() -> None:
    idx = _index()
    emb = _SynonymEmbedder()
    cfg = RecallConfig(expansion_weight=0.5)
    plan = plan_expansion("What activities does Melanie enjoy?", idx, {"melanie"}, revision=1)
    assert plan.words == ["activities", "enjoy"] and plan.texts == ["activities", "enjoy"]
    assert plan.behind  # nothing learnt yet: the caller queues the learning
    assert plan.finish(emb.embed(plan.texts), idx.keyword, cfg) == {}  # an empty vocabulary adds nothing
    vocab = vocabulary_of(idx)
    words, ids = vocab.missing(idx.units)
    vocab.learn(words, emb.embed(words), ids, revision=1)
    plan = plan_expansion("What activities does Melanie enjoy?", idx, {"melanie"}, revision=1)
    assert not plan.behind and plan.texts == ["activities", "enjoy"]
    extra = plan.finish(emb.embed(plan.texts), idx.keyword, cfg)
    assert tokenize("pottery")[0] in extra and tokenize("camping")[0] in extra
    assert tokenize("budget")[0] not in extra
    known = plan_expansion("Any pottery?", idx, set(), revision=1)
    assert known.texts == []  # a word the bank uses: its kept vector serves
    assert list(known.finish(np.zeros((0, 64)), idx.keyword, cfg)) == tokenize("camping")
    assert plan_expansion("Any pottery?", idx, set(), revision=2).behind  # a write since: learn again


ON = RecallConfig(expansion_weight=0.5)


def test_recall_through_the_engine_finds_a_turn_by_an_expanded_word_learnt_in_the_background() -> None:
    emb = _SynonymEmbedder()
    with MemoryEngine.ephemeral(embedder=emb) as engine:
        bank = engine.bank("expansion", recall=ON)
        fillers = [f"Filler number {n} about the budget meeting and the lunch menu" for n in range(12)]
        items = [CaptureItem(text=t, session_id="s1", mentioned_at=NOW) for t in
                 ["Signed up for a pottery class yesterday", *fillers]]
        bank.capture_many(items)
        assert engine.drain(30)  # the capture queued the learning of its words
        assert "pottery" in [w for call in emb.calls for w in call]
        emb.calls.clear()
        on = bank.recall("What activities?", k=5)
        assert emb.calls == [["What activities?", "activities"]]  # one model call, no vocabulary in it
        emb.calls.clear()
        bank.recall("Any pottery?", k=5)
        assert emb.calls == [["Any pottery?"]]  # a word the bank uses is not embedded again
        emb.calls.clear()
        engine.bank("other", recall=ON).recall("Which activities?", k=5)
        assert emb.calls == [["Which activities?"]]  # nor one an earlier recall embedded (any bank)
        assert engine.drain(30) and len(emb.calls) == 1  # nothing new to learn: no background model call
        off = bank.recall("What activities?", k=5, config=RecallConfig(expansion_weight=0.0))

    def keyword_hits(result: object) -> list[str]:
        return [h.unit.text for h in result.hits if any(c.channel == "keyword" for c in h.channels)]  # type: ignore[attr-defined]

    assert "Signed up for a pottery class yesterday" in keyword_hits(on)
    assert keyword_hits(off) == []  # "activities" is in no turn


def test_a_recall_that_finds_the_vocabulary_behind_queues_one_learning_job() -> None:
    emb = _SynonymEmbedder()
    with MemoryEngine.ephemeral(embedder=emb) as engine:
        bank = engine.bank("behind", recall=RecallConfig(expansion_weight=0.0))  # its captures queue nothing
        bank.capture_many([CaptureItem(text=f"Went camping at lake number {n}", session_id="s1") for n in range(5)])
        assert engine.drain(30)
        emb.calls.clear()
        assert len(vocabulary_of(engine._live_index("behind"))) == 0
        bank.recall("What activities?", k=3, config=ON)  # behind: queues the learning, does not embed it
        assert emb.calls[0] == ["What activities?", "activities"]
        bank.recall("What activities?", k=3, config=ON)
        assert engine.drain(30)
        learning = [call for call in emb.calls if "camping" in call]
        assert len(learning) == 1  # one job for both recalls, all words in one chunk
        assert len(vocabulary_of(engine._live_index("behind"))) >= 3  # went, camping, lake, number


def test_learning_runs_in_chunks_of_whole_units() -> None:
    emb = HashEmbedder(16)
    calls: list[int] = []

    class _Store:  # the two things learn_vocabulary uses of a UnitStore
        embedder = type("E", (), {"embed": staticmethod(lambda texts: calls.append(len(texts)) or emb.embed(texts))})()
        idx = _index()

        @contextlib.contextmanager
        def read(self):  # type: ignore[no-untyped-def]
            yield self.idx

    store = _Store()
    store.idx.revision = 7  # type: ignore[attr-defined]
    assert learn_vocabulary(store, chunk=4) == len(vocabulary_of(store.idx)) > 4  # type: ignore[arg-type]
    assert len(calls) > 1 and max(calls) <= 6  # the first unit is taken whole even past the chunk
    assert not vocabulary_of(store.idx).behind(7)


def test_missing_words_come_a_bounded_number_at_a_time_and_whole_units_only() -> None:
    letters = "bcdfghjkmp"  # ten distinct words per slot, none a stopword or stem of another
    units = {f"u{n}": IndexedUnit(f"u{n}", n, f"alpha{c}q betta{c}q gamma{c}q", "world", "active", "user", None,
                                  None, None, 0.0, (), 0.5, 1.0, 0.0) for n, c in enumerate(letters)}
    vocab = Vocabulary()
    emb = HashEmbedder(16)
    learnt_ids: list[str] = []
    rounds = 0
    while True:
        words, ids, complete = vocab.missing_at_most(units, revision=1, limit=7)
        assert len(words) <= 7 and len(ids) == len(words) // 3  # whole units only
        vocab.learn(words, emb.embed(words) if words else np.zeros((0, 16)), ids, revision=1 if complete else None)
        learnt_ids += ids
        rounds += 1
        if complete:
            break
    assert rounds == 5 and sorted(learnt_ids) == sorted(units) and len(vocab) == 30
    assert vocab.missing_at_most(units, revision=1) == ([], [], True)  # complete: no scan at this revision


def test_a_rebuilt_bank_learns_its_words_again_from_the_embedders_word_cache() -> None:
    emb = _SynonymEmbedder()
    with MemoryEngine.ephemeral(embedder=emb) as engine:
        bank = engine.bank("cached", recall=ON)
        bank.capture_many([CaptureItem(text=f"Went camping at lake number {n}", session_id="s1") for n in range(5)])
        assert engine.drain(30)
        size = len(vocabulary_of(engine._live_index("cached")))
        bank.store.forget()  # as when the bank leaves the engine's cache: rebuilt, vocabulary empty
        assert len(vocabulary_of(engine._live_index("cached"))) == 0
        emb.calls.clear()
        bank.recall("What activities?", k=3)
        assert engine.drain(30)
        assert emb.calls == [["What activities?", "activities"]]  # the words came from the cache
        assert len(vocabulary_of(engine._live_index("cached"))) == size


def test_word_cache_keeps_the_most_recently_used_words_by_hash() -> None:
    cache = VectorCache(size=2)
    cache.put(["alpha", "beta"], np.eye(2, dtype=np.float32))
    assert cache.get(["alpha"])[0].tolist() == [1.0, 0.0]  # alpha is now the most recent
    cache.put(["gamma"], np.ones((1, 2), dtype=np.float32))
    assert [row is not None for row in cache.get(["alpha", "beta", "gamma"])] == [True, False, True]
    assert all(isinstance(key, bytes) for key in cache._rows)  # no word text kept
