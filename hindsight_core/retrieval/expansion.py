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

Words enter the vocabulary off the recall path: after a capture stores units, and when a recall
finds the vocabulary behind the bank (a bank opened without a snapshot, an import), the bank's
background queue runs :func:`hindsight_core._expansion_ops.learn_vocabulary`, which embeds the new
units' words in chunks of ``LEARN_CHUNK`` (:meth:`Vocabulary.missing_at_most`). A recall embeds
only the question's own words the bank does not use, in the same model call as the question, and
expands from the words learnt so far. The vocabulary is kept with the bank's snapshot
(:meth:`Vocabulary.export_columns`), so a large bank reopens with it. A 600-turn conversation holds
about 2,000 distinct words; kept as float32, 1.5 KB each with 384 dimensions, for as long as the
bank's index is open.

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

import functools
import re
import threading
import weakref
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from hindsight_core.storage.keyword import STOPWORDS, tokenize

__all__ = ["Vocabulary", "ExpansionPlan", "plan_expansion", "vocabulary_of", "query_words", "unit_words", "expand",
           "MIN_WORD_CHARS", "LEARN_CHUNK"]

#: Words shorter than this are neither expanded nor added ("ok", "yo"): their vectors are noise.
MIN_WORD_CHARS = 3
#: New vocabulary words one background model call embeds at most: one-word texts cost the model
#: about 0.5 ms each on a busy 2-core CPU, so a chunk holds the model for about 30 ms and a
#: recall's own model call never queues long behind the learning of a big bank's vocabulary.
LEARN_CHUNK = 64
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
        self._queued = False  # a background job is learning (or about to learn) this bank's words

    def __len__(self) -> int:
        return len(self._stems)

    def behind(self, revision: object) -> bool:
        """Whether units may have been stored since the last complete :meth:`learn` (always True
        for an unknown ``revision``)."""
        return revision is None or revision != self._revision

    def claim(self) -> bool:
        """True once, until :meth:`release`: the caller queues the one background job that learns."""
        with self._lock:
            if self._queued:
                return False
            self._queued = True
            return True

    def release(self) -> None:
        """The background job that :meth:`claim` queued has ended (or was not queued)."""
        with self._lock:
            self._queued = False

    def export_columns(self, unit_ids: Sequence[str]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """``({"stems": [...]}, {"vectors": float32 rows, "seen": bool per unit of unit_ids})``, for a
        bank snapshot: plain data only (see :mod:`hindsight_core.storage.snapshot`)."""
        with self._lock:
            if len(self._blocks) > 1:
                self._blocks = [np.vstack(self._blocks)]
            vectors = self._blocks[0] if self._blocks else np.zeros((0, 0), dtype=np.float32)
            seen = np.fromiter((uid in self._seen for uid in unit_ids), dtype=bool, count=len(unit_ids))
            return {"stems": list(self._stems)}, {"vectors": vectors, "seen": seen}

    def import_columns(self, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray], unit_ids: Sequence[str],
                       dim: int) -> None:
        """Install what :meth:`export_columns` gave for the bank's ``unit_ids`` (vectors of ``dim``);
        raises ``ValueError`` on a malformed part, leaving the vocabulary as it was."""
        stems, vectors, seen = meta["stems"], arrays["vectors"], arrays["seen"]
        if not isinstance(stems, list) or not all(isinstance(x, str) and x for x in stems) or len(set(stems)) != len(stems):
            raise ValueError("vocabulary stems are not distinct non-empty strings")
        if stems and (vectors.dtype != np.float32 or vectors.shape != (len(stems), dim)):
            raise ValueError(f"vocabulary vectors of shape {vectors.shape}, not {(len(stems), dim)}")
        if seen.dtype != bool or seen.shape != (len(unit_ids),):
            raise ValueError("vocabulary's unit mask does not match the bank's units")
        with self._lock:
            self._stems, self._known = list(stems), set(stems)
            self._blocks = [vectors] if stems else []
            self._seen = {uid for uid, was in zip(unit_ids, seen.tolist()) if was}
            self._revision = None  # the next recall checks for units it has not seen

    def missing(self, units: Mapping[str, Any], revision: object = None) -> tuple[list[str], list[str]]:
        """``(words, unit ids)``: the words of ``units`` (id -> object with ``.text``) not in the
        vocabulary yet, one surface form per new stem, and the ids they came from (hand both to
        :meth:`learn` with the words' vectors). ``revision`` (the index revision) skips the scan
        when nothing changed since the last :meth:`learn`."""
        words, ids, _ = self.missing_at_most(units, revision, limit=None)
        return words, ids

    def missing_at_most(self, units: Mapping[str, Any], revision: object = None,
                        limit: int | None = LEARN_CHUNK) -> tuple[list[str], list[str], bool]:
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


@functools.lru_cache(maxsize=65_536)  # a bank's words repeat: learning a 600-turn bank stems ~6,000 words
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

    :func:`plan_expansion` lists the texts (the question's words the bank does not use: a word it
    uses has its vector kept); the caller embeds them in the same model call as the question and
    hands the vectors to :meth:`finish`, which returns the extra keyword terms. ``behind`` says the
    vocabulary has not learnt every stored unit yet (queue the background learning).
    """

    __slots__ = ("vocab", "words", "known", "behind")

    def __init__(self, vocab: Vocabulary, words: list[str], behind: bool = False,
                 kept: Callable[[list[str]], list[np.ndarray | None]] | None = None) -> None:
        self.vocab = vocab
        self.words = words
        # a question word the bank already uses is not embedded again: its kept vector stands for
        # it; ``kept`` looks the others up among word vectors embedded before (any bank's)
        self.known = {w: v for w in words if (v := vocab.vector_of(w)) is not None}
        if kept is not None and len(self.known) < len(words):
            rest = [w for w in words if w not in self.known]
            self.known.update((w, v) for w, v in zip(rest, kept(rest)) if v is not None)
        self.behind = behind

    @property
    def texts(self) -> list[str]:
        """The texts to embed, in the order :meth:`finish` expects their vectors: the question's
        words the bank does not use."""
        return [w for w in self.words if w not in self.known]

    def finish(self, vectors: np.ndarray, keyword: Any, cfg: Any) -> dict[str, float]:
        """``{stem: weight}`` for the keyword query; ``vectors`` are :attr:`texts`' rows, ``keyword``
        the bank's :class:`~hindsight_core.storage.keyword.KeywordIndex`, ``cfg`` its
        :class:`~hindsight_core.retrieval.config.RecallConfig`."""
        if not self.words:
            return {}
        count = len(self.texts)
        fresh = iter(np.asarray(vectors, dtype=np.float32).reshape(count, -1) if count else ())
        own = np.stack([self.known[w] if w in self.known else next(fresh) for w in self.words])
        return expand(self.words, own, self.vocab, terms=cfg.expansion_terms, min_cosine=cfg.expansion_min_cosine,
                      weight=cfg.expansion_weight, document_frequency=keyword.document_frequency, max_df=cfg.expansion_max_df)


def plan_expansion(query: str, index: Any, speakers: Iterable[str], revision: object = None,
                   kept: Callable[[list[str]], list[np.ndarray | None]] | None = None) -> ExpansionPlan:
    """The :class:`ExpansionPlan` of ``query`` on ``index`` (a bank index), under the bank's read
    lock; ``revision`` is the index revision when it has one (``behind`` is True without one);
    ``kept(words)`` gives the vectors of words embedded before (None for the others)."""
    vocab = vocabulary_of(index)
    return ExpansionPlan(vocab, query_words(query, speakers), vocab.behind(revision), kept)
