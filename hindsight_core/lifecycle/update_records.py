"""Updates stated in another form: a machine record's field (a message in another language:
:mod:`~hindsight_core.lifecycle.update_languages`).

Example:
    >>> from hindsight_core.lifecycle.slots import read
    >>> older = "We have 6 spare laptops."
    >>> tool_field_changed(older, "[inventory] item=laptop-spare qty=4", read(older))
    True
"""

from __future__ import annotations

import re

from hindsight_core.lifecycle.slots import Reading, content, read, same_word
from hindsight_core.lifecycle.update_keys import NOT_VALUE, is_tool_record, key_and_value, number_like, present

__all__ = ["tool_field_changed", "diff_replaced", "restates", "attribute_unreported"]

_FIELD_EQ = re.compile(r"([A-Za-z][\w.-]*)\s*=\s*")
_BULLET = r"(?:[-*\u2022\u00b7]|\d{1,2}[.)])\s+"
_FIELD_COLON = re.compile(rf"(?:^\s*(?:{_BULLET})?|(?<=[.;|] ))([A-Za-z][\w.-]*(?: [A-Za-z][\w.-]*){{0,2}}):\s+"
                          r"(\S[^\n]*?)\.?$", re.M)
#: An item of a bulleted list, its name and its value apart by a dash ("- Noor \u2014 flapjacks").
_FIELD_DASH = re.compile(rf"^\s*{_BULLET}([A-Za-z][\w.'-]*(?: [A-Za-z][\w.'-]*){{0,3}})\s+[\u2014\u2013-]\s+"
                         r"(\S[^\n]*?)\.?$", re.M)
#: A bulleted list of such items: read for its fields as a machine record is.
_LISTED_FIELDS = re.compile(rf"^\s*{_BULLET}[A-Za-z][\w.' -]{{0,40}}?(?::|\s[\u2014\u2013-])\s+\S", re.M)
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
    out += [(m.group(1), _FIELD_END.split(m.group(2), maxsplit=1)[0].strip()) for m in _FIELD_DASH.finditer(record)]
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


def _names_subject(keys: list[str], subject: tuple[str, ...], o: Reading) -> bool:
    """A field named by the earlier statement's whole subject ("CD: Argo" for "Our CD runs on
    Spinnaker") or by a name in it ("Noor \u2014 flapjacks" for "Noor is bringing lemon bars")."""
    nouns = [w for w in subject if not number_like(w) and w not in NOT_VALUE]
    if nouns and all(any(same_word(w, k) or w == k for k in keys) for w in nouns):
        return True
    return any(k == name.lower() for k in keys for name in o.names)


def tool_field_changed(older: str, newer: str, o: Reading) -> bool:
    """A machine record has a field for the earlier statement's attribute (its verb or value word,
    "avg_sleep" for "sleep", or the slot a short name fills, "qty" for a count) holding another
    value, and names part of its subject ("laptop-spare" for "spare laptops")."""
    if not is_tool_record(newer) and len(_LISTED_FIELDS.findall(newer)) < 2:
        return False
    subject, verb, value = key_and_value(older)
    words = {w for t in re.findall(r"[\w.-]+", newer.lower()) for w in [t, *re.split(r"[-_.]", t)] if w}
    nouns = [w for w in (subject or ((verb,) if verb else ()) + value)
             if not number_like(w) and w not in NOT_VALUE and (len(w) > 2 or w.upper() in older)]  # "CI"
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
                   for k in keys) and not _names_subject(keys, subject, o):
            continue
        got = read(field_value)
        if not got.tokens or any(present(v, got) for v in old_values):
            continue
        if any(number_like(v) for v in old_values) and not any(number_like(t) for t in got.tokens):
            continue
        return True
    return False


#: A diff's removed line and the added line of the same key after it ("-  runs-on: ubuntu-20.04" /
#: "+  runs-on: ubuntu-24.04").
_DIFF_PAIR = re.compile(r"^\s*-\s*(?P<key>[A-Za-z][\w.-]*)\s*[:=]\s*(?P<old>[^\n]+?)\s*\n"
                        r"\s*\+\s*(?P=key)\s*[:=]\s*(?P<new>[^\n]+?)\s*$", re.M)


