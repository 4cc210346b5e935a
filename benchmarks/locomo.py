"""LoCoMo evidence-recall benchmark: the engine against dense, BM25 and RRF baselines (no LLM).

One bank per conversation; turns are captured in order with their session time as
``mentioned_at``, ``session_id="session_<n>"`` and ``metadata={"dia_id", "speaker"}``; every system
sees the same formatted turns (``'{speaker} said, "{text}"'`` + ``' and shared {caption}'``) and the
same all-MiniLM-L6-v2 embeddings. Questions are recalled with their text only, ``as_of`` = the last
session's date. See ``../shared/data/locomo/README.md`` for the protocol. The engine's figures include
the chat turns its update rules superseded at capture (``turns_superseded``): these chats state few
facts that later turns replace, so each is a look-alike to look at.

Run:
    python -m benchmarks.locomo --conversations 0-9 --out benchmarks/.cache/locomo.json
    python -m benchmarks.locomo --conversations 0 --max-questions 20   # smoke
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from benchmarks._baselines import ChromaDense, OkapiBM25, rrf
from benchmarks._locomo_data import (
    CATEGORY_NAMES,
    Conversation,
    evidence_recall,
    hit_any,
    load_locomo,
    ndcg,
    parse_conversations,
    session_recall,
)
from benchmarks._report import publish

__all__ = ["run", "main"]

KS = (5, 10, 25)
BUDGETS = (512, 1024, 2048)
SYSTEMS = ("engine", "dense", "bm25", "rrf")
DEFAULT_OUT = Path(__file__).resolve().parent / ".cache" / "locomo.json"


def _tokens(text: str) -> int:
    from hindsight_core._render import estimate_tokens

    return estimate_tokens(text)


def _score(gold: tuple[str, ...], ranked: list[list[str]], texts: list[str]) -> dict[str, float]:
    row = {f"recall@{k}": evidence_recall(gold, ranked, k) for k in KS}
    row["hit_any@10"] = hit_any(gold, ranked, 10)
    row["session_recall@10"] = session_recall(gold, ranked, 10)
    row["ndcg@10"] = ndcg(gold, ranked, 10)
    for budget in BUDGETS:
        used, n = 0, 0
        for text in texts:
            used += _tokens(text)
            if used > budget:
                break
            n += 1
        row[f"recall@{budget}tok"] = evidence_recall(gold, ranked, n)
    return row


def _aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def mean(sel: list[dict[str, Any]]) -> dict[str, float]:
        if not sel:
            return {"n": 0}
        keys = [k for k in sel[0]["scores"]]
        return {"n": len(sel)} | {k: round(100 * sum(r["scores"][k] for r in sel) / len(sel), 2) for k in keys}

    out: dict[str, Any] = {"all": mean(rows)}
    out["dev"] = mean([r for r in rows if r["conversation"] < 7])
    out["heldout"] = mean([r for r in rows if r["conversation"] >= 7])
    out["by_category"] = {name: mean([r for r in rows if r["category"] == c]) for c, name in CATEGORY_NAMES.items()}
    for split in ("dev", "heldout"):
        sel = [r for r in rows if (r["conversation"] < 7) == (split == "dev")]
        out[f"{split}_by_category"] = {name: mean([r for r in sel if r["category"] == c])
                                       for c, name in CATEGORY_NAMES.items()}
    return out


class _TimedEmbedder:
    """The engine's embedder, adding up the seconds spent inside ``embed`` (the ingest's model share)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.seconds = 0.0
        self.texts = 0
        self._thread = threading.get_ident()

    def embed(self, texts: Any) -> np.ndarray:
        if threading.get_ident() != self._thread:  # the background learning of the bank's words
            return self.inner.embed(texts)
        started = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - started
            self.texts += len(texts)


def _plain_vectors(conv: Conversation, embedder: Any) -> tuple[np.ndarray, float]:
    """The baselines' turn embeddings (same model, same texts, batches of 64 like capture) and the
    seconds they took: plain embedding, measured in the same run as the engine's ingest."""
    texts = [t.text for t in conv.turns]
    started = time.perf_counter()
    vecs = np.concatenate([embedder.embed(texts[i:i + 64]) for i in range(0, len(texts), 64)])
    return vecs, time.perf_counter() - started


def _first_sessions(conv: Conversation, sessions: int) -> Conversation:
    """The conversation cut to its first ``sessions`` sessions and the questions they answer."""
    turns = [t for t in conv.turns if t.session <= sessions]
    known = {t.dia_id for t in turns}
    questions = [q for q in conv.questions if set(q.evidence) <= known]
    return Conversation(conv.index, conv.sample_id, conv.speakers, turns, questions)


