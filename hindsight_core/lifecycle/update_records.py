"""Updates stated in another form: a machine record's field, or a message in another language.

Example:
    >>> from hindsight_core.lifecycle.slots import read
    >>> older = "We have 6 spare laptops."
    >>> tool_field_changed(older, "[inventory] item=laptop-spare qty=4", read(older))
    True
"""

from __future__ import annotations

import re

from hindsight_core.lifecycle.slots import Reading, content, read, same_word
from hindsight_core.lifecycle.update_keys import (CLOSE_SIM, NOT_VALUE, is_tool_record, key_and_value, number_like,
                                                  present)
from hindsight_core.lifecycle.update_values import same_number_kind

__all__ = ["tool_field_changed", "in_other_language"]

_FIELD_EQ = re.compile(r"([A-Za-z][\w.-]*)\s*=\s*")
_FIELD_COLON = re.compile(r"(?:^\s*|(?<=[.;|] ))([A-Za-z][\w.-]*(?: [A-Za-z][\w.-]*){0,2}):\s+(\S[^\n]*?)\.?$", re.M)
_FIELD_END = re.compile(r"[,;|(\n]")
_FIELD_DIFF = re.compile(r"([A-Za-z][\w.-]*):\s*([^\s:]+\s*(?:->|→|=>)\s*[^\s,;|]+)")
#: A JSON change record: the setting's name, and its new value.
_JSON_NAME = re.compile(r'"(?:setting|key|field|param\w*|name)"\s*:\s*"([^"]+)"', re.I)
_JSON_NEW = re.compile(r'"(?:new|to|after|new_value)"\s*:\s*"?([^",}]+)', re.I)
_ARROW = re.compile(r"\s*(?:->|→|=>)\s*")
#: Short field names and the attribute slot they fill ("qty=4" is a count, "loc=" a place).
_FIELD_SLOTS = {"qty": "quantity", "count": "quantity", "quantity": "quantity", "num": "quantity", "n": "quantity",
                "loc": "location", "location": "location", "site": "location", "region": "location",
                "version": "version", "ver": "version", "port": "port", "owner": "role", "assignee": "role",
                "status": "status", "state": "status", "price": "money", "cost": "money", "amount": "money",
                "date": "date", "due": "date", "expiry": "date", "expires": "date", "time": "time"}


def _fields(record: str) -> list[tuple[str, str]]:
    """``(field name, value)`` pairs of a machine record: ``key=value`` and ``Key Name: value`` lines."""
    out = []
    eqs = list(_FIELD_EQ.finditer(record))
    for i, m in enumerate(eqs):
        end = eqs[i + 1].start() if i + 1 < len(eqs) else len(record)
        value = _FIELD_END.split(record[m.end():end], maxsplit=1)[0].strip(" \"'")
        if value:
            out.append((m.group(1), value))
    out += [(m.group(1), _FIELD_END.split(m.group(2), maxsplit=1)[0].strip()) for m in _FIELD_COLON.finditer(record)
            if "=" not in m.group(2)]  # "export: item=... qty=4" is a list of fields, read above
    out += [(m.group(1), m.group(2)) for m in _FIELD_DIFF.finditer(record)]  # "config diff: a.timeout: 30 -> 45"
    name, new = _JSON_NAME.search(record), _JSON_NEW.search(record)
    if name and new:  # {"setting": "disk_quota_gb", "old": 50, "new": 80}
        out.append((name.group(1), new.group(1)))
    return out


#: Words of a field name that qualify a value, not its owner ("avg_sleep", "max_connections", "ttl_seconds").
_FIELD_MODIFIERS = frozenset("""avg mean median max min total current cur new old num count qty value val per pct percent
days day seconds second sec secs hours hour minutes minute mins ms mb gb kb tb bytes next last prev previous latest
updated date""".split())


def _other_owner(name: str, o: Reading) -> bool:
    """A field name with a word that is neither in the earlier statement nor a value modifier names
    another owner: "session.ttl_seconds" or "log_retention_days" for "the cache TTL" / "backup retention"."""
    words = [w for w in re.split(r"[-_. ]+", name.lower()) if w]
    return any(w not in _FIELD_MODIFIERS and not number_like(w) and not any(present(t, o) for t in content(w))
               and w not in _FIELD_SLOTS for w in words)


def tool_field_changed(older: str, newer: str, o: Reading) -> bool:
    """A machine record has a field for the earlier statement's attribute (its verb or value word,
    "avg_sleep" for "sleep", or the slot a short name fills, "qty" for a count) holding another
    value, and names part of its subject ("laptop-spare" for "spare laptops")."""
    if not is_tool_record(newer):
        return False
    subject, verb, value = key_and_value(older)
    words = {w for t in re.findall(r"[\w.-]+", newer.lower()) for w in [t, *re.split(r"[-_.]", t)] if w}
    nouns = [w for w in (subject or ((verb,) if verb else ()) + value)
             if not number_like(w) and w not in NOT_VALUE and len(w) > 2]
    if not any(w == x or same_word(w, x) for w in nouns for x in words):
        return False
    attribute = [w for w in ([verb] if verb else []) + list(value) if not number_like(w)]
    old_values = {v for v in value if v not in NOT_VALUE and (number_like(v) or v not in subject)}
    for name, field_value in _fields(newer):
        field_value = _ARROW.split(field_value)[-1]  # a diff "30 -> 45" holds the new value after its arrow
        keys = [k for k in re.split(r"[-_. ]+", name.lower()) if k]
        keys += [t for k in keys for t in content(k)[:1] if t != k]  # "files=55" for "40 files"
        if _other_owner(name, o):  # "session.ttl_seconds", "log_retention_days": another thing's field
            continue
        if not any(_FIELD_SLOTS.get(k) in o.slots or any(same_word(k, a) or k == a for a in attribute)
                   for k in keys):
            continue
        got = read(field_value)
        if not got.tokens or any(present(v, got) for v in old_values):
            continue
        if any(number_like(v) for v in old_values) and not any(number_like(t) for t in got.tokens):
            continue
        return True
    return False