def diff_replaced(older: str, newer: str) -> bool:
    """``newer`` holds a diff whose removed line gives the earlier statement's value under a key the
    earlier statement names (its words: "runs-on" for "runs on"), and whose added line gives that key
    another value the earlier statement lacks.

    Example:
        >>> diff_replaced("CI runs on ubuntu-20.04 runners.", "-  runs-on: ubuntu-20.04\\n+  runs-on: ubuntu-24.04")
        True
        >>> diff_replaced("CI runs on ubuntu-20.04 runners.", "-  image: ubuntu-20.04\\n+  image: ubuntu-24.04")
        False
    """
    o_words = {w.lower() for w in re.findall(r"[\w.-]+", older)} | set(content(older))
    for m in _DIFF_PAIR.finditer(newer):
        old, new = m["old"].strip("'\" "), m["new"].strip("'\" ")
        keys = [k for k in re.split(r"[-_.]+", m["key"].lower()) if k]
        if (old.lower() != new.lower() and _written_in(old, older) and not _written_in(new, older)
                and keys and all(k in o_words or any(same_word(k, w) for w in o_words) for k in keys)):
            return True
    return False


def _written_in(value: str, text: str) -> bool:
    """``value`` is written in ``text`` as a whole token ("ubuntu-20.04", not inside "ubuntu-20.04.1")."""
    return re.search(rf"(?<![\w.-]){re.escape(value)}(?![\w-]|\.\w)", text, re.I) is not None


#: An old value a record names as old: "(was 7 February)", "previously 100".
_MARKED_OLD = re.compile(r"\((?:was|previously|formerly|old)\b[^)]*\)|\b(?:was|previously|formerly)\s+\S+(?:\s+\S+)?", re.I)
#: A diff: its removed lines ("-   limit: 100") beside added ones ("+   limit: 250").
_DIFF_ADDED = re.compile(r"^\s*\+(?!\+)", re.M)
_DIFF_REMOVED = re.compile(r"^\s*-(?!-)[^\n]*$", re.M)


def restates(values: list[str], record: str) -> bool:
    """The record lists every one of ``values`` as current, not as what was removed (a diff's "-" line)
    or named as old ("was 7 February"): it reports that fact unchanged.

    Example:
        >>> restates(["farah"], "ORN-7 | Owner: Farah | Status: Done")
        True
        >>> restates(["100"], "-  limit: 100\\n+  limit: 250")
        False
    """
    current = _MARKED_OLD.sub(" ", record)
    if _DIFF_ADDED.search(current):
        current = _DIFF_REMOVED.sub(" ", current)
    r = read(current)
    return bool(values) and all(present(v, r) for v in values)


#: Words that say how a value holds, not what it is ("is in review right now", "usually in room 4").
_HEDGES = frozenset({"right", "usually", "currently", "still", "just", "always", "normally", "mostly"})


def attribute_unreported(older: str, value: tuple[str, ...], o: Reading, record: Reading) -> bool:
    """The earlier value describes its attribute in words ("kept for 30 days, then deleted",
    "run by the web team", "cache size of 2gb"), not only by a name or a number, and the record
    repeats none of them: its fields are other attributes of the subject. A unit after a number
    ("1,900 kcal") is no such word.

    Example:
        >>> older = "cache-svc has a cache size of 2gb"
        >>> attribute_unreported(older, ("cache", "size", "2gb"), read(older), read("PORT(S) 7001/TCP"))
        True
    """
    units = {t for m in re.findall(r"\d[\d,.:]*\s*([A-Za-z]+)", older) for t in content(m)}
    words = [w for w in value if not number_like(w) and w not in o.names and w not in NOT_VALUE
             and w not in _HEDGES and not any(same_word(w, u) for u in units)]
    return bool(words) and not any(present(w, record) for w in words)
