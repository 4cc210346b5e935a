"""Lifecycle benchmark: knowledge updates, LoCoMo before/after consolidation, and scale with a budget.

Three parts, each side by side with what a plain system does:

(a) ``update``: a scripted stream of facts that change over time (generated from templates: services,
    people and projects; ports, databases, owners, cities, contact preferences, budgets, managers,
    deadlines, versions), interleaved with distractors, captured in time order; one question per
    subject/attribute asks about *now*. Score: share of questions whose top hit is the current
    statement, for our recall and for plain vector top-1 over the same captured text.
(b) ``locomo``: recall@10 (evidence turns) on LoCoMo through the engine, before and after
    consolidation and a forgetting sweep ran on each conversation's bank.
(c) ``scale``: recall latency and bank size at 10k / 50k / 100k synthetic units, with and without
    the active budget (consolidation off to isolate the budget; hash embedder by default).

Smoke (seconds): ``python -m benchmarks.lifecycle --smoke --out /tmp/lifecycle.json``
Full: ``python -m benchmarks.lifecycle --parts update,locomo,scale --sizes 10000,50000,100000
--out benchmarks/results/lifecycle.json`` (the scale part takes a while on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

T0 = datetime(2024, 1, 1, 9, 0, tzinfo=timezone.utc)
_PEOPLE = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Jana", "Kofi", "Lena",
           "Mateo", "Nadia", "Oskar", "Priya", "Quinn", "Rosa", "Sami", "Tara", "Umar", "Vera", "Wen", "Ximena",
           "Yusuf", "Zoe"]
_CITIES = ["Lisbon", "Berlin", "Nairobi", "Osaka", "Toronto", "Lima", "Oslo", "Cairo", "Seoul", "Dublin", "Austin",
           "Porto", "Krakow", "Hanoi", "Quito"]
_FOODS = ["sushi", "ramen", "tacos", "paella", "curry", "pizza", "falafel", "pho", "dumplings", "risotto"]
_CONTACT = ["email", "phone calls", "text messages", "video calls", "chat messages"]
_SERVICES = [f"{a} {b}" for a in ("billing", "search", "auth", "payments", "inventory", "shipping", "reporting",
                                  "notification", "pricing", "catalog") for b in ("service", "api", "gateway")]
_PROJECTS = ["Falcon", "Heron", "Otter", "Lynx", "Maple", "Cobalt", "Nimbus", "Quartz", "Saffron", "Tundra",
             "Willow", "Zephyr"]

# attribute -> (subject pool, value maker, first statement, update statements, question)
_ATTRS: dict[str, tuple[str, Any, str, tuple[str, ...], str]] = {
    "port": ("service", lambda r: str(r.randint(1000, 9999)), "The {s} listens on port {v}.",
             ("The {s} moved to port {v}.", "The {s} now listens on port {v}."), "Which port does the {s} use now?"),
    "database": ("service", lambda r: f"pg-{r.randint(1, 99)}", "The {s} stores its data in {v}.",
                 ("The {s} now stores its data in {v}.", "The {s} migrated its data to {v}."),
                 "Where does the {s} store its data now?"),
    "owner": ("service", lambda r: r.choice(_PEOPLE), "The {s} is owned by {v}.",
              ("The {s} is now owned by {v}.",), "Who owns the {s} now?"),
    "version": ("service", lambda r: f"{r.randint(1, 9)}.{r.randint(0, 30)}", "The {s} runs version {v}.",
                ("The {s} was upgraded to version {v}.", "The {s} now runs version {v}."),
                "Which version does the {s} run now?"),
    "city": ("person", lambda r: r.choice(_CITIES), "{s} lives in {v}.", ("{s} now lives in {v}.",),
             "Where does {s} live now?"),
    "contact": ("person", lambda r: r.choice(_CONTACT), "{s} prefers {v} for urgent matters.",
                ("{s} now prefers {v} for urgent matters.",), "How does {s} want to be contacted about urgent matters now?"),
    "manager": ("person", lambda r: r.choice(_PEOPLE), "{s}'s manager is {v}.", ("{s}'s manager is now {v}.",),
                "Who is {s}'s manager now?"),
    "food": ("person", lambda r: r.choice(_FOODS), "{s}'s favorite food is {v}.", ("{s}'s favorite food is now {v}.",),
             "What is {s}'s favorite food now?"),
    "budget": ("project", lambda r: f"{r.randint(10, 990)}k", "The budget for project {s} is {v} dollars.",
               ("The budget for project {s} went from {old} to {v} dollars.", "The budget for project {s} is now {v} dollars."),
               "What is the budget for project {s} now?"),
    "deadline": ("project", lambda r: str(r.randint(1, 52)), "The deadline of project {s} is in week {v}.",
                 ("The deadline of project {s} moved to week {v}.",), "When is the deadline of project {s} now?"),
}
_DISTRACT = ["The cafeteria serves {f} on {d}.", "{p} gave a talk about {t} last {d}.",
             "The {t} guild meets every {d} afternoon.", "{p} shared a photo from a trip to {c}.",
             "Someone left a box of {f} in the kitchen on {d}.", "{p} asked about the {t} training schedule."]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
_TOPICS = ["testing", "security", "accessibility", "observability", "design", "hiring", "pairing", "writing"]


def update_stream(n_keys: int = 120, distractors: int = 200, seed: int = 0) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(statements in time order, questions)``; each question names the index of the current statement."""
    rng = random.Random(seed)
    pools = {"service": list(_SERVICES), "person": list(_PEOPLE), "project": list(_PROJECTS)}
    keys = [(a, s) for a, spec in _ATTRS.items() for s in pools[spec[0]]]
    rng.shuffle(keys)
    keys = keys[:n_keys]
    chains: list[list[str]] = []
    for attr, subject in keys:
        _, make, first, updates, _ = _ATTRS[attr]
        values: list[str] = []
        while len(values) < rng.randint(2, 4):
            v = make(rng)
            if v not in values and v != subject:  # "Chen's manager is Chen" is not a fact anyone states
                values.append(v)
        texts = [first.format(s=subject, v=values[0])]
        texts += [rng.choice(updates).format(s=subject, v=v, old=values[i]) for i, v in enumerate(values[1:])]
        chains.append(texts)
    events: list[tuple[int, int | None]] = [(k, None) for k, c in enumerate(chains) for _ in c]
    events += [(-1, None)] * distractors
    rng.shuffle(events)
    cursor = [0] * len(chains)
    statements: list[dict[str, Any]] = []
    current: dict[int, int] = {}
    for n, (k, _) in enumerate(events):
        when = T0 + timedelta(hours=6 * n)
        if k < 0:
            text = rng.choice(_DISTRACT).format(f=rng.choice(_FOODS), d=rng.choice(_DAYS), p=rng.choice(_PEOPLE),
                                                t=rng.choice(_TOPICS), c=rng.choice(_CITIES))
        else:
            text = chains[k][cursor[k]]
            cursor[k] += 1
            current[k] = len(statements)
        statements.append({"text": text, "mentioned_at": when})
    questions = [{"question": _ATTRS[a][4].format(s=s), "current": current[k], "key": f"{a}:{s}",
                  "history": len(chains[k])} for k, (a, s) in enumerate(keys)]
    return statements, questions


