"""What form of answer a question asks for, and whether a text holds one.

"Who heads the clinical lab?" asks for a person; "What's the status of MIG-212?" for a status;
"When are my physio sessions?" for a time, "How often ...?" for a frequency, "Where ...?" for a place
("into the kitchen drawer", "in Leeds"). When a fact in the candidate pool has changed, the current
one inherits the stale one's score (:mod:`~hindsight_core.retrieval.present`), yet another fact of
the same subject may still sit above it because MiniLM puts it nearer the question ("The clinical
lab is on floor 2" scores 0.67 against that question, "Dr. Solvang is our new head of the clinical
lab" 0.56). :func:`answer_first` lets the facts that hold an answer of the asked form lead the head
of the ranking. Pure functions; only the form of the value counts, and a value the question names
itself ("Who grooms *Biscuit*?") is no answer.

Example:
    >>> asked_form("Who is head of the clinical lab?")
    'person'
    >>> holds_answer("Please welcome our new head of clinical lab, Dr. Henrik Solvang!", "person",
    ...              "Who is head of the clinical lab?")
    True
    >>> holds_answer("The clinical lab is on floor 2 of Building C.", "person", "Who is head of the clinical lab?")
    False
"""

from __future__ import annotations

import functools
import re
from typing import Callable, Collection, Sequence

__all__ = ["asked_form", "holds_answer", "answer_first", "ANSWER_HEAD"]

#: How many of the best-ranked units the asked form may reorder (those below do not reach the answer).
ANSWER_HEAD = 10

_ASKS = (
    ("person", re.compile(r"^\W*(?:who|whom|whose)\b|\bwho(?:'s| is| are)\b", re.I)),
    ("status", re.compile(r"\b(?:status|state|progress)\b|\bwhere (?:are|is|do) (?:we|things|it) (?:with|stand|at)\b|"
                          r"\bhow far along\b", re.I)),
    ("role", re.compile(r"\b(?:role|job title|title|position)\b", re.I)),
    ("frequency", re.compile(r"\bhow often\b|\bhow many times\b", re.I)),
    ("time", re.compile(r"^\W*when\b|\bwhat (?:time|day|date)\b|\bwhich (?:day|date)\b", re.I)),
    ("place", re.compile(r"^\W*where\b", re.I)),  # after "status": "where are we with ..." asks for one
    ("port", re.compile(r"\bports?\b", re.I)),
    ("name", re.compile(r"\b(?:code ?name|called|named)\b|\bname (?:of|for)\b|\bwhat(?:'s| is) (?:\w+ ){0,4}name\b", re.I)),
)
#: A person's name: after a title; a capitalised word inside a sentence (not "Building C", "Room 4");
#: or one opening a sentence as its subject ("Tomasz is stepping up", "Bev's retiring").
_NAME = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+[A-Z][\w'-]+|"
                   r"(?<=[a-z,;:(]\s)[A-Z][a-z]+(?:[-'][A-Za-z]+)?\b(?!\s+(?:[A-Z]\b|\d))|"
                   r"(?:^|(?<=[.!?\n]\s)|(?<=\n))[A-Z][a-z]+(?=(?:'s|\u2019s) |\s+(?:is|was|has|will|and [A-Z])\b)")
_NOT_NAMES = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays "
    "saturdays sundays january february march april may june july august september october november december "
    "i i'm i've i'll street road avenue lane building floor room office team it this that there he she they we you "
    "what who our my your their his her".split())
_STATUS = re.compile(r"\b(?:resolved|done|closed|blocked|in progress|open|merged|shipped|submitted|approved|pending|"
                     r"live|launched|completed?|cancell?ed|on hold|draft|in review|released|deployed|fixed|finished|"
                     r"ready|stuck|waiting|paused|signed off|rejected|accepted|underway|started|up and running)\b", re.I)
_ROLE = re.compile(r"\b(?:director|manager|head|lead|chief|officer|engineer|designer|analyst|coordinator|supervisor|"
                   r"president|chair\w*|treasurer|secretary|captain|vp|cto|ceo|cfo|coo|principal|senior|junior|"
                   r"intern|consultant|specialist|administrator|admin|partner|associate|nurse|chef|owner)\b", re.I)
_TIME = re.compile(r"\b(?:\d{1,2}(?::\d{2})?\s?(?:am|pm)|\d{1,2}:\d{2}|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
                   r"(?:jan|febr)uary|march|april|may|june|july|august|september|october|november|december|"
                   r"\d{1,2}(?:st|nd|rd|th)|mornings?|afternoons?|evenings?|noon|midday|midnight|"
                   r"tomorrow|tonight|weekends?)\b", re.I)
