"""Keyword query expansion from the bank's own vocabulary (retrieval/expansion.py)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Sequence

import numpy as np

from hindsight_core import CaptureItem, MemoryEngine
from hindsight_core.retrieval import channels as ch
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.expansion import Vocabulary, expand, plan_expansion, query_words, unit_words
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


def test_plan_embeds_the_vocabulary_once_and_expands_from_it() -> None:
    idx = _index()
    emb = _SynonymEmbedder()
    cfg = RecallConfig(expansion_weight=0.5)
    plan = plan_expansion("What activities does Melanie enjoy?", idx, {"melanie"})
    assert plan.words == ["activities", "enjoy"]
    assert "pottery" in plan.missing and "budget" in plan.missing
    extra = plan.finish(emb.embed(plan.texts), idx.keyword, cfg)
    assert tokenize("pottery")[0] in extra and tokenize("camping")[0] in extra
    assert tokenize("budget")[0] not in extra
    again = plan_expansion("What activities does Melanie enjoy?", idx, {"melanie"})
    assert again.missing == [] and again.unit_ids == []  # learnt: the next recall embeds only its own words


ON = RecallConfig(expansion_weight=0.5)  # off by default: see RecallConfig.expansion_weight


def test_recall_through_the_engine_finds_a_turn_by_an_expanded_word() -> None:
    emb = _SynonymEmbedder()
    with MemoryEngine.ephemeral(embedder=emb) as engine:
        bank = engine.bank("expansion")
        fillers = [f"Filler number {n} about the budget meeting and the lunch menu" for n in range(12)]
        items = [CaptureItem(text=t, session_id="s1", mentioned_at=NOW) for t in
                 ["Signed up for a pottery class yesterday", *fillers]]
        bank.capture_many(items)
        emb.calls.clear()
        on = bank.recall("What activities?", k=5, config=ON)
        assert len(emb.calls) == 1 and emb.calls[0][:2] == ["What activities?", "activities"]  # one model call
        emb.calls.clear()
        bank.recall("What activities?", k=5, config=ON)
        assert emb.calls == [["What activities?", "activities"]]  # the vocabulary is embedded once
        emb.calls.clear()
        bank.recall("Any pottery?", k=5, config=ON)
        assert emb.calls == [["Any pottery?"]]  # a word the bank uses is not embedded again
        off = bank.recall("What activities?", k=5, config=RecallConfig(expansion_weight=0.0))

    def keyword_hits(result: object) -> list[str]:
        return [h.unit.text for h in result.hits if any(c.channel == "keyword" for c in h.channels)]  # type: ignore[attr-defined]

    assert "Signed up for a pottery class yesterday" in keyword_hits(on)
    assert keyword_hits(off) == []  # "activities" is in no turn


def test_a_recall_learns_a_bounded_number_of_words_and_the_next_ones_learn_the_rest() -> None:
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