#: Function words of Spanish, French, German, Portuguese and Italian: a message with several is in one of them.
_FOREIGN_WORDS = frozenset("""el la los las que es ya pero con por para una del al muy también está son
le les des est et une pour avec dans sur pas plus nous vous je c'est aussi au aux
und ist der die das nicht mit ein eine ich wir ihr auch jetzt bitte zu im am vom
em pode não uma com pra para você agora também estou está
il che non sono della per gli anche adesso de en y mi tu su lo se un ce qui ne à auf von den dem zum zur di""".split())
#: A foreign "not ... any more X" / "instead of X": X is the old value, named as gone.
_FOREIGN_GONE = re.compile(r"\b(nicht mehr|statt|anstatt|ya no|no más|en vez de|em vez de|não mais|non più|plus|"
                           r"au lieu de|invece di)\s+(\S+)", re.I)
#: "Now", "no longer", "from now on", "moved", "changed", "new" in those languages.
_FOREIGN_CUE = re.compile(
    r"\b(ahora|ya no|desde ahora|a partir de|de ahora en adelante|cambi\w+|mudamos|mudé|mudó|nuev[oa]s?|en vez de|"
    r"maintenant|désormais|dorénavant|à partir d\w*|ne \w+ plus|n'\w+ plus|plus de|déménag\w+|nouve(au|lle)s?|"
    r"au lieu de|changé|jetzt|nicht mehr|kein\w* mehr|ab sofort|ab jetzt|ab (morgen|montag|dienstag|mittwoch|"
    r"donnerstag|freitag|nächste\w*)|umgezogen|ge(ä|ae)ndert|verschoben|stattdessen|neu(e|er|es|en)?|"
    r"agora|de agora em diante|não \w+ mais|mud(ou|amos|ei)|em vez de|adesso|ora|d'ora in poi|non più|invece)\b",
    re.I)
#: Names of languages in those languages and English: a reply-language preference changes by name.
_LANGUAGE = re.compile(
    r"\b(english|inglés|ingles|anglais|englisch|inglês|inglese|spanish|español|espagnol|spanisch|espanhol|spagnolo|"
    r"french|francés|français|französisch|francês|francese|german|alemán|allemand|deutsch|alemão|tedesco|"
    r"portuguese|portugués|portugais|portugiesisch|português|portoghese|italian|italiano|italien|italienisch)\b",
    re.I)
_FOREIGN_MIN = 2  # foreign function words that make a message foreign


def _foreign(text: str) -> bool:
    return sum(w in _FOREIGN_WORDS for w in re.findall(r"[\w']+", text.lower())) >= _FOREIGN_MIN


def in_other_language(older: str, part: str, o: Reading, n: Reading, sim: float) -> bool:
    """A message in Spanish, French, German, Portuguese or Italian with a change cue in that language
    names another language to use, or another number of the earlier value's kind for a subject it
    names (a shared name or id, or a close enough meaning)."""
    if _foreign(older) or not _foreign(part) or not _FOREIGN_CUE.search(part):
        return False
    old_lang = {_LANGUAGE_GROUP.get(m.lower()[:4], m.lower()) for m in _LANGUAGE.findall(older)}
    new_lang = {_LANGUAGE_GROUP.get(m.lower()[:4], m.lower()) for m in _LANGUAGE.findall(part)}
    if old_lang and new_lang and not new_lang <= old_lang:
        return True
    old_nums = {t for t in o.tokens if number_like(t)}
    new_nums = [t for t in n.tokens if number_like(t) and not present(t, o)]
    subject = [w for w in key_and_value(older)[0] if not number_like(w)]
    shared = any(present(x, n) for x in list(o.names) + subject) or sim >= CLOSE_SIM
    kept = read(_FOREIGN_GONE.sub(" ", part))  # "nicht mehr 8443" names the old value as gone
    return bool(old_nums and new_nums and shared and not any(present(v, kept) for v in old_nums)
                and same_number_kind(old_nums, new_nums, o, n))


#: The first four letters of a language's name in any of the six languages, to the language.
_LANGUAGE_GROUP = {**{r: "en" for r in ("engl", "ingl", "angl")}, **{r: "es" for r in ("span", "espa", "spag")},
                   **{r: "fr" for r in ("fren", "fran")}, **{r: "de" for r in ("germ", "alem", "deut", "tede")},
                   **{r: "pt" for r in ("port",)}, **{r: "it" for r in ("ital",)}}