def run_update(embedder: Any, n_keys: int = 120, distractors: int = 200, seed: int = 0) -> dict[str, Any]:
    from hindsight_core import MemoryEngine

    statements, questions = update_stream(n_keys, distractors, seed)
    with MemoryEngine.ephemeral(embedder=embedder) as engine:
        bank = engine.bank("updates", lifecycle={"consolidate_every": 0})
        started = time.perf_counter()
        results = bank.capture_many(statements, batch_size=64)
        capture_s = time.perf_counter() - started
        ids = [r.unit_id for r in results]
        texts = [s["text"] for s in statements]
        vecs = np.asarray(engine.embedder.embed(texts))
        qvecs = np.asarray(engine.embedder.embed([q["question"] for q in questions]))
        ours = base = 0
        misses = []
        lat = []
        for q, qv in zip(questions, qvecs):
            t = time.perf_counter()
            hits = bank.recall(q["question"], k=5)
            lat.append((time.perf_counter() - t) * 1000)
            want = ids[q["current"]]
            ok = bool(hits.hits) and hits.hits[0].unit.id == want
            ours += ok
            top = int(np.argmax(vecs @ qv))
            base += texts[top] == texts[q["current"]]
            if not ok and len(misses) < 5:
                misses.append({"question": q["question"], "want": texts[q["current"]],
                               "got": hits.hits[0].unit.text if hits.hits else None})
        superseded = sum(1 for _ in bank.units(status="superseded"))
    updates = sum(q["history"] - 1 for q in questions)
    return {
        "statements": len(statements), "questions": len(questions), "updates": updates, "distractors": distractors,
        "superseded_at_capture": superseded, "ours_top1_current": round(ours / len(questions), 4),
        "baseline_vector_top1_current": round(base / len(questions), 4),
        "capture_s": round(capture_s, 2), "recall_p50_ms": round(float(np.percentile(lat, 50)), 1), "misses": misses,
    }


