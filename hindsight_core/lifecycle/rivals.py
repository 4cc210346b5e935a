"""Two active statements of one attribute that disagree: which one answers a question about the present.

Supersession (:mod:`~hindsight_core.lifecycle.beliefs`) retires an earlier fact when a later text
*says* it changed. People often do not say so: "I drink my tea with honey" and, a month later,
"been having my tea with lemon every afternoon since the cold". Both stay active, since neither
text alone proves the first is over. A question about the present ("How do I drink my tea?") then
names the attribute the two disagree on, and the later statement answers it.

:func:`rival` decides this for one pair and one question, without a model:

- the question is about the earlier statement: at least half its words recur there (its *anchor*),
  the earlier statement holds a value of the kind asked (a time for "when", a place for "where", a
  number for "how many / much / old"), the later text repeats at least half the anchor, every name
  in it included, and names no asked word the earlier statement lacks;
- the later text says something about the present (no question, plan, hypothetical, temporary
  exception, someone else's affair, denial, past event or addition: :mod:`update_cues`), is about
  the same possessor ("my sister" is not "their sister"), the same instance ("staging", not
  "prod") and the same subject ("the *ML* team's budget" is not "the *data* team's"), names no other
  value as the one it replaces ("picks him up at 6:05 not 6:20" is not when the session starts), and
  is no plain statement of another attribute of it ("The shed is painted green." / "The shed has a padlock."),
  and names no other one in place of a name the question asks by ("Studio B" for "Studio A":
  :mod:`~hindsight_core.lifecycle.asked_names`);
- the earlier value is gone from the later text, and the later text states a value of its kind (a
  slot only the question's own words give, "office" in "office wifi", is none):
  a number for a number, a place name for a place name, the opposite attitude ("can't stand" /
  "hooked"), a shared typed slot, or words for words when it describes a present state or habit
  ("been having...", "since", "every morning", "can't go back"), not a one-off event;
- the two do not speak about two different strong attributes (a port and a language).

The caller (:func:`hindsight_core.retrieval.present.rivals`) applies it to the head of a ranked
list only, to active beliefs of one speaker stated on different days, and a later text that
already replaced another fact rivals nothing else (a message updates one fact), unless it states
facts line by line (a pasted sheet restates many at once) and a sure judge names one more. Where
these rules name no rival, :func:`earlier_rivals` may ask a judge (the learned one of
:mod:`~hindsight_core.lifecycle.rival_model`), under the same conditions of time, speaker and trust.

Example:
    >>> rival("I drink my tea with honey.", "been having my tea with lemon every afternoon since the cold",
    ...       "How do I drink my tea?")
    'another present value of the asked attribute'
    >>> rival("I drink my tea with honey.", "I also started putting cinnamon in my tea", "How do I drink my tea?") is None
    True
    >>> rival("Our Basic plan is $9/month.", "their Basic plan went to $12/month", "How much is our Basic plan?") is None
    True
"""

from __future__ import annotations

import functools
import re

from dataclasses import dataclass
from typing import Callable

from hindsight_core.lifecycle.asked_names import names_another
from hindsight_core.lifecycle.slots import STOP, Reading, content, hyphenated_word, names, read, same_word, slots
from hindsight_core.lifecycle.update_cues import (assertive_part, denies, is_addition, look_alike, relations,
                                                  update_cue, without_effective_time)
from hindsight_core.lifecycle.update_keys import is_tool_record, number_like, sibling_id
from hindsight_core.lifecycle.update_statements import is_episode, reported_turn, statement_parts
from hindsight_core.lifecycle.update_values import same_number_kind
from hindsight_core.lifecycle.update_languages import is_foreign, read_as_written, read_in_english, says_changed
from hindsight_core.lifecycle.update_rules import (about_someone_else, another_id, key_and_value, one_belief,
                                                   other_instance, other_possessor, replaces_another, said,
                                                   sibling_fact, subject_substituted)

__all__ = ["rival", "asked_statement", "earlier_rivals", "value_and_new", "Statement", "Judge", "REASON",
           "ANCHOR_COVERAGE", "QUESTION_COVERAGE", "MIN_GAP_S", "LISTED_LINES", "states_many"]

