"""A learned judge of two active statements at recall: does the later one answer in place of the earlier?

The rules of :mod:`~hindsight_core.lifecycle.rivals` fire only when the later text repeats the
question's words. People reword the subject ("my manager" / "I report to Tomasz now", "trash pickup"
/ "the bins"), so most real changes stated without a cue pass them by. This judge reads the same
pair (earlier statement, later text, question) through 19 signals and weighs them with a
logistic model fitted on knowledge-update sets written by many hands (``python -m
benchmarks.rival_model`` fits it and reports leave-one-set-out figures; the weights live in
:mod:`~hindsight_core.lifecycle._rival_weights`).

It never overrides the look-alike cues: a later text that as a whole asks, plans, supposes, denies
or adds (:mod:`~hindsight_core.lifecycle.update_cues`) is no candidate; nor is an earlier text with
no one statement the question asks about (a chat turn, a story: a note of several sentences is read
as its asked sentence, :func:`~hindsight_core.lifecycle.rivals.asked_statement`), nor a question
about a past event ("When did ..."), nor the speaker's own fact against another person's ("I prefer mornings" / "Chris told me
he prefers afternoons"), nor one of a numbered series against its sibling ("U12 match" / "U14 game"),
nor another of a kind as capture reads it (another instance, another branch of a named business, the
same kind placed elsewhere), nor a later text naming another fact's value as the one it replaces, nor
one naming another one of the kind in place of a name the question asks by ("Studio B" for "Studio A").
The signals:

- how close the three texts are (cosines of the stored vectors), and whether the earlier statement
  is the one of the earlier candidates closest to the question and to the later text;
- cues of a change ("moved", "now", "sorry, I meant"), of a one-off ("this week instead", "for the
  next five days"), of a look-alike clause inside a longer message;
- whether a value of the earlier kind comes back changed (numbers, places, strong slots such as a
  port or a date, an opposite attitude) and how many new words the later text brings;
- whether the later text is about another owner or another subject ("their plan", "Ben's flight"
  for a question about Mia's).

Weights were fitted with the bundled MiniLM embedder; with another embedder the cosines read on
another scale. ``RecallConfig.present_judge=False`` turns the judge off.

Example:
    >>> p = probability("My manager is Priya Raman.",
    ...                 "After the reorg I report to Tomasz now; Priya moved over to the data platform group.",
    ...                 "Who is my manager?", Closeness(0.62, 0.35, 0.52, True, True))
    >>> 0.0 <= p <= 1.0
    True
    >>> probability("I drink my tea with honey.", "should I try lemon in my tea?", "How do I drink my tea?",
    ...             Closeness(0.7, 0.8, 0.6, True, True))
    0.0
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from hindsight_core.lifecycle._rival_weights import WEIGHTS
from hindsight_core.lifecycle.asked_names import names_another
from hindsight_core.lifecycle.rivals import (_STRONG_SLOTS, asked_statement, _numbers, _place, _present, _reversed,
                                             value_and_new)
from hindsight_core.lifecycle.slots import content, read
from hindsight_core.lifecycle.update_cues import (assertive_part, clause_look_alike, denies, is_addition, look_alike,
                                                  relations, split_clauses, update_cue, without_effective_time)
from hindsight_core.lifecycle.update_keys import sibling_id
from hindsight_core.lifecycle.update_rules import (about_someone_else, other_instance, other_possessor,
                                                   replaces_another, said, subject_substituted, two_voices)
from hindsight_core.lifecycle.update_subjects import named_branch, place_swapped

__all__ = ["Closeness", "FEATURES", "asks_about_now", "features", "probability", "score", "THRESHOLD", "MIN_CLOSENESS"]

#: The signals, in the order of the fitted weights.
FEATURES: tuple[str, ...] = (
    "on", "qn", "qo", "o_best_q", "o_best_n", "len_log", "cue", "strong_share", "strong_disjoint", "subst",
    "place_change", "reversed", "no_value", "new_log", "numbers", "other_poss", "name_swap", "one_off",
    "any_clause_look")
#: Below this cosine between the earlier statement and the later text the pair is not judged (nor its
#: text signals read): such pairs are mostly unrelated. The weights were fitted without pairs below 0.25
#: (that let more updates and fewer look-alikes answer, benchmarks/rival_model.py); judging from 0.15
#: reads the change buried in a long message of several matters, which sits far from the one fact it
#: changes (landing 58: +4 updates on the dev pool, no look-alike reached the threshold below 0.25).
MIN_CLOSENESS = 0.15
#: The probability at which recall lets the later statement answer (the fitted default).
THRESHOLD: float = float(WEIGHTS["threshold"])


class Closeness(NamedTuple):
    """Cosines between the three texts, and the earlier statement's rank among the earlier candidates."""

    on: float  # earlier statement / later text
    qn: float  # question / later text
    qo: float  # question / earlier statement
    best_for_question: bool  # no other earlier candidate is closer to the question
    best_for_newer: bool  # no other earlier candidate is closer to the later text

    @classmethod
    def among(cls, on: float, qn: float, qo: float,
              others_on: Iterable[float], others_qo: Iterable[float]) -> "Closeness":
        """The cosines of one earlier candidate, ranked against the other candidates' (``others_on``:
        their cosines with the later text, ``others_qo``: with the question)."""
        return cls(on, qn, qo, all(qo >= x for x in others_qo), all(on >= x for x in others_on))


