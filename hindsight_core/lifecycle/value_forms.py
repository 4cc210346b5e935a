"""Value changes the word-order rules miss, read by the *kind* of attribute that changed.

:mod:`~hindsight_core.lifecycle.update_rules` splits a statement into key and value by its main
verb. Some updates share no verb or wording with the earlier fact and are recognised instead by the
class of attribute they change:

- **amount**: a count or duration of one unit, spelt in digits or words ("two weeks" / "21 days" is
  another unit; "three weeks" is the same), changed under an update cue;
- **kind switched**: the earlier statement's subject noun, in the plural after a switch verb
  ("we switched *dentists*", "had to change *venues*"), or after "new" ("the *new venue* is"), with a
  new name;
- **relationship**: a partner named in the earlier statement, now engaged, married, divorced,
  separated or broken up with;
- **attribute gone**: "there is no <key> anymore", "no more <key>";
- **new role**: a named person now working *as* another role noun ("started as engineering manager");
- **moved to a value of its type**: "moved <key> to <day / time / date / number>", whatever else the
  message says about the old value ("moved book club to Tuesdays, Mondays are busy");
- **typed value corrected**: a correction cue, the attribute's head noun and a new value of the same
  type (a date for a date), even when a subject word is reworded ("firm" for "company");
- **another version**: a new version number of the same shape for a subject that recurs;
- **a listed item is done**: a list ("Open items: A, B, C") and an item of it now signed off, passed,
  fixed, shipped...;
- **the product's version changed**: "Python 3.9" / a pasted ``python --version`` saying "Python 3.12.2":
  the same product word right before another version, under an update cue or in machine output;
- **another model of the product**: "my tracker is a Fitbit Charge 4" / "upgraded to the Charge 6": a
  capitalised product word before another number, under an update cue (the caller checks the subject);
- **the list changed**: a list ("the rota volunteers are Sue, Karim and Joanne") stated again with an
  item kept, one gone and a new one ("rota is sue, karim and bex"), its key recurring;
- **possible again**: what the earlier statement ruled out ("no running", "can't drive") is now done
  *again* or *back*;
- **switched to the alternative**: one of a closed set of alternatives (metric / imperial, light /
  dark, Celsius / Fahrenheit, iPhone / Android...) replaced by another of the set under a change cue.

Every form needs a value the earlier statement lacks, so a restatement never fires; look-alike
clauses (plans, questions, someone else's affairs) are removed by the caller before these run.

Example:
    >>> form_change("The trial period lasts two weeks.", "legal extended the trial period to thirty days")
    'the amount changed'
    >>> form_change("Our dentist is Dr. Lee.", "we switched dentists, we see Dr. Okafor at Harbor Dental now")
    'switched to another of its kind'
    >>> form_change("Our dentist is Dr. Lee.", "my sister switched dentists last year") is None
    True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from hindsight_core.lifecycle.slots import STOP, content, names, same_word, slots
from hindsight_core.lifecycle.update_cues import split_clauses, update_cue
from hindsight_core.lifecycle.update_keys import CLOSE_SIM, RELATED_MIN_SIM, is_tool_record

__all__ = ["form_change", "cued_nearby_form", "amounts", "UNIT_NAMES", "FORMS", "SUBJECT_CHECKED", "VALUE_FORMS"]

#: The reason each form returns (also its name in a unit's ``superseded (...)`` flag).
FORMS = ("the amount changed", "switched to another of its kind", "the relationship changed",
         "the attribute no longer holds", "took another role", "moved to another value of its type",
         "a typed value corrected", "another version", "switched to the alternative", "a listed item is done",
         "possible again", "the product's version changed", "another model of the product", "the list changed")
#: Forms that name the earlier value's own kind changing (an amount of one unit, a product's version, a
#: typed value corrected, a list restated): surer than a matching key, so they pick which fact changed.
VALUE_FORMS = frozenset({"the amount changed", "a typed value corrected", "another version", "the product's version changed",
                         "another model of the product", "the list changed"})
#: Forms that check on their own that the subject is the same (a reworded subject word is allowed there).
SUBJECT_CHECKED = frozenset({"a typed value corrected", "another version", "the product's version changed"})

_NUMBER_WORDS = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
                 "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100,
                 "couple": 2, "dozen": 12, "half": 0.5}
#: Units of time, each to its length in hours: "48 hours" and "two days" are one duration.
_TIME_UNITS = {"minute": 1 / 60, "min": 1 / 60, "hour": 1, "hr": 1, "h": 1, "day": 24, "night": 24, "week": 168,
               "month": 730, "year": 8760}
#: Qualifiers between a number and its unit that keep the unit ("two business days", "3 full weeks").
_UNIT_QUALIFIERS = frozenset({"business", "working", "calendar", "full", "whole", "straight", "extra"})
#: Words before a number that make it a difference or an addition, not the new amount ("by two weeks",
#: "another three days", "two more weeks").
_DELTA_BEFORE = frozenset({"by", "another", "extra", "additional", "further", "plus", "over"})
_DELTA_AFTER = frozenset({"more", "extra", "additional", "fewer", "less", "longer", "shorter", "ago", "late", "early",
                          "before", "after", "behind"})
_AMOUNT = re.compile(r"(\d+(?:\.\d+)?|[a-z]+)(?:\s+(?:of\s+)?)?((?:[a-z]+\s+){0,1})([a-z]+)", re.I)


def _number(word: str) -> float | None:
    word = word.lower()
    if word in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[word])
    try:
        return float(word)
    except ValueError:
        return None


#: Spellings of one unit of measure: "120 grams" and "100 g" are one unit ("m3" and "cubic metres" too).
_UNIT_ALIASES = {"g": "gram", "gr": "gram", "grams": "gram", "kg": "kilogram", "kgs": "kilogram", "kilo": "kilogram",
                 "kilos": "kilogram", "kilograms": "kilogram", "mg": "milligram", "milligrams": "milligram",
                 "mcg": "microgram", "ml": "millilitre", "millilitres": "millilitre", "milliliters": "millilitre",
                 "l": "litre", "litres": "litre", "liters": "litre", "liter": "litre", "ltr": "litre",
                 "km": "kilometre", "kms": "kilometre", "kilometres": "kilometre", "kilometers": "kilometre",
                 "mi": "mile", "lb": "pound", "lbs": "pound", "oz": "ounce", "m3": "cubic", "iu": "iu", "%": "percent",
                 "hrs": "hour", "mins": "minute"}
#: The units :func:`amounts` knows by name (a word after a number need not be one: "Terminal 2 now").
UNIT_NAMES = frozenset(_UNIT_ALIASES.values()) | frozenset(_TIME_UNITS) | {
    "kid", "child", "person", "people", "guest", "seat", "room", "bed", "run", "step", "page", "word",
    "tablet", "pill", "dose", "cup", "glass", "shift", "session", "class", "lesson", "replica", "node", "worker",
    "core", "instance", "user", "member", "employee", "visit", "set", "rep", "lap", "meal", "portion", "gb", "mb",
    "tb", "gig"}
#: Fractions written as one character ("3/4 cup" is read as three words and left alone).
_FRACTIONS = {"\u00bc": 0.25, "\u00bd": 0.5, "\u00be": 0.75, "\u2153": 1 / 3, "\u2154": 2 / 3}
#: A number with its unit written on ("55g", "1000mg", "42km", "10k", "8,000"): number, then unit.
_ATTACHED = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|[\u00bc\u00bd\u00be\u2153\u2154])(k|[a-z]+\d?|%)?$")


def _unit(word: str) -> str:
    word = word.lower()
    if word in _UNIT_ALIASES:
        return _UNIT_ALIASES[word]
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            stem = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            if stem in _TIME_UNITS or suffix == "s":
                return _UNIT_ALIASES.get(stem, stem)
    return word


#: How many times, said in one word.
_TIMES = {"once": 1, "twice": 2, "thrice": 3}


def _split_number(word: str) -> tuple[float, str | None] | None:
    """``(number, unit written on it)`` for "55g" -> ``(55, "gram")``, "10k" -> ``(10000, None)``,
    "8,000" -> ``(8000, None)``, "\u00be" -> ``(0.75, None)``; None when ``word`` is no number
    (or its suffix is no unit: "12th", "3pm")."""
    m = _ATTACHED.match(word)
    if m is None:
        return None
    digits, suffix = m.groups()
    value = _FRACTIONS.get(digits) or float(digits.replace(",", ""))
    if suffix is None:
        return value, None
    if suffix == "k":
        return value * 1000, None
    unit = _UNIT_ALIASES.get(suffix)
    return (value, unit) if unit else None


@functools.lru_cache(maxsize=4096)
def amounts(text: str) -> tuple[tuple[float, str], ...]:
    """``(number, unit)`` pairs stated as amounts: "two weeks" -> ``(2, "week")``, "48 hours" ->
    ``(48, "hour")``, "3 kids" -> ``(3, "kid")``, "55g" and "55 grams" -> ``(55, "gram")``. Differences
    ("by two days", "two more weeks") and past offsets ("three weeks ago") are not amounts. "a"/"an"
    count only before a time unit; "twice" is ``(2, "time")``."""
    words = re.findall(r"[\d\u00bc\u00bd\u00be\u2153\u2154][\d.,:/]*[a-z%$]*\d?|m3\b|[a-z]+(?:'[a-z]+)?", text.lower())
    words = [w.rstrip(".,") if w[0].isdigit() else w for w in words]  # "40k." ends a sentence
    out: list[tuple[float, str]] = []
    for i, w in enumerate(words):
        if w in _NUMBER_WORDS:
            value, unit = float(_NUMBER_WORDS[w]), None
        elif w in _TIMES:
            value, unit = float(_TIMES[w]), "time"  # "twice a week" is "2 times a week"
        else:
            split = _split_number(w)
            if split is None:
                continue  # "9:30", "12th", "2024-03": no amounts here
            value, unit = split
        if i and words[i - 1] in _DELTA_BEFORE:
            continue
        if unit is not None:
            if not (i + 1 < len(words) and words[i + 1] in _DELTA_AFTER):
                out.append((value, unit))
            continue
        j = i + 1
        if j < len(words) and words[j] in _UNIT_QUALIFIERS:
            j += 1
        if j >= len(words) or words[j] in _DELTA_AFTER or _number(words[j]) is not None or words[j] in STOP:
            continue
        unit = _unit(words[j])
        if w in ("a", "an", "half") and unit not in _TIME_UNITS:
            continue
        if j + 1 < len(words) and words[j + 1] in _DELTA_AFTER:
            continue
        out.append((value, unit))
    return tuple(out)


def _hours(value: float, unit: str) -> float | None:
    return value * _TIME_UNITS[unit] if unit in _TIME_UNITS else None


def _amount_changed(older: str, part: str, sim: float, cued: bool = False) -> bool:
    """A count or duration of one unit (or of time) changed, under an update cue (``cued``: one the
    caller read before taking the effective time off), with the key kept. Each unit is compared on its
    own: "55g a day" / "70g a day" changed the grams, not the day."""
    if not cued and update_cue(part) is None and not _progress(older, part):
        return False
    old, new = amounts(older), amounts(part)
    if not old or not new:
        return False
    changed = False
    for a_value, a_unit in old:
        if (a_value, a_unit) in new:
            continue  # restated ("two meals" in both): not what changed
        for b_value, b_unit in new:
            ha, hb = _hours(a_value, a_unit), _hours(b_value, b_unit)
            if (ha is not None and hb is not None and ha != hb) or (a_unit == b_unit and a_value != b_value):
                changed = True
    if not changed:
        return False
    units = {u for _, u in old} | {u for _, u in new}
    key = [w for w in content(older) if not any(c.isdigit() for c in w) and _unit(w) not in units
           and w not in _NUMBER_WORDS]
    if any(any(same_word(k, t) for t in content(part)) for k in key) or sim >= CLOSE_SIM:
        return True
    # a measure written with its unit of weight or volume ("55g" / "70g", "50 mcg" / "75 mcg"), one of
    # that unit on each side, is the key itself when the two texts are related at all
    # (and no other named owner: "Pickle's weigh-in: 4.6 kg" is not Biscuit's weight)
    # so is a count per the same period ("3 runs a week" / "four runs a week")
    once = {u for _, u in old if sum(u == x for _, x in old) == 1 and sum(u == x for _, x in new) == 1}
    measured = bool(once & _MEASURES)
    per_period = any(x in _PERIODS and (v, x) in new for v, x in old) and bool(once - _PERIODS)
    o_caps, n_caps = _capitalised(older), _capitalised(part)
    other_owner = bool(o_caps - n_caps) and bool(n_caps - o_caps)
    return ((measured and sim >= _MEASURED_MIN_SIM) or (per_period and sim >= RELATED_MIN_SIM)) and not other_owner


#: A measure with its unit on each side anchors the pair more than a count does: a dose reworded
#: ("levothyroxine 50 mcg, one tablet every morning" / "she's bumping me up to 75 mcg") sits at 0.23.
_MEASURED_MIN_SIM = 0.2


#: Periods a count is given per ("a week", "a day").
_PERIODS = frozenset({"day", "week", "fortnight", "month", "year"})


def _capitalised(text: str) -> set[str]:
    """Capitalised words of ``text`` that are no function word (a sentence's first one included)."""
    return {w.lower() for w in re.findall(r"\b[A-Z][a-z]{2,}", text)} - STOP


#: Units of weight and volume: what a dose or a portion is measured in.
_MEASURES = frozenset({"gram", "kilogram", "milligram", "microgram", "millilitre", "litre", "iu", "ounce", "pound"})
#: How far along a piece of work is: a later share replaces the earlier one without a cue ("30%
#: complete" / "~75% there").
_PROGRESS = re.compile(r"\b\d+(?:\.\d+)?\s?%\s*(?:complete|completed|done|through|there|finished|migrated|in)\b|"
                       r"\b(?:progress|complete|completed|done|through|finished)\b[^.]{0,20}?\d+(?:\.\d+)?\s?%", re.I)


def _progress(older: str, part: str) -> bool:
    return bool(_PROGRESS.search(older) or _PROGRESS.search(part)) and "%" in older and "%" in part


_SWITCH = r"(?:switch\w*|chang\w*|swapp?\w*|rebook\w*|mov\w*|tri\w*|found|got|picked|have|has)"


_PRONOUN_S = "(?:" + "|".join(rf"(?<=\b{w})" for w in ("it", "he", "she", "that", "what", "who", "there", "here")) + ")'s"


def _subject_nouns(older: str) -> list[str]:
    """Content words of the earlier statement before its copula or first verb: what it is about."""
    # "'s" is a copula after a pronoun ("it's"), a possessive after a noun ("the dog's vet is")
    m = re.search(r"\b(is|are|was|were|" + _PRONOUN_S + r"|lives?|runs?|uses?|listens?|sits?|does|do)\b", older, re.I)
    head = older[: m.start()] if m else ""
    return [w for w in content(head) if not any(c.isdigit() for c in w) and len(w) > 2 and w not in names(older)]


def _kind_switched(older: str, part: str) -> bool:
    """"We switched dentists ... Dr. Okafor", "the new venue is the Lakeside": the earlier subject's
    noun, plural after a switch verb or after "new", with a name the earlier statement lacks."""
    nouns = _subject_nouns(older)
    if not nouns:
        return False
    o_names = names(older)
    fresh = [x for x in names(part) if len(x) > 2 and not any(same_word(x, y) for y in o_names)
             and not any(same_word(x, w) for w in content(older))]
    if not fresh:
        return False
    for noun in nouns:
        plural = re.escape(noun) + r"(?:e?s)"
        if re.search(r"\b" + _SWITCH[:-1] + r")\s+(?:our |my |the |their )?" + plural + r"\b", part, re.I) and \
                re.search(r"\b(switch\w*|chang\w*|swapp?\w*|rebook\w*|mov\w*)\b", part, re.I):
            return True
        if re.search(r"\bnew\s+(?:\w+\s+)?" + re.escape(noun) + r"\b(?!s)", part, re.I) and \
                re.search(r"\bnew\s+(?:\w+\s+)?" + re.escape(noun) + r"\s+(is|'s|will be)\b", part, re.I):
            return True
    return False


_PARTNER_WORDS = re.compile(r"\b(dating|seeing|girlfriend|boyfriend|partner|fianc[ée]e?|engaged|married|husband|wife|"
                            r"spouse|together|relationship)\b", re.I)
#: The states of a relationship and the words that name them ("my wife" is married, "my ex" ended).
_PARTNER_STATES = (
    ("ended", re.compile(r"\b(divorced|divorcing|separated|broke up|broken up|breaking up|split up|splitting up|"
                         r"called it off|ended things|my ex|ex-(wife|husband|girlfriend|boyfriend|partner))\b", re.I)),
    ("married", re.compile(r"\b(married|tied the knot|(my )?(wife|husband|spouse))\b", re.I)),
    ("engaged", re.compile(r"\b(engaged|fianc[ée]e?|said yes)\b", re.I)),
    ("dating", re.compile(r"\b(dating|seeing|girlfriend|boyfriend|together|relationship)\b", re.I)),
)


def _partner_states(text: str) -> set[str]:
    found: set[str] = set()
    for state, pattern in _PARTNER_STATES:
        if pattern.search(text):
            found.add(state)
            if state == "ended":  # "my ex-wife" is not married
                break
    return found


_US = re.compile(r"\b(we|we're|we've|we'd|us|our)\b|\band i\b|\bi and\b|\b(i'm|i am|i got|i've)\b", re.I)


def _relationship_changed(older: str, part: str) -> bool:
    """The speaker's partner, named earlier, is now engaged, married, divorced or broken up with."""
    if not _PARTNER_WORDS.search(older) or not re.search(r"\b(i|i'm|my|we|we're|our)\b", older, re.I):
        return False
    partner = [x for x in names(older) if len(x) > 1]
    if partner:
        shared = any(any(same_word(x, t) for t in content(part)) for x in partner)
    else:  # "my boyfriend and I ..." / "my boyfriend proposed"
        shared = any(re.search(r"\b" + re.escape(w.lower()) + r"\b", part, re.I)
                     for w in _PARTNER_WORDS.findall(older))
    if not shared or not _US.search(part):
        return False
    new_states = _partner_states(part) - {"dating"}  # "dating" is no news about a known partner
    return bool(new_states - _partner_states(older))


_GENERIC = frozenset({"team", "thing", "stuff", "time", "day", "week"})


def _attribute_gone(older: str, part: str) -> bool:
    """"There is no <key> anymore", "no more <key>": every distinctive subject noun of the earlier
    statement recurs right after the "no" (a qualifier or two between allowed)."""
    nouns = [w for w in _subject_nouns(older) if w not in _GENERIC]
    if not nouns:
        return False
    lowered = part.lower()
    if not re.search(r"\b(anymore|any more|no longer)\b|\bno more\b", lowered):
        return False
    for m in re.finditer(r"\bno (?:more |longer (?:a |an |any )?)?((?:[\w'-]+\s+){0,3}[\w'-]+)", lowered):
        after = content(m.group(1).replace("-", " "))
        if all(any(same_word(n, t) or t.startswith(n) for t in after) for n in nouns):
            return True
    return False


_ROLE_NOUN = (r"(manager|engineer|developer|designer|director|lead|analyst|scientist|architect|administrator|admin|"
              r"consultant|intern|vp|cto|ceo|cfo|coo|head of \w+|owner|coordinator|specialist|officer|nurse|teacher|"
              r"principal|editor|producer|recruiter|researcher|tester|partner|associate|supervisor|chair|president|"
              r"founder|advisor|adviser|counsel|accountant|strategist|marketer)")
_AS_ROLE = re.compile(r"\b(as|to) (?:a |an |the |our |their )?(?:new )?((?:[\w-]+ ){0,2}" + _ROLE_NOUN + r")\b", re.I)
_ROLE_START = re.compile(r"\b(first (day|week|month)|start(ed|s|ing)?|now|promot\w*|promo|new role|moved|switch\w*|"
                         r"joined|hired|became|become|becoming|taking on|stepp(ed|ing) (in|up)|transferr\w*|"
                         r"officially|appointed|named)\b", re.I)
_OLD_ROLE = re.compile(r"\b(is|'s|works as|working as|runs|leads|handles|does) (?:a |an |the |our )?", re.I)


def _took_role(older: str, part: str) -> bool:
    """A person named in the earlier statement's subject now works *as* another role ("Priya is a
    backend developer" / "Priya started this week as engineering manager")."""
    m = _OLD_ROLE.search(older)
    if m is None:
        return False
    who = [x for x in names(older[: m.start()]) if len(x) > 2]
    first = re.match(r"\s*([A-Z][a-z]+)\b", older)
    if first and first.group(1).lower() not in STOP:
        who.append(first.group(1).lower())
    if not who or not any(re.search(r"\b" + re.escape(x) + r"\b", part, re.I) for x in who):
        return False
    role = _AS_ROLE.search(part)
    if role is None or not _ROLE_START.search(part):
        return False
    new_role = content(role.group(2))
    old_value = content(older[m.end():])
    return any(not any(same_word(w, v) for v in old_value) for w in new_role)


#: Slots of a typed value, which a later value of the same slot replaces.
_TYPED = frozenset({"day", "time", "date", "money", "percent", "duration", "quantity", "version", "port"})
_MOVE_TO = re.compile(r"\b(?i:mov\w*|switch\w*|chang\w*|shift\w*|push\w*|reschedul\w*|bump\w*|swapp?\w*)\b"
                      r"(?P<key>(?:\s+[\w'-]+){1,5}?)\s+to\s+(?P<value>[\w$€£:.,/-]*\w(?:\s+(?:\d[\w:.]*|am|pm|[A-Z]\w*))?)")


def _key_words(older: str) -> list[str]:
    """Content words of the earlier statement that are no typed value or name: what it is about."""
    return [w for w in content(older) if not any(c.isdigit() for c in w) and not slots(w) & _TYPED
            and w not in names(older) and len(w) > 2]


def _moved_to_value(older: str, part: str) -> bool:
    """"Moved my long run to Saturdays": a move verb, the earlier statement's key words, then "to" and
    a value of the earlier value's type that the earlier statement lacks."""
    typed = slots(older) & _TYPED
    key = _key_words(older)
    if not typed or not key:
        return False
    for clause in split_clauses(part):
        for m in _MOVE_TO.finditer(clause):
            said = content(m.group("key"))
            if sum(any(same_word(k, t) for t in said) for k in key) * 2 < max(len(key), 2):
                continue  # most key words ("book club", not its verb "meets"), at least two of a longer key
            value = m.group("value")
            if slots(value) & typed and not any(any(same_word(v, w) for w in content(older)) for v in content(value)):
                return True
    return False


_COPULA = re.compile(r"\b(is|are|'s|'re|was|were)\b", re.I)
#: A subject of this many words or fewer ("design review") is named in full by a correction of it; in
#: a longer one ("venue deposit deadline") one word may be reworded ("hall deposit deadline").
_SHORT_SUBJECT = 2


def _corrected_value(older: str, part: str) -> bool:
    """A correction ("my mistake", "sorry") restating the attribute's head noun with a new value of
    the earlier value's type; a subject word may be reworded but not replaced by a name ("the ML
    team's budget" is another team's)."""
    if update_cue(part) != "correction":
        return False
    m_old, m_new = _COPULA.search(older), _COPULA.search(part)
    if m_old is None or m_new is None:
        return False
    subject = [w for w in content(older[: m_old.start()]) if not any(c.isdigit() for c in w)]
    said = content(part[: m_new.start()])
    if not subject or not any(same_word(subject[-1], t) for t in said):
        return False  # the head noun ("deadline", "budget") must recur before the copula
    kept = sum(any(same_word(w, t) for t in said) for w in subject)
    if kept * 2 < len(subject) or (len(subject) <= _SHORT_SUBJECT and kept < len(subject)):
        return False  # "the *code* review" for "the design review": half a two-word subject is another subject
    if names(part[: m_new.start()]) - names(older):
        return False
    typed = slots(older[m_old.end():]) & _TYPED
    new_value = part[m_new.end():]
    return bool(typed & slots(new_value)) and not all(any(same_word(v, w) for w in content(new_value))
                                                    for v in content(older[m_old.end():]))


_VERSION_TOKEN = re.compile(r"(?<![\w.])v?(\d+)\.(\d+)(?:\.\d+)?(?!\w|\.\d)", re.I)


def _version_changed(older: str, part: str) -> bool:
    """"X is on 1.27" / "x ... is on 1.29 as of today": a version of the same major number, the old
    one gone, under an update cue, with a subject word (or name) of the earlier statement recurring."""
    old = {m.group(0).lower().lstrip("v") for m in _VERSION_TOKEN.finditer(older)}
    new = {m.group(0).lower().lstrip("v") for m in _VERSION_TOKEN.finditer(part)}
    if not old or not new or old & new or update_cue(part) is None:
        return False
    if not any(a.split(".")[0] == b.split(".")[0] for a in old for b in new):
        return False
    return _subject_kept(older, part)


def _subject_kept(older: str, part: str) -> bool:
    """Every plain word of the earlier subject (before its copula or "runs"/"uses"/"on") recurs ("prod",
    not "staging"), and one word at least; a product name may be named by a part of it."""
    m = _COPULA.search(older) or re.search(r"\b(runs?|uses?|on)\b", older, re.I)
    subject = [w for w in content(older[: m.start()]) if not any(c.isdigit() for c in w)] if m else []
    plain = [w for w in subject if w not in names(older) and w not in ("our", "my")]
    said = content(part)
    return bool(subject) and all(any(same_word(w, t) for t in said) for w in plain) \
        and any(any(same_word(w, t) for t in said) for w in subject)


#: A product word right before its version: "Python 3.9", "PostgreSQL 13.11", "ubuntu-20.04", "postgres:13.9",
#: "Node v18"; or a model number ("Charge 4", "Forerunner 55", "Trados 2024"), read only after a capitalised word.
_PRODUCT_VERSION = re.compile(r"(?<![\w.-])([a-z][a-z+#]{1,19})(?:[ :-]|\s+v|-v)(\d+(?:\.\d+)*)(?!\w|\.\d)", re.I)
#: A shell prompt with its user and host ("hamid@ws-14:~/analytics$ "): machine output follows.
_PROMPT = re.compile(r"\w@[\w.-]+:\S*\$\s")
#: Words before a number that are no product ("version 3.1", "since 2.0").
_NOT_PRODUCT = STOP | {"version", "release", "since", "from", "to", "on", "at", "v", "and", "or", "than"}


#: Capitalised words before a whole number that name a date, a place in a row or a group, not a model
#: ("March 8", "Year 4", "Room 6", "Gate 12").
_NUMBERED = frozenset("""jan january feb february mar march apr april may jun june jul july aug august sep sept september
oct october nov november dec december mon monday tue tues tuesday wed wednesday thu thur thurs thursday fri friday
sat saturday sun sunday year years week day room level floor row seat unit bed stall number no gate platform terminal
bus route phase sprint step stage grade class group team table lane court pitch aisle box locker bay ward section
chapter page item part season episode series round batch block building flat apartment suite studio door""".split())


#: Before a model number said as a value: a verb, an article, a preposition or a colon.
_AS_VALUE = re.compile(r"(?:\b(?:is|are|was|were|'s|uses?|using|runs?|running|on|in|at|with|a|an|the|to|wears?|drives?|"
                       r"got|have|has|bought)\b|:)\s*(?:\S+\s+){0,3}$", re.I)


def _versions(text: str, models: bool = False, anywhere: bool = False) -> set[tuple[str, str]]:
    """``(product, version)`` pairs of ``text``: dotted versions, and with ``models`` whole numbers after a
    capitalised product word too ("Charge 4"), when they are said as a value (after a verb, an article or a
    colon: "my tracker is a Fitbit Charge 4"), not as what the text is about ("Note 3 from the meeting: ...");
    ``anywhere`` reads a later text, whose new model may stand anywhere ("transferred to Bay C (EDC-2)")."""
    found = set()
    for m in _PRODUCT_VERSION.finditer(text):
        word, version = m.group(1).lower(), m.group(2)
        if word in _NOT_PRODUCT:
            continue
        if "." in version:
            found.add((word, version))
            continue
        if not (models and m.group(1)[0].isupper()):
            continue
        # a model's product name of several capitalised words ("Trados Studio 2019"): each word names it
        name = _NAME_BEFORE.search(text[: m.start()])
        names = [w for w in (name.group(0).lower().split() if name else ())
                 if w not in _NOT_PRODUCT and w not in _NUMBERED]
        if (word in _NUMBERED and not name) or not (anywhere or _AS_VALUE.search(text[: (name or m).start()])):
            continue
        found |= {(w, version) for w in ([] if word in _NUMBERED else [word]) + names}  # "Studio" names no product
    return found


#: The capitalised words right before a product word: "*Trados* Studio 2019".
_NAME_BEFORE = re.compile(r"(?:\b(?-i:[A-Z])[\w+#-]*\s+){1,2}$")


def _another_version(older: str, part: str, models: bool = False) -> bool:
    """A product of ``older`` named before another version in ``part``, the earlier version gone."""
    new = _versions(part, models=True, anywhere=True)
    return any(any(p == product and v != version for p, v in new)
               and not re.search(rf"(?<![\w.]){re.escape(version)}(?!\w|\.\d)", part)
               for product, version in _versions(older, models))


def _product_version_changed(older: str, part: str, machine: bool = False) -> bool:
    """"The repo uses Python 3.9" / a pasted ``python --version`` saying "Python 3.12.2": a product named
    before its version in the earlier statement is named before another version (the earlier one gone).
    Machine output (``machine``: the whole later text is) names no subject of its own; a message needs
    an update cue and the earlier subject ("the web repo is on Python 3.12 now" is another repo's)."""
    machine = machine or is_tool_record(part) or bool(_PROMPT.search(part))
    if not machine and (update_cue(part) is None or not _subject_kept(older, part)):
        return False
    return _another_version(older, part)


def _another_model(older: str, part: str, cued: bool = False) -> bool:
    """"My tracker is a Fitbit Charge 4" / "upgraded to the Charge 6": a model number after a capitalised
    product word, another one under an update cue (``cued``: the message has one elsewhere). The caller
    checks that no other subject owns it."""
    return (cued or update_cue(part) is not None) and _another_version(older, part, models=True)


#: Closed sets of alternatives: one holds at a time, so another from the set under a change cue replaces it.
_ALTERNATIVES = (frozenset({"metric", "imperial"}), frozenset({"celsius", "fahrenheit"}),
                 frozenset({"light", "dark"}), frozenset({"iphone", "android", "pixel"}),
                 frozenset({"mac", "macbook", "windows", "linux", "ubuntu", "chromebook"}),
                 frozenset({"aisle", "window"}), frozenset({"12-hour", "24-hour"}),
                 frozenset({"kilometres", "kilometers", "km", "miles"}), frozenset({"kg", "kilos", "pounds", "lbs"}),
                 frozenset({"formal", "casual"}), frozenset({"remote", "hybrid", "onsite", "in-office"}),
                 frozenset({"tabs", "spaces"}), frozenset({"vim", "neovim", "emacs", "vscode", "vs-code"}),
                 # a cabin, a plan's tier, a loyalty status: one at a time
                 frozenset({"economy", "premium-economy", "business", "first-class"}),
                 frozenset({"free", "basic", "standard", "plus", "pro", "premium", "enterprise", "unlimited", "anytime",
                            "off-peak"}),
                 frozenset({"bronze", "silver", "gold", "platinum", "diamond"}),
                 # a diet
                 frozenset({"vegetarian", "vegan", "pescatarian", "pescetarian", "omnivore", "flexitarian"}))
#: "went premium", "moved up to the anytime plan", "going fully vegan": taking another of the set is the change.
_WENT_TO = (r"\b(?:went|go|going|gone|turned|turning|became|becoming|moved (?:up|down) to|upgraded to|downgraded to|"
            r"bumped (?:up |down )?to)\s+(?:the\s+|a\s+)?(?:fully\s+|full\s+|completely\s+|totally\s+)?")
#: Alternatives of two words, read as one ("premium economy" is not "economy"; "VS Code").
_TWO_WORD_ALTERNATIVES = re.compile(r"\b(premium|first|off|vs)[ -](economy|class|peak|code)\b", re.I)


def _alternative(older: str, part: str, cued: bool = False) -> bool:
    """The earlier statement names one of a closed set of alternatives; the later one, with a change
    cue (``cued``: the message has one elsewhere) or a verb that takes it ("went premium"), names another
    of the set and not the earlier one."""
    cued = cued or update_cue(part) in ("change", "correction")
    o_words = set(re.findall(r"[\w-]+", _TWO_WORD_ALTERNATIVES.sub(r"\1-\2", older.lower())))
    part = _TWO_WORD_ALTERNATIVES.sub(r"\1-\2", part.lower())
    n_words = set(re.findall(r"[\w-]+", part))
    for group in _ALTERNATIVES:
        had, has = o_words & group, n_words & group
        if had and has and not had & has and (cued or any(_taken_by_subject(older, part, m.start()) for w in has
                                                          for m in re.finditer(_WENT_TO + re.escape(w) + r"\b", part))):
            return True
    return False


#: Words between a taker and its verb: "has gone", "'s finally gone", "just went".
_AUXILIARY = frozenset({"has", "have", "had", "is", "was", "just", "finally", "officially", "now", "also", "then", "all",
                        "both"})


def _taken_by_subject(older: str, part: str, at: int) -> bool:
    """Who takes the alternative at ``at`` in ``part`` is the earlier subject: no one named (a note),
    the speaker ("I", "we"), or a word of the earlier statement ("my flatmate has gone vegan" is the
    flatmate's change, not the speaker's)."""
    before = [w for w in re.findall(r"[\w'’]+", part[:at].lower().replace("’", "'"))[-4:]
              if w not in _AUXILIARY and not w.startswith("'")]
    if not before:
        return True
    taker = re.sub(r"'(?:s|ve|m|re|d)$", "", before[-1])
    return taker in ("i", "we", "you") or bool(re.search(rf"\b{re.escape(taker)}\b", older.lower()))


_LIST = re.compile(r":\s*([^:]+,[^:]+)$")
_DONE = re.compile(r"\b(done|finished|complete[d]?|passed|signed off|sign-off|approved|resolved|fixed|shipped|merged|"
                   r"closed|cleared|landed|unblocked|sorted|wrapped( up)?|green|no longer (a )?block\w*)\b", re.I)


def _list_item_done(older: str, part: str) -> bool:
    """"Open items: A, B, C" / "A passed": a listed item named again beside a completion word."""
    m = _LIST.search(older.rstrip(". "))
    if m is None:
        return False
    items = [content(x) for x in re.split(r",|\band\b", m.group(1)) if content(x)]
    if len(items) < 2:
        return False
    for clause in re.split(r",|\band\b|\bso\b", part):
        words = content(clause)
        if _DONE.search(clause) and not re.search(r"\b(not|never|almost|nearly|yet)\b|n['’]t\b", clause, re.I) and any(
                all(any(same_word(w, t) for t in words) for w in item) for item in items):
            return True
    return False


#: A list after the last colon or copula: "volunteers are Sue, Karim and Joanne", "extensions: Prettier, ESLint".
_LISTED = re.compile(r"^.*(?::|\b(?:are|is|include|includes))\s+([^:]+?(?:,|\band\b)[^:]+?)\s*[.!]?$", re.I)
_ITEM_SPLIT = re.compile(r",|;|\band\b|\bthen\b|->|\u2192|\(\d+\)|\b\d[.)]\s", re.I)
#: A list shape in the later text: bullets, numbers, or two separators.
_LIST_SHAPE = re.compile(r"(?:^|\s)(?:[-*\u2022]|\d[.)])\s+\S.*(?:[-*\u2022]|\d[.)])\s+\S|,.*(?:,|\band\b)", re.S)
#: Said of a listed item that leaves ("joanne's stepped back", "Halvorsen wrapped up").
_ITEM_GONE = re.compile(r"\b(stepped (back|down)|left|leaving|dropped|gone|wrapped( up)?|done|finished|out|off|"
                        r"removed|retired|moved (away|on)|no longer|not any ?more|working in|away)\b", re.I)


_ITEM_WORDS = 3  # content words of one listed item at most ("Moth & Lantern logo")


def _list_changed(older: str, part: str) -> bool:
    """A list stated again with one item kept, one gone (absent, or named beside a word that it left)
    and one new: "the rota volunteers are Sue, Karim and Joanne" / "rota for rest of season is sue,
    karim and bex (joanne's stepped back)". A word of what the list is of must recur."""
    m = _LISTED.search(older.strip())
    if m is None or not _LIST_SHAPE.search(part):
        return False
    items = [content(x) for x in _ITEM_SPLIT.split(m.group(1)) if content(x)]
    if len(items) < 2 or any(len(i) > _ITEM_WORDS for i in items):  # "Priya, Sven answers the infra section"
        return False
    said = content(part)
    kept = [i for i in items if all(any(same_word(w, t) for t in said) for w in i)]
    gone = [i for i in items if not any(any(same_word(w, t) for t in said) for w in i) or any(
        _ITEM_GONE.search(c) and any(any(same_word(w, t) for t in content(c)) for w in i) and not _LIST_SHAPE.search(c)
        for c in re.split(r"[()]|\.\s", part))]
    listed = {w for i in items for w in i}
    fresh = [t for t in said if t not in listed and not any(same_word(t, w) for w in content(older))]
    key = [w for w in content(older[: m.start(1)]) if w not in STOP]
    return bool(kept) and bool(gone) and bool(fresh) and any(any(same_word(k, t) for t in said) for k in key)


_RULED_OUT = re.compile(r"\b(?:no|not|can'?t|cannot|unable to|not allowed to|banned from|off)\s+([a-z]{3,})"
                        r"(?:\s+([a-z]{3,}))?", re.I)
_AGAIN = re.compile(r"\b(again|back)\b", re.I)
_NEGATED = re.compile(r"\b(no|not|cannot|never|unable|cant|dont|wont)\b|n['’]t\b", re.I)


def _root(word: str) -> str:
    word = word.lower()
    for suffix in ("ning", "ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _possible_again(older: str, part: str) -> bool:
    """"No running for now" / "I can run again": the word the earlier statement ruled out, said
    without a negation next to "again" or "back"."""
    ruled = {_root(w) for m in _RULED_OUT.finditer(older) for w in m.groups() if w and w.lower() not in STOP
             and w.lower() not in ("for", "until", "now", "while", "longer", "more")}
    if not ruled:
        return False
    for clause in split_clauses(part):
        if not _AGAIN.search(clause) or _NEGATED.search(clause):
            continue
        if any(_root(w) in ruled for w in re.findall(r"[a-z]+", clause.lower())):
            return True
    return False


#: Each form's check, in the order they are tried (the first that fires names the change); only the
#: amount needs the texts' cosine and the caller's cue, and a product's version whether the text is machine output.
_CHECKS: tuple[tuple[str, Callable[[str, str, float, bool, bool], bool]], ...] = tuple(zip(FORMS, (
    lambda older, part, sim, cued, machine: _amount_changed(older, part, sim, cued),
    lambda older, part, sim, cued, machine: _kind_switched(older, part),
    lambda older, part, sim, cued, machine: _relationship_changed(older, part),
    lambda older, part, sim, cued, machine: _attribute_gone(older, part),
    lambda older, part, sim, cued, machine: _took_role(older, part),
    lambda older, part, sim, cued, machine: _moved_to_value(older, part),
    lambda older, part, sim, cued, machine: _corrected_value(older, part),
    lambda older, part, sim, cued, machine: _version_changed(older, part),
    lambda older, part, sim, cued, machine: _alternative(older, part),
    lambda older, part, sim, cued, machine: _list_item_done(older, part),
    lambda older, part, sim, cued, machine: _possible_again(older, part),
    lambda older, part, sim, cued, machine: _product_version_changed(older, part, machine),
    lambda older, part, sim, cued, machine: _another_model(older, part),
    lambda older, part, sim, cued, machine: _list_changed(older, part),
), strict=True))


def form_change(older: str, part: str, sim: float = 0.0, cued: bool = False, machine: bool = False) -> str | None:
    """Which of :data:`FORMS` says ``part`` (the assertive part of a later text) changes ``older``.

    ``sim`` is the two texts' cosine: an amount of a reworded statement needs it when no key word recurs.
    ``cued``: ``part`` carried an update cue before its effective time was taken off ("3/4 cup per meal
    from now on"). ``machine``: the later text is machine output (a pasted ``python --version``).
    """
    return next((form for form, changed in _CHECKS if changed(older, part, sim, cued, machine)), None)


def cued_nearby_form(older: str, part: str) -> str | None:
    """For one sentence of a message whose update cue sits in another sentence ("the Pixel 9 came
    today. the old one goes to my dad"): the forms anchored in a closed set of alternatives or
    in a model's name, read with that cue. Forms of looser anchors (an amount) need their own cue."""
    if _alternative(older, part, cued=True):
        return "switched to the alternative"
    if _another_model(older, part, cued=True):
        return "another model of the product"
    return None
