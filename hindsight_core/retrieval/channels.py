"""Recall channels: pure functions ``(query, index) -> ranked [(id, score)]``, best first.

* :func:`dense_channel` - cosine similarity of the query embedding (over-fetched);
* :func:`keyword_channel` - BM25 over unit text (stemmed, stopwords removed);
* :func:`session_channel` - BM25 over whole sessions, spread to their units;
* :func:`graph_channel` - spreading activation from the query's entities and from first-stage
  seeds through shared entities (1-2 hops), damped by entity frequency;
* :func:`temporal_channel` - units whose time falls in the query's window
  (:func:`temporal_score` grades the rest by distance);
* :func:`feedback_channel` - BM25 for the query expanded with the best candidates' words (off by default).

Example:
    >>> strip_question("When did Caroline go to the LGBTQ support group?")
    'Caroline go to the LGBTQ support group'
"""

from __future__ import annotations

import math
import re
import zlib
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np

from hindsight_core.storage.keyword import tokenize, with_bigrams

if TYPE_CHECKING:
    from hindsight_core.retrieval.types import BankIndex, IndexedUnit

__all__ = [
    "strip_question",
    "dense_channel",
    "keyword_channel",
    "session_channel",
    "graph_channel",
    "temporal_channel",
    "temporal_score",
    "feedback_channel",
    "asks_current",
    "phrase_scores",
]

_QUESTION_WORDS = frozenset(
    "what when where who whom whose which why how did does do is are was were has have had "
    "would could should can will might may shall".split()
)
_CURRENT = re.compile(r"\b(now|currently|current|these days|at the moment|at present|nowadays|any ?more|latest)\b", re.I)
_QWORD = re.compile(r"[A-Za-z']+|[^A-Za-z'\s]+|\s+")


def strip_question(query: str) -> str:
    """Drop wh-words and auxiliaries and the trailing question mark: a question reads more like
    the statement that answers it, which helps dense and keyword matching alike."""
    parts = [p for p in _QWORD.findall(query) if p.lower() not in _QUESTION_WORDS]
    out = re.sub(r"\s+", " ", "".join(parts)).strip()
    out = re.sub(r"^[\s,;:]+|[\s?]+$", "", out)
    return out or query.strip()


def dense_channel(vector: np.ndarray, index: "BankIndex", n: int, archived: bool = False) -> list[tuple[str, float]]:
    """Top ``n`` turns by cosine, with the derived units ranked among them (:func:`_n_turns`);
    archived units compete only when ``archived`` (an explicit request)."""
    hits = index.dense_search(vector, 2 * n, archived=True) if archived else index.dense_search(vector, 2 * n)
    return _n_turns(hits, index, n)


def keyword_channel(query: str, index: "BankIndex", n: int, archived: bool = False,
                    extra_terms: Mapping[str, float] | None = None) -> list[tuple[str, float]]:
    """Top ``n`` turns by BM25, with the derived units ranked among them (:func:`_n_turns`); an
    index with an archived tier searches it only when ``archived``.
    ``extra_terms`` (stem -> query weight, :mod:`~hindsight_core.retrieval.expansion`) join the
    query's own terms, which keep their weight (hot units only: not with ``archived``)."""
    fetch = 2 * n  # derived units ride along (_n_turns)
    search = getattr(index, "keyword_search", None)
    if extra_terms and not archived:
        kw = index.keyword
        words = tokenize(query)
        qtf: dict[str, float] = {}
        for tok in with_bigrams(words) if kw.bigrams else words:
            qtf[tok] = qtf.get(tok, 0.0) + 1.0
        for term, w in extra_terms.items():
            qtf.setdefault(term, w)
        hits = kw.search_terms(qtf, fetch, ties=True)
    elif search is not None:
        hits = search(query, fetch, archived=archived, ties=True)
    else:
        hits = index.keyword.search(query, fetch, ties=True)
    return _n_turns(_in_stable_order(hits, index, fetch), index, n)


def _n_turns(hits: Sequence[tuple[str, float]], index: "BankIndex", n: int) -> list[tuple[str, float]]:
    """``hits`` (best first) up to the ``n``-th turn: derived units ranked before it ride along.

    An extractive observation repeats one of its turns word for word and a bank may hold hundreds;
    counted as candidates they pushed turns out of a channel's ``n`` (LoCoMo through the engine:
    multi-hop 58.8 -> 59.5 @10 with them riding along in the dense and keyword channels, every category
    the same or better; 59.85 -> 60.03 with the graph and feedback channels too). The channels fetch
    ``2n`` for this, so at most ``n`` derived units join.
    """
    if n <= 0:
        return []
    units = index.units
    out: list[tuple[str, float]] = []
    turns = 0
    for hit in hits:
        out.append(hit)
        unit = units.get(hit[0])
        if unit is None or unit.is_turn:
            turns += 1
            if turns == n:
                break
    return out