#: A one-off or temporary arrangement said in passing ("this week instead", "just for this trip",
#: "for the next five days", "everything flips back once..."): no new present value.
_ONE_OFF = re.compile(
    r"\b(this (week|weekend|time|trip|once|month|morning|evening|(mon|tues|wednes|thurs|fri|satur|sun)day)('s)? "
    r"(only|instead)|(just|only) (for|this) (this |the )?(week|trip|time|once|day|weekend|one)|"
    r"for the next (few |\w+ )(days|weeks|hours)|one-off|one off|back to (normal|usual|the usual|his|her|their|my|our)|"
    r"flips? back|switch(es)? back|while (the|we|i|it|he|she|they)|during (the |tonight|this)|temporar\w*|"
    r"until (further|the|next|after|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"(this|next) (mon|tues|wednes|thurs|fri|satur|sun)day only)\b", re.I)
#: "When did ...", "What was ...", "Would she ...": a question about a past event or a supposition,
#: which no later statement changes.
_NOT_ABOUT_NOW = re.compile(r"^\W*((when|where|what|who|whom|whose|which|why|how)(\s+\w+){0,2}?\s+(did|was|were|had)\b|"
                            r"(did|was|were|had|would|could|might)\b)", re.I)
#: One more of a kind: "a second dog", "another tank", "an extra class".
_ONE_MORE = re.compile(r"\b(?:a second|another|an? (?:extra|additional)|one more)\b", re.I)
_CAPITALISED = re.compile(r"\b[A-Z][\w'-]+")
_INNER_CAPITALISED = re.compile(r"(?<!^)(?<![.?!] )\b[A-Z][\w'-]+")


def asks_about_now(query: str) -> bool:
    """Whether ``query`` may ask for a present value a later statement could change (False for a
    question about a past event or a supposition: every pair's probability is then 0.0).

    Example:
        >>> asks_about_now("Where does Maria live now?"), asks_about_now("When did Maria move?")
        (True, False)
    """
    return _NOT_ABOUT_NOW.search(query) is None


def _present_any(words: list[str], text: str) -> bool:
    """Some content word of the earlier text is said in ``text``."""
    n = read(text)
    return any(_present(w, n) for w in words)


