"""Keyword query expansion from the bank's own vocabulary, by word-vector cosine.

"What activities does Melanie partake in?" is answered by turns about pottery, camping and
swimming, none of which says "activities"; "What do Melanie's kids like?" by one about a dinosaur
exhibit. BM25 matches only the question's own words. Each word of the bank's vocabulary is
embedded once, as a one-word text, by the bank's embedder (:class:`Vocabulary`); a recall embeds
the question's content words in the same call as the question, and every question word adds the
bank words closest to it (cosine at least ``RecallConfig.expansion_min_cosine``, at most
``expansion_terms`` of them) to the keyword query, weighted ``expansion_weight * cosine``
(:func:`expand`; BM25 over a weighted bag of terms). Only words the bank uses are ever added, so
an expansion always matches something, and a word used by more than ``expansion_max_df`` units
(a chat filler) is never added.

Words enter the vocabulary lazily: a recall embeds the words of the units stored since the
previous recall (:meth:`Vocabulary.missing`, in the same model call as the query), so the write
path pays nothing. A recall learns at most ``LEARN_PER_RECALL`` new words, so after a large import
or a cold open the vocabulary fills over the next few recalls instead of stalling the first one
(a 600-turn conversation holds about 2,000 distinct words; kept as float32, 1.5 KB each with
384 dimensions, for as long as the bank's index is open).

Example:
    >>> from hindsight_core.testing import HashEmbedder
    >>> vocab = Vocabulary()
    >>> vocab.learn(["pottery", "camping", "budget"], HashEmbedder().embed(["pottery", "camping", "budget"]))
    >>> len(vocab)
    3
    >>> query_words("What activities does Melanie partake in?", {"melanie"})
    ['activities', 'partake']
"""

from __future__ import annotations

import re
import threading
import weakref
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from hindsight_core.storage.keyword import STOPWORDS, tokenize

__all__ = ["Vocabulary", "ExpansionPlan", "plan_expansion", "vocabulary_of", "query_words", "unit_words", "expand",
           "MIN_WORD_CHARS", "LEARN_PER_RECALL"]

#: Words shorter than this are neither expanded nor added ("ok", "yo"): their vectors are noise.
MIN_WORD_CHARS = 3
#: New vocabulary words one recall embeds at most: one-word texts cost the model about 0.5 ms each
#: on a busy 2-core CPU, so this bounds what a recall after a cold open of a big bank pays (a
#: 100,000-unit bank has tens of thousands of words); the rest are learnt by the next recalls.
LEARN_PER_RECALL = 256
_WORD = re.compile(r"[a-z]+")
_VOCABULARIES: "weakref.WeakKeyDictionary[Any, Vocabulary]" = weakref.WeakKeyDictionary()
_REGISTRY_LOCK = threading.Lock()


def _content_words(text: str) -> list[str]:
    """Lower-case alphabetic words of ``text`` that are not stopwords, in order, without repeats."""
    out = dict.fromkeys(w for w in _WORD.findall(text.lower()) if len(w) >= MIN_WORD_CHARS and w not in STOPWORDS)
    return list(out)


def query_words(query: str, speakers: Iterable[str] = ()) -> list[str]:
    """The words of ``query`` worth expanding: content words, not the bank's speakers' names."""
    names = {s.lower() for s in speakers}
    return [w for w in _content_words(query) if w not in names]


def unit_words(text: str) -> list[str]:
    """The vocabulary words a unit's ``text`` contributes (content words)."""
    return _content_words(text)


