"""Fit the learned ranker (``hindsight_core/retrieval/learned.py``) on LoCoMo dev and score it on held-out.

Every question of LoCoMo is recalled through the recall pipeline over the fast harness's banks
(``benchmarks/_locomo_fast.py``: cached embeddings of the bundled model, the in-memory index); the
final pool's features (:func:`hindsight_core.retrieval.learned.features`) are kept with a label per
unit: is it one of the question's evidence turns. Boosted regression trees (logistic loss, Newton
leaves, scikit-learn's ``DecisionTreeRegressor`` as the tree learner) are fitted on conversations 0-6
only, once per seed (each seed samples other non-evidence units), and shipped as one model that
averages the fits (bagging: one fit's figures move by half a point from seed to seed); conversations
7-9 are scored with them and with the weighted sum, side by side.

Run: ``python -m benchmarks.recall_model`` (about 5 minutes once the fast harness has cached its
embeddings, which takes about 6 minutes the first time; report only), ``--write`` to rewrite
``hindsight_core/retrieval/_ranker_trees.py``, ``--loco`` to add a leave-one-conversation-out
estimate on dev (7 more bagged fits, about 25 minutes). The published figures come from ``python -m benchmarks.locomo``
through the real engine.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from benchmarks._locomo_data import CATEGORY_NAMES
from benchmarks._report import publish
from hindsight_core.retrieval import learned, pipeline
from hindsight_core.retrieval.config import RecallConfig

TREES_PATH = Path(learned.__file__).with_name("_ranker_trees.py")
DEV = range(0, 7)
#: Boosting settings: trees, depth, learning rate, least units per leaf, share of non-evidence units kept.
TREES, DEPTH, RATE, LEAF, NEGATIVES = 100, 5, 0.1, 50, 0.1
#: Fits averaged into the shipped model (seeds 0..SEEDS-1).
SEEDS = 3


@dataclass(slots=True)
class Pool:
    conversation: int
    category: int
    ids: list[str]
    weighted: np.ndarray  # the weighted sum's score of each id
    x: np.ndarray  # learned.features, one row per id
    y: np.ndarray  # 1.0 where the id is an evidence turn
    evidence: int  # the question's evidence turns, in the pool or not (recall's denominator)


def collect(convs_spec: str = "0-9", cfg: RecallConfig | None = None) -> list[Pool]:
    """The final pool of every question, with features and labels (the weighted order is kept)."""
    from benchmarks import _locomo_fast as fast

    cfg = (cfg or RecallConfig()).model_copy(update={"ranker": "learned", "ranker_min_pool": 1})
    seen: dict[str, Any] = {}

    def record(scorer, pool, extras, query, weighted, order, head_size):  # type: ignore[no-untyped-def]
        seen.update(ids=list(pool), weighted=np.asarray(weighted, dtype=np.float64),
                    x=learned.features(scorer, pool, extras, query))
        return [(pool[j], float(weighted[j])) for j in order]

    data, qv = fast.load("all", convs_spec)
    system = fast.engine_system(cfg)
    pools: list[Pool] = []
    original, pipeline._learned_order = pipeline._learned_order, record
    try:
        qi = 0
        for conv, tv, cv in data:
            idx = fast.build_index(conv, tv, cv)
            for q in conv.questions:
                seen.clear()
                system(idx, q, qv[qi], conv)
                qi += 1
                if not seen:
                    continue
                gold = set(q.evidence)
                y = np.array([1.0 if i in gold else 0.0 for i in seen["ids"]])
                pools.append(Pool(conv.index, q.category, seen["ids"], seen["weighted"], seen["x"], y, len(gold)))
    finally:
        pipeline._learned_order = original
    return pools


def fit(pools: Iterable[Pool], trees: int = TREES, depth: int = DEPTH, rate: float = RATE, seed: int = 0) -> dict[str, Any]:
    """Boosted trees on the pools' units (all evidence, a sample of the rest), as learned.score reads them."""
    from sklearn.tree import DecisionTreeRegressor

    rng = np.random.default_rng(seed)
    xs, ys, ws = [], [], []
    for p in pools:
        if not p.y.any():
            continue
        keep = (p.y > 0) | (rng.random(len(p.y)) < NEGATIVES)
        xs.append(p.x[keep])
        ys.append(p.y[keep])
        # each question weighs the same: its evidence shares 1, its kept non-evidence stand for all of it
        ws.append(np.where(p.y[keep] > 0, 1.0 / p.y.sum(), 0.02 / NEGATIVES))
    x = np.vstack(xs).astype(np.float32)
    y, w = np.concatenate(ys), np.concatenate(ws)
    margin = np.zeros(len(y))
    feature, threshold, left, right, value, roots = [], [], [], [], [], []
    for t in range(trees):
        p = 1.0 / (1.0 + np.exp(-margin))
        tree = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=LEAF, random_state=seed + t)
        tree.fit(x, y - p, sample_weight=w)
        leaf = tree.apply(x)
        nodes = tree.tree_.node_count
        num = np.bincount(leaf, w * (y - p), minlength=nodes)
        den = np.bincount(leaf, w * p * (1 - p), minlength=nodes) + 1e-9
        step = rate * num / den  # one Newton step per leaf
        margin += step[leaf]
        offset = len(feature)
        roots.append(offset)
        tl, tr = tree.tree_.children_left, tree.tree_.children_right
        for n in range(nodes):
            is_leaf = tl[n] < 0
            feature.append(0 if is_leaf else int(tree.tree_.feature[n]))
            threshold.append(0.0 if is_leaf else float(tree.tree_.threshold[n]))
            left.append(offset + n if is_leaf else offset + int(tl[n]))
            right.append(offset + n if is_leaf else offset + int(tr[n]))
            value.append(round(float(step[n]), 6) if is_leaf else 0.0)
    return {"features": list(learned.FEATURES), "feature": feature, "threshold": threshold, "left": left,
            "right": right, "value": value, "roots": roots, "depth": depth}


