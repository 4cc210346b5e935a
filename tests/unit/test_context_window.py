"""Context-window vectors: captured, persisted, reloaded and scored (opt-in via RecallConfig)."""

from __future__ import annotations

import numpy as np

from hindsight_core import BankConfig, MemoryEngine
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.context import context_text
from hindsight_core.testing import HashEmbedder

ON = RecallConfig(context_weight=0.6)


TURNS = [
    ("s1", "Did you go to the bicycle race in Lyon?"),
    ("s1", "Yes, last Tuesday, it was wonderful!"),
    ("s2", "My sister adopted a grey kitten."),
    (None, "A note without a session."),
]


def _capture(engine: MemoryEngine, config: BankConfig | None = None) -> None:
    bank = engine.bank("ctx") if config is None else engine.bank("ctx", recall=config.recall)
    bank.capture_many([{"text": t, "session_id": s} for s, t in TURNS[:2]])
    bank.capture_many([{"text": t, "session_id": s} for s, t in TURNS[2:]])


def test_default_config_embeds_each_text_once_and_keeps_no_context(counting_embedder) -> None:
    emb = counting_embedder
    with MemoryEngine.ephemeral(embedder=emb) as engine:
        _capture(engine)
        assert sorted(emb.texts) == sorted(t for _, t in TURNS)
        assert all(u.context is None for u in engine._live_index("ctx").units.values())


def test_a_unit_after_another_in_its_session_gets_its_window_vector_and_keeps_it_on_reopen(tmp_path,
                                                                                          counting_embedder) -> None:
    emb = counting_embedder
    config = BankConfig(recall=ON)
    window = context_text(TURNS[0][1], TURNS[1][1])
    with MemoryEngine(tmp_path / "store", embedder=emb, config=config) as engine:
        _capture(engine)
        bank = engine.bank("ctx")
        answer = bank.recall("Yes, last Tuesday", k=1).hits[0].unit
        assert emb.texts.count(window) == 1  # one extra text, in the same batch call
        assert bank.capture("Yes, last Tuesday, it was wonderful!", session_id="s1").merged  # a rewrite of the unit
    with MemoryEngine(tmp_path / "store", embedder=HashEmbedder(256), config=config) as engine:
        units = engine._live_index("ctx").units
        ctx = units[answer.id].context
        assert ctx is not None
        assert np.allclose(ctx, HashEmbedder(256).embed([window])[0], atol=2e-3)  # float16 on disk
        others = [u for u in units.values() if u.id != answer.id]
        assert all(u.context is None for u in others)  # first of a session, or no session
        assert engine.bank("ctx").get(answer.id).text == TURNS[1][1]  # the unit model never sees the field


def test_the_context_feature_lifts_an_answer_that_only_its_question_explains() -> None:
    with MemoryEngine.ephemeral(embedder=HashEmbedder(256), config=BankConfig(recall=ON)) as engine:
        bank = engine.bank("ctx")
        bank.capture_many([
            {"text": "Are you coming to the bicycle race in Lyon?", "session_id": "a"},
            {"text": "Sure, see you there on Sunday.", "session_id": "a"},
            {"text": "Are you coming to dinner?", "session_id": "b"},
            {"text": "Yes, I will be there at the usual time.", "session_id": "b"},
        ])
        query = "When will you be at the bicycle race in Lyon?"
        off = RecallConfig(context_weight=0.0, prev_weight=0.0, next_weight=0.0, session_weight=0.0)
        on = off.model_copy(update={"context_weight": 4.0})  # the hash embedder's vectors are crude
        answers = {"Sure, see you there on Sunday.", "Yes, I will be there at the usual time."}

        def first_answer(cfg: RecallConfig) -> str:
            return next(h.unit.text for h in bank.recall(query, k=4, config=cfg).hits if h.unit.text in answers)

        assert first_answer(off) == "Yes, I will be there at the usual time."  # alone, it shares more words
        assert first_answer(on) == "Sure, see you there on Sunday."  # read after its question, it is about the race
