"""The cross-encoder reranking hook, with a small model double in place of a CrossEncoder.

No cross-encoder with bundled weights was found on the package index, so the hook is off by
default and these tests stand a scripted double where ``sentence_transformers.CrossEncoder`` would be.
"""

from __future__ import annotations

from typing import Sequence

import pytest

from hindsight_core import MemoryEngine
from hindsight_core.retrieval import rerank as rerank_mod
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.types import IndexedUnit
from hindsight_core.testing import HashEmbedder

NAME = "test-double/cross-encoder"


class LengthPreferringDouble:
    """Scores a (query, text) pair by how many characters the text has: an order no fused
    channel would produce, so the test sees the reranker's hand."""

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def predict(self, pairs: Sequence[tuple[str, str]], show_progress_bar: bool = False) -> list[float]:
        self.calls.append(list(pairs))
        return [float(len(text)) for _, text in pairs]


@pytest.fixture()
def double(monkeypatch: pytest.MonkeyPatch) -> LengthPreferringDouble:
    model = LengthPreferringDouble()
    monkeypatch.setitem(rerank_mod._MODELS, NAME, model)
    return model


def _unit(uid: str, text: str) -> IndexedUnit:
    return IndexedUnit(uid, 0, text, "world", "active", "user", None, None, None, 0.0, (), 0.5, 1.0, 0.0)


def test_rerank_orders_the_head_by_the_model_and_keeps_it_above_the_tail(double: LengthPreferringDouble) -> None:
    units = {"a": _unit("a", "short"), "b": _unit("b", "a much longer text"), "c": _unit("c", "medium one")}
    out = rerank_mod.rerank(NAME, "q", [("a", 3.0), ("b", 2.0), ("c", 1.0)], units)
    assert [uid for uid, _ in out] == ["b", "c", "a"]
    assert min(s for _, s in out) > 3.0  # above every fused score, so above the tail
    assert double.calls == [[("q", "short"), ("q", "a much longer text"), ("q", "medium one")]]
    assert rerank_mod.rerank(NAME, "q", [], units) == []


def test_recall_with_a_reranker_reorders_only_the_head(double: LengthPreferringDouble) -> None:
    facts = ["cats sleep", "cats chase mice all night long", "cats purr loudly", "dogs bark", "birds sing"]
    with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
        bank = engine.bank("rr")
        bank.capture_many(facts)
        plain = [h.unit.text for h in bank.recall("cats", k=5).hits]
        cfg = RecallConfig(reranker=NAME, rerank_top=3)
        reranked = [h.unit.text for h in bank.recall("cats", k=5, config=cfg).hits]
    head = sorted(plain[:3], key=len, reverse=True)
    assert reranked[:3] == head  # the double's order inside the head
    assert reranked[3:] == plain[3:]  # the tail keeps the fused order
    assert len(double.calls) == 1 and len(double.calls[0]) == 3
