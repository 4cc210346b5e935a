"""Paired LoCoMo check through the real engine: two recall configs on the same banks, same run.

Each conversation is captured once (real engine, bundled model); every question is recalled with
the default :class:`~hindsight_core.retrieval.config.RecallConfig` and with a baseline config
(by default keyword expansion off, the previous default), alternating which goes
first. A change is judged on the difference, which a shared, loaded machine does not blur the way
it blurs two separate full runs; latencies are paired the same way (their ratio is the figure).

Run: ``python -m benchmarks._locomo_paired --conversations 0,8``
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from benchmarks._locomo_data import evidence_recall, load_locomo, parse_conversations

__all__ = ["run"]

#: The config compared with the defaults: keyword expansion (retrieval/expansion.py) off, the
#: default before its vocabulary was learnt in the background. Before that the baseline was
#: expansion on (``{"expansion_weight": 0.5}``), and before the topic vector (retrieval/topic.py)
#: ``{"topic_weight": 0.0, "speaker_weight": 0.45}``.
PREVIOUS = {"expansion_weight": 0.0}


def run(conversations: list[int], baseline: dict[str, Any] | None = None, k: int = 10) -> dict[str, Any]:
    """Recall@k and latency of the default config and of ``baseline`` on each conversation."""
    from hindsight_core import CaptureItem, MemoryEngine
    from hindsight_core._expansion_ops import learn_vocabulary
    from hindsight_core.retrieval.config import RecallConfig

    configs = {"default": RecallConfig(), "baseline": RecallConfig(**(PREVIOUS if baseline is None else baseline))}
    data = load_locomo()
    rows: list[tuple[int, int, dict[str, float]]] = []
    lat: dict[str, list[float]] = {name: [] for name in configs}
    with MemoryEngine.ephemeral() as engine:
        for ci in conversations:
            conv = data[ci]
            bank = engine.bank(f"locomo-{ci}")
            items = [CaptureItem(text=t.text, session_id=f"session_{t.session}", mentioned_at=t.session_time,
                                 metadata={"dia_id": t.dia_id, "speaker": t.speaker}) for t in conv.turns]
            turns_of: dict[str, list[str]] = {}
            for t, r in zip(conv.turns, bank.capture_many(items)):
                if r.unit_id is not None:
                    turns_of.setdefault(r.unit_id, []).append(t.dia_id)
            engine.drain(300)
            learn_vocabulary(bank.store)  # what the background queue learns after a capture (retrieval/expansion.py)
            for n, q in enumerate(conv.questions):
                got: dict[str, float] = {}
                for name in (list(configs) if n % 2 else list(reversed(configs))):
                    started = time.perf_counter()
                    hits = bank.recall(q.question, k=k, as_of=conv.as_of, config=configs[name]).hits
                    lat[name].append((time.perf_counter() - started) * 1000)
                    ranked = [turns_of.get(h.unit.id) or [h.unit.metadata.get("dia_id", "")] for h in hits]
                    got[name] = evidence_recall(q.evidence, ranked, k)
                rows.append((ci, q.category, got))

    def mean(sel: list[tuple[int, int, dict[str, float]]]) -> dict[str, Any]:
        return {"n": len(sel)} | {name: round(100 * sum(r[2][name] for r in sel) / max(1, len(sel)), 2)
                                  for name in configs}

    return {
        "k": k,
        "baseline": configs["baseline"].model_dump(include=set((baseline or PREVIOUS).keys())),
        "by_conversation": {ci: mean([r for r in rows if r[0] == ci]) for ci in conversations},
        "all": mean(rows),
        "multi_hop": mean([r for r in rows if r[1] == 1]),
        "latency_ms": {name: {"p50": round(float(np.percentile(v, 50)), 1), "p95": round(float(np.percentile(v, 95)), 1)}
                       for name, v in lat.items() if v},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", default="0,8", help="e.g. 0-9, 0,8")
    ap.add_argument("--baseline", default=json.dumps(PREVIOUS), help="RecallConfig fields of the baseline, as JSON")
    a = ap.parse_args(argv)
    print(json.dumps(run(parse_conversations(a.conversations), json.loads(a.baseline)), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