def fit_bagged(pools: Iterable[Pool], seeds: int = SEEDS, trees: int = TREES, depth: int = DEPTH,
               rate: float = RATE) -> dict[str, Any]:
    """The mean of ``seeds`` fits (:func:`fit` with seeds 0..seeds-1) as one model: every fit's trees,
    their leaf values divided by ``seeds``, so :func:`~hindsight_core.retrieval.learned.score`'s sum is
    the fits' mean log-odds."""
    pools = list(pools)
    fits = [fit(pools, trees=trees, depth=depth, rate=rate, seed=s) for s in range(seeds)]
    out: dict[str, Any] = {"features": fits[0]["features"], "feature": [], "threshold": [], "left": [], "right": [],
                           "value": [], "roots": [], "depth": depth}
    for f in fits:
        offset = len(out["feature"])
        out["feature"] += f["feature"]
        out["threshold"] += f["threshold"]
        out["left"] += [offset + n for n in f["left"]]
        out["right"] += [offset + n for n in f["right"]]
        out["value"] += [round(v / seeds, 6) for v in f["value"]]
        out["roots"] += [offset + r for r in f["roots"]]
    return out


def rescore(pool: Pool, trees: dict[str, Any], head: int) -> list[str]:
    """The pool's ids in the order the pipeline gives them with ``trees`` (head rescored, tail as weighted)."""
    order = np.argsort(-pool.weighted, kind="stable")
    top, _ = learned.rerank_head(pool.x, order, head, trees)
    return [pool.ids[j] for j in top] + [pool.ids[j] for j in order[head:]]