@functools.lru_cache(maxsize=4096)
def _text_signals(older: str, newer: str, query: str) -> tuple[float, ...] | None:
    """The signals read off the words alone (cached: recall meets the same pairs again), or None
    when the question asks about a past event or a supposition, the earlier text has no one statement the
    question asks about (a chat turn, a story) or the later text is a look-alike as a whole."""
    if two_voices(older, newer):
        return None  # "Sam: my goal is 1:55" / "Ellis: I'm going for sub-1:45": each speaker's own; what two
        # labelled members say of a shared thing is one fact ("Ana: the club's pacer is Joe" / "Ben: Maria paces now")
    if not asks_about_now(query):
        return None  # a past event is not updated
    older, newer = asked_statement(older, query), said(newer)
    if older is None:
        return None  # a chat turn or a story is no one value to replace
    if names_another(older, newer, query):
        return None  # "new desk going into Studio B" for "What mixing desk is in Studio A?"
    about = relations(older)
    if denies(newer) or look_alike(newer, about) is not None:
        return None
    stated = without_effective_time(assertive_part(newer, about)) or newer
    clauses = split_clauses(stated)
    if len(clauses) == 1 and is_addition(stated):
        return None  # "I also like tea"; in a longer message an "also" may belong to another matter
    if len(clauses) > 1 and _ONE_MORE.search(clauses[0]) and is_addition(clauses[0]) and _present_any(
            content(older), clauses[0]):
        return None  # "Nan's adopted a second cat, ..." after "Nan's cat is ...": one more beside the earlier one
    if (about_someone_else(older, stated) or sibling_id(older, stated) or other_instance(older, stated)
            or named_branch(older, stated) or replaces_another(older, stated)):
        return None  # "I prefer mornings" / "Chris told me he prefers afternoons"; "U12 match" / "U14 game";
        # another of a kind, as capture reads it: "the Wells office", "Pulse Club's Alvalade branch"; another
        # fact's value named as replaced ("picks him up at 6:05 not 6:20")
    o, q, n = read(older), read(query), read(stated)
    asked = list(dict.fromkeys(q.tokens))
    anchor = [w for w in asked if _present(w, o)]
    missing = {w for w in anchor if not _present(w, n)}
    if missing and place_swapped(older, stated, missing):
        return None  # the asked place said of another one of the kind: "near work" / "near home"
    value, new = value_and_new(older, o, n, q, anchor)
    strong_o, strong_n = o.slots & _STRONG_SLOTS, n.slots & _STRONG_SLOTS
    asked_names = {w.lower() for w in _INNER_CAPITALISED.findall(query)}
    new_names = ({w.lower() for w in _CAPITALISED.findall(newer)}
                 - {w.lower() for w in _CAPITALISED.findall(older + " " + query)})
    name_swap = any(w not in newer.lower() for w in asked_names) and bool(new_names)
    clauses = [c for c in split_clauses(newer) if c.strip()] or [newer]
    return (
        math.log1p(len(n.tokens)),
        float(update_cue(newer) is not None),
        float(bool(strong_o & strong_n)),
        float(bool(strong_o and strong_n and not strong_o & strong_n)),
        float(bool(missing and subject_substituted(older, stated, missing, as_fitted=True))),  # the weight's reading
        float(bool(_place(older, o) and _place(stated, n) - _place(older, o))),
        float(_reversed(older, stated)),
        float(not value),
        math.log1p(len(new)),
        float(_numbers(value) and _numbers(new)),
        float(bool(other_possessor(older, stated, tuple(anchor)))),
        float(name_swap),
        float(bool(_ONE_OFF.search(newer))),
        float(any(clause_look_alike(c, about) is not None for c in clauses)),
    )


def features(older: str, newer: str, query: str, close: Closeness) -> tuple[float, ...] | None:
    """The signals in :data:`FEATURES` order, or None when ``newer`` is a look-alike, a denial or an
    addition, or too far from ``older`` to be about it (the text signals are not read then)."""
    if close.on < MIN_CLOSENESS:
        return None
    words = _text_signals(older, newer, query)
    if words is None:
        return None
    return (close.on, close.qn, close.qo, float(close.best_for_question), float(close.best_for_newer)) + words


def probability(older: str, newer: str, query: str, close: Closeness) -> float:
    """How likely ``newer`` states the present value of what ``query`` asks ``older`` about (0.0 for a look-alike)."""
    x = features(older, newer, query, close)
    return 0.0 if x is None else score(x)


def score(x: Sequence[float], weights: Mapping[str, Any] = WEIGHTS) -> float:
    """The logistic model's probability for signals ``x`` (``weights`` as ``_rival_weights.WEIGHTS``:
    ``mean``, ``scale``, ``coef``, ``intercept``; the fitting benchmark passes the models it fits)."""
    z = weights["intercept"] + sum(c * (v - m) / s
                                   for c, v, m, s in zip(weights["coef"], x, weights["mean"], weights["scale"]))
    return 1.0 / (1.0 + math.exp(-z))