#: The reason :func:`rival` gives (also how recall's trace names it).
REASON = "another present value of the asked attribute"
#: Share of the words the question takes from the earlier statement that the later text must repeat:
#: "my tea" is enough for "How do I *drink* my *tea*?", "favourite" alone is not for
#: "favourite colour" (the substitution check then also sees "favourite *food*").
ANCHOR_COVERAGE = 0.5
#: Share of the question's words the earlier statement must have to be what the question asks about:
#: "What port does the auth api listen on?" is about "the auth api listens on 7443", not about
#: "the auth api is written in Kotlin" (two words of four).
QUESTION_COVERAGE = 0.5
#: Attribute slots that name a kind of value of their own: two statements about disjoint ones of these
#: are about two attributes, whatever their subject ("serves on port 7001" / "is written in Rust").
_STRONG_SLOTS = frozenset({"port", "location", "money", "quantity", "percent", "duration", "date", "time", "day"})
_NOT_VALUE = frozenset({"now", "new", "today", "yesterday", "tomorrow", "morning", "night", "week", "month", "year",
                        "last", "next", "day", "time", "anymore", "finally", "update", "updated", "every", "everything"})
_COPULAS = frozenset({"is", "are", "was", "were", "'s"})


def _present(tok: str, r: Reading) -> bool:
    return r.has(tok) or any(same_word(tok, n) for n in r.names)


#: What a question's opening asks for, and the slots (or names) an answer to it states.
_WH_KIND = ((re.compile(r"^\W*(when|what time|what day|which day|what date|by when|how long)\b", re.I),
             frozenset({"time", "day", "date", "duration"})),
            (re.compile(r"^\W*(where|which (city|town|country|office|place))\b", re.I), frozenset({"location"})),
            (re.compile(r"^\W*(how much|how many|how old|how heavy|how tall|how far)\b", re.I), frozenset()))


_PLACE = re.compile(r"\b(in|on|at|near|inside|from)\s+(the\s+|a\s+|an\s+|our\s+|my\s+)?\w", re.I)


def _answers_kind(query: str, o: Reading) -> bool:
    """The earlier statement holds a value of the kind the question asks for: a time for "when", a
    place or a name for "where", a number for "how much / many / old" (other questions: any)."""
    for pattern, kinds in _WH_KIND:
        if pattern.search(query):
            numbers = any(number_like(t) for t in o.tokens)
            if not kinds:
                return numbers
            return bool(o.slots & kinds) or (kinds == {"location"} and bool(o.names or _PLACE.search(o.text))) or (
                "date" in kinds and numbers)
    return True


def _holds_kind(query: str, n: Reading) -> bool:
    """The later text holds a value of the kind the question asks for, read more strictly than the
    earlier statement's (:func:`_answers_kind`): a place is a name or a place word, not any "at"."""
    for pattern, kinds in _WH_KIND:
        if pattern.search(query):
            numbers = any(number_like(t) or t in _SPELLED_NUMBERS for t in n.tokens)
            if not kinds:
                return numbers
            place = any(not hyphenated_word(x) for x in n.names) or _IN_PLACE.search(n.text) is not None
            # a slot the question's own words give ("Where is the *office*?" / "office wifi") is no value
            asked = set(read(query).tokens)
            own = slots(" ".join(t for t in n.tokens if t not in asked))
            return bool(own & kinds) or (kinds == {"location"} and place) or ("date" in kinds and numbers)
    return True


#: A place said with a determiner ("into our bedroom", "in the hall cupboard"), unlike "from next month".
_IN_PLACE = re.compile(r"\b(in|into|at|on|near|inside|under|behind|by)\s+(the|a|an|our|my|his|her|their|its)\s+\w",
                       re.I)
_SPELLED_NUMBERS = frozenset("two three four five six seven eight nine ten eleven twelve dozen twenty thirty hundred"
                             .split())


def _qualified_away(older: str, newer: str, missing: set[str]) -> bool:
    """An asked word of the earlier statement is replaced right after a word both share
    ("my favourite *colour*" / "new favourite *food*"): the later text is about a sibling attribute."""
    o_words = [w for w in re.findall(r"[\w'-]+", older.lower())]
    n_words = [w for w in re.findall(r"[\w'-]+", newer.lower())]
    for i, w in enumerate(o_words[1:-1], start=1):
        if not any(same_word(_c(w), m) for m in missing) or o_words[i + 1] not in _COPULAS:
            continue  # only the noun before "is": "my sister *lives*" / "my sister unpacked" is no sibling
        prev = _c(o_words[i - 1])
        if not prev:
            continue
        for j, x in enumerate(n_words[:-1]):
            nxt = _c(n_words[j + 1])
            if (_c(x) == prev and nxt and nxt not in _NOT_VALUE
                    and not any(same_word(nxt, _c(y)) for y in o_words if _c(y))):
                return True
    return False


def _c(word: str) -> str:
    toks = content(word)
    return toks[0] if toks else ""


