"""Experience benchmark: do an agent's own lessons come back before it retries?

Streams the Reflexion HotpotQA run logs (``../shared/data/reflexion/hotpotqa_5trials.json``, MIT)
in trial order into one bank as outcome-labelled episodes. After a failed trial, the lesson is
the reflection the logged agent wrote (read from the next trial's ``reflections``); successes are
reflected by the rule-based reflector. Before each retry of a question that failed, it recalls
lessons with the question text and scores:

- hit@1 / hit@3: that question's own latest failure lesson is first / in the top 3;
- failure-above-success: that lesson ranks above every success lesson in the results;
- the same with plain dense top-k over the same stored lessons, side by side.

Run: ``python -m benchmarks.experience [--questions N] [--out PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "reflexion" / "hotpotqa_5trials.json"
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def load_episodes(path: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    path = Path(path or os.environ.get("HINDSIGHT_REFLEXION_DATA", DEFAULT_DATA))
    if not path.exists():
        raise SystemExit(f"Reflexion data not found at {path}; set HINDSIGHT_REFLEXION_DATA")
    return json.loads(path.read_text())


def run(questions: int | None = None, data: str | None = None, embedder: Any = None) -> dict[str, Any]:
    from hindsight_core import MemoryEngine
    from hindsight_core.episodes import Episode, Reflection, TraceStep

    episodes = load_episodes(data)
    order = list(dict.fromkeys(e["question"] for e in episodes))
    # a smoke run takes an even sample across the file (its first questions never fail)
    keep = set(order[:: max(1, len(order) // questions)][:questions]) if questions else set(order)
    by_q: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for e in episodes:
        if e["question"] in keep:
            by_q[e["question"]][e["trial"]] = e
    stream = sorted((e for q in by_q.values() for e in q.values()), key=lambda e: (e["trial"], order.index(e["question"])))

    engine = MemoryEngine.ephemeral(embedder=embedder)
    bank = engine.bank("reflexion-hotpotqa")
    latest_failure: dict[str, str] = {}  # question -> id of its latest failure lesson
    scores = defaultdict(list)
    latencies: list[float] = []
    ingest_s = 0.0
    for step, e in enumerate(stream):
        q, trial = e["question"], e["trial"]
        now = T0 + timedelta(minutes=step)
        if trial > 1 and q in latest_failure and by_q[q].get(trial - 1, {}).get("status") != "CORRECT":
            started = time.perf_counter()
            result = bank.recall_lessons(q, k=5, as_of=now)
            latencies.append((time.perf_counter() - started) * 1000)
            ids = result.ids
            own = latest_failure[q]
            scores["hit@1"].append(ids[:1] == [own])
            scores["hit@3"].append(own in ids[:3])
            success_ranks = [i for i, h in enumerate(result.hits) if h.unit.outcome and h.unit.outcome.value == "success"]
            own_rank = ids.index(own) if own in ids else len(ids)
            scores["failure_above_success"].append(all(own_rank < r for r in success_ranks))
            # baseline: plain vector top-k over the same stored lessons
            index = engine._live_index(bank.id)
            vec = engine.embedder.embed([q])[0]
            dense = [i for i, _ in index.dense_search(vec, 50) if index.units[i].kind == "observation"][:5]
            scores["dense_hit@1"].append(dense[:1] == [own])
            scores["dense_hit@3"].append(own in dense[:3])
        started = time.perf_counter()
        failed = e["status"] != "CORRECT"
        episode = Episode.from_steps([TraceStep(kind="user", text=q),
                                      TraceStep(kind="assistant", text=f"Final answer after trial {trial}.")],
                                     session_id=f"trial-{trial}")
        nxt = by_q[q].get(trial + 1)
        logged = nxt["reflections"][len(e["reflections"])] if failed and nxt and len(nxt["reflections"]) > len(e["reflections"]) else None
        if failed and logged:
            first = logged.split(". ")[0].rstrip(".") + "."
            reflection = Reflection(goal=q, outcome="failure", cause=first, lesson=logged, trigger=q, confidence=0.6)
            res = bank.end_episode(episode, "failure", reflection=reflection, ended_at=now)
        else:
            res = bank.end_episode(episode, "failure" if failed else "success", ended_at=now)
        if failed and res.lesson is not None:
            latest_failure[q] = res.lesson.id
        ingest_s += time.perf_counter() - started
    engine.close()
    summary = {k: round(100 * float(np.mean(v)), 1) for k, v in scores.items()}
    summary.update(
        retries=len(scores["hit@1"]),
        episodes=len(stream),
        questions=len(by_q),
        recall_p50_ms=round(float(np.percentile(latencies, 50)), 1) if latencies else None,
        recall_p95_ms=round(float(np.percentile(latencies, 95)), 1) if latencies else None,
        ingest_episodes_per_s=round(len(stream) / ingest_s, 1) if ingest_s else None,
    )
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--questions", type=int, default=None, help="an even sample of N questions (smoke run)")
    p.add_argument("--data", default=None, help="path to hotpotqa_5trials.json")
    p.add_argument("--out", default=None, help="write the summary as JSON here")
    args = p.parse_args(argv)
    summary = run(args.questions, args.data)
    print(json.dumps(summary, indent=2))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