_FREQUENCY = re.compile(r"\b(?:daily|weekly|fortnightly|monthly|yearly|annually|every\b|each (?:day|week|month)|"
                        r"(?:once|twice|\w+ times) (?:a|an|per|each)\b|\d+x\b|\w+ a (?:day|week|month))", re.I)


def asked_form(query: str) -> str | None:
    """``"person"``, ``"status"``, ``"role"``, ``"frequency"``, ``"time"``, ``"place"``, ``"port"`` or
    ``"name"`` (a thing's name: "What is the project called?"): the form of answer ``query`` asks for,
    if it says."""
    return next((form for form, asks in _ASKS if asks.search(query)), None)


#: A capitalised word after these is a place ("based in Reading", "near Alexanderplatz"), not a person.
_PLACE_BEFORE = re.compile(r"\b(?:in|at|near|from|on|of|via)\s+$", re.I)


def _names(text: str) -> set[str]:
    found = (m for m in _NAME.finditer(text) if not _PLACE_BEFORE.search(text[max(0, m.start() - 6):m.start()]))
    return {m.group(0).lower() for m in found} - _NOT_NAMES


#: A place: a name or an id after a preposition ("in Leeds", "at Quarry Lane 4", "to pg-18"), or one said
#: with a determiner ("into the kitchen drawer", "by the window"), not a time said so ("in the morning")
#: nor a person ("owned by Dana").
_AT = r"in|into|at|on|near|inside|outside|under|behind|beside|opposite|above|below|between|to"
_PLACE = re.compile(rf"\b(?:(?:{_AT})\s+(?:(?-i:[A-Z])[\w'-]+|[a-z][\w.-]*\d[\w.-]*)|"
                    rf"(?:{_AT}|by)\s+(?:the|a|an|our|my|his|her|their|its)\s+"
                    r"(?!(?:morning|afternoon|evening|night|weekend|week|month|year|moment|end|start|time|same)\b)"
                    r"[\w'-]+)", re.I)
#: A port: a number of two to five digits standing alone (not a version, an address, a time or an amount).
_PORT = re.compile(r"(?<![\w.:/$£€-])\d{2,5}(?![\w.%:/-])(?!\s*(?:days?|weeks?|months?|years?|hours?|h|mins?|minutes?|"
                   r"seconds?|s|ms|gb|mb|tb|kb|k|x|people|users|nodes|replicas|requests|per)\b)", re.I)
_VALUES = {"status": _STATUS, "role": _ROLE, "time": _TIME, "frequency": _FREQUENCY, "place": _PLACE, "port": _PORT}


def _values(text: str, form: str) -> frozenset[str]:
    if form in ("person", "name"):  # a thing's name is written as a person's is
        return frozenset(_names(text))
    return frozenset(m.group(0).lower() for m in _VALUES[form].finditer(text))


@functools.lru_cache(maxsize=1024)  # asked once per question, answered for each of the head's texts
def _named_by(query: str, form: str) -> frozenset[str]:
    """The values of ``form`` the question names itself (for a person, any capitalised word of it)."""
    if form in ("person", "name"):
        return _values(query, form) | {w.lower() for w in re.findall(r"[A-Z][\w'-]+", query)}
    return _values(query, form)


def holds_answer(text: str, form: str, query: str) -> bool:
    """``text`` states a value of ``form`` that ``query`` does not name itself."""
    return bool(_values(text, form) - _named_by(query, form))


def answer_first(fused: list[tuple[str, float]], text_of: Callable[[str], str | None], query: str,
                 current: Collection[str], head: int = ANSWER_HEAD) -> list[tuple[str, float]]:
    """``fused`` with the units of its first ``head`` that hold an answer of the asked form ahead of
    those that hold none (each group in its order). Only when one of them is a ``current`` fact (one
    that took over from another) and holds such an answer: else ``fused`` unchanged."""
    form = asked_form(query)
    if form is None or len(fused) < 2:
        return fused
    top: Sequence[tuple[str, float]] = fused[:head]
    holds = [holds_answer(text_of(uid) or "", form, query) for uid, _ in top]
    if all(holds) or not any(ok and uid in current for (uid, _), ok in zip(top, holds)):
        return fused
    lead = [hit for hit, ok in zip(top, holds) if ok]
    rest = [hit for hit, ok in zip(top, holds) if not ok]
    return lead + rest + list(fused[head:])