def _kind(tokens: list[str], r: Reading) -> set[str]:
    """Kinds of value among ``tokens``: ``number``, ``name``, ``word``."""
    out = set()
    for t in tokens:
        out.add("number" if number_like(t) else "name" if t in r.names else "word")
    return out


@functools.lru_cache(maxsize=4096)
def rival(older: str, newer: str, query: str) -> str | None:
    """Why ``newer`` states another present value of what ``query`` asks ``older`` about, or None.
    A message in another language the rules find nothing in is read again in its English gloss (the
    question's words are English)."""
    found = _rival(older, newer, query)
    glossed = None if found else read_in_english(older, newer)
    return _rival(*glossed, query) if glossed is not None else found


@functools.lru_cache(maxsize=4096)
def asked_statement(older: str, query: str) -> str | None:
    """What of the earlier text ``query`` asks about: the text itself when it states one belief, else
    the one sentence (or clause, :func:`~hindsight_core.lifecycle.update_statements.statement_parts`;
    in another language none cut at a comma, as the rules read English) of a note that states one and
    shares more of the question's words than any other
    ("Biscuit's on the salmon kibble, half a scoop. Don't let Nadia sneak him toast." asked "What is
    Biscuit fed?"), or None (a chat turn of feelings and news, two sentences that answer as well).

    Example:
        >>> asked_statement("Kiln B fires on Thursdays. Glaze orders close the Monday before.", "When does Kiln B fire?")
        'Kiln B fires on Thursdays.'
    """
    text = said(older)
    if one_belief(text):
        return text
    if is_episode(text) or reported_turn(older):
        return None  # a story, or a turn of a talk: its sentences go on with each other
    asked = set(read(query).tokens)

    def shared(part: str) -> int:
        r = read(part)
        return sum(_present(w, r) for w in asked)

    parts = statement_parts(text, commas=not is_foreign(text))
    scored = sorted(((shared(s), s) for s in parts), key=lambda x: -x[0])
    if len(scored) < 2 or scored[0][0] == 0 or scored[0][0] == scored[1][0] or not one_belief(scored[0][1]):
        return None
    return scored[0][1]


def _rival(older: str, newer: str, query: str) -> str | None:
    older, newer = asked_statement(older, query), said(newer)
    if older is None or denies(newer) or names_another(older, newer, query):
        return None  # (names_another: "Studio B" said of "What mixing desk is in Studio A?")
    o = read(older)
    about = relations(older)
    if look_alike(newer, about) is not None:
        return None
    stated = without_effective_time(assertive_part(newer, about))
    if not stated.strip() or is_addition(stated):
        return None
    q, n = read(query), read(stated)
    asked = list(dict.fromkeys(q.tokens))
    anchor = [w for w in asked if _present(w, o)]
    if not anchor or len(anchor) < QUESTION_COVERAGE * len(asked) or not _answers_kind(query, o):
        return None  # the earlier statement does not answer this question
    if any(_present(w, n) for w in asked if w not in anchor):
        return None  # the later text speaks of an asked attribute the earlier one lacks: another attribute
    unstated = len(anchor) < len(asked)  # "How *old* is Sami?": neither text names the attribute
    kept = [w for w in anchor if _present(w, n)]
    missing = {w for w in anchor if w not in kept}
    if len(kept) < ANCHOR_COVERAGE * len(anchor) or any(w in o.names and w in missing for w in anchor):
        return None
    if not _holds_kind(query, n):
        return None  # "Where's our bike lock-up?" / "bike lock-up fee goes up to £8": no place at all
    changed = _says_change(newer)
    if missing and not changed:
        return None  # "Dinner service starts at 18:00" / "Dinner service: last orders 21:30": another attribute
    asked_slots = q.slots & o.slots & _STRONG_SLOTS - {"location"}  # a new place is often only a name
    if asked_slots and not asked_slots & n.slots:
        return None  # "Which port ...?": the earlier statement gives the port, the later text no port at all
    if (another_id(older, stated) or sibling_id(older, stated) or other_instance(older, stated)
            or other_possessor(older, stated, tuple(anchor)) or other_possessor(older, stated)  # "sis's physio"
            or about_someone_else(older, stated) or sibling_fact(older, stated)
            or _qualified_away(older, stated, missing) or (missing and subject_substituted(older, stated, missing))
            or replaces_another(older, stated)):  # "picks him up at 6:05 not 6:20": another time than the asked one
        return None
    value, new = value_and_new(older, o, n, q, anchor)
    if not value or any(_present(v, n) for v in value):
        return None  # nothing to disagree on, or the earlier value still stands
    if not new or not _kind(value, o) & (_kind(new, n) | ({"word"} if _kind(new, n) & {"name"} else set())):
        return None  # no value of the earlier value's kind
    strong_o, strong_n = o.slots & _STRONG_SLOTS, n.slots & _STRONG_SLOTS
    if strong_o and strong_n and not strong_o & strong_n:
        return None
    reversed_, placed = _reversed(older, stated), bool(_place(older, o) and _place(stated, n) - _place(older, o))
    if not (strong_o & strong_n or _numbers(value) and _numbers(new) or reversed_ or placed
            or not unstated and _STATE.search(stated)):
        return None  # an event about the subject ("booked the flights for the offsite") is no new value
    if not (changed or reversed_ or placed or _AGE_PASSED.search(stated)
            or same_number_kind({v for v in value if number_like(v)}, [v for v in new if number_like(v)], o, n)):
        # with no word of change, only a new value of the earlier measure, place or attitude replaces it:
        # "Biscuit's a cocker spaniel, three years old" is no new weight for "Biscuit weighs 14 kg", nor
        # "Madrid office hours are 9:00 to 18:00" a new address for "The Madrid office is at Calle Serrano 41"
        return None
    return REASON