class Vocabulary:
    """A bank's words and their vectors, keyed by their stem: the first surface form of a stem seen
    stands for it. Thread-safe: concurrent recalls may learn at the same time (a word both embed
    is kept once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stems: list[str] = []
        self._known: set[str] = set()
        self._blocks: list[np.ndarray] = []  # float32 rows, joined on the next search
        self._seen: set[str] = set()  # unit ids whose words are in the vocabulary
        self._revision: object = None

    def __len__(self) -> int:
        return len(self._stems)

    def missing(self, units: Mapping[str, Any], revision: object = None) -> tuple[list[str], list[str]]:
        """``(words, unit ids)``: the words of ``units`` (id -> object with ``.text``) not in the
        vocabulary yet, one surface form per new stem, and the ids they came from (hand both to
        :meth:`learn` with the words' vectors). ``revision`` (the index revision) skips the scan
        when nothing changed since the last :meth:`learn`."""
        words, ids, _ = self.missing_at_most(units, revision, limit=None)
        return words, ids

    def missing_at_most(self, units: Mapping[str, Any], revision: object = None,
                        limit: int | None = LEARN_PER_RECALL) -> tuple[list[str], list[str], bool]:
        """:meth:`missing` for the units whose new words fit in ``limit`` (None: all of them), and
        whether that covered every unit not collected yet (hand ``revision`` to :meth:`learn` only
        then, so the next call scans for the rest). The first unit is always taken whole."""
        with self._lock:
            if revision is not None and revision == self._revision:
                return [], [], True
            new_ids = [uid for uid in units if uid not in self._seen]
            pending: dict[str, str] = {}
            taken: list[str] = []
            for uid in new_ids:
                fresh = {}
                for word in unit_words(units[uid].text):
                    stem = _stem_of(word)
                    if stem and stem not in self._known and stem not in pending:
                        fresh.setdefault(stem, word)
                if limit is not None and taken and len(pending) + len(fresh) > limit:
                    return list(pending.values()), taken, False
                pending.update(fresh)
                taken.append(uid)
            return list(pending.values()), taken, True

    def learn(self, words: Sequence[str], vectors: np.ndarray, unit_ids: Iterable[str] = (),
              revision: object = None) -> None:
        """Add ``words`` with their (unit-normalised) ``vectors`` (known stems are ignored) and mark
        ``unit_ids`` as collected, as of the index ``revision``."""
        rows = np.asarray(vectors, dtype=np.float32).reshape(len(words), -1) if len(words) else None
        with self._lock:
            keep = []
            for n, word in enumerate(words):
                stem = _stem_of(word)
                if stem and stem not in self._known:
                    self._known.add(stem)
                    self._stems.append(stem)
                    keep.append(n)
            if keep and rows is not None:
                self._blocks.append(rows[keep])
            self._seen.update(unit_ids)
            if revision is not None:
                self._revision = revision

    def vector_of(self, word: str) -> np.ndarray | None:
        """The vector kept for ``word``'s stem, or None when the bank does not use the word."""
        stem = _stem_of(word)
        with self._lock:
            if stem not in self._known:
                return None
            if len(self._blocks) > 1:
                self._blocks = [np.vstack(self._blocks)]
            return self._blocks[0][self._stems.index(stem)]

    def nearest(self, vector: np.ndarray, n: int, min_cosine: float) -> list[tuple[str, float]]:
        """Up to ``n`` stems whose word's cosine with ``vector`` is at least ``min_cosine``, best first."""
        with self._lock:
            if not self._blocks:
                return []
            if len(self._blocks) > 1:
                self._blocks = [np.vstack(self._blocks)]
            matrix, stems = self._blocks[0], self._stems
        sims = matrix @ np.asarray(vector, dtype=np.float32).reshape(-1)
        take = min(n, len(sims))
        top = np.argpartition(-sims, take - 1)[:take]
        out = [(stems[j], float(sims[j])) for j in top.tolist() if sims[j] >= min_cosine]
        out.sort(key=lambda kv: (-kv[1], kv[0]))
        return out


def _stem_of(word: str) -> str:
    toks = tokenize(word)
    return toks[0] if len(toks) == 1 else ""


def vocabulary_of(index: object) -> Vocabulary:
    """The :class:`Vocabulary` kept for one bank index (created empty on first use, dropped with it)."""
    with _REGISTRY_LOCK:
        vocab = _VOCABULARIES.get(index)
        if vocab is None:
            vocab = _VOCABULARIES[index] = Vocabulary()
        return vocab


def expand(words: Sequence[str], vectors: np.ndarray, vocab: Vocabulary, *, terms: int, min_cosine: float,
           weight: float, document_frequency: Any = None, max_df: int | None = None) -> dict[str, float]:
    """Extra keyword-query terms ``{stem: weight}`` for the question ``words`` (with their
    ``vectors``): for each word, its ``terms`` nearest bank words at ``min_cosine`` or more, other
    than its own stem, weighted ``weight * cosine`` (a stem reached from two words keeps the larger
    weight). ``document_frequency(stem)``, when given, drops stems used by more than ``max_df`` units."""
    out: dict[str, float] = {}
    own = {_stem_of(w) for w in words}
    for word, vec in zip(words, np.asarray(vectors, dtype=np.float32).reshape(len(words), -1) if len(words) else ()):
        for stem, cos in vocab.nearest(vec, terms + 1, min_cosine):  # +1: the word itself is usually nearest
            if stem in own:
                continue
            if document_frequency is not None and max_df is not None and document_frequency(stem) > max_df:
                continue
            out[stem] = max(out.get(stem, 0.0), weight * cos)
    return out


class ExpansionPlan:
    """What one recall must embed for its expansion, and how it turns the vectors into terms.

    :func:`plan_expansion` lists the texts (the question's words, then the vocabulary words not yet
    embedded); the caller embeds them in the same model call as the question and hands the vectors
    to :meth:`finish`, which learns the new words and returns the extra keyword terms.
    """

    __slots__ = ("vocab", "words", "known", "missing", "unit_ids", "revision")

    def __init__(self, vocab: Vocabulary, words: list[str], missing: list[str], unit_ids: list[str],
                 revision: object) -> None:
        self.vocab = vocab
        self.words = words
        # a question word the bank already uses is not embedded again: its kept vector stands for it
        self.known = {w: v for w in words if (v := vocab.vector_of(w)) is not None}
        self.missing = missing
        self.unit_ids = unit_ids
        self.revision = revision

    @property
    def texts(self) -> list[str]:
        """The texts to embed, in the order :meth:`finish` expects their vectors: the question's
        words the bank does not use, then the bank's words not embedded yet."""
        return [w for w in self.words if w not in self.known] + self.missing

    def finish(self, vectors: np.ndarray, keyword: Any, cfg: Any) -> dict[str, float]:
        """Learn the new vocabulary words and return ``{stem: weight}`` for the keyword query;
        ``keyword`` is the bank's :class:`~hindsight_core.storage.keyword.KeywordIndex`, ``cfg`` its
        :class:`~hindsight_core.retrieval.config.RecallConfig`."""
        vectors = np.asarray(vectors, dtype=np.float32)
        n = len(self.words) - len(self.known)
        self.vocab.learn(self.missing, vectors[n:], self.unit_ids, self.revision)
        if not self.words:
            return {}
        fresh = iter(vectors[:n])
        own = np.stack([self.known[w] if w in self.known else next(fresh) for w in self.words])
        return expand(self.words, own, self.vocab, terms=cfg.expansion_terms, min_cosine=cfg.expansion_min_cosine,
                      weight=cfg.expansion_weight, document_frequency=keyword.document_frequency, max_df=cfg.expansion_max_df)


def plan_expansion(query: str, index: Any, speakers: Iterable[str], revision: object = None) -> ExpansionPlan:
    """The :class:`ExpansionPlan` of ``query`` on ``index`` (a bank index: ``units`` by id); call it
    under the bank's read lock. ``revision`` is the index revision when it has one (skips the scan
    for new units when nothing changed)."""
    vocab = vocabulary_of(index)
    missing, unit_ids, complete = vocab.missing_at_most(index.units, revision)
    return ExpansionPlan(vocab, query_words(query, speakers), missing, unit_ids, revision if complete else None)