def _in_stable_order(hits: Sequence[tuple[str, float]], index: "BankIndex", n: int) -> list[tuple[str, float]]:
    """The best ``n`` of ``hits``, equal scores in an order fixed by what the units say.

    BM25 scores and graph activations tie often (on a LoCoMo conversation every question had tied
    keyword scores in its top 60). Broken by unit id, which is random per capture, two banks of the
    same turns recalled differently (the same top 10 for 21 of 260 questions). Ties go by a stable
    hash of each unit's text, then by capture order: the same memory gives the same recall, and the
    tied units kept are spread over the conversation as random ids spread them. Capture order alone
    keeps the earliest (or the latest) and lost 0.4-0.5 points of recall@10 on LoCoMo dev, paired.
    """
    units = index.units
    if len(hits) > n > 0:  # order only the best n and those tied with the n-th: a graph walk reaches thousands
        scores = np.fromiter((s for _, s in hits), dtype=np.float64, count=len(hits))
        kth = np.partition(scores, len(hits) - n)[len(hits) - n]
        hits = [h for h, s in zip(hits, scores) if s >= kth]

    def key(hit: tuple[str, float]) -> tuple[float, int, int, str]:
        unit = units.get(hit[0])
        if unit is None:
            return -hit[1], 0, 0, hit[0]
        return -hit[1], zlib.crc32(unit.text.encode("utf-8", "surrogatepass")), unit.seq, hit[0]

    return sorted(hits, key=key)[:n]


_LIST_QUESTION = re.compile(r"^\s*(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+|are\s+(?:some\s+)?(?:of\s+)?(?:the\s+)?)?"
                            r"([a-z]+)", re.IGNORECASE)
_NOT_PLURAL = frozenset({"does", "was", "has", "is", "this", "his", "its", "as", "yes", "us", "always"})


def asks_for_list(query: str) -> bool:
    """Whether ``query`` asks for several things of a kind ("What activities does Melanie do?",
    "Which books has she read?", "What kinds of pets ...?"): its wh-word is followed by a plural noun.

    Example:
        >>> asks_for_list("What items has Melanie bought?"), asks_for_list("What did Melanie paint?")
        (True, False)
    """
    m = _LIST_QUESTION.match(query)
    if m is None:
        return False
    word = m.group(1).lower()
    return len(word) >= 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in _NOT_PLURAL


def speaker_channel(query: str, named: Iterable[str], index: "BankIndex", n: int,
                    extra_terms: Mapping[str, float] | None = None) -> list[tuple[str, float]]:
    """The turns of the people the query names, ranked by BM25 of its other words (plus the
    ``extra_terms`` of keyword expansion) over every unit: "What items has Melanie bought?" scores
    each of Melanie's turns, in every session, by "items", "bought" and the bank's words near them,
    without the name, which all of her turns carry. Top ``n``; empty when no unit's speaker is named."""
    people = {name.lower() for name in named}
    if not people:
        return []
    units = index.units
    drop = {stem for name in people for stem in tokenize(name)}
    qtf: dict[str, float] = {}
    for tok in tokenize(query):
        if tok not in drop:
            qtf[tok] = qtf.get(tok, 0.0) + 1.0
    for term, w in (extra_terms or {}).items():
        if term not in drop:
            qtf.setdefault(term, w)
    if not qtf:
        return []
    out: list[tuple[str, float]] = []
    for uid, score in index.keyword.search_terms(qtf, len(units)):
        u = units.get(uid)
        if u is not None and (u.speaker or "").lower() in people:
            out.append((uid, score))
            if len(out) >= n:
                break
    return out


def session_channel(query: str, index: "BankIndex", n_sessions: int) -> dict[str, float]:
    """BM25 score of each unit's session (sessions scored as one document), for the top sessions."""
    search = getattr(index.keyword, "search_groups", None)
    if search is None:
        return {}
    units = index.units

    def session_of(uid: str) -> str | None:
        u = units.get(uid)
        return None if u is None else u.session_id

    return dict(search(query, n_sessions, session_of))


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
    with a good candidate is found even when it shares no words with the query. Top ``n`` turns,
    derived units ranked among them riding along (:func:`_n_turns`).
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
        idf = graph.entity_idf(key)
        for uid in graph.entity_units(key, ("mentions",)):
            spread = w - max(seeds.get(uid, 0.0), 0.0) * idf  # a seed is not its own evidence
            if spread > 1e-12:
                act[uid] = act.get(uid, 0.0) + 0.5 * spread
    return _n_turns(_in_stable_order(list(act.items()), index, 2 * n), index, n)