def recall_at(pools: list[Pool], orders: list[list[str]], k: int = 10) -> dict[str, float]:
    """Evidence recall@k as ``benchmarks.locomo`` counts it: evidence never pooled counts as missed."""
    found = [len({i for i, y in zip(p.ids, p.y) if y} & set(order[:k])) / max(1, p.evidence)
             for p, order in zip(pools, orders)]

    def mean(sel: list[int]) -> float:
        return round(100 * float(np.mean([found[i] for i in sel])), 2) if sel else float("nan")

    every = list(range(len(pools)))
    out = {"all": mean(every)}
    for cat, name in CATEGORY_NAMES.items():
        out[name] = mean([i for i in every if pools[i].category == cat])
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--conversations", default="0-9")
    ap.add_argument("--trees", type=int, default=TREES)
    ap.add_argument("--seeds", type=int, default=SEEDS, help="fits averaged into the model (bagging)")
    ap.add_argument("--write", action="store_true", help="rewrite hindsight_core/retrieval/_ranker_trees.py")
    ap.add_argument("--loco", action="store_true", help="also fit leaving each dev conversation out")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    t0 = time.time()
    pools = collect(a.conversations)
    dev = [p for p in pools if p.conversation in DEV]
    trees = fit_bagged(dev, seeds=a.seeds, trees=a.trees)
    head = RecallConfig().ranker_head
    weighted = [[p.ids[j] for j in np.argsort(-p.weighted, kind="stable")] for p in pools]
    learnt = [rescore(p, trees, head) for p in pools]
    rows: dict[str, Any] = {}
    for split, sel in (("dev (fitted on)", lambda p: p.conversation in DEV), ("held-out", lambda p: p.conversation not in DEV)):
        idx = [i for i, p in enumerate(pools) if sel(p)]
        if idx:
            rows[f"{split} weighted"] = recall_at([pools[i] for i in idx], [weighted[i] for i in idx])
            rows[f"{split} learned"] = recall_at([pools[i] for i in idx], [learnt[i] for i in idx])
    if a.loco:
        idx, orders = [], []
        for c in DEV:
            loo = fit_bagged([p for p in dev if p.conversation != c], seeds=a.seeds, trees=a.trees)
            for i, p in enumerate(pools):
                if p.conversation == c:
                    idx.append(i)
                    orders.append(rescore(p, loo, head))
        if idx:
            rows["dev leave-one-conversation-out weighted"] = recall_at([pools[i] for i in idx], [weighted[i] for i in idx])
            rows["dev leave-one-conversation-out learned"] = recall_at([pools[i] for i in idx], orders)
    if a.write:
        TREES_PATH.write_text(_module_text(trees, rows), encoding="utf-8")
    result = {"conversations": a.conversations, "questions": len(pools), "trees": a.trees, "seeds": a.seeds, "depth": DEPTH,
              "recall_at_10": rows, "seconds": round(time.time() - t0, 1)}
    table = ["| pools | all | " + " | ".join(CATEGORY_NAMES.values()) + " |", "|---" * (2 + len(CATEGORY_NAMES)) + "|"]
    table += [f"| {name} | {r['all']} | " + " | ".join(str(r[n]) for n in CATEGORY_NAMES.values()) + " |" for name, r in rows.items()]
    if a.out:
        publish(result, "\n".join(table), Path(a.out))
    else:
        print("\n".join(table))
    return result


def _module_text(trees: dict[str, Any], rows: dict[str, Any]) -> str:
    held = {k: v["all"] for k, v in rows.items()}
    return (
        '"""Fitted trees of the learned ranker (:mod:`~hindsight_core.retrieval.learned`).\n\n'
        "Written by ``python -m benchmarks.recall_model --write``; do not edit by hand.\n"
        f"Fitted on LoCoMo conversations 0-6 with the bundled all-MiniLM-L6-v2: {len(trees['roots'])} trees of depth "
        f"{trees['depth']} (fits of several seeds, averaged).\nRecall@10 when written: {json.dumps(held)}.\n"
        '"""\n\n'
        "TREES = {\n" + "".join(f"    {json.dumps(k)}: {_wrapped(v)},\n" for k, v in trees.items()) + "}\n"
    )


def _wrapped(value: Any) -> str:
    """A JSON value with long lists broken into lines of about 110 characters."""
    if not isinstance(value, list) or len(value) < 20:
        return json.dumps(value)
    import textwrap

    body = textwrap.fill(", ".join(json.dumps(v) for v in value), width=110, initial_indent=" " * 8,
                         subsequent_indent=" " * 8, break_long_words=False, break_on_hyphens=False)
    return "[\n" + body + "\n    ]"


if __name__ == "__main__":
    main()