#: An age passed, said as an event ("Sami's 7th birthday party", "leo turned 9").
_AGE_PASSED = re.compile(r"\b(?:\d+(?:st|nd|rd|th) birthday|turn(?:ed|s) \d+)\b", re.I)


def _says_change(text: str) -> bool:
    """A change cue, in English or another language, a present state or habit ("these days"), or a
    tool's record of the current state."""
    return (update_cue(text) is not None or says_changed(text) or _STATE.search(text) is not None
            or is_tool_record(text))


def value_and_new(older: str, o: Reading, n: Reading, q: Reading, anchor: list[str]) -> tuple[list[str], list[str]]:
    """The earlier statement's value words (after its attribute verb, else all its words, less the
    question's ``anchor``) and the later text's new words (in neither the earlier text nor the question).

    ``o``, ``n``, ``q``: the readings of ``older``, of the later text's assertive part and of the question."""
    _subject, _verb, value_words = key_and_value(older)
    value = [v for v in value_words if v not in STOP and v not in _NOT_VALUE
             and not any(same_word(v, a) for a in anchor)]
    if not value:
        value = [t for t in o.tokens if t not in _NOT_VALUE and not any(same_word(t, a) for a in anchor)]
    new = [t for t in n.tokens if not _present(t, o) and t not in _NOT_VALUE and not _present(t, q)]
    return value, new


#: A later text that describes a present state or habit, not a one-off event: "been having my tea
#: with lemon", "every morning", "since the move", "can't go back", "these days".
_STATE = re.compile(r"\b(been \w+ing|since|every (day|morning|evening|night|week|weekend|time)|daily|nightly|"
                    r"these days|nowadays|lately|(can'?t|not|never|no) go(ing)? back|for good|from now on|"
                    r"anymore|any more|all the time|always|now|currently|at the moment)\b", re.I)
_PLACE_NAME = re.compile(r"\b(?:in|at|near|to|from|into)\s+(?:the\s+|a\s+|my\s+|our\s+|their\s+)?"
                         r"(?:\w+\s+){0,2}?([A-Z][\w'-]+)")


def _place(text: str, r: Reading) -> set[str]:
    """Names that follow a place preposition ("in Leeds", "near Whitby"), lower-cased."""
    return {m.group(1).lower() for m in _PLACE_NAME.finditer(text) if not _DAY.match(m.group(1))}


