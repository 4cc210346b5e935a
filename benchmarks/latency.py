"""Recall latency on one LoCoMo conversation's bank (the issue's "~600-turn bank" check).

Captures one conversation (default 3: 629 turns) into an in-memory bank with the bundled model, waits
for its background work (the keyword-expansion vocabulary is learnt there, retrieval/expansion.py),
times the first recall, warms up, then times recall(k=10) for every one of its questions with the
default config (``stages_ms``: each pipeline stage's share, from the recall trace: the query's model
call, then the channels, the two scoring passes, the graph channel and the assembly; the rest of a
recall is reading the hits from Chroma and the expansion's word lookups).

The embedder is prepared first, as a server would at start-up (its ONNX Runtime query pass built,
:mod:`hindsight_core._onnx_bert`; ``query_pass`` says which pass served). Three same-run comparisons
follow, because this machine's run-to-run spread is wider than the differences they measure:

* ``query_pass_paired``: every question recalled with the query's model pass on ONNX Runtime and on
  the traced torch graph, alternating which goes first;
* ``expansion``: every question recalled with keyword expansion on and off, alternating which goes
  first (``p50``/``p95`` of each); ``on`` finds most question words' vectors kept from earlier
  recalls, ``on_question_words_new`` has them forgotten first (each is embedded with the question);
* ``fresh_open``: the bank's loaded index is dropped (as when it leaves the engine's cache; a bank
  this small has no snapshot, so it is rebuilt from Chroma and its vocabulary learnt again in the
  background), then the first recall and the next ``FRESH_RECALLS - 1`` are timed, with expansion on
  and off in turn, ``--fresh-repeats`` times each. ``warm_words``: the embedder's word cache still
  holds the bank's words (a bank evicted and reopened by a running process); ``cold_words``: it
  was emptied first (a new process), so the whole vocabulary is embedded again in the background.

Run: ``python -m benchmarks.latency [--conversation 3] [--out PATH]``; run it on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from benchmarks._locomo_data import load_locomo

#: Recalls timed after each fresh open: about as many as the background learning of a 600-turn
#: bank's vocabulary overlaps on a 2-core machine.
FRESH_RECALLS = 20


def _pct(values: list[float]) -> dict[str, float]:
    return {"p50": round(float(np.percentile(values, 50)), 1), "p95": round(float(np.percentile(values, 95)), 1)}


def run(conversation: int = 3, fresh_repeats: int = 3, max_questions: int | None = None) -> dict[str, object]:
    """Ingest one LoCoMo conversation and time its questions' recalls (``max_questions``: the first
    that many only, for a smoke run)."""
    from hindsight_core import CaptureItem, MemoryEngine
    from hindsight_core._expansion_ops import forget_word_vectors, learn_vocabulary
    from hindsight_core.retrieval.config import RecallConfig

    conv = load_locomo()[conversation]
    items = [CaptureItem(text=t.text, session_id=f"session_{t.session}", mentioned_at=t.session_time,
                         metadata={"dia_id": t.dia_id, "speaker": t.speaker}) for t in conv.turns]
    engine = MemoryEngine.ephemeral()
    engine.embedder.embed(["warm up"])
    prepare = getattr(engine.embedder, "prepare", None)  # as a server would at start-up
    onnx = bool(prepare and prepare())
    bank = engine.bank("latency", lifecycle={"consolidate_every": 0})
    started = time.perf_counter()
    bank.capture_many(items)
    ingest = len(items) / (time.perf_counter() - started)
    engine.drain(120)  # the vocabulary of what was captured is learnt in the background ...
    learn_vocabulary(bank.store)  # ... when the default config expands; for the comparison below either way
    questions = [q.question for q in conv.questions][:max_questions]
    started = time.perf_counter()
    bank.recall(questions[0], k=10)
    first = (time.perf_counter() - started) * 1000
    for q in questions[1:5]:
        bank.recall(q, k=10)
    lat = []
    stages: dict[str, list[float]] = {}
    for q in questions:
        started = time.perf_counter()
        result = bank.recall(q, k=10)
        lat.append((time.perf_counter() - started) * 1000)
        for name, ms in [("embed", result.trace["embed_ms"]), *result.trace["timings_ms"].items()]:
            stages.setdefault(name, []).append(ms)
    configs = {"on": RecallConfig(expansion_weight=0.5), "off": RecallConfig(expansion_weight=0.0)}
    paired: dict[str, list[float]] = {name: [] for name in (*configs, "on_question_words_new")}
    for n, q in enumerate(questions):
        names = [*configs, "on_question_words_new"]
        for name in (names if n % 2 else names[::-1]):
            if name == "on_question_words_new":
                forget_word_vectors()  # every question word is embedded again (the bank's vocabulary stays)
            started = time.perf_counter()
            bank.recall(q, k=10, config=configs.get(name, configs["on"]))
            paired[name].append((time.perf_counter() - started) * 1000)
    # the query's model pass on ONNX Runtime against the traced torch graph, alternating per question
    passes: dict[str, list[float]] = {"onnxruntime": [], "torch": []}
    switch = os.environ.get("HINDSIGHT_ONNX")
    for n, q in enumerate(questions if onnx else []):
        for name in (("onnxruntime", "torch") if n % 2 else ("torch", "onnxruntime")):
            os.environ["HINDSIGHT_ONNX"] = "1" if name == "onnxruntime" else "0"
            started = time.perf_counter()
            bank.recall(q, k=10)
            passes[name].append((time.perf_counter() - started) * 1000)
    if switch is None:
        os.environ.pop("HINDSIGHT_ONNX", None)
    else:
        os.environ["HINDSIGHT_ONNX"] = switch
    fresh = {(words, name): {"first": [], "next": []} for words in ("warm_words", "cold_words") for name in configs}
    for r in range(fresh_repeats):
        for words in ("warm_words", "cold_words"):
            for name in (list(configs) if r % 2 else list(reversed(configs))):
                if words == "cold_words":
                    forget_word_vectors()
                bank.store.forget()  # dropped from memory: the next call rebuilds the index, vocabulary empty
                for n, q in enumerate(questions[:FRESH_RECALLS]):
                    started = time.perf_counter()
                    bank.recall(q, k=10, config=configs[name])
                    fresh[words, name]["first" if n == 0 else "next"].append((time.perf_counter() - started) * 1000)
                engine.drain(120)
    engine.close()
    return {"conversation": conversation, "bank_units": len(items), "questions": len(questions),
            "ingest_turns_per_s": round(ingest, 1), "first_recall_ms": round(first, 1),
            "recall_p50_ms": round(float(np.percentile(lat, 50)), 1),
            "recall_p95_ms": round(float(np.percentile(lat, 95)), 1),
            "stages_ms": {name: _pct(v) for name, v in stages.items()},
            "default_expansion_weight": RecallConfig().expansion_weight,
            "query_pass": "onnxruntime" if onnx else "torch",
            "query_pass_paired": {name: _pct(v) for name, v in passes.items() if v},
            "expansion": {name: _pct(v) for name, v in paired.items()},
            "fresh_open": {f"{words}_{name}": {"first_recall_ms": _pct(v["first"]),
                                                f"next_{FRESH_RECALLS - 1}_recalls_ms": _pct(v["next"])}
                           for (words, name), v in fresh.items()}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--conversation", type=int, default=3)
    p.add_argument("--fresh-repeats", type=int, default=3, help="fresh opens timed per config")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    summary = run(args.conversation, args.fresh_repeats)
    print(json.dumps(summary, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
