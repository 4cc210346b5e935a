"""Recall latency on one LoCoMo conversation's bank (the issue's "~600-turn bank" check).

Captures one conversation (default 3: 629 turns) into an in-memory bank with the bundled model,
times the first recall (which embeds the bank's vocabulary for keyword expansion), warms up, then
times recall(k=10) for every one of its questions.

Run: ``python -m benchmarks.latency [--conversation 3] [--out PATH]``; run it on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from benchmarks._locomo_data import load_locomo


def run(conversation: int = 3) -> dict[str, object]:
    from hindsight_core import CaptureItem, MemoryEngine

    conv = load_locomo()[conversation]
    items = [CaptureItem(text=t.text, session_id=f"session_{t.session}", mentioned_at=t.session_time,
                         metadata={"dia_id": t.dia_id, "speaker": t.speaker}) for t in conv.turns]
    engine = MemoryEngine.ephemeral()
    engine.embedder.embed(["warm up"])
    bank = engine.bank("latency", lifecycle={"consolidate_every": 0})
    started = time.perf_counter()
    bank.capture_many(items)
    ingest = len(items) / (time.perf_counter() - started)
    questions = [q.question for q in conv.questions]
    started = time.perf_counter()
    bank.recall(questions[0], k=10)  # with keyword expansion on, this embeds the bank's vocabulary
    first = (time.perf_counter() - started) * 1000
    for q in questions[1:5]:
        bank.recall(q, k=10)
    lat = []
    for q in questions:
        started = time.perf_counter()
        bank.recall(q, k=10)
        lat.append((time.perf_counter() - started) * 1000)
    engine.close()
    return {"conversation": conversation, "bank_units": len(items), "questions": len(questions),
            "ingest_turns_per_s": round(ingest, 1), "first_recall_ms": round(first, 1), "recall_p50_ms": round(float(np.percentile(lat, 50)), 1),
            "recall_p95_ms": round(float(np.percentile(lat, 95)), 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--conversation", type=int, default=3)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    summary = run(args.conversation)
    print(json.dumps(summary, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
