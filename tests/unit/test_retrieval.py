"""Recall pipeline: fusion, MMR, channels and retrieve() over the in-memory bank index."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

import numpy as np
import pytest

from hindsight_core.lifecycle.extract import extract_entities
from hindsight_core.retrieval import channels as ch
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.fusion import rrf_fuse, zscore_fuse, zscores
from hindsight_core.retrieval.memory_index import InMemoryBankIndex
from hindsight_core.retrieval.mmr import mmr
from hindsight_core.retrieval.pipeline import retrieve
from hindsight_core.retrieval.types import IndexedUnit, RetrievalRequest

DAY = 86400.0
NOW = datetime(2023, 6, 1, tzinfo=timezone.utc).timestamp()


def _vec(text: str, dim: int = 64) -> np.ndarray:
    """A bag-of-words hash embedding: overlapping words give similar vectors."""
    v = np.zeros(dim, dtype=np.float32)
    for w in text.lower().replace("?", " ").replace(".", " ").split():
        v[int(hashlib.md5(w.encode()).hexdigest(), 16) % dim] += 1.0
    n = np.linalg.norm(v)
    return v / n if n else v


TURNS = [
    ("s1", "Caroline", "I went to a support group yesterday and it was powerful.", NOW - 30 * DAY),
    ("s1", "Melanie", "What did you research after that?", NOW - 30 * DAY),
    ("s1", "Caroline", "I researched adoption agencies in Sweden.", NOW - 30 * DAY),
    ("s2", "Melanie", "I signed up for a pottery class.", NOW - 10 * DAY),
    ("s2", "Caroline", "Pottery sounds fun. My grandma in Sweden gave me a necklace.", NOW - 10 * DAY),
    ("s2", "Melanie", "We went camping with the kids last weekend.", NOW - 2 * DAY),
]


@pytest.fixture
def index() -> InMemoryBankIndex:
    idx = InMemoryBankIndex()
    for seq, (session, speaker, text, when) in enumerate(TURNS):
        u = IndexedUnit(f"t{seq}", seq, text, "world", "active", "user", session, None, None, when,
                        extract_entities(text), 0.5, 1.0, 0.0, speaker=speaker)
        idx.add(u, _vec(text))
    return idx


def _req(q: str, k: int = 3, **kw) -> RetrievalRequest:
    return RetrievalRequest(q, _vec(q), NOW, k, frozenset({"active"}), **kw)


def test_rrf_and_zscore_fusion() -> None:
    fused = rrf_fuse({"a": [("x", 1.0), ("y", 0.5)], "b": [("y", 3.0), ("z", 1.0)]}, k=60)
    assert [d for d, _ in fused] == ["y", "x", "z"]
    assert rrf_fuse({"a": [("x", 1.0)]}, weights={"a": 0.0})[0][1] == 0.0
    z = zscores({"a": 1.0, "b": 3.0})
    assert z == {"a": -1.0, "b": 1.0}
    assert zscores({"a": 2.0, "b": 2.0}) == {"a": 0.0, "b": 0.0}
    fused = zscore_fuse({"dense": {"a": 0.9, "b": 0.1}, "kw": {"b": 10.0}}, {"dense": 1.0, "kw": 2.0})
    assert fused[0][0] == "b"


def test_mmr_diversifies() -> None:
    vecs = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    assert mmr(["a", "b", "c"], [3.0, 2.9, 1.0], vecs, lam=1.0, k=2) == ["a", "b"]
    assert mmr(["a", "b", "c"], [3.0, 2.9, 1.0], vecs, lam=0.5, k=2) == ["a", "c"]


def test_strip_question() -> None:
    assert ch.strip_question("What did Caroline research?") == "Caroline research"
    assert ch.strip_question("What?") == "What?"


def test_channels_are_pure_and_ranked(index: InMemoryBankIndex) -> None:
    dense = ch.dense_channel(_vec("pottery class"), index, 3)
    assert dense[0][0] == "t3" and dense[0][1] >= dense[1][1]
    assert ch.keyword_channel("adoption agencies", index, 5)[0][0] == "t2"
    assert "s1" in ch.session_channel("support group research", index, 5)
    graph = ch.graph_channel(["sweden"], {}, index, 10)
    assert {u for u, _ in graph} == {"t2", "t4"}
    hop2 = dict(ch.graph_channel([], {"t2": 1.0}, index, 10))
    assert "t4" in hop2  # shares "sweden" with the seed
    window = (NOW - 3 * DAY, NOW)
    assert [u for u, _ in ch.temporal_channel(window, index, 10)] == ["t5"]
    assert ch.temporal_channel(None, index, 10) == []


def test_retrieve_returns_explained_candidates(index: InMemoryBankIndex) -> None:
    cands, trace = retrieve(_req("What did Caroline research?", k=3), index, RecallConfig())
    assert len(cands) <= 3
    assert "t2" in [c.id for c in cands]
    assert all(c.score >= d.score for c, d in zip(cands, cands[1:]))
    names = {name for c in cands for name, _, _ in c.channels}
    assert {"dense", "keyword"} <= names
    for c in cands:
        for name, rank, _ in c.channels:
            assert rank >= 1 and name in trace["top"]
    assert set(trace["timings_ms"]) >= {"dense", "keyword", "graph"}


def test_answer_follows_question_turn(index: InMemoryBankIndex) -> None:
    cands, _ = retrieve(_req("what did you research after that", k=3), index, RecallConfig())
    assert "t2" in [c.id for c in cands]  # the reply after the matching turn


def test_temporal_window(index: InMemoryBankIndex) -> None:
    cands, trace = retrieve(_req("what happened in the last 3 days?", k=2), index, RecallConfig())
    assert trace["window"] is not None
    assert cands[0].id == "t5"
    assert any(name == "temporal" for name, _, _ in cands[0].channels)


def test_filters(index: InMemoryBankIndex) -> None:
    index.units["t2"].status = "archived"
    cands, _ = retrieve(_req("adoption agencies", k=6), index, RecallConfig())
    assert "t2" not in [c.id for c in cands]
    cands, _ = retrieve(_req("pottery", k=6, session_id="s2"), index, RecallConfig())
    assert cands and all(index.units[c.id].session_id == "s2" for c in cands)
    cands, _ = retrieve(_req("pottery", k=6, kinds=frozenset({"skill"})), index, RecallConfig())
    assert cands == []


def test_rrf_fusion_option_and_mmr(index: InMemoryBankIndex) -> None:
    for cfg in (RecallConfig(fusion="rrf"), RecallConfig(mmr_lambda=0.5)):
        cands, _ = retrieve(_req("pottery class", k=3), index, cfg)
        assert 0 < len(cands) <= 3


def test_empty_index() -> None:
    idx = InMemoryBankIndex()
    cands, trace = retrieve(_req("anything"), idx, RecallConfig())
    assert cands == [] and trace["pool"] == 0


def test_memory_index_remove(index: InMemoryBankIndex) -> None:
    index.remove("t2")
    assert "t2" not in index.units and "t2" not in index.keyword and "t2" not in index.graph
    assert all(u != "t2" for u, _ in index.dense_search(_vec("adoption agencies"), 10))


def _entity_index(units: dict[str, tuple[str, ...]]) -> InMemoryBankIndex:
    idx = InMemoryBankIndex()
    for seq, (uid, ents) in enumerate(units.items()):
        idx.add(IndexedUnit(uid, seq, f"text {uid}", "world", "active", "user", None, None, None, NOW, ents,
                            0.5, 1.0, 0.0), _vec(uid))
    return idx


def test_graph_seed_is_not_its_own_evidence() -> None:
    """Second-hop activation reaches units that share a seed's entity, but a seed gains nothing from
    its own entities: otherwise units that merely carry names outrank better first-stage hits."""
    idx = _entity_index({"a": ("version 3.7",), "b": ("version 3.7",), "c": ("dana",), "d": ("dana",)})
    act = dict(ch.graph_channel([], {"a": 1.0, "c": 1.0}, idx, 10))
    assert set(act) == {"b", "d"}  # a and c are seeds; each would otherwise be activated by itself
    both = dict(ch.graph_channel([], {"a": 1.0, "b": 2.0}, idx, 10))
    assert both["a"] > both["b"] > 0  # each is activated by the other seed only


def test_current_value_questions_weigh_the_subject_phrase() -> None:
    idx = InMemoryBankIndex()
    texts = {"api": "The catalog api now stores its data in pg-10.",
             "service": "The catalog service migrated its data to pg-18.",
             "other": "The search gateway now stores its data in pg-3."}
    for seq, (uid, text) in enumerate(texts.items()):
        idx.add(IndexedUnit(uid, seq, text, "world", "active", "user", None, None, None, NOW, (), 0.5, 1.0, 0.0),
                _vec(text))
    scores = dict(zip(texts, ch.phrase_scores("catalog service store its data now", list(texts), idx)))
    assert scores["service"] > scores["api"] > 0 and scores["other"] > 0  # "catalog service" beats "store data"
    assert ch.asks_current("Where does the catalog service store its data now?")
    assert not ch.asks_current("Where did Caroline go last week?")


def test_speaker_channel_ranks_the_named_persons_turns_by_the_questions_other_words(index: InMemoryBankIndex) -> None:
    from hindsight_core.storage.keyword import tokenize

    query = "Which pottery class did Melanie take?"
    assert [u for u, _ in ch.speaker_channel(query, ["melanie"], index, 5)] == ["t3"]  # not Caroline's pottery turn
    camping = {tokenize("camping")[0]: 0.5}  # a keyword-expansion term
    assert [u for u, _ in ch.speaker_channel(query, ["melanie"], index, 5, camping)] == ["t3", "t5"]
    assert ch.speaker_channel(query, [], index, 5) == []  # names no one
    assert ch.speaker_channel("Melanie?", ["melanie"], index, 5) == []  # nothing but the name
    listing = "Which classes did Melanie take?"  # asks for several things: the channel runs
    assert ch.asks_for_list(listing) and not ch.asks_for_list(query)
    found = retrieve(_req(listing, k=6), index, RecallConfig(aggregate_weight=0.5))[0]
    assert any(name == "speaker" for c in found for name, _, _ in c.channels if c.id == "t3")
    one = retrieve(_req(query, k=6), index, RecallConfig(aggregate_weight=0.5))[0]
    assert not any(name == "speaker" for c in one for name, _, _ in c.channels)  # one thing asked: no channel
    plain = retrieve(_req(listing, k=6), index, RecallConfig())[0]
    assert not any(name == "speaker" for c in plain for name, _, _ in c.channels)  # off by default


def test_derived_units_take_no_turns_place_in_a_channel(index: InMemoryBankIndex) -> None:
    # extractive observations repeat a turn word for word; with n = 2 they would fill the channel
    text = "I researched adoption agencies in Sweden."
    for n, copy in enumerate(("observation", "skill")):
        idx_unit = IndexedUnit(f"o{n}", 10 + n, text, copy, "active", "agent", None, None, None, NOW,
                               extract_entities(text), 0.5, 0.9, 0.0, evidence_ids=("t2",))
        index.add(idx_unit, _vec(text))
    query = "adoption agencies Sweden"
    for hits in (ch.dense_channel(_vec(query), index, 2), ch.keyword_channel(query, index, 2),
                 ch.feedback_channel(query, ["t2"], index, 2)):
        ids = [uid for uid, _ in hits]
        turns = [uid for uid in ids if uid.startswith("t")]
        assert len(turns) == 2 and "t2" in turns and {"o0", "o1"} <= set(ids)
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True)
    # the graph channel too: both turns naming Sweden, however the tied copies are ordered
    graph = [uid for uid, _ in ch.graph_channel(["sweden"], {}, index, 2)]
    assert {"t2", "t4"} <= set(graph) and set(graph) <= {"t2", "t4", "o0", "o1"}
    assert ch.dense_channel(_vec(query), index, 0) == []
