"""What a statement is about: its subject words, its attribute slots and the values it states.

A fact "payments-api listens on 8443" is about ``payments-api`` (subject), its ``port`` (slot) and
states the value ``8443``. An update says something about the same subject and slot with another
value, in whatever words. These helpers read all three without a model: content words (stemmed),
typed values (numbers, clock times, days, dates, money, versions, names), and slots from the value
types plus a small lexicon of attribute words.

Example:
    >>> sorted(slots("Daily standup is at 9:30."))
    ['time']
    >>> sorted(values("Q3 marketing cut from 40k to 32k."))
    ['32k', '40k', 'q3']
    >>> sorted(slots("Tomas leads the mobile team."))
    ['role']
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from typing import Mapping

__all__ = ["Reading", "read", "content", "values", "slots", "names", "hyphenated_word", "same_word", "abbreviates",
           "STOP", "WHEN_SLOTS"]

STOP = frozenset("""a an the is are was were be been being am has have had do does did will would shall should can
could may might must of for to in on at by with and or but that this these those it its as from into onto over via than
then there their they them we our us you your he she his her him i my me mine so such too very just also which who whom
whose what when where why how said says tell told about up out i'm i've it's we're we've they're that's there's here's
let's get gets got getting go goes going gone make made lol btw fyi heads tbh haha oh ok okay yeah like really still
every each all some any one own same other another more most much many few lot lots bit thing things stuff way
s t d ll re ve m nt don't doesn't isn't aren't wasn't won't can't didn't hasn't haven't""".split())

_TOKEN = re.compile(r"[$€£]?\d[\d,.:/]*(?:[a-z%]+)?|[^\W\d_][\w'’]*(?:[-_.][\w]+)*|%", re.UNICODE)
_CLOCK = re.compile(r"\b\d{1,2}(:\d{2})\s*(am|pm|utc|z)?\b|\b\d{1,2}\s*(am|pm)\b|\bnoon\b|\bmidnight\b", re.I)
_MONEY = re.compile(r"[$€£]\s?\d|\b\d[\d,.]*\s?(k|m|bn)\b|\b\d[\d,.]*\s?(dollars|euros|pounds|usd|eur|gbp)\b", re.I)
_PERCENT = re.compile(r"\d\s?%|\bper ?cent\b", re.I)
_VERSION = re.compile(r"\bv\d+(\.\d+)*\b|\b\d+\.\d+(\.\d+)?\b", re.I)
_MONTHS = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)"
_ORDINAL_WORDS = (r"(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
                  r"fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-\w+|thirtieth|"
                  r"thirty-first)")
#: A date in either order: "May 30", "30 May", "the 30th", "the first of June", "2024-05-30".
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b" + _MONTHS + r"[a-z]*\.?\s+\d{1,2}\b|"
                   r"\b\d{1,2}(st|nd|rd|th)\b|\b\d{1,2}(st|nd|rd|th)?\s+(of\s+)?" + _MONTHS + r"(?![a-z])"
                   r"(?!\s+(be|have|need|not|want|also|still|take|get|go|come|help|work|well|only)\b)|"
                   r"\b\d{1,2}(st|nd|rd|th)?\s+(of\s+)?(january|february|march|april|june|july|august|september|october|"
                   r"november|december)\b|\b" + _ORDINAL_WORDS + r"\s+of\s+(january|february|march|april|may|june|july|"
                   r"august|september|october|november|december)\b|"
                   # a day counted from now: "the weekend after next", "by the end of next week", "in two weeks"
                   r"\b(?:weekend|week|month) after next\b|\b(?:end|start|beginning|middle)(?: of)? (?:next|this|the) "
                   r"(?:week|month)\b|\bin (?:two|three|four|\d) weeks\b", re.I)
_DAY = re.compile(r"\b(mon|tues|wednes|thurs|fri|satur|sun)day", re.I)
_DURATION = re.compile(r"\b\d+\s?(h|hrs?|hours?|m|mins?|minutes?|days?|weeks?|months?|years?)\b|\b\d+h\s?\d+m\b", re.I)
_COUNT = re.compile(r"\b\d+\s?(x|times|people|engineers|seats|pods|workers|replicas|nodes|guests|members|users|"
                    r"laptops|servers|instances|items|units|per|a week|qty)\b|\bqty=\d", re.I)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)(?<![\w'])([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")
_ID = re.compile(r"\b[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+\b")

#: Slots of a point in time, whose values stand in for each other (a day, a date, a clock time).
WHEN_SLOTS = frozenset({"time", "day", "date"})
#: Attribute words and the slot they name: a second reading of what a statement is about.
_SLOT_WORDS: dict[str, tuple[str, ...]] = {
    "port": ("port", "listens", "listen", "serves on"),
    "time": ("at", "o'clock", "time", "slot", "window", "kick off", "start", "starts"),
    "day": ("day", "days", "weekly", "every"),
    "location": ("live", "lives", "living", "located", "location", "based", "office", "floor", "region", "sits",
                 "sit", "ship", "ships", "warehouse", "venue", "held", "where", "moved to", "neighbourhood",
                 "neighborhood", "city", "lives in", "keys", "kept in", "stored", "rack", "building"),
    "role": ("lead", "leads", "leading", "manager", "report", "reports", "contact", "coordinates", "coordinator",
             "handles", "handle", "owner", "owns", "owned", "title", "engineer", "head", "em", "runs", "in charge",
             "responsible", "ping", "route", "department", "dept", "role", "team"),
    "status": ("status", "done", "live", "beta", "blocked", "paused", "on track", "at risk", "complete",
               "completed", "progress", "review", "healthy", "degraded", "released", "shipped", "open", "blocker",
               "blockers", "plan", "building", "cancelled", "on hold", "off hold"),
    "quantity": ("how many", "count", "number", "seats", "pods", "workers", "engineers", "guests", "people",
                 "spare", "size", "headcount"),
    "money": ("budget", "cost", "costs", "price", "rent", "rate", "spend", "cap", "capped", "fee", "salary",
              "pay", "paid", "per month", "a month", "/month", "/mo"),
    "version": ("version", "upgraded", "release", "on"),
    "name": ("called", "named", "name", "renamed"),
    "preference": ("prefer", "prefers", "favourite", "favorite", "like", "likes", "love", "loves", "want",
                   "please", "use", "using", "take", "takes"),
    "tool": ("use", "uses", "using", "runs on", "run on", "built with", "builds with", "stack", "vendor",
             "gateway", "editor", "font", "phone", "app", "service", "tool", "database", "db"),
}
_SLOT_RE = {slot: re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.I)
            for slot, words in _SLOT_WORDS.items()}
_WEAK_SLOTS = frozenset({"time", "day", "version", "preference", "tool", "role", "status"})


#: Weekdays as lists and rotas shorten them ("tue tacos"); "wed", "sat" and "sun" are English words too.
_WEEKDAY_SHORT = {"mon": "monday", "tue": "tuesday", "tues": "tuesday", "thu": "thursday", "thur": "thursday",
                  "thurs": "thursday", "fri": "friday"}


def _stem(word: str) -> str:
    word = word.replace("’", "'")
    if word.endswith("'s") or word.endswith("s'"):
        word = word[:-2] if word.endswith("'s") else word[:-1]
    word = word.strip("'")
    if word in _WEEKDAY_SHORT:
        return _WEEKDAY_SHORT[word]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def same_word(a: str, b: str) -> bool:
    """Equal, or sharing a prefix of five letters or more that leaves at most one letter of the shorter
    ("thumbnailer" / "thumbnailers", "calorie" / "calory")."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < 5:
        return False
    common = len(os.path.commonprefix([short, long_]))
    # digits last (most pairs fail on the prefix): "cache-node-07" is not a form of "cache"
    return common >= 5 and common >= len(short) - 1 and not any(map(str.isdigit, a + b))