def run(conversations: list[int], max_questions: int | None = None, systems: tuple[str, ...] = SYSTEMS,
        k: int = 25, log: Callable[[str], None] = print, sessions: int | None = None) -> dict[str, Any]:
    """Run the benchmark and return the result dict (also what ``--out`` writes).

    ``sessions`` keeps only each conversation's first sessions (and the questions they answer):
    a quick smoke run.
    """
    from hindsight_core import MemoryEngine
    from hindsight_core.embeddings import resolve_embedder
    from hindsight_core.models import CaptureItem

    plain = resolve_embedder()
    plain.embed(["warm up"])
    embedder = _TimedEmbedder(plain)
    convs = {c.index: c for c in load_locomo()}
    rows: dict[str, list[dict[str, Any]]] = {s: [] for s in systems}
    latencies: dict[str, list[float]] = {s: [] for s in systems}
    ingest_turns, ingest_s, plain_s, plain_turns, background_s = 0, 0.0, 0.0, 0, 0.0
    model_s, model_texts = 0.0, 0  # the engine's embedding calls during capture
    orderings: dict[str, int] = {}  # how the engine's recalls ordered their pools (trace["ordering"])
    # chat turns the write path's update rules superseded: every such turn of these chats is a look-alike
    # nobody here wrote (no turn states a fact that a later turn replaces in the way a note does)
    superseded: list[dict[str, Any]] = []
    engine = MemoryEngine.ephemeral(embedder=embedder)
    for ci in conversations:
        conv = convs[ci] if sessions is None else _first_sessions(convs[ci], sessions)
        questions = conv.questions[:max_questions] if max_questions else conv.questions
        text_of = {t.dia_id: t.text for t in conv.turns}
        bank = engine.bank(f"locomo-{ci}")
        items = [CaptureItem(text=t.text, session_id=f"session_{t.session}", mentioned_at=t.session_time,
                             metadata={"dia_id": t.dia_id, "speaker": t.speaker}) for t in conv.turns]
        vecs, seconds = _plain_vectors(conv, plain)
        plain_s += seconds
        plain_turns += len(conv.turns)
        before = (embedder.seconds, embedder.texts)
        started = time.perf_counter()
        results = bank.capture_many(items) if "engine" in systems else []
        ingest_s += time.perf_counter() - started
        started = time.perf_counter()
        engine.drain(300)  # the words captured are learnt in the background (retrieval/expansion.py)
        background_s += time.perf_counter() - started
        model_s += embedder.seconds - before[0]
        model_texts += embedder.texts - before[1]
        ingest_turns += len(items) if "engine" in systems else 0
        if "engine" in systems:
            evidence = {e for q in questions for e in q.evidence}
            for unit in bank.units(kind="world", status="superseded"):
                dia = unit.metadata.get("dia_id", "")
                superseded.append({"conversation": ci, "dia_id": dia, "evidence": dia in evidence,
                                   "by": unit.superseded_by})
        turns_of: dict[str, list[str]] = {}
        for turn, res in zip(conv.turns, results):
            if res.unit_id is not None:
                turns_of.setdefault(res.unit_id, []).append(turn.dia_id)
        baselines = {s for s in systems if s != "engine"}
        if baselines:
            ids = [t.dia_id for t in conv.turns]
            dense = ChromaDense(ids, vecs)
            bm25 = OkapiBM25(ids, [t.text for t in conv.turns])
        for q in questions:
            qvec = plain.embed([q.question])[0] if baselines else None
            for system in systems:
                t0 = time.perf_counter()
                if system == "engine":
                    res = bank.recall(q.question, k=k, as_of=conv.as_of)
                    orderings[res.trace["ordering"]] = orderings.get(res.trace["ordering"], 0) + 1
                    ranked = [turns_of.get(h.unit.id) or [h.unit.metadata.get("dia_id", "")] for h in res.hits]
                    texts = [h.unit.text for h in res.hits]
                else:
                    if system == "dense":
                        hits = dense.search(qvec, k)
                    elif system == "bm25":
                        hits = bm25.search(q.question, k)
                    else:
                        hits = rrf(dense.search(qvec, 100), bm25.search(q.question, 100))[:k]
                    ranked = [[i] for i, _ in hits]
                    texts = [text_of[i] for i, _ in hits]
                latencies[system].append((time.perf_counter() - t0) * 1000)
                rows[system].append({"conversation": ci, "category": q.category,
                                     "scores": _score(q.evidence, ranked, texts)})
        log(f"conversation {ci}: {len(conv.turns)} turns, {len(questions)} questions")
    engine.close()
    out: dict[str, Any] = {"conversations": conversations, "max_questions": max_questions, "k": k, "systems": {}}
    for system in systems:
        lat = sorted(latencies[system])
        out["systems"][system] = _aggregate(rows[system]) | {
            "latency_ms": {"p50": round(statistics.median(lat), 2) if lat else None,
                           "p95": round(lat[int(0.95 * (len(lat) - 1))], 2) if lat else None},
        }
    if "engine" in systems and ingest_s:
        out["systems"]["engine"]["ingest_turns_per_s"] = round(ingest_turns / ingest_s, 1)
        out["systems"]["engine"]["orderings"] = orderings
        out["systems"]["engine"]["turns_superseded"] = {
            "count": len(superseded), "evidence": sum(1 for t in superseded if t["evidence"]), "turns": superseded}
        out["ingest"] = {
            "turns": ingest_turns,
            "capture_s": round(ingest_s, 2),
            "capture_turns_per_s": round(ingest_turns / ingest_s, 1),
            "embedding_in_capture_s": round(model_s, 2),
            "texts_embedded_in_capture": model_texts,
            "beyond_embedding_s": round(ingest_s - model_s, 2),
            "beyond_embedding_ratio": round((ingest_s - model_s) / model_s, 3) if model_s else None,
            "plain_embedding_s": round(plain_s, 2),
            "background_after_capture_s": round(background_s, 2),  # waited for after capture returned
            "plain_embedding_turns_per_s": round(plain_turns / plain_s, 1) if plain_s else None,
        }
    out["peak_memory_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if "engine" in systems and "rrf" in systems:
        margin = {}
        for split in ("dev", "heldout", "all"):
            e, r = out["systems"]["engine"][split], out["systems"]["rrf"][split]
            if e.get("n"):
                margin[split] = round(e["recall@10"] - r["recall@10"], 2)
        out["engine_margin_over_rrf@10"] = margin
    return out


def _table(out: dict[str, Any]) -> str:
    lines = []
    cats = list(CATEGORY_NAMES.values())
    head = f"{'system':8s} {'split':8s} {'n':>5s} {'@5':>6s} {'@10':>6s} {'@25':>6s} {'sess@10':>7s} {'ndcg':>6s} {'1024tok':>7s}"
    lines.append(head + "  " + " ".join(f"{c[:6]:>6s}" for c in cats) + "   p50/p95 ms")
    for system, res in out["systems"].items():
        for split in ("dev", "heldout", "all"):
            r = res[split]
            if not r.get("n"):
                continue
            by_cat = res["by_category"] if split == "all" else res[f"{split}_by_category"]
            cat_cells = " ".join(f"{by_cat[c].get('recall@10', float('nan')):6.1f}" for c in cats)
            lines.append(
                f"{system:8s} {split:8s} {r['n']:5d} {r['recall@5']:6.1f} {r['recall@10']:6.1f} {r['recall@25']:6.1f} "
                f"{r['session_recall@10']:7.1f} {r['ndcg@10']:6.1f} {r['recall@1024tok']:7.1f}  {cat_cells}"
                + (f"   {res['latency_ms']['p50']}/{res['latency_ms']['p95']}" if split == "all" else "")
            )
    if "ingest" in out:
        ing = out["ingest"]
        lines.append(f"ingest: {ing['capture_turns_per_s']} turns/s through capture; plain embedding of the same turns "
                     f"{ing['plain_embedding_turns_per_s']} turns/s; inside capture {ing['embedding_in_capture_s']} s "
                     f"embedding ({ing['texts_embedded_in_capture']} texts) + {ing['beyond_embedding_s']} s beyond "
                     f"(ratio {ing['beyond_embedding_ratio']})")
    if "engine" in out["systems"]:
        lines.append(f"engine ingest: {out['systems']['engine'].get('ingest_turns_per_s')} turns/s; "
                     f"peak memory {out['peak_memory_mb']} MB; margin over RRF @10: {out.get('engine_margin_over_rrf@10')}")
        sup = out["systems"]["engine"].get("turns_superseded")
        if sup is not None:
            lines.append(f"chat turns superseded at capture: {sup['count']} ({sup['evidence']} of them evidence)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--conversations", default="0-9", help="e.g. 0-9, 0,3,5")
    ap.add_argument("--split", choices=("dev", "heldout", "all"), default="all")
    ap.add_argument("--max-questions", type=int, default=None, help="per conversation (smoke runs)")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--sessions", type=int, default=None, help="keep each conversation's first N sessions (smoke)")
    ap.add_argument("--k", type=int, default=25)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    conversations = parse_conversations(args.conversations, args.split)
    systems = tuple(s for s in args.systems.split(",") if s)
    unknown = set(systems) - set(SYSTEMS)
    if unknown:
        ap.error(f"unknown systems {sorted(unknown)}; choose from {SYSTEMS}")
    out = run(conversations, args.max_questions, systems, args.k, log=lambda m: print(m, file=sys.stderr),
              sessions=args.sessions)
    return publish(out, _table(out), args.out)


if __name__ == "__main__":
    raise SystemExit(main())
