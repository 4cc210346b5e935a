"""Learned ranking of the candidate pool: boosted trees over the pool's standardised features.

The weighted sum in :mod:`~hindsight_core.retrieval.scoring` gives every feature one weight for
every question. The trees read the same features, the same features of the units one and two
turns before and after (the answer often sits a turn or two from what the question names), and
what kind of question it is (a list, a time window, "when", "how many", "where", how many of the
bank's names it holds), so "when" questions can lean on time and list questions on the people
they name. One more column counts the content words of the unit's own text: a list question's
answers are scattered over turns that tell something ("Last weekend my girlfriend and I went
fishing in one of the nearby lakes"), while their neighbours in the ranking are often short replies
on the same topic ("Rock climbing was awesome!"). The trees rescore the head of the weighted
ranking; the tail keeps its order below it.
Small pools and lessons-only recalls (kinds without ``world``) keep the weighted sum: the trees
were fitted on conversation turns, and lesson recall orders failure lessons before success ones.

The trees are data in :mod:`~hindsight_core.retrieval._ranker_trees`, written by
``python -m benchmarks.recall_model --write``, which fits them on LoCoMo's dev conversations
(0-6) only, with the bundled all-MiniLM-L6-v2. Columns are standardised over each pool's said units
(turns; derived units such as observations are read on that scale, as the weighted sum reads them), so a
different embedder shifts them less than raw cosines would, but the trees were not fitted on it:
``RecallConfig(ranker="weighted")`` turns them off.

Example:
    >>> from hindsight_core.retrieval.learned import FEATURES
    >>> FEATURES[:3]
    ('cos', 'topic', 'kw')
"""

from __future__ import annotations

import functools
from typing import Any, Mapping

import numpy as np

from hindsight_core.retrieval.channels import asks_for_list
from hindsight_core.retrieval.expansion import unit_words
from hindsight_core.retrieval.scoring import PoolScorer, standardised

__all__ = ["BASE", "FEATURES", "features", "rerank_head", "score"]

#: The pool columns the trees read, each standardised over the pool.
BASE: tuple[str, ...] = ("cos", "topic", "kw", "ses", "spk", "tmp", "graph", "phrase")
_SHIFTS = ("", "prev_", "next_", "prev2_", "next2_")
_QUESTION = ("asks_list", "has_window", "when", "names", "how_many", "where")
_TEXT = ("words",)
#: Every column of :func:`features`, in order.
FEATURES: tuple[str, ...] = tuple(f"{s}{b}" for s in _SHIFTS for b in BASE) + _QUESTION + _TEXT


@functools.lru_cache(maxsize=65_536)  # a bank's units recur in pool after pool
def _content_words(text: str) -> float:
    return float(len(unit_words(text)))


def _words_column(scorer: PoolScorer, ids: list[str]) -> np.ndarray:
    """Content words of each captured unit; other kinds (an observation sums up many turns, a lesson
    a whole run) get the captured units' mean, which says nothing either way."""
    units = scorer.index.units
    counts = np.array([_content_words(units[i].text) if units[i].kind == "world" else np.nan for i in ids],
                      dtype=np.float64)
    told = ~np.isnan(counts)
    counts[~told] = counts[told].mean() if told.any() else 0.0
    return counts.reshape(len(ids), 1)


def _base_columns(scorer: PoolScorer, ids: list[str], extras: Mapping[str, tuple[np.ndarray, float]]) -> np.ndarray:
    n = len(ids)
    topic = scorer.topic_cosines(ids) if scorer.topic is not None else np.zeros(n)
    own = scorer.unit_features(ids)  # BM25, session BM25, speaker named, time window
    graph = np.asarray(extras["graph"][0], dtype=np.float64) if "graph" in extras else np.zeros(n)
    phrase = np.asarray(extras["phrase"][0], dtype=np.float64) if "phrase" in extras else np.zeros(n)
    return np.column_stack([scorer.cosines(ids), topic, own, graph, phrase])


def features(scorer: PoolScorer, ids: list[str], extras: Mapping[str, tuple[np.ndarray, float]], query: str) -> np.ndarray:
    """One row of :data:`FEATURES` per id in ``ids`` (the whole pool: columns are standardised over its
    said units, :meth:`PoolScorer.said`)."""
    said = scorer.said(ids)
    z = standardised(_base_columns(scorer, ids, extras), said)
    prev, nxt = scorer.neighbour_positions(ids)
    prev2 = np.where(prev >= 0, prev[np.maximum(prev, 0)], -1)
    next2 = np.where(nxt >= 0, nxt[np.maximum(nxt, 0)], -1)
    floor = (z if said is None else z[said]).min(axis=0)  # no such neighbour in the pool: the lowest value

    def shifted(at: np.ndarray) -> np.ndarray:
        return np.where((at >= 0)[:, None], z[np.maximum(at, 0)], floor)

    q = query.strip().lower()
    question = np.array([float(asks_for_list(query)), float(scorer.window is not None), float(q.startswith("when")),
                         float(len(scorer.named)), float(q.startswith("how many")), float(q.startswith("where"))])
    text = standardised(_words_column(scorer, ids), said)
    return np.hstack([z, shifted(prev), shifted(nxt), shifted(prev2), shifted(next2),
                      np.broadcast_to(question, (len(ids), len(question))), text])


def rerank_head(x: np.ndarray, order: np.ndarray, head_size: int,
                trees: Mapping[str, Any] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The first ``head_size`` positions of ``order`` (a weighted ranking of the rows of ``x``),
    best first by the trees, and their scores in that order."""
    head = order[:head_size]
    learnt = score(x[head], trees)
    by = np.argsort(-learnt, kind="stable")
    return head[by], learnt[by]


def score(x: np.ndarray, trees: Mapping[str, Any] | None = None) -> np.ndarray:
    """The trees' log-odds that each row of ``x`` is evidence for the question (``trees``: the
    bundled ones when None, or a mapping as ``benchmarks.recall_model.fit`` returns)."""
    model = _bundled() if trees is None else _Model(trees)
    # the trees split float32 features at float64 thresholds, as scikit-learn fitted them
    xf = np.asarray(x, dtype=np.float32).astype(np.float64)
    node = np.broadcast_to(model.roots, (len(xf), len(model.roots))).copy()
    rows = np.arange(len(xf))[:, None]
    for _ in range(model.depth):  # a leaf points to itself, so every path can take all steps
        go_left = xf[rows, model.feature[node]] <= model.threshold[node]
        node = np.where(go_left, model.left[node], model.right[node])
    return model.value[node].sum(axis=1)


class _Model:
    __slots__ = ("feature", "threshold", "left", "right", "value", "roots", "depth")

    def __init__(self, data: Mapping[str, Any]) -> None:
        if list(data["features"]) != list(FEATURES):
            raise ValueError("the trees were fitted on other features than learned.FEATURES; "
                             "rewrite them with `python -m benchmarks.recall_model --write`.")
        self.feature = np.asarray(data["feature"], dtype=np.intp)
        self.threshold = np.asarray(data["threshold"], dtype=np.float64)
        self.left = np.asarray(data["left"], dtype=np.intp)
        self.right = np.asarray(data["right"], dtype=np.intp)
        self.value = np.asarray(data["value"], dtype=np.float64)
        self.roots = np.asarray(data["roots"], dtype=np.intp)
        self.depth = int(data["depth"])


@functools.cache
def _bundled() -> _Model:
    from hindsight_core.retrieval._ranker_trees import TREES

    return _Model(TREES)