def _ranked(bank: Any, hits: Any, with_evidence: bool) -> list[list[str]]:
    out = []
    for h in hits:
        did = h.unit.metadata.get("dia_id")
        if did:
            out.append([did])
        elif with_evidence and h.unit.evidence_ids:
            out.append([u.metadata.get("dia_id") for u in bank.get_many(h.unit.evidence_ids) if u.metadata.get("dia_id")])
        else:
            out.append([])
    return out


def run_locomo(embedder: Any, convs: str = "0-9", max_turns: int | None = None,
               max_questions: int | None = None) -> dict[str, Any]:
    from benchmarks._locomo_data import evidence_recall, load_locomo, parse_conversations
    from hindsight_core import MemoryEngine

    data = load_locomo()
    scores: dict[str, list[float]] = {"before": [], "after": [], "after_with_evidence": []}
    made = superseded = archived = 0
    started = time.perf_counter()
    for ci in parse_conversations(convs):
        conv = data[ci]
        turns = conv.turns[:max_turns] if max_turns else conv.turns
        known = {t.dia_id for t in turns}
        questions = [q for q in conv.questions if set(q.evidence) <= known][:max_questions]
        with MemoryEngine.ephemeral(embedder=embedder) as engine:
            bank = engine.bank(f"locomo-{ci}", lifecycle={"consolidate_every": 0})
            bank.capture_many([{"text": t.text, "session_id": f"session_{t.session}", "mentioned_at": t.session_time,
                                "metadata": {"dia_id": t.dia_id, "speaker": t.speaker}} for t in turns], batch_size=128)
            superseded += sum(1 for _ in bank.units(status="superseded"))
            as_of = max(t.session_time for t in turns)
            for q in questions:
                scores["before"].append(evidence_recall(q.evidence, _ranked(bank, bank.recall(q.question, k=10, as_of=as_of), False), 10))
            while True:
                report = bank.consolidate()
                made += len(report.created)
                if not report.remaining:
                    break
            archived += bank.enforce_budget().archived_count
            for q in questions:
                hits = bank.recall(q.question, k=10, as_of=as_of)
                scores["after"].append(evidence_recall(q.evidence, _ranked(bank, hits, False), 10))
                scores["after_with_evidence"].append(evidence_recall(q.evidence, _ranked(bank, hits, True), 10))
    mean = {k: round(float(np.mean(v)) * 100, 2) if v else None for k, v in scores.items()}
    return {"conversations": convs, "questions": len(scores["before"]), "recall@10_before": mean["before"],
            "recall@10_after": mean["after"], "recall@10_after_counting_observation_evidence": mean["after_with_evidence"],
            "observations_created": made, "superseded_at_capture": superseded, "archived": archived,
            "seconds": round(time.perf_counter() - started, 1)}


