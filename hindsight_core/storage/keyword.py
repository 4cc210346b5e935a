"""Incremental BM25 keyword index (stemmed, stopwords removed).

Documents are added and removed one at a time; nothing is rebuilt. Postings are plain dicts
(``term -> {slot: tf}``) and scoring is vectorised with numpy per query term, so a query costs
O(sum of the query terms' posting lengths) and an add costs O(document length).

Documents may carry a ``group`` (the engine passes the unit's session): :meth:`KeywordIndex.search_groups`
scores whole groups as if their documents were concatenated ("session-level BM25").

Example:
    >>> idx = KeywordIndex()
    >>> idx.add("a", "The deploy failed with HTTP 503")
    >>> idx.add("b", "Lunch was great")
    >>> [doc for doc, _ in idx.search("why did deploys fail?", k=5)]
    ['a']
"""

from __future__ import annotations

import math
import re
from typing import Callable, Iterable

import numpy as np

__all__ = ["KeywordIndex", "tokenize", "cjk_bigrams", "STOPWORDS"]

#: English stopwords plus chat filler; removed before stemming.
STOPWORDS = frozenset(
    """
a about above after again against all am an and any are aren't as at be because been before being
below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down
during each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here
here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself
let's me more most mustn't my myself no nor not of off on once only or other ought our ours ourselves
out over own same shan't she she'd she'll she's should shouldn't so some such than that that's the
their theirs them themselves then there there's these they they'd they'll they're they've this those
through to too under until up very was wasn't we we'd we'll we're we've were weren't what what's when
when's where where's which while who who's whom why why's with won't would wouldn't you you'd you'll
you're you've your yours yourself yourselves s t d ll m ve re also just said says say did does
""".split()
)
#: Scripts written without spaces between words: Han (CJK unified ideographs and extension A,
#: compatibility ideographs), Japanese kana and Korean Hangul syllables.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_TOKEN = re.compile(rf"[a-z0-9]+(?:'[a-z]+)?|[{_CJK}]+")
_CJK_RUN = re.compile(rf"[{_CJK}]")


class _Stemmer:
    """PyStemmer when installed, identity otherwise; memoised per word."""

    def __init__(self) -> None:
        try:
            import Stemmer  # type: ignore[import-not-found]

            self._stem = Stemmer.Stemmer("english").stemWord
        except ImportError:  # pragma: no cover - PyStemmer is a core dependency
            self._stem = lambda w: w
        self._cache: dict[str, str] = {}

    def __call__(self, word: str) -> str:
        out = self._cache.get(word)
        if out is None:
            out = self._stem(word)
            if len(self._cache) < 200_000:
                self._cache[word] = out
        return out


_STEM = _Stemmer()


