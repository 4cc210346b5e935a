"""Did the value change? The earlier value gone or named as removed, a new value of its kind.

Used by :mod:`~hindsight_core.lifecycle.update_rules` once the later text is known to speak about the
same key: whether the earlier value recurs (:func:`value_removed`), whether the later text states a
value of a kind the earlier one has (:func:`states_new_value`, :func:`same_number_kind`), or the
earlier value's qualifier was swapped ("Silver Medallion" / "Gold Medallion").

Example:
    >>> from hindsight_core.lifecycle.slots import read
    >>> later = "we don't use Jenkins anymore, it's GitHub Actions"
    >>> value_removed(("jenkins",), later, read(later))
    'named'
"""

from __future__ import annotations

import re

from hindsight_core.lifecycle.slots import WHEN_SLOTS, Reading, STOP, content, read, same_word
from hindsight_core.lifecycle.update_cues import split_clauses
from hindsight_core.lifecycle.update_keys import (ID_SHAPE, MONTH, NOT_VALUE, is_id, number_like, phrase_starts,
                                                 present, raw_words, stranger)
from hindsight_core.lifecycle.value_forms import UNIT_NAMES, amounts

__all__ = ["value_removed", "near_removal", "same_shape", "replaced_in_kind", "states_new_value", "one_number_per_slot",
           "same_number_kind", "qualifier_swapped", "magnitude", "record_broken"]


def value_removed(value: tuple[str, ...], newer: str, n: Reading, key: tuple[str, ...] = (), older: str = "") -> str:
    """``gone`` when no value word recurs, ``named`` when one recurs next to a removal cue, ``kept``
    when all recur in a clause that also names the key (or anywhere, with no key), else ``partly``.

    "Boulder Barn raised prices again" keeps the old venue's name, but not as the meetup's venue.
    """
    words = [v for v in value if v not in STOP and v not in NOT_VALUE]
    if not words:
        return "gone"
    found = [v for v in words if present(v, n)]
    if not found:
        return "gone"
    clauses = split_clauses(newer)
    if any(near_removal(clause, found, older) for clause in clauses):
        return "named"
    if len(found) < len(words):
        return "partly"
    if not key:
        return "kept"
    for clause in clauses:
        r = read(clause)
        if any(present(k, r) for k in key) and all(present(v, r) for v in found):
            return "kept"
    return "partly"


#: Words before an earlier value that say it went ("no longer X", "off Jira", "from 40k", "dropping Venice").
_GONE_BEFORE = re.compile(r"(no|not|never|longer|off|from|left|leaving|quit|gave|cancel\w*|kill\w*|pull\w*|stopp?\w*|"
                          r"dropp?\w*|instead|out|retired|replac\w*|swap\w*|ditch\w*|\w+n't|without|ex|former|sold|"
                          r"selling|scrapp\w*|donated)",
                          re.I)
#: Right before an earlier value, a phrase that says the speaker has left it ("we are DONE with Pho Linh").
_DONE_WITH = re.compile(r"\b(?:done|finished|through) with$")
#: Set phrases with "no" that remove nothing ("no worries", "no problem", "no doubt").
_NO_IDIOM = re.compile(r"\bno (worries|worry|problems?|probs?|biggie|big deal|rush|pressure|doubt|way|kidding|idea|"
                       r"offen[cs]e|sweat|thanks|matter)\b", re.I)
#: A negated verb of thought or feeling before a value negates the thinking, not the value ("can't
#: imagine my life without it", "can't wait for the Lisbon trip", "couldn't believe how good Nobu was").
_NEGATED_IDIOM = re.compile(r"\b\w+n[’']t\s+(?:imagine|wait|believe|help|forget|resist|stop\s+thinking)\b", re.I)
#: Words after it that say so ("Jenkins anymore", "Reno is closed", "Tomas is moving", "X → Y").
_GONE_AFTER = re.compile(r"(anymore|closed|was|were|fine|moving|moved|left|retired|gone|sold|scrapped|donated|out|off|→|->|=>|"
                         r"is(n't)?|stays?)", re.I)
#: Participles that say it went, after an auxiliary ("#ops-fire got renamed", "Golden Lotus has shut"). Said
#: actively they may be the value acting ("Hendricks renamed the channel"), which removes nothing.
_GONE_PASSIVE = re.compile(r"renamed|replaced|dropped|removed|cancell?ed|decommissioned|discontinued|shut|closed|"
                           r"retired|sold|scrapped", re.I)