def abbreviates(short: str, word: str) -> bool:
    """``short`` is a chat abbreviation of ``word``: its first letters ("sci", "science") or, with no
    vowel after the first letter, its letters in order ("bldg", "building"; "mgmt", "management").

    Example:
        >>> abbreviates("bldg", "building"), abbreviates("sci", "science"), abbreviates("bldg", "bridge")
        (True, True, False)
    """
    if not 2 <= len(short) <= 5 or len(word) < len(short) + 2 or short[0] != word[0] or not short.isalpha():
        return False
    if len(short) >= 3 and word.startswith(short):
        return True
    letters = iter(word)
    return not re.search(r"[aeiou]", short[1:]) and all(c in letters for c in short)


@functools.lru_cache(maxsize=8192)
def content(text: str) -> tuple[str, ...]:
    """Content tokens in order: lower-case, stemmed, no stop words (numbers and ids kept)."""
    out = []
    for tok in _TOKEN.findall(text.lower()):
        tok = tok.rstrip(".,:/")
        if tok[:1] in "$€£" or tok[:1].isdigit():  # "$40k" is "40k", "1,600" is "1600"
            tok = tok.lstrip("$€£").replace(",", "")
        if not tok or tok in STOP:
            continue
        tok = _stem(tok)
        if tok and tok not in STOP and len(tok) > 1 or any(c.isdigit() for c in tok):
            out.append(tok)
    return tuple(out)