def with_bigrams(tokens: list[str]) -> list[str]:
    """Tokens plus adjacent pairs ("inventori_api"): a named subject of several words matches as
    a phrase, so "inventory api" is not confused with "inventory service"."""
    return tokens + [f"{a}_{b}" for a, b in zip(tokens, tokens[1:])]


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character pairs of a run of CJK characters (a lone character stays itself).

    Chinese and Japanese put no spaces between words, and a dictionary segmenter needs a
    dictionary; overlapping bigrams need none and match most two-character words (the approach of
    Lucene's CJK analyzer).

    Example:
        >>> cjk_bigrams("我的猫")
        ['我的', '的猫']
    """
    if len(run) == 1:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens, stopwords dropped, possessives stripped, stemmed; runs of CJK
    characters become overlapping character bigrams.

    Example:
        >>> tokenize("我的猫叫小白 and Bob's cats")
        ['我的', '的猫', '猫叫', '叫小', '小白', 'bob', 'cat']
    """
    out: list[str] = []
    for tok in _TOKEN.findall(text.lower()):
        if _CJK_RUN.match(tok):
            out.extend(cjk_bigrams(tok))
            continue
        if tok in STOPWORDS:
            continue
        if "'" in tok:
            tok = tok.split("'", 1)[0]
            if not tok or tok in STOPWORDS:
                continue
        out.append(_STEM(tok))
    return out


class KeywordIndex:
    """Okapi BM25 over documents added one at a time.

    Args:
        k1: term-frequency saturation.
        b: length normalisation.
    """

    def __init__(self, k1: float = 1.2, b: float = 0.75, bigrams: bool = True) -> None:
        self.k1 = k1
        self.b = b
        self.bigrams = bigrams
        self._slot: dict[str, int] = {}
        self._ids: list[str | None] = []
        self._terms: list[dict[str, int] | None] = []
        self._group_of: list[str | None] = []
        self._free: list[int] = []
        self._len = np.zeros(64, dtype=np.float64)
        self._total_len = 0.0
        self._postings: dict[str, dict[int, int]] = {}
        self._groups: dict[str, set[int]] = {}
        self._version = 0
        self._gcache: tuple[tuple[int, bool], tuple[list[str], np.ndarray, np.ndarray]] | None = None

    # -- maintenance -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._slot)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._slot

    def add(self, doc_id: str, text: str, group: str | None = None) -> None:
        """Index ``text`` under ``doc_id`` (replacing an earlier text of the same id)."""
        if doc_id in self._slot:
            self.remove(doc_id)
        self._version += 1
        tf: dict[str, int] = {}
        words = tokenize(text)
        for tok in with_bigrams(words) if self.bigrams else words:
            tf[tok] = tf.get(tok, 0) + 1
        if self._free:
            slot = self._free.pop()
            self._ids[slot], self._terms[slot], self._group_of[slot] = doc_id, tf, group
        else:
            slot = len(self._ids)
            self._ids.append(doc_id)
            self._terms.append(tf)
            self._group_of.append(group)
            if slot >= len(self._len):
                self._len = np.concatenate([self._len, np.zeros(len(self._len), dtype=np.float64)])
        self._slot[doc_id] = slot
        length = float(len(words))  # pairs do not lengthen a document
        self._len[slot] = length
        self._total_len += length
        for term, n in tf.items():
            self._postings.setdefault(term, {})[slot] = n
        if group is not None:
            self._groups.setdefault(group, set()).add(slot)

    def remove(self, doc_id: str) -> None:
        """Forget ``doc_id``; unknown ids are ignored."""
        slot = self._slot.pop(doc_id, None)
        if slot is None:
            return
        self._version += 1
        tf = self._terms[slot] or {}
        for term in tf:
            plist = self._postings.get(term)
            if plist is not None:
                plist.pop(slot, None)
                if not plist:
                    del self._postings[term]
        group = self._group_of[slot]
        if group is not None:
            members = self._groups.get(group)
            if members is not None:
                members.discard(slot)
                if not members:
                    del self._groups[group]
        self._total_len -= self._len[slot]
        self._len[slot] = 0.0
        self._ids[slot], self._terms[slot], self._group_of[slot] = None, None, None
        self._free.append(slot)

    def group_of(self, doc_id: str) -> str | None:
        slot = self._slot.get(doc_id)
        return None if slot is None else self._group_of[slot]

    # -- search --------------------------------------------------------------------------------
    def _query_terms(self, query: str) -> dict[str, float]:
        qtf: dict[str, float] = {}
        words = tokenize(query)
        for tok in with_bigrams(words) if self.bigrams else words:
            if tok in self._postings:
                qtf[tok] = qtf.get(tok, 0) + 1
        return qtf

    def _idf(self, df: int, n: int) -> float:
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """Top ``k`` documents by BM25, best first, as ``(doc_id, score)``; score > 0."""
        return self.search_terms(self._query_terms(query), k)

    def doc_terms(self, doc_id: str) -> dict[str, int]:
        """The stemmed term frequencies of a document (empty if unknown)."""
        slot = self._slot.get(doc_id)
        return dict(self._terms[slot] or {}) if slot is not None else {}

    def idf(self, term: str) -> float:
        """BM25 idf of a stemmed term (0.0 if unknown)."""
        plist = self._postings.get(term)
        return self._idf(len(plist), len(self._slot)) if plist else 0.0

    def document_frequency(self, term: str) -> int:
        """How many documents hold a stemmed term (0 if unknown)."""
        plist = self._postings.get(term)
        return len(plist) if plist else 0

    def search_terms(self, qtf: dict[str, float], k: int) -> list[tuple[str, float]]:
        """BM25 for a weighted bag of stemmed terms (e.g. a query expanded by feedback)."""
        n = len(self._slot)
        qtf = {t: w for t, w in qtf.items() if t in self._postings}
        if not n or not qtf or k <= 0:
            return []
        avgdl = max(self._total_len / n, 1e-9)
        size = len(self._ids)
        norm = self.k1 * (1.0 - self.b + self.b * self._len[:size] / avgdl)
        scores = np.zeros(size, dtype=np.float64)
        for term, qn in qtf.items():
            plist = self._postings[term]
            slots = np.fromiter(plist.keys(), dtype=np.int64, count=len(plist))
            tfs = np.fromiter(plist.values(), dtype=np.float64, count=len(plist))
            idf = self._idf(len(plist), n)
            scores[slots] += qn * idf * tfs * (self.k1 + 1.0) / (tfs + norm[slots])
        return self._top(scores, k, self._ids)

    def _group_table(self, group_of: Callable[[str], str | None] | None) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(group names, slot -> group number or -1, group lengths), cached until the next change."""
        key = (self._version, group_of is not None)
        if self._gcache is not None and self._gcache[0] == key:
            return self._gcache[1]
        size = len(self._ids)
        gindex: dict[str, int] = {}
        slot_group = np.full(size, -1, dtype=np.int64)
        for slot, doc in enumerate(self._ids):
            if doc is None:
                continue
            g = self._group_of[slot]
            if g is None and group_of is not None:
                g = group_of(doc)
            if g is not None:
                slot_group[slot] = gindex.setdefault(g, len(gindex))
        live = slot_group >= 0
        glen = np.bincount(slot_group[live], weights=self._len[:size][live], minlength=len(gindex))
        table = (list(gindex), slot_group, glen)
        self._gcache = (key, table)
        return table

    def search_groups(self, query: str, k: int,
                      group_of: Callable[[str], str | None] | None = None) -> list[tuple[str, float]]:
        """Top ``k`` groups by BM25 over each group's concatenated documents, best first.

        Documents added without a group are grouped by ``group_of(doc_id)`` when it is given.
        """
        qtf = self._query_terms(query)
        if not qtf or (not self._groups and group_of is None):
            return []
        names, slot_group, glen = self._group_table(group_of)
        ng = len(names)
        if not ng:
            return []
        avg = max(float(glen.mean()), 1e-9)
        norm = self.k1 * (1.0 - self.b + self.b * glen / avg)
        scores = np.zeros(ng, dtype=np.float64)
        for term, qn in qtf.items():
            plist = self._postings[term]
            slots = np.fromiter(plist.keys(), dtype=np.int64, count=len(plist))
            tfs = np.fromiter(plist.values(), dtype=np.float64, count=len(plist))
            g = slot_group[slots]
            keep = g >= 0
            gtf = np.bincount(g[keep], weights=tfs[keep], minlength=ng)
            df = int(np.count_nonzero(gtf))
            idf = self._idf(df, ng)
            scores += qn * idf * gtf * (self.k1 + 1.0) / (gtf + norm)
        return self._top(scores, k, names)

    def group_members(self, group: str) -> list[str]:
        """Ids of the documents in ``group`` (unordered)."""
        return [self._ids[s] for s in self._groups.get(group, ()) if self._ids[s] is not None]  # type: ignore[misc]

    @staticmethod
    def _top(scores: np.ndarray, k: int, names: "list[str | None] | list[str]") -> list[tuple[str, float]]:
        hits = np.flatnonzero(scores > 0)
        if not len(hits):
            return []
        if len(hits) > k:
            part = np.argpartition(-scores[hits], k - 1)[:k]
            hits = hits[part]
        out = [(names[i], float(scores[i])) for i in hits.tolist()]
        out.sort(key=lambda kv: (-kv[1], kv[0]))  # ties by id: deterministic across rebuilds
        return out  # type: ignore[return-value]

    def ids(self) -> Iterable[str]:
        return iter(self._slot)