_AUXILIARY = frozenset({"is", "was", "are", "were", "has", "have", "had", "got", "gets", "been", "being"})
_GONE_WINDOW = 3  # words between the earlier value and the cue


def near_removal(clause: str, found: list[str], older: str = "") -> bool:
    """A removal cue next to a distinctive earlier value word ("don't use Jenkins anymore", "cut
    from 40k", "Tomas is moving over"); a bare month or unit does not count, and a value that acts
    ("Rhiannon changed her hours") is not removed."""
    clause = _NEGATED_IDIOM.sub(" ", _NO_IDIOM.sub(" ", clause))  # "No worries, James": an interjection removes nothing
    words = [w.strip(".,:;!?()") for w in re.findall(r"[\w'’$€£.,:/-]+|→|->|=>", clause.lower())]
    for i, w in enumerate(words):
        tok = content(w)
        if not tok or MONTH.fullmatch(tok[0]) or len(tok[0]) < 3 and not number_like(tok[0]):
            continue
        if not any(same_word(tok[0], v) or number_like(v) and tok[0].strip("$€£.,") == v.strip("$€£.,")
                   for v in found):
            continue
        own = set(re.findall(r"[\w'’]+", older.lower()))  # "Someone left a box": its own verb, no removal
        before = [b for b in words[max(0, i - _GONE_WINDOW):i] if b not in own]
        after = [a for a in words[i + 1:i + 1 + _GONE_WINDOW] if a not in own or a in ("is", "was")]
        if any(_GONE_BEFORE.fullmatch(b) for b in before) or _DONE_WITH.search(" ".join(words[max(0, i - 2):i])):
            return True
        if len(after) > 1 and after[0] in _AUXILIARY and _GONE_PASSIVE.fullmatch(after[1]):
            return True
        if after and (_GONE_AFTER.fullmatch(after[0]) or (len(after) > 1 and after[0] in ("is", "was", "has", "got")
                                                           and _GONE_AFTER.fullmatch(after[1]))):
            if not (after[0] in ("is", "isn't") and len(after) > 1 and not _GONE_AFTER.fullmatch(after[1])):
                return True
    return False


def _shape(tok: str) -> str:
    """The form of a value: ``id`` (pg-12, p3), ``version`` (1.29), ``number`` (5184) or ``word``."""
    if not number_like(tok):
        return "word"
    if any(c.isalpha() for c in tok):
        return "id" if ("-" in tok or "_" in tok or tok[0].isalpha()) else "number"
    return "version" if tok.count(".") >= 1 else "number"


def same_shape(value: tuple[str, ...], o: Reading, n: Reading) -> bool:
    """The later text's new values include one of the earlier value's form."""
    old = {_shape(v) for v in value if v not in NOT_VALUE}
    new = {_shape(t) for t in n.tokens if not present(t, o) and t not in NOT_VALUE}
    return bool(old & new)


