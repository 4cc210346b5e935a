"""Which one a question asks about: a later text that names another one of the kind does not answer it.

A question often says which of several things it means by a name the earlier statement carries:
"What mixing desk is in Studio *A*?", "What are we paying for the *Switch* port?", "Who does the
bookkeeping for Fenwick *Joinery*?". A later text that lacks that name and puts another one in its
place ("new desk going into Studio *B*", "signed the *PlayStation* port contract", "Fenwick *Roofing*
signed up today") speaks of another studio, port or client, however close its wording: it states no
present value of what was asked. Recall's rival rules and learned judge
(:mod:`~hindsight_core.lifecycle.rivals`, :mod:`~hindsight_core.lifecycle.rival_model`) both ask
:func:`names_another` before letting a later statement answer for an earlier one.

A capital at the start of a sentence or line says nothing of a name ("Client Version: v1.29",
"New breakfast menu ..."), nor does an abbreviation of the asked name ("Mr O" for "Mr Okoye", "Sat"
for "Saturday"), a part of it ("Leeds" in "Harrowgate-Leeds") or a day or month.

Example:
    >>> names_another("Studio A mixing desk: Sonifex S2.", "new desk going into Studio B today", "What mixing desk is in Studio A?")
    True
    >>> names_another("Studio A mixing desk: Sonifex S2.", "Studio A got the new Axia desk today", "What mixing desk is in Studio A?")
    False
"""

from __future__ import annotations

import functools
import re

from hindsight_core.lifecycle.slots import STOP
from hindsight_core.lifecycle.update_keys import CALENDAR_WORD

__all__ = ["names_another"]

_TOKEN = re.compile(r"[A-Za-z0-9][\w'’-]*")
#: The first word of a sentence, a line, a label or a list item: capitalised whatever it is.
_INITIAL = re.compile(r"(?:^|[.!?:;\n]\s*|[-–—•|*>]\s+)([A-Za-z0-9][\w'’-]*)")


def _bare(word: str) -> str:
    """``word`` without quotes or a possessive ending ("Priya's" -> "Priya")."""
    return re.sub(r"['’]s$", "", word.strip("'’"))


def _tokens(text: str) -> list[str]:
    return [_bare(w) for w in _TOKEN.findall(text)]


def _capitalised(word: str) -> bool:
    """A name's word: capitalised ("Studio", "iOS") and no stop word, or one capital letter ("Studio A", not "I")."""
    if len(word) == 1:
        return word.isupper() and word != "I"
    return any(c.isupper() for c in word[:2]) and word.lower() not in STOP


@functools.lru_cache(maxsize=4096)  # recall meets the same pairs again
def names_another(older: str, newer: str, query: str) -> bool:
    """Whether ``query`` names which one it asks about by a word ``older`` has, and ``newer`` lacks
    that word and names another in its place: another capitalised word before the same next word
    ("the *PlayStation* port" for "the Switch port") or after the same capitalised word ("Studio *B*"
    for "Studio A")."""
    asked, new = _tokens(query), _tokens(newer)
    carried = {w.lower() for w in _tokens(older)}
    said_before = carried | {w.lower() for w in asked}
    new_low = {w.lower() for w in new}
    initials = {_bare(m.group(1)) for m in _INITIAL.finditer(newer)}
    others = [(j, w) for j, w in enumerate(new)
              if _capitalised(w) and w.lower() not in said_before and w not in initials and not CALENDAR_WORD.fullmatch(w)]
    if not others:
        return False
    for i, name in enumerate(asked[1:], start=1):  # the question's first word is capitalised anyway
        if not _capitalised(name) or name.lower() not in carried or CALENDAR_WORD.fullmatch(name):
            continue  # no name, or one the earlier statement does not carry: nothing to tell apart
        if (name in new) if len(name) == 1 else (name.lower() in new_low):
            continue  # "A" is a name only in capitals; "a" is an article
        before, after = asked[i - 1], asked[i + 1] if i + 1 < len(asked) else None
        for j, other in others:
            low = other.lower()
            if name.lower().startswith(low) or low in name.lower().split("-"):
                continue  # "Mr O" for "Mr Okoye"; "Leeds" for "Harrowgate-Leeds"
            if after and not _capitalised(after) and j + 1 < len(new) and new[j + 1].lower() == after.lower():
                return True  # "the PlayStation port" for "the Switch port"
            if i > 1 and _capitalised(before) and j > 0 and new[j - 1].lower() == before.lower():
                return True  # "Studio B" for "Studio A", "Fenwick Roofing" for "Fenwick Joinery"
    return False