def _norm_number(tok: str) -> str:
    t = tok.lower().replace(",", "").strip("$€£.")
    return t


@functools.lru_cache(maxsize=8192)
def values(text: str) -> frozenset[str]:
    """Number-bearing tokens (normalised: "$40k" -> "40k", "1,600" -> "1600")."""
    return frozenset(_norm_number(t) for t in content(text) if any(c.isdigit() for c in t))


@functools.lru_cache(maxsize=8192)
def names(text: str) -> frozenset[str]:
    """Names and identifiers: capitalised words not opening a sentence, and hyphenated ids, lower-cased."""
    out = set()
    for m in _NAME.finditer(text.strip()):
        for w in m.group(1).split():
            w = _stem(w.lower())
            if w not in STOP and len(w) > 1:
                out.add(w)
    out.update(_ID.findall(text.lower()))
    return frozenset(out)


_HYPHENATED = re.compile(r"[a-z]+(?:-[a-z]+)+")


def hyphenated_word(name: str) -> bool:
    """A name of :func:`names` that is a hyphenated word with no digit ("no-shows", "4-year-old" gives
    "year-old", "off-peak"): :func:`names` reads it as an id, yet it names no thing, person or place.
    An id with a digit ("db-orders-3") is none."""
    return _HYPHENATED.fullmatch(name) is not None


#: Slots read off the value's type (and the port's own words), before the attribute-word patterns.
_TYPED_SLOTS = (("time", _CLOCK), ("day", _DAY), ("date", _DATE), ("money", _MONEY), ("percent", _PERCENT),
                ("duration", _DURATION), ("quantity", _COUNT), ("port", re.compile(r"\bport\b|\blisten", re.I)))


@functools.lru_cache(maxsize=8192)
def slots(text: str) -> frozenset[str]:
    """The attribute slots ``text`` speaks about, from its value types and attribute words."""
    found = {slot for slot, pattern in _TYPED_SLOTS if pattern.search(text)}
    for slot, pattern in _SLOT_RE.items():
        if slot in ("time", "day", "version") or slot in found:
            continue
        if pattern.search(text):
            found.add(slot)
    if _VERSION.search(text) and not found & {"money", "time", "percent"}:
        found.add("version")
    return frozenset(found)


@dataclass(frozen=True, slots=True)
class Reading:
    """One statement read once: content tokens, values, names and slots."""

    text: str
    tokens: tuple[str, ...]
    values: frozenset[str]
    names: frozenset[str]
    slots: frozenset[str]
    #: tokens by their first five letters: :func:`same_word` holds only for words sharing them
    by_prefix: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False, repr=False)

    def has(self, token: str) -> bool:
        """Whether a content token of this statement is (a form of) ``token``."""
        return any(same_word(token, t) for t in self.by_prefix.get(token[:_PREFIX], ()))


_PREFIX = 5  # same_word's shortest shared prefix


@functools.lru_cache(maxsize=8192)
def read(text: str) -> Reading:
    """A :class:`Reading` of ``text`` (cached: capture compares each text with several others)."""
    tokens = content(text)
    by_prefix: dict[str, tuple[str, ...]] = {}
    for t in dict.fromkeys(tokens):
        by_prefix[t[:_PREFIX]] = by_prefix.get(t[:_PREFIX], ()) + (t,)
    return Reading(text, tokens, values(text), names(text), slots(text), by_prefix)
