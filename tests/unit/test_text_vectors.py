"""A text a recall embeds is embedded once per embedder: recall_context's recalls and its goal check share it."""

from __future__ import annotations

import numpy as np

from hindsight_core import MemoryEngine
from hindsight_core import _text_vectors
from hindsight_core._text_vectors import embed_cached
from hindsight_core.episodes import Episode, TraceStep
from hindsight_core.testing import HashEmbedder


class CountingEmbedder(HashEmbedder):
    """The test double, counting how often each text reaches the model."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen += list(texts)
        return super().embed(texts)


def test_recall_context_embeds_the_task_once():
    embedder = CountingEmbedder()
    bank = MemoryEngine.ephemeral(embedder=embedder).bank("ops")
    bank.capture("The billing service runs on port 9090.")
    failed = Episode.from_steps([TraceStep(kind="user", text="Deploy the billing service to production"),
                                 TraceStep(kind="tool_error", text="missing approval ticket", tool="deploy_service")])
    bank.end_episode(failed, "failure")
    task = "Deploy the billing service to staging"
    embedder.seen.clear()

    context = bank.recall_context(task)

    assert "deploy_service" in context.text  # the lesson was found, so every step ran
    assert embedder.seen.count(task) == 1
    embedder.seen.clear()
    bank.recall(task)
    assert task not in embedder.seen  # asked again at once: served without the model


def test_embed_cached_matches_the_model_and_stays_bounded(monkeypatch):
    monkeypatch.setattr(_text_vectors._RECALLED, "size", 3)
    embedder = CountingEmbedder()
    texts = ["alpha beta", "gamma", "alpha beta", "delta epsilon"]

    vectors, words = embed_cached(embedder, texts, also=["zeta"])

    np.testing.assert_allclose(vectors, embedder.__class__.__bases__[0]().embed(texts), rtol=1e-6)
    assert words.shape == (1, embedder.dim)
    assert embedder.seen == ["alpha beta", "gamma", "delta epsilon", "zeta"]  # each text once, words not kept
    vectors[:] = 0  # the caller owns its copy: the table is not changed through it
    again, _ = embed_cached(embedder, ["gamma", "delta epsilon", "zeta"])
    assert embedder.seen[4:] == ["zeta"] and np.all(np.linalg.norm(again, axis=1) > 0.99)
    assert len(_text_vectors._RECALLED.of(embedder)) == 3


def test_embed_cached_without_weak_references():
    class Slotted:
        __slots__ = ("calls",)

        def __init__(self) -> None:
            self.calls = 0

        def embed(self, texts):
            self.calls += 1
            return np.ones((len(texts), 4), dtype=np.float32)

    embedder = Slotted()
    vectors, _ = embed_cached(embedder, ["a", "b"])
    embed_cached(embedder, ["a", "b"])
    assert vectors.shape == (2, 4) and embedder.calls == 2  # nothing kept, still answered