def _synthetic(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        tpl = rng.choice(_DISTRACT + ["Ticket {i} reports that the {t} dashboard in {c} is slow.",
                                      "Order {i} from {p} contains {f} and ships on {d}."])
        # "Note {i}:" keeps every unit distinct: without it most templates repeat word for word and
        # dedup folded 10,000 captures into 3,871 units, so the budget never triggered.
        body = tpl.format(i=i, f=rng.choice(_FOODS), d=rng.choice(_DAYS), p=rng.choice(_PEOPLE),
                          t=rng.choice(_TOPICS), c=rng.choice(_CITIES))
        out.append({"text": f"Note {i}: {body}",
                    "mentioned_at": T0 + timedelta(minutes=7 * i), "session_id": f"s{i // 20}"})
    return out


def _disk(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_scale(sizes: list[int], embedder: Any, queries: int = 50, budget: int = 5_000, seed: int = 0) -> list[dict[str, Any]]:
    from hindsight_core import MemoryEngine

    rows = []
    for n in sizes:
        items = _synthetic(n, seed)
        qs = [f"What is slow in the {rng_t} dashboard?" for rng_t in _TOPICS] + \
             [f"What did {p} share or ask about?" for p in _PEOPLE]
        qs = (qs * (queries // len(qs) + 1))[:queries]
        for label, limit in (("no_budget", 0), ("budget", budget)):
            tmp = Path(tempfile.mkdtemp(prefix="hs-scale-"))
            try:
                engine = MemoryEngine(tmp / "store", embedder=embedder)
                bank = engine.bank("scale", lifecycle={"consolidate_every": 0, "consolidate_after_s": 0,
                                                       "active_budget": limit})
                t = time.perf_counter()
                bank.capture_many(items, batch_size=512)
                engine.drain(3600)
                capture_s = time.perf_counter() - t
                bank.recall("warm up the caches", k=10)
                lat = []
                for q in qs:
                    t = time.perf_counter()
                    bank.recall(q, k=10)
                    lat.append((time.perf_counter() - t) * 1000)
                engine.drain(600)
                statuses: dict[str, int] = {}
                index = engine._live_index("scale")
                for u in index.units.values():
                    statuses[u.status] = statuses.get(u.status, 0) + 1
                digests = sum(1 for u in index.units.values() if "digest" in u.flags)
                engine.close()
                rows.append({"units": n, "mode": label, "budget": limit, "capture_s": round(capture_s, 1),
                             "recall_p50_ms": round(float(np.percentile(lat, 50)), 1),
                             "recall_p95_ms": round(float(np.percentile(lat, 95)), 1),
                             "stored": sum(statuses.values()), "active": statuses.get("active", 0),
                             "archived": statuses.get("archived", 0), "superseded": statuses.get("superseded", 0),
                             "digests": digests, "disk_mb": round(_disk(tmp) / 1e6, 1)})
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    return rows


def _embedder(name: str) -> Any:
    if name == "hash":
        from hindsight_core.testing import HashEmbedder

        return HashEmbedder(dim=384)
    from hindsight_core.embeddings import resolve_embedder

    return resolve_embedder(None if name == "minilm" else name)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="update,locomo,scale", help="comma list of update, locomo, scale")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes for a quick check")
    ap.add_argument("--keys", type=int, default=120, help="(a) subject/attribute pairs")
    ap.add_argument("--distractors", type=int, default=200, help="(a) unrelated statements")
    ap.add_argument("--convs", default="0-9", help="(b) LoCoMo conversations, e.g. 0-9 or 0,3")
    ap.add_argument("--max-turns", type=int, default=None, help="(b) first turns of each conversation only")
    ap.add_argument("--max-questions", type=int, default=None, help="(b) questions per conversation")
    ap.add_argument("--sizes", default="10000,50000,100000", help="(c) bank sizes")
    ap.add_argument("--budget", type=int, default=5_000, help="(c) active budget of the budget run")
    ap.add_argument("--queries", type=int, default=50, help="(c) recalls timed per size")
    ap.add_argument("--embedder", default="minilm", help="(a, b) minilm (bundled) or a sentence-transformers name")
    ap.add_argument("--scale-embedder", default="hash", help="(c) hash (fast, deterministic) or minilm")
    ap.add_argument("--out", required=True, help="where to write the results JSON")
    args = ap.parse_args(argv)
    if args.smoke:
        args.keys, args.distractors, args.convs, args.max_turns, args.max_questions = 20, 20, "0", 120, 15
        args.sizes, args.queries, args.budget = "300", 10, 200
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    out: dict[str, Any] = {"args": vars(args)}
    emb = _embedder(args.embedder) if parts & {"update", "locomo"} else None
    if "update" in parts:
        out["knowledge_update"] = run_update(emb, args.keys, args.distractors)
        print(json.dumps(out["knowledge_update"], indent=1))
    if "locomo" in parts:
        out["locomo"] = run_locomo(emb, args.convs, args.max_turns, args.max_questions)
        print(json.dumps(out["locomo"], indent=1))
    if "scale" in parts:
        out["scale"] = run_scale([int(s) for s in args.sizes.split(",")], _embedder(args.scale_embedder),
                                 args.queries, args.budget)
        print(json.dumps(out["scale"], indent=1))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
