"""Fast LoCoMo research harness: cached embeddings + InMemoryBankIndex, no engine, no Chroma.

Used to tune the recall pipeline in seconds; the published figures come from ``benchmarks/locomo.py``
through the real engine. Run: ``python -m benchmarks._locomo_fast --split dev``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from benchmarks._locomo_data import CATEGORY_NAMES, Conversation, evidence_recall, load_locomo, parse_conversations
from hindsight_core.lifecycle.extract import extract_entities
from hindsight_core.lifecycle.timeparse import resolve_time_refs
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.expansion import plan_expansion, query_words, unit_words, vocabulary_of
from hindsight_core.retrieval.memory_index import InMemoryBankIndex
from hindsight_core.retrieval.pipeline import one_blas_thread, retrieve
from hindsight_core.retrieval.topic import topic_query
from hindsight_core.retrieval.types import IndexedUnit, RetrievalRequest

CACHE = Path(__file__).resolve().parent / ".cache"
#: (conversation, question) -> the question's topic vector (without the speakers it names), or None.
TOPICS: dict[tuple[int, str], np.ndarray | None] = {}
#: word -> its vector: the questions' words and the banks' vocabulary (retrieval/expansion.py).
WORDS: dict[str, np.ndarray] = {}


def embed_cached(texts: list[str], tag: str) -> np.ndarray:
    key = hashlib.sha1("\x00".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"{tag}_{key}.npy"
    if path.exists():
        return np.load(path)
    from hindsight_core.embeddings import resolve_embedder

    vecs = resolve_embedder().embed(texts)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vecs)
    return vecs


def context_texts(conv: Conversation) -> list[str]:
    """Each turn read after the turn before it in its session (what the engine embeds at capture)."""
    from hindsight_core.retrieval.context import window_texts

    windows = window_texts([(f"session_{t.session}", t.text) for t in conv.turns], lambda s: None)
    return [w if w is not None else t.text for w, t in zip(windows, conv.turns)]


def build_index(conv: Conversation, vecs: np.ndarray, ctx: np.ndarray | None = None) -> InMemoryBankIndex:
    idx = InMemoryBankIndex()
    for seq, (t, v) in enumerate(zip(conv.turns, vecs)):
        occ = resolve_time_refs(t.text, t.session_time).occurred_at
        u = IndexedUnit(
            id=t.dia_id, seq=seq, text=t.text, kind="world", status="active", source="user",
            session_id=f"session_{t.session}", episode_id=None,
            occurred_at=occ.timestamp() if occ else None, mentioned_at=t.session_time.timestamp(),
            entities=extract_entities(t.text), importance=0.5, confidence=1.0, activity=0.0, speaker=t.speaker,
        )
        if ctx is not None:
            u.context = ctx[seq].astype(np.float16).astype(np.float32)  # as stored: float16
        idx.add(u, v)
    if WORDS:  # the vocabulary as the engine's background queue learns it (retrieval/expansion.py)
        vocab = vocabulary_of(idx)
        words, ids = vocab.missing(idx.units)
        vocab.learn(words, np.stack([WORDS[w] for w in words]) if words else [], ids)
    return idx


def load(split: str = "dev", convs_spec: str = "0-9"):
    convs = load_locomo()
    ids = parse_conversations(convs_spec, split)
    convs = [c for c in convs if c.index in ids]  # only these are embedded (a smoke run takes one)
    tv = embed_cached([t.text for c in convs for t in c.turns], "turns")
    cv = embed_cached([x for c in convs for x in context_texts(c)], "context")
    off = 0
    data = []
    for c in convs:
        n = len(c.turns)
        data.append((c, tv[off:off + n], cv[off:off + n]))
        off += n
    qtexts = [q.question for c, *_ in data for q in c.questions]
    qv = embed_cached(qtexts, "questions")
    keys = [(c.index, q.question) for c, *_ in data for q in c.questions]
    topics = [topic_query(q.question, {s.lower() for s in c.speakers}) for c, *_ in data for q in c.questions]
    named = [t for t in topics if t is not None]
    vectors = iter(embed_cached(named, "topics")) if named else iter(())
    TOPICS.clear()
    TOPICS.update((key, None if t is None else next(vectors)) for key, t in zip(keys, topics))
    words = sorted({w for c, *_ in data for t in c.turns for w in unit_words(t.text)}
                   | {w for c, *_ in data for q in c.questions for w in query_words(q.question)})
    WORDS.clear()
    WORDS.update(zip(words, embed_cached(words, "words")))
    return data, qv


def evaluate(data, qv, system: Callable[[Any, Any, np.ndarray, Any], list[str]], ks=(5, 10, 25)) -> dict:
    rows = []
    qi = 0
    for conv, tv, cv in data:
        idx = build_index(conv, tv, cv)
        for q in conv.questions:
            ranked = system(idx, q, qv[qi], conv)
            qi += 1
            rows.append((conv.index, q.category, {k: evidence_recall(q.evidence, [[d] for d in ranked], k) for k in ks}))
    return summarise(rows, ks)


def summarise(rows, ks):
    out: dict[str, Any] = {}
    def agg(sel):
        sel = list(sel)
        return {f"@{k}": round(100 * sum(r[2][k] for r in sel) / max(1, len(sel)), 2) for k in ks} | {"n": len(sel)}
    out["all"] = agg(rows)
    out["dev"] = agg(r for r in rows if r[0] < 7)
    out["heldout"] = agg(r for r in rows if r[0] >= 7)
    for c, name in CATEGORY_NAMES.items():
        out[name] = agg(r for r in rows if r[1] == c)
    return out


def engine_system(cfg: RecallConfig):
    def run(idx, q, vec, conv):
        topic = TOPICS.get((conv.index, q.question)) if cfg.topic_weight else None
        extra = None
        if cfg.expansion_weight:  # as _recall.recall does, with the words' vectors from the cache
            plan = plan_expansion(q.question, idx, {s.lower() for s in conv.speakers})
            texts = plan.texts
            with one_blas_thread():
                extra = plan.finish(np.stack([WORDS[w] for w in texts]) if texts else np.zeros((0, vec.shape[-1])),
                                    idx.keyword, cfg)
        req = RetrievalRequest(q.question, vec, conv.as_of.timestamp(), 25, frozenset({"active"}), topic_vector=topic,
                               extra_terms=extra or None)
        cands, _ = retrieve(req, idx, cfg)
        return [c.id for c in cands]
    return run


def dense_system(idx, q, vec, conv):
    return [i for i, _ in idx.dense_search(vec, 25)]


def fmt(name, res):
    cats = " ".join(f"{n[:4]}={res[n]['@10']:.1f}" for n in CATEGORY_NAMES.values() if res[n]["n"])
    return f"{name:28s} all@5/10/25={res['all']['@5']:.1f}/{res['all']['@10']:.1f}/{res['all']['@25']:.1f} dev@10={res['dev']['@10']:.1f} ho@10={res['heldout']['@10']:.1f} | {cats}"


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="dev")
    ap.add_argument("--set", action="append", default=[], help="config override key=json")
    a = ap.parse_args()
    data, qv = load(a.split)
    upd = {kv.split("=", 1)[0]: json.loads(kv.split("=", 1)[1]) for kv in a.set}
    cfg = RecallConfig().model_copy(update=upd)
    t = time.time()
    print(fmt("dense", evaluate(data, qv, dense_system)))
    print(fmt("engine " + json.dumps(upd), evaluate(data, qv, engine_system(cfg))), f"{time.time()-t:.1f}s")