_DAY = re.compile(r"(mon|tues|wednes|thurs|fri|satur|sun)day|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.I)


_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten eleven twelve once twice".split())


def _numbers(tokens: list[str]) -> bool:
    return any(number_like(t) or t in _NUMBER_WORDS for t in tokens)


#: How someone feels about a thing, each way. The negative one is read first ("not a fan").
_DISLIKE = re.compile(r"\b(hate[sd]?|hating|dislike[sd]?|can'?t stand|cannot stand|loathe[sd]?|detest\w*|not a fan|"
                      r"can'?t bear|sick of|gross|disgusting|never again)\b", re.I)
_LIKE = re.compile(r"\b(love[sd]?|loving|like[sd]?|enjoy\w*|adore[sd]?|fan of|hooked|(a )?convert(ed)?|obsessed|"
                   r"grown on me|won me over|great|amazing|delicious)\b", re.I)


def _attitude(text: str) -> str | None:
    return "dislike" if _DISLIKE.search(text) else "like" if _LIKE.search(text) else None


def _reversed(older: str, newer: str) -> bool:
    """The two say opposite things about how the speaker feels ("I can't stand jazz" / "... jazz
    trio last night, I'm hooked"): an attitude is an attribute whatever the question calls it."""
    a, b = _attitude(older), _attitude(newer)
    return a is not None and b is not None and a != b


#: An implicit change is read off statements made on different days: within one conversation two
#: statements of one attribute are usually two sides of one account, not a change.
MIN_GAP_S = 86400.0


@dataclass(frozen=True, slots=True)
class Statement:
    """What :func:`earlier_rivals` needs of a stored belief."""

    id: str
    text: str
    mentioned_at: float  # epoch seconds
    speaker: str | None = None
    source: str = "user"
    replaced_another: bool = False  # it already superseded an earlier fact


#: Given a later statement and its earlier candidates, the one it answers for, or None.
Judge = Callable[[Statement, list[Statement]], "Statement | None"]


@functools.lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    body = said(text)  # read(body)'s tokens and names, without its slots and values (many patterns)
    return frozenset(content(body)) | names(body)


def _overlap(a: str, b: str) -> int:
    """Content words and names two texts share (exact: this runs for every pair of the head)."""
    return len(_words(a) & _words(b))


#: A later text of this many non-empty lines or more states facts line by line (a pasted sheet, a
#: list of who carries what): having replaced one of them, it may still answer for one more.
LISTED_LINES = 3


def states_many(text: str) -> bool:
    """Whether ``text`` states facts line by line (:data:`LISTED_LINES` non-empty lines or more).

    Example:
        >>> states_many("Bins: Tuesday night\\n- Shed key: Priya at no. 9\\n- Wifi: Hub 6")
        True
        >>> states_many("Bins go out on Tuesday nights now, and Priya has the shed key.")
        False
    """
    return sum(1 for line in text.splitlines() if line.strip()) >= LISTED_LINES


def earlier_rivals(statements: list[Statement], query: str, judge: Judge | None = None,
                   sure_judge: Judge | None = None) -> dict[str, str]:
    """``{earlier id: later id}`` for the pairs among ``statements`` (active beliefs, best-ranked
    first) where the later one states the present value of what ``query`` asks the earlier about.

    A later statement rivals at most one earlier one, the one it shares most words with (a message
    updates one fact), and none when two tie for most. A source that may not supersede the earlier
    one (an agent against the user) rivals nothing. One that already replaced a fact rivals nothing
    more, unless it states facts line by line (:func:`states_many`) and ``sure_judge`` (the judge
    at a higher threshold) names the earlier one it also answers for: a one-sentence message that
    moved the team's budget speaks of another team's budget only in passing, a pasted sheet restates
    every line of it.

    ``judge`` (the learned judge of :mod:`~hindsight_core.lifecycle.rival_model`, given the later
    statement and its earlier candidates) names the earlier one a later statement answers for when
    the rules name none. A message in another language with no change cue in its words is left to
    the judge, which reads it through its English gloss.
    """
    from hindsight_core.lifecycle.belief_trust import may_supersede

    out: dict[str, str] = {}
    by_id = {s.id: s for s in statements}
    for newer in statements:
        if newer.replaced_another and (sure_judge is None or not states_many(newer.text)):
            continue
        # the rules' look-alike gates read English: another language rivals by rule only with a change cue
        by_rule = read_as_written(newer.text)
        if not by_rule and judge is None:
            continue
        earlier = [o for o in statements if o.id != newer.id
                   and o.mentioned_at + MIN_GAP_S <= newer.mentioned_at and o.speaker == newer.speaker
                   and may_supersede(o.source, newer.source)]
        if not earlier:
            continue
        if newer.replaced_another:
            target = sure_judge(newer, earlier)
        else:
            target = _by_rule(earlier, newer, query) if by_rule else None
            if target is None and judge is not None:
                target = judge(newer, earlier)
        if target is not None and (target.id not in out or by_id[out[target.id]].mentioned_at < newer.mentioned_at):
            out[target.id] = newer.id  # the latest of several rivals answers
    return out


def _by_rule(earlier: list[Statement], newer: Statement, query: str) -> Statement | None:
    scored = sorted(((_overlap(o.text, newer.text), n, o) for n, o in enumerate(earlier)), key=lambda x: (-x[0], x[1]))
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        return None  # it is about two facts equally: no telling which it replaces
    target = scored[0][2]
    if asked_statement(target.text, query) is None:
        return None  # a story or a chat turn is no one value to disagree with
    return target if rival(target.text, newer.text, query) is not None else None
