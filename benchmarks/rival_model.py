"""Fit the present-value judge (:mod:`hindsight_core.lifecycle.rival_model`) and report how it generalises.

Training pairs come from knowledge-update sets in the protocol of the shared dev set: every earlier
text of a case against the case's later text and question. The pair is positive when the case is an
update and the earlier text is the replaced fact; negative for the kept fact of a look-alike
(``no_update``), for distractors (another attribute of the same subject) and for one random pairing
per case (a later text of another case of the set: an unrelated message must never answer).

Sets: the shared dev set (``../shared/data/updates/updates_dev.json``, skipped with a note when absent)
and the fresh sets of ``benchmarks/data/updates_fresh/`` named in :data:`FIT_SETS`, each written by
another hand. The fresh sets written after the fit (the others in that folder) are held out.

Reported: leave-one-set-out over the fitting sets (fit on all but one, judge the one left out), then
the model fitted on all of them on each held-out set: the share of pairs the judge lets answer at the
threshold, for update targets, look-alike targets, distractors and random pairs. ``--write`` writes
the model fitted on all fitting sets to ``hindsight_core/lifecycle/_rival_weights.py``.

Run: ``python -m benchmarks.rival_model [--threshold 0.9] [--write] [--out FILE]`` (about a minute:
it embeds every text once with the bundled MiniLM model).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.lifecycle import _embedder
from benchmarks.updates import ROOT, data_path, load_cases

__all__ = ["pairs", "fit", "leave_one_set_out", "held_out", "main", "FIT_SETS"]

FRESH = ROOT / "benchmarks" / "data" / "updates_fresh"
WEIGHTS_FILE = ROOT / "hindsight_core" / "lifecycle" / "_rival_weights.py"
#: The fresh sets the shipped weights were fitted on (with the shared dev set); later ones are held out.
FIT_SETS = ("set_a", "set_b", "set_c", "set_d", "set_e", "set_f", "set_g", "set_h")
#: L2 penalty of the logistic fit (on standardised signals): the model has few weights and ~2,000 pairs.
PENALTY = 1.0
#: The weights are fitted on pairs at this cosine or closer (recall judges from the lower
#: ``rival_model.MIN_CLOSENESS``: a change buried in a long message sits far from its fact).
FIT_MIN_CLOSENESS = 0.25
SEED = 7


def _sets() -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[dict[str, Any]]]]:
    """``(fitting sets, held-out sets)`` by name."""
    fitting: dict[str, list[dict[str, Any]]] = {}
    shared = data_path()
    if shared.exists():
        fitting["shared-dev"] = load_cases(shared)
    else:
        print(f"note: {shared} not found; fitting on the fresh sets only")
    held: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(FRESH.glob("set_*.json")):
        (fitting if path.stem in FIT_SETS else held)[path.stem] = load_cases(path)
    return fitting, held


def pairs(sets: dict[str, list[dict[str, Any]]], embedder: Any) -> list[dict[str, Any]]:
    """One row per (earlier text, later text, question) with its signals (None for a later text the
    judge's gate sets aside as a look-alike), label and role."""
    from hindsight_core.lifecycle.rival_model import Closeness, features

    texts = sorted({t for cases in sets.values() for c in cases for t in (*c["before"], c["after"], c["question"])})
    vecs = np.asarray(embedder.embed(texts), dtype=np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True) + 1e-12
    at = {t: vecs[i] for i, t in enumerate(texts)}

    def cos(a: str, b: str) -> float:
        return float(at[a] @ at[b])

    rng = random.Random(SEED)
    rows: list[dict[str, Any]] = []
    for name, cases in sets.items():
        for case in cases:
            q, later = case["question"], case["after"]
            target = case["old_index"] if case["type"] == "update" else case["keep_index"]
            stranger = rng.choice([c for c in cases if c is not case])["after"]
            jobs = [(j, later, "update" if case["type"] == "update" and j == target else
                     "look-alike" if j == target else "distractor") for j in range(len(case["before"]))]
            jobs.append((target, stranger, "random"))
            for j, newer, role in jobs:
                older, others = case["before"][j], [t for i, t in enumerate(case["before"]) if i != j]
                close = Closeness.among(cos(older, newer), cos(q, newer), cos(q, older),
                                        [cos(t, newer) for t in others], [cos(q, t) for t in others])
                # None: a look-alike as a whole, or too far to fit on (never let answer)
                x = features(older, newer, q, close) if close.on >= FIT_MIN_CLOSENESS else None
                rows.append({"set": name, "id": case["id"], "role": role, "y": int(role == "update"), "x": x})
    return rows


def fit(x: np.ndarray, y: np.ndarray, penalty: float = PENALTY) -> dict[str, Any]:
    """L2-penalised logistic regression on standardised signals, by Newton's method."""
    mean, scale = x.mean(0), x.std(0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    ridge = np.eye(len(w)) / penalty
    ridge[0, 0] = 0.0  # the intercept is not penalised
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) + ridge @ w
        hess = (z * (p * (1 - p))[:, None]).T @ z + ridge
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return {"mean": mean.tolist(), "scale": scale.tolist(), "coef": w[1:].tolist(), "intercept": float(w[0])}


def _predict(model: dict[str, Any], x: np.ndarray) -> np.ndarray:
    from hindsight_core.lifecycle.rival_model import score  # the formula recall applies

    return np.array([score(row, model) for row in x])


def _shares(rows: list[dict[str, Any]], p: np.ndarray, threshold: float) -> dict[str, Any]:
    sets = np.array([r["set"] for r in rows])
    roles = np.array([r["role"] for r in rows])
    out: dict[str, Any] = {}
    for s in [*sorted(set(sets)), "all"]:
        sel = np.ones(len(rows), bool) if s == "all" else sets == s
        out[s] = {role: round(float(np.mean(p[sel & (roles == role)] >= threshold)), 3)
                  for role in ("update", "look-alike", "distractor", "random") if (sel & (roles == role)).any()}
    return out


def held_out(model: dict[str, Any], rows: list[dict[str, Any]], threshold: float) -> dict[str, Any]:
    """The fitted model on sets it never saw: share of pairs let answer, by set and role."""
    p = np.zeros(len(rows))
    judged = [i for i, r in enumerate(rows) if r["x"] is not None]
    if judged:
        p[judged] = _predict(model, np.array([rows[i]["x"] for i in judged]))
    return _shares(rows, p, threshold)


def leave_one_set_out(rows: list[dict[str, Any]], threshold: float) -> dict[str, Any]:
    """Per left-out set and overall: share of pairs let answer, by role (gated pairs count as not)."""
    judged = [r for r in rows if r["x"] is not None]
    x = np.array([r["x"] for r in judged])
    y = np.array([r["y"] for r in judged], dtype=np.float64)
    in_set = np.array([r["set"] for r in judged])
    p = np.zeros(len(rows))  # a gated pair is never let answer
    where = np.array([i for i, r in enumerate(rows) if r["x"] is not None])
    sets = np.array([r["set"] for r in rows])
    for s in sorted(set(sets)):
        held = in_set == s
        p[where[held]] = _predict(fit(x[~held], y[~held]), x[held])
    return _shares(rows, p, threshold)


def _write(model: dict[str, Any], threshold: float, sets: list[str], loso: dict[str, Any]) -> None:
    from hindsight_core.lifecycle.rival_model import FEATURES

    weights = {"features": list(FEATURES), **{k: [round(v, 6) for v in model[k]] for k in ("mean", "scale", "coef")},
               "intercept": round(model["intercept"], 6), "threshold": threshold}
    WEIGHTS_FILE.write_text(
        '"""Fitted weights of the present-value judge (:mod:`~hindsight_core.lifecycle.rival_model`).\n\n'
        "Written by ``python -m benchmarks.rival_model --write``; do not edit by hand.\n"
        f"Fitted on: {', '.join(sets)}.\n"
        f"Leave-one-set-out share of pairs let answer at the threshold (all sets): {json.dumps(loso['all'])}.\n"
        '"""\n\n'
        f"WEIGHTS = {json.dumps(weights, indent=4)}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threshold", type=float, default=0.9, help="probability at which the later statement answers")
    ap.add_argument("--embedder", default="minilm", help="minilm (bundled) or a sentence-transformers name")
    ap.add_argument("--write", action="store_true", help="fit on every set and write the weights module")
    ap.add_argument("--out", default=None, help="write the leave-one-set-out figures as JSON here")
    args = ap.parse_args(argv)
    fitting, held = _sets()
    embedder = _embedder(args.embedder)
    rows = pairs(fitting, embedder)
    loso = leave_one_set_out(rows, args.threshold)
    judged = [r for r in rows if r["x"] is not None]
    model = fit(np.array([r["x"] for r in judged]), np.array([r["y"] for r in judged], dtype=np.float64))
    report = {"threshold": args.threshold, "pairs": len(rows), "leave_one_set_out": loso,
              "held_out": held_out(model, pairs(held, embedder), args.threshold) if held else {}}
    print(f"{len(rows)} pairs; share let answer at p >= {args.threshold}")
    for title, block in (("leave one set out", loso), ("fitted on all, on held-out sets", report["held_out"])):
        print(f"{title}:")
        for s, shares in block.items():
            print(f"  {s:12s} " + "  ".join(f"{k} {v:.3f}" for k, v in shares.items()))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2))
    if args.write:
        _write(model, args.threshold, list(fitting), loso)
        print(f"wrote {WEIGHTS_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
