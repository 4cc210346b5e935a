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
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

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
        # A document's term counts; an int ``row`` instead: still the loaded snapshot's row (see _doc).
        self._terms: list[dict[str, int] | int | None] = []
        self._group_of: list[str | None] = []
        self._free: list[int] = []
        self._len = np.zeros(64, dtype=np.float64)
        self._total_len = 0.0
        # term -> {slot: tf}; an int ``row`` instead: still the loaded snapshot's row (see _posting).
        self._postings: dict[str, dict[int, int] | int] = {}
        self._base: _Base | None = None  # what a snapshot loaded, read in place until a write changes it
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
            self._editable(term)[slot] = n
        if group is not None:
            self._groups.setdefault(group, set()).add(slot)

    def remove(self, doc_id: str) -> None:
        """Forget ``doc_id``; unknown ids are ignored."""
        slot = self._slot.pop(doc_id, None)
        if slot is None:
            return
        self._version += 1
        for term in self._doc(slot):
            if term in self._postings:
                plist = self._editable(term)
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

    def search(self, query: str, k: int, *, ties: bool = False) -> list[tuple[str, float]]:
        """Top ``k`` documents by BM25, best first, as ``(doc_id, score)``; score > 0. With ``ties``,
        also every document tied with the ``k``-th (ties are common: short texts, one rare word)."""
        return self.search_terms(self._query_terms(query), k, ties=ties)

    def doc_terms(self, doc_id: str) -> dict[str, int]:
        """The stemmed term frequencies of a document (empty if unknown)."""
        slot = self._slot.get(doc_id)
        return dict(self._doc(slot)) if slot is not None else {}

    def idf(self, term: str) -> float:
        """BM25 idf of a stemmed term (0.0 if unknown)."""
        df = self._df(term) if term in self._postings else 0
        return self._idf(df, len(self._slot)) if df else 0.0

    def document_frequency(self, term: str) -> int:
        """How many documents hold a stemmed term (0 if unknown)."""
        return self._df(term) if term in self._postings else 0

    def search_terms(self, qtf: dict[str, float], k: int, *, ties: bool = False) -> list[tuple[str, float]]:
        """BM25 for a weighted bag of stemmed terms (e.g. a query expanded by feedback); ``ties`` as
        in :meth:`search`."""
        n = len(self._slot)
        qtf = {t: w for t, w in qtf.items() if t in self._postings}
        if not n or not qtf or k <= 0:
            return []
        avgdl = max(self._total_len / n, 1e-9)
        size = len(self._ids)
        norm = self.k1 * (1.0 - self.b + self.b * self._len[:size] / avgdl)
        scores = np.zeros(size, dtype=np.float64)
        for term, qn in qtf.items():
            slots, tfs = self._posting(term)
            idf = self._idf(len(slots), n)
            scores[slots] += qn * idf * tfs * (self.k1 + 1.0) / (tfs + norm[slots])
        return self._top(scores, k, self._ids, ties)

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
            slots, tfs = self._posting(term)
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
    def _top(scores: np.ndarray, k: int, names: "list[str | None] | list[str]",
             ties: bool = False) -> list[tuple[str, float]]:
        """The ``k`` best-scoring names, ties by name (deterministic across rebuilds); with ``ties``,
        every name tied with the ``k``-th as well, for a caller that breaks ties its own way."""
        hits = np.flatnonzero(scores > 0)
        if not len(hits):
            return []
        if len(hits) > k and ties:
            kth = np.partition(scores[hits], len(hits) - k)[len(hits) - k]
            hits = hits[scores[hits] >= kth]
        elif len(hits) > k:
            hits = hits[np.argpartition(-scores[hits], k - 1)[:k]]
        out = [(names[i], float(scores[i])) for i in hits.tolist()]
        out.sort(key=lambda kv: (-kv[1], kv[0]))
        return out  # type: ignore[return-value]

    def ids(self) -> Iterable[str]:
        return iter(self._slot)

    # -- loaded state, read in place ------------------------------------------------------------
    def _doc(self, slot: int, *, keep: bool = True) -> dict[str, int]:
        """The term counts of the document in ``slot`` (built from the snapshot rows on first use)."""
        tf = self._terms[slot]
        if type(tf) is int:
            base = self._base
            assert base is not None
            a, b = base.doc_ptr[tf], base.doc_ptr[tf + 1]
            tf = dict(zip(map(base.vocab.__getitem__, base.doc_term[a:b].tolist()), base.doc_tf[a:b].tolist()))
            if keep:
                self._terms[slot] = tf
        return tf or {}

    def _posting(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """(slots, term frequencies as floats) of a known term."""
        plist = self._postings[term]
        if type(plist) is int:
            base = self._base
            assert base is not None
            a, b = base.post_ptr[plist], base.post_ptr[plist + 1]
            return base.post_slot[a:b], base.post_tf[a:b]
        return (np.fromiter(plist.keys(), dtype=np.int64, count=len(plist)),
                np.fromiter(plist.values(), dtype=np.float64, count=len(plist)))

    def _df(self, term: str) -> int:
        plist = self._postings[term]
        if type(plist) is int:
            ptr = self._base.post_ptr  # type: ignore[union-attr]
            return ptr[plist + 1] - ptr[plist]
        return len(plist)

    def _editable(self, term: str) -> dict[int, int]:
        """The term's postings as a dict this index may change (a snapshot row is copied out first)."""
        plist = self._postings.get(term)
        if plist is None:
            plist = self._postings[term] = {}
        elif type(plist) is int:
            slots, tfs = self._posting(term)
            plist = self._postings[term] = dict(zip(slots.tolist(), tfs.astype(np.int64).tolist()))
        return plist

    # -- snapshot ------------------------------------------------------------------------------
    def export_columns(self, doc_ids: Sequence[str] | None = None) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """The whole state as (JSON-able values, flat arrays) for a snapshot.

        With ``doc_ids`` (every document here, in some order), the state is laid out as adding them in
        that order to an empty index lays it out (slots, lengths, version), without tokenizing again:
        a snapshot stores that form, so a bank opened from it equals one rebuilt from storage. Postings
        are stored in slot order (the order within a term's postings never changes a score).
        """
        if doc_ids is None:
            slots: Sequence[int] = range(len(self._ids))
            ids, groups, free, order = self._ids, self._group_of, self._free, list(self._slot.values())
            lengths, total, version = self._len, self._total_len, self._version
        else:
            slots = [self._slot[d] for d in doc_ids]
            ids, groups, free, order = list(doc_ids), [self._group_of[s] for s in slots], [], list(range(len(slots)))
            size = len(KeywordIndex()._len)
            while size < len(slots):  # grown as add() grows it
                size *= 2
            lengths = np.zeros(size, dtype=np.float64)
            lengths[:len(slots)] = self._len[list(slots)]
            total = 0.0
            for n in lengths[:len(slots)].tolist():  # summed in add()'s order: the same float
                total += n
            version = len(slots)
        docs = [self._doc(slot, keep=False) for slot in slots]
        # terms in the order adding the documents would first see them (the live order otherwise)
        vocab = list(self._postings) if doc_ids is None else list(dict.fromkeys(t for tf in docs for t in tf))
        code = {t: i for i, t in enumerate(vocab)}
        doc_term: list[int] = []
        doc_tf: list[int] = []
        doc_len: list[int] = []
        for tf in docs:
            doc_term.extend(map(code.__getitem__, tf))
            doc_tf.extend(tf.values())
            doc_len.append(len(tf))
        terms = np.asarray(doc_term, dtype=np.int64)
        by_term = np.argsort(terms, kind="stable")  # each term's postings in slot order
        meta = {"k1": self.k1, "b": self.b, "bigrams": self.bigrams, "ids": ids, "groups": groups, "free": free,
                "total_len": total, "version": version, "order": order, "vocab": vocab}
        arrays = {
            "len": np.asarray(lengths, dtype=np.float64),
            "doc_len": np.asarray(doc_len, dtype=np.int64),
            "doc_term": terms,
            "doc_tf": np.asarray(doc_tf, dtype=np.int64),
            "post_len": np.bincount(terms, minlength=len(vocab)).astype(np.int64),
            "post_slot": np.repeat(np.arange(len(doc_len), dtype=np.int64), doc_len)[by_term],
            "post_tf": np.asarray(doc_tf, dtype=np.int64)[by_term],
        }
        return meta, arrays

    @classmethod
    def from_columns(cls, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> "KeywordIndex":
        """The index :meth:`export_columns` described. Postings and documents' term counts stay in the
        loaded arrays (searched in place) until a write changes them; raises ``ValueError`` when the
        arrays do not fit together."""
        idx = cls(k1=float(meta["k1"]), b=float(meta["b"]), bigrams=bool(meta["bigrams"]))
        vocab = [str(t) for t in meta["vocab"]]
        idx._ids = list(meta["ids"])
        idx._group_of = list(meta["groups"])
        idx._free = [int(s) for s in meta["free"]]
        idx._total_len = float(meta["total_len"])
        idx._version = int(meta["version"])
        idx._len = np.array(arrays["len"], dtype=np.float64)
        idx._slot = {idx._ids[s]: s for s in meta["order"]}  # type: ignore[misc]
        doc_len, post_len = arrays["doc_len"], arrays["post_len"]
        doc_term, post_slot = arrays["doc_term"], arrays["post_slot"]
        sizes_fit = (len(doc_len) == len(idx._ids) == len(idx._group_of) <= len(idx._len) and len(post_len) == len(vocab)
                     and int(doc_len.sum()) == len(doc_term) == len(arrays["doc_tf"])
                     and int(post_len.sum()) == len(post_slot) == len(arrays["post_tf"]))
        in_range = ((not len(doc_term) or 0 <= doc_term.min() <= doc_term.max() < len(vocab))
                    and (not len(post_slot) or 0 <= post_slot.min() <= post_slot.max() < len(idx._ids)))
        if not (sizes_fit and in_range) or None in idx._slot:
            raise ValueError("keyword index columns do not fit together")
        idx._base = _Base(vocab, [0] + np.cumsum(doc_len).tolist(), doc_term, arrays["doc_tf"],
                          [0] + np.cumsum(post_len).tolist(), post_slot, arrays["post_tf"].astype(np.float64))
        idx._terms = [slot if doc is not None else None for slot, doc in enumerate(idx._ids)]
        idx._postings = dict(zip(vocab, range(len(vocab))))
        for slot, group in enumerate(idx._group_of):
            if group is not None and idx._ids[slot] is not None:
                idx._groups.setdefault(group, set()).add(slot)
        return idx


@dataclass(slots=True)
class _Base:
    """A keyword index's postings and document term counts as a snapshot loaded them: rows of flat
    arrays (``ptr[row]:ptr[row + 1]``), read in place so a load builds no per-term dicts."""

    vocab: list[str]
    doc_ptr: list[int]
    doc_term: np.ndarray  # vocab numbers
    doc_tf: np.ndarray
    post_ptr: list[int]
    post_slot: np.ndarray
    post_tf: np.ndarray  # float64, as scoring uses it
