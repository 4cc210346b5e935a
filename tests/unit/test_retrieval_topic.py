"""The topic feature: the query embedded without the speakers it names (retrieval/topic.py)."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from hindsight_core import MemoryEngine
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.memory_index import InMemoryBankIndex
from hindsight_core.retrieval.pipeline import retrieve
from hindsight_core.retrieval.topic import topic_query
from hindsight_core.retrieval.types import IndexedUnit, RetrievalRequest
from hindsight_core.testing import HashEmbedder

NOW = datetime(2023, 6, 1, tzinfo=timezone.utc).timestamp()


def test_topic_query_drops_the_named_speakers_and_their_possessives() -> None:
    speakers = {"melanie", "caroline"}
    assert topic_query("What items has Melanie bought?", speakers) == "What items has bought?"
    assert topic_query("What did MELANIE's kids and Caroline paint?", speakers) == "What did kids and paint?"
    assert topic_query("Which city have both Jean and John visited?", {"john"}) == "Which city have both Jean and visited?"
    assert topic_query("What is Melanies favourite?", speakers) is None  # a different word, not the name
    assert topic_query("What is the capital of France?", speakers) is None
    assert topic_query("Caroline and Melanie?", speakers) is None  # nothing left but the names
    assert topic_query("What items has Melanie bought?", set()) is None


def _unit(uid: str, seq: int, speaker: str, text: str) -> IndexedUnit:
    return IndexedUnit(uid, seq, text, "world", "active", "user", f"s{seq}", None, None, NOW - seq * 86400.0,
                       (), 0.5, 1.0, 0.0, speaker=speaker)


def _bank() -> InMemoryBankIndex:
    """Axis 0 stands for the speaker's name (in every one of her turns, as in 'Melanie said, ...'),
    axis 1 for shopping, axis 2 for the weather; the texts share no word with the question, so
    only the cosines can tell the turns apart (as with 'Just got some new shoes')."""
    idx = InMemoryBankIndex()
    rows = [
        ("shoes", "Melanie", "Just got some new shoes", [1.0, 0.45, 0.0]),
        ("rain1", "Melanie", "Rainy again today", [1.0, 0.0, 0.15]),
        ("rain2", "Melanie", "Drizzle all week", [1.0, 0.0, 0.1]),
        ("cloud", "Melanie", "Clouds over the lake", [1.0, 0.0, 0.12]),
        ("mall", "Caroline", "Spent the day at the mall", [0.0, 1.0, 0.0]),
    ]
    for seq, (uid, speaker, text, vec) in enumerate(rows):
        v = np.asarray(vec, dtype=np.float32)
        idx.add(_unit(uid, seq, speaker, text), v / np.linalg.norm(v))
    return idx


def test_the_topic_vector_lifts_the_named_speakers_turn_about_the_subject() -> None:
    idx = _bank()
    query = np.asarray([1.0, 0.12, 0.0], dtype=np.float32)  # the name outweighs "bought" in the embedding
    query /= np.linalg.norm(query)
    topic = np.asarray([0.0, 1.0, 0.0], dtype=np.float32)  # "What items has bought?"
    cfg = RecallConfig(speaker_weight=0.0, prev_weight=0.0, next_weight=0.0)
    req = RetrievalRequest("What items has Melanie bought?", query, NOW, 5, frozenset({"active"}))

    plain = [c.id for c in retrieve(req, idx, cfg)[0]]
    with_topic = [c.id for c in retrieve(RetrievalRequest(req.query, query, NOW, 5, req.statuses, topic_vector=topic),
                                         idx, cfg)[0]]
    switched_off = [c.id for c in retrieve(RetrievalRequest(req.query, query, NOW, 5, req.statuses, topic_vector=topic),
                                           idx, cfg.model_copy(update={"topic_weight": 0.0}))[0]]

    assert plain.index("shoes") > 0 and plain.index("mall") > 0  # the name's pull ties her turns together
    assert with_topic.index("shoes") < plain.index("shoes")
    assert switched_off == plain
    # with the speaker feature (the person the topic vector leaves out), her turn beats the other's
    full = [c.id for c in retrieve(RetrievalRequest(req.query, query, NOW, 5, req.statuses, topic_vector=topic),
                                   idx, cfg.model_copy(update={"speaker_weight": 0.45}))[0]]
    assert full[0] == "shoes"


class _Recording(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.calls.append(list(texts))
        return super().embed(texts)


def test_recall_embeds_the_topic_in_the_same_call_only_when_a_speaker_is_named() -> None:
    emb = _Recording()
    with MemoryEngine.ephemeral(embedder=emb) as engine:
        bank = engine.bank("chat")
        bank.capture_many([
            {"text": 'Melanie said, "Just got some new shoes"', "session_id": "s1", "metadata": {"speaker": "Melanie"}},
            {"text": 'Caroline said, "The lake was lovely"', "session_id": "s1", "metadata": {"speaker": "Caroline"}},
        ])
        assert bank._current().speakers() == {"melanie", "caroline"}
        emb.calls.clear()
        plain = RecallConfig(expansion_weight=0.0)  # keyword expansion adds its words to the same call
        hits = bank.recall("What items has Melanie bought?", k=2, config=plain).hits
        assert emb.calls == [["What items has Melanie bought?", "What items has bought?"]]
        assert hits[0].unit.text.startswith("Melanie said")
        emb.calls.clear()
        bank.recall("What was lovely?", k=1, config=plain)
        # a question asked moments ago is not embedded again, so this one is new
        bank.recall("What items has Melanie sold?", k=1, config=plain.model_copy(update={"topic_weight": 0.0}))
        assert emb.calls == [["What was lovely?"], ["What items has Melanie sold?"]]