def temporal_channel(window: tuple[float, float] | None, index: "BankIndex", n: int) -> list[tuple[str, float]]:
    """Units whose ``occurred_at`` or ``mentioned_at`` lies in ``window``, latest first (units of
    one time last captured first: a session's turns share its time), score 1.0."""
    if window is None or n <= 0:
        return []
    start, end = window
    units = index.units
    ids = index.graph.in_window(start, end)  # latest first; equal times in no useful order

    def when(uid: str) -> float:
        unit = units.get(uid)
        times = [t for t in ((unit.mentioned_at, unit.when) if unit is not None else ()) if t is not None and start <= t < end]
        return max(times, default=start)

    head: list[tuple[float, str]] = []
    for uid in ids:  # only the first n and the units tied with the n-th are ordered
        t = when(uid)
        if len(head) >= n and t != head[n - 1][0]:
            break
        head.append((t, uid))
    head.sort(key=lambda tu: (-tu[0], -units[tu[1]].seq if tu[1] in units else 0, tu[1]))
    return [(uid, 1.0) for _, uid in head[:n]]


def feedback_channel(query: str, seeds: Sequence[str], index: "BankIndex", n: int, terms: int = 10,
                     query_weight: float = 0.5) -> list[tuple[str, float]]:
    """Keyword pseudo-relevance feedback (RM3-like): BM25 for the query's terms plus the terms that
    are frequent and rare in the ``seeds`` (the first-stage best units). It is a hop over shared
    words: evidence that shares no word with the question but shares "home country" with the best
    candidate is found. Top ``n`` turns, derived units riding along (:func:`_n_turns`)."""
    kw = index.keyword
    if not seeds or not hasattr(kw, "doc_terms"):
        return []
    weights: dict[str, float] = {}
    for rank, uid in enumerate(seeds):
        tf = kw.doc_terms(uid)
        total = sum(tf.values()) or 1
        for term, c in tf.items():
            weights[term] = weights.get(term, 0.0) + (c / total) * kw.idf(term) / (1.0 + rank)
    top = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:terms]
    norm = sum(w for _, w in top) or 1.0
    bag = {t: (1.0 - query_weight) * w / norm for t, w in top}
    q = kw._query_terms(query)
    qn = sum(q.values()) or 1.0
    for t, c in q.items():
        bag[t] = bag.get(t, 0.0) + query_weight * c / qn
    return _n_turns(kw.search_terms(bag, 2 * n), index, n)


def temporal_score(unit: "IndexedUnit", window: tuple[float, float], slack: float = 2 * 86400.0) -> float:
    """1.0 when the unit's ``when`` or ``mentioned_at`` lies in ``window``, else decaying with the
    distance to it (``exp(-distance / scale)``, scale = ``slack`` or a quarter of the window)."""
    start, end = window
    scale = max(slack, 0.25 * (end - start)) if end - start < 400 * 86400.0 else slack
    best = 0.0
    for t in (unit.when, unit.mentioned_at):
        if start <= t < end:
            return 1.0
        dist = start - t if t < start else t - end
        best = max(best, math.exp(-dist / scale))
    return best


def asks_current(query: str) -> bool:
    """Whether a query asks for the current value of something ("Which port does billing use now?").

    Example:
        >>> asks_current("Where does the catalog api store its data now?"), asks_current("Where is Lisbon?")
        (True, False)
    """
    return bool(_CURRENT.search(query))


def phrase_scores(query: str, ids: Sequence[str], index: "BankIndex") -> np.ndarray:
    """For each unit, the idf of the query's adjacent word pairs it contains, the earlier pairs
    weighing more (the n-th known pair of the query counts ``1/n``).

    A question about the current value names its subject as a phrase, and in English the subject
    comes before the verb ("where does *the catalog service* store its data now?"). The belief
    about that subject contains the phrase, while a near-namesake's update ("the catalog api now
    stores its data") shares a later pair; the pairs tell them apart where the predicate is
    paraphrased.
    """
    kw = index.keyword
    if not hasattr(kw, "doc_terms"):
        return np.zeros(len(ids))
    pairs = [t for t in kw._query_terms(query) if "_" in t]  # in query order, known to the index
    if not pairs:
        return np.zeros(len(ids))
    weight = {t: kw.idf(t) / n for n, t in enumerate(pairs, start=1)}

    def score(uid: str) -> float:
        terms = kw.doc_terms(uid)
        return sum(w for t, w in weight.items() if t in terms)

    return np.fromiter((score(i) for i in ids), dtype=np.float64, count=len(ids))