#: Values of a definite form, read from the raw text: a sum of money, a time of day, a version, a
#: share, a day of the month, a numbered id. A bare number ("Terminal 2", "9-17") has no such form.
_TYPED = (
    ("money", re.compile(r"[$\u20ac\u00a3\u00a5]\s?\d[\d,.]*\s?[km]?\b|"
                         r"\b\d[\d,.]*\s?(?:k|usd|eur|gbp|dollars|euros|quid)\b", re.I)),
    ("time", re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b", re.I)),
    ("version", re.compile(r"(?<![\w.$\u20ac\u00a3\u00a5])v?\d+\.\d+(?:\.\d+)*(?:[-+.]?[a-z]+\d*)?"
                           r"(?!\w|\.\w|\s?%)", re.I)),  # not a sum ("$12.50") nor a share ("99.95%")
    ("share", re.compile(r"\b\d+(?:\.\d+)?\s?%")),
    ("ordinal", re.compile(r"\b\d{1,2}(?:st|nd|rd|th)\b", re.I)),
    ("id", re.compile(r"\b[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*[-_]\d+[a-z0-9]*\b", re.I)),
)
_SPACE = re.compile(r"\s+")


def _typed_values(text: str) -> set[tuple[str, str]]:
    """``(form, value)`` for each value of a definite form in ``text``, and ``("amount:<unit>",
    number)`` for each amount in a unit (:func:`~hindsight_core.lifecycle.value_forms.amounts`)."""
    out: set[tuple[str, str]] = set()
    for form, pattern in _TYPED:
        out |= {(form, _SPACE.sub("", m.group(0)).lower().rstrip(".,")) for m in pattern.finditer(text)}
    out |= {(f"amount:{unit}", f"{value:g}") for value, unit in amounts(text) if unit in UNIT_NAMES}
    return out


def replaced_in_kind(older: str, newer: str) -> bool:
    """A value of a definite form in ``older`` is gone from ``newer``, which states a new one of the
    same form: an id for an id ("atlas-02" / "hermes-07"), a version for a version, a sum for a
    sum, a time for a time, an amount in the same unit ("30 km" / "42 km a week"). Of several facts
    about one subject, the one whose value the message replaces in kind is the one it updates
    ("Grafana is pinned to 10.2" / "Grafana runs on atlas-02", then "moved Grafana over to hermes-07").

    Example:
        >>> replaced_in_kind("Sam's weekly target is 30 km.", "the plan has me on 42 km a week now")
        True
        >>> replaced_in_kind("Sam does 4 runs a week.", "the plan has me on 42 km a week now")
        False
    """
    old, new = _typed_values(older), _typed_values(newer)
    gone = {form for form, _ in old - new}
    return any(form in gone for form, _ in new - old)


def states_new_value(o: Reading, n: Reading, value: tuple[str, ...]) -> bool:
    """The later text states a value of a kind the earlier value has: a new number for a number,
    a new word or name for words."""
    o_nums = {t for t in value if number_like(t)}
    n_new = [t for t in n.tokens if not present(t, o) and t not in NOT_VALUE]
    if o_nums and _clock_for_duration(o_nums, n_new, n.text):
        return False  # "standup is at 9:30" / "standup is 15 min max now": how long, not when
    if o_nums:
        named = (any(v in o.names and not number_like(v) for v in value)  # "Fira Code 14pt" -> a new font
                 and any(t in n.names and not number_like(t) for t in n_new))
        # an identifier without digits is a new value for an id with them ("pg-main.internal")
        renamed_id = any(is_id(v) for v in o_nums) and any(ID_SHAPE.fullmatch(t) for t in n_new)
        # a day for a day, or for a date ("3 October" / "next Wednesday now")
        return named or renamed_id or any(number_like(t) or t in _SPELLED_NUMBERS for t in n_new) or bool(
            (n.slots & o.slots & {"day", "date", "status"} or o.slots & WHEN_SLOTS and "day" in n.slots)
            and any(not number_like(t) for t in n_new))
    if o.slots & WHEN_SLOTS and n.slots & WHEN_SLOTS and any(number_like(t) for t in n_new):
        return True  # "the first Friday" -> "by the 10th": a date for a day
    return any(not number_like(t) or is_id(t) for t in n_new)


def _clock_for_duration(old: set[str], new: list[str], text: str) -> bool:
    """Every earlier number is a clock time ("9:30") and every new one a length of time ("15 min")."""
    numbers = [t for t in new if number_like(t)]
    return (bool(numbers) and all(":" in t for t in old)
            and all(re.search(rf"(?<![\d:.]){re.escape(t)}\s?(?:min|mins|minutes?|hours?|hrs?|h)\b", text, re.I)
                    for t in numbers))


#: Numbers said in words: a new number for a number ("3 runs a week" / "four runs a week", "2 sugars" /
#: "twice"). "one" is a stop word and never reaches here.
_SPELLED_NUMBERS = frozenset("""two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty
fifty sixty seventy eighty ninety hundred thousand twice thrice dozen""".split())
#: Slots whose values are numbers of one kind: a count for a count, a sum for a sum.
_NUMBER_SLOTS = frozenset({"quantity", "money", "percent", "duration", "time", "date", "version", "port"})
#: Two plain numbers within this factor of each other measure the same thing ("HR 68" / "down to 58").
_MAGNITUDE_FACTOR = 3.0


def magnitude(tok: str) -> float | None:
    """A number token's value (``read`` drops thousands commas), or None for one that is no plain number."""
    try:
        return float(tok)
    except ValueError:
        return None


def one_number_per_slot(value: tuple[str, ...], o: Reading, n: Reading) -> bool:
    """The earlier value is a number or time ("I like my digest at 7am") and the later text states
    another of its kind: one thing liked holds one such value at a time, unlike the things liked."""
    old = {v for v in value if number_like(v)}
    new = [t for t in n.tokens if number_like(t) and not present(t, o)]
    return bool(old and new and not any(present(v, n) for v in old) and same_number_kind(old, new, o, n))


def same_number_kind(old: set[str], new: list[str], o: Reading, n: Reading) -> bool:
    """The later text's new number is of the earlier one's kind: a shared number slot, the same
    version shape ("1.27" / "1.29"), or plain numbers of about one size ("120 people" / "95 guests")."""
    if o.slots & n.slots & _NUMBER_SLOTS:
        return True
    for a in old:
        for b in new:
            if _shape(a) == _shape(b) == "version":
                return True
            x, y = magnitude(a), magnitude(b)
            if x and y and max(x, y) / min(x, y) <= _MAGNITUDE_FACTOR:
                return True
    return False


def qualifier_swapped(older: str, part: str, value: tuple[str, ...], plain: bool = False) -> bool:
    """The earlier value's head word recurs under another capitalised qualifier, a named tier
    ("Silver Medallion" / "hit Gold Medallion", "Standard tier" / "Premium tier"), and the old
    qualifier is gone ("the back door" for "a red door" is another door, not a new colour).

    ``plain``: the later text says it replaces or corrects ("window seats from now on", "sorry, I
    meant the blue one"), so a lower-case qualifier counts too ("aisle seats" / "window seat")."""
    o_caps = {w.lower() for w in re.findall(r"\b[A-Z][\w'-]*", older)}
    n_caps = {w.lower() for w in re.findall(r"\b[A-Z][\w'-]*", part)}
    o_words, n_words = raw_words(older), raw_words(part)
    o_breaks = phrase_starts(older)
    for i in range(len(o_words) - 1):
        qual, head = o_words[i], o_words[i + 1]
        if qual in STOP or head in STOP or qual not in value or head not in value or number_like(qual) \
                or (qual not in o_caps and not plain) or o_breaks[i + 1]:
            continue  # "on Tuesdays, Jonas does judo": no qualifier and its head across a comma
        # the old qualifier gone; after "switched to almond milk" it may recur apart ("the oat one was...")
        if any(same_word(qual, x) and (not plain or (j + 1 < len(n_words) and same_word(n_words[j + 1], head)))
               for j, x in enumerate(n_words)):
            continue
        for j in range(1, len(n_words)):
            if same_word(n_words[j], head) and (n_words[j - 1] in n_caps or plain) \
                    and n_words[j - 1][:1].isalpha() and stranger(n_words[j - 1], o_words):
                return True
            if (same_word(n_words[j - 1], head) and j + 1 < len(n_words) and n_words[j] == "to"
                    and n_words[j + 1] in n_caps and stranger(n_words[j + 1], o_words)):
                return True  # "upgraded my plan to Unlimited" for "the Basic plan"
    return False


#: A best of its kind: the hardest grade sent, a personal best, the longest ride.
_RECORD = re.compile(r"\b(?:hardest|fastest|longest|furthest|farthest|highest|heaviest|biggest|best|pb|pr|"
                     r"(?<!for the )record)\b", re.I)  # not "for the record, ..."
#: A first of a value ("my first V5", "first ever 7a"): the record moved on to it.
_FIRST_OF = re.compile(r"\bfirst (?:ever )?([a-z]{0,2}\d[\w.+]*)", re.I)
#: An attempt that fell short is no new record ("went for a PB ... died at 4k", "so close").
_FELL_SHORT = re.compile(r"\b(?:went for|going for|tried|almost|nearly|so close|missed|failed|died)\b", re.I)


def _written_form(token: str) -> str:
    """Digits as 9 and letters as a: "V4" and "V5" share a form, "6b" and "6c" another."""
    return re.sub(r"[a-z]+", "a", re.sub(r"\d+", "9", token.lower().strip(".")))


def record_broken(older: str, part: str) -> bool:
    """``older`` holds a record (the hardest, the best, a PB) and ``part`` a first of another value of its
    form: the record moved on.

    Example:
        >>> record_broken("Noted: your hardest route climbed is a 6b.", "FINALLY TOPPED MY FIRST 6c today")
        True
        >>> record_broken("Noted: your hardest route climbed is a 6b.", "tried my first 6c today, fell off twice")
        False
    """
    if not _RECORD.search(older) or _FELL_SHORT.search(part):
        return False
    earlier = {_written_form(t) for t in re.findall(r"[\w.+]*\d[\w.+]*", older)}
    return any(_written_form(m.group(1)) in earlier and m.group(1).lower() not in older.lower()
               for m in _FIRST_OF.finditer(part))
