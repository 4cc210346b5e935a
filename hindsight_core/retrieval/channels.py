"""Recall channels: pure functions ``(query, index) -> ranked [(id, score)]``, best first.

* :func:`dense_channel` - cosine similarity of the query embedding (over-fetched);
* :func:`keyword_channel` - BM25 over unit text (stemmed, stopwords removed);
* :func:`session_channel` - BM25 over whole sessions, spread to their units;
* :func:`graph_channel` - spreading activation from the query's entities and from first-stage
  seeds through shared entities (1-2 hops), damped by entity frequency;
* :func:`temporal_channel` - units whose time falls in the query's window;
* :func:`neighbour_channel` - session neighbours (and explicit links) of the best candidates.

Example:
    >>> strip_question("When did Caroline go to the LGBTQ support group?")
    'Caroline go to the LGBTQ support group'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:
    from hindsight_core.retrieval.types import BankIndex

__all__ = [
    "strip_question",
    "dense_channel",
    "keyword_channel",
    "session_channel",
    "graph_channel",
    "temporal_channel",
    "neighbour_channel",
]

_QUESTION_WORDS = frozenset(
    "what when where who whom whose which why how did does do is are was were has have had "
    "would could should can will might may shall".split()
)
_QWORD = re.compile(r"[A-Za-z']+|[^A-Za-z'\s]+|\s+")


def strip_question(query: str) -> str:
    """Drop wh-words and auxiliaries and the trailing question mark: a question reads more like
    the statement that answers it, which helps dense and keyword matching alike."""
    parts = [p for p in _QWORD.findall(query) if p.lower() not in _QUESTION_WORDS]
    out = re.sub(r"\s+", " ", "".join(parts)).strip()
    out = re.sub(r"^[\s,;:]+|[\s?]+$", "", out)
    return out or query.strip()


def dense_channel(vector: np.ndarray, index: "BankIndex", n: int) -> list[tuple[str, float]]:
    return index.dense_search(vector, n)


def keyword_channel(query: str, index: "BankIndex", n: int) -> list[tuple[str, float]]:
    return index.keyword.search(query, n)


def session_channel(query: str, index: "BankIndex", n_sessions: int) -> dict[str, float]:
    """BM25 score of each unit's session (sessions scored as one document), for the top sessions."""
    search = getattr(index.keyword, "search_groups", None)
    if search is None:
        return {}
    return dict(search(query, n_sessions))


def graph_channel(
    query_entities: Sequence[str],
    seeds: Mapping[str, float],
    index: "BankIndex",
    n: int,
    seed_entity_cap: int = 50,
) -> list[tuple[str, float]]:
    """Spreading activation over the unit-entity graph.

    Hop 1: every unit linked to a query entity gets the entity's idf. Hop 2: the entities of the
    ``seeds`` (first-stage candidates, with positive weights) that are rare enough
    (degree <= ``seed_entity_cap``) and not query entities spread ``weight * idf`` to the other
    units that mention them, so evidence in other sessions that shares a name, place or object
    with a good candidate is found even when it shares no words with the query.
    """
    graph = index.graph
    act: dict[str, float] = {}
    qset = set(query_entities)
    for key in query_entities:
        idf = graph.entity_idf(key)
        for uid in graph.entity_units(key):
            act[uid] = act.get(uid, 0.0) + idf
    hop: dict[str, float] = {}
    for uid, w in seeds.items():
        if w <= 0:
            continue
        for key in graph.unit_entities(uid):
            if key in qset:
                continue
            deg = graph.entity_degree(key)
            if deg < 2 or deg > seed_entity_cap:
                continue
            hop[key] = hop.get(key, 0.0) + w * graph.entity_idf(key)
    for key, w in hop.items():
        for uid in graph.entity_units(key, ("mentions",)):
            act[uid] = act.get(uid, 0.0) + 0.5 * w
    ranked = sorted(act.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:n]


def temporal_channel(window: tuple[float, float] | None, index: "BankIndex", n: int) -> list[tuple[str, float]]:
    """Units whose ``when`` (occurred_at, else mentioned_at) or mention time lies in ``window``,
    most recent first; the score is 1.0 inside, decaying with distance from the window otherwise."""
    if window is None:
        return []
    start, end = window
    out: list[tuple[str, float, int]] = []
    for uid, u in index.units.items():
        times = (u.when, u.mentioned_at)
        if any(start <= t < end for t in times):
            out.append((uid, 1.0, u.seq))
    out.sort(key=lambda x: -x[2])
    return [(uid, s) for uid, s, _ in out[:n]]


def neighbour_channel(scores: Mapping[str, float], index: "BankIndex", top: int,
                      kinds: Iterable[str] | None = None) -> dict[str, float]:
    """For each unit next to one of the ``top`` best-scored units, the best neighbour score."""
    best = sorted(scores.items(), key=lambda kv: -kv[1])[:top]
    out: dict[str, float] = {}
    graph = index.graph
    for uid, s in best:
        for other in graph.neighbours(uid, kinds):
            if s > out.get(other, float("-inf")):
                out[other] = s
    return out
