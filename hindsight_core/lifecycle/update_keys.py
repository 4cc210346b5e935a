"""What a statement is about and what it states: its key (subject and attribute) and its value words.

The shared reading under :mod:`~hindsight_core.lifecycle.update_rules`: the main verb splits a
statement into key and value (:func:`key_and_value`); the helpers here tell what kind of token a
value word is (a number, an id, a month) and whether a word recurs in another reading.

Example:
    >>> key_and_value("payments-api listens on 8443 behind the internal LB.")
    (('payments-api',), 'listen', ('8443', 'behind', 'internal', 'lb'))
"""

from __future__ import annotations

import functools
import re

from hindsight_core.lifecycle.slots import Reading, STOP, content, read, same_word
from hindsight_core.lifecycle.update_cues import update_cue

__all__ = ["without_speaker_label", "speaker_label", "CLOSE_SIM", "RELATED_MIN_SIM", "MAIN_VERB", "is_tool_record", "NOT_VALUE", "key_and_value", "key_heads",
           "present", "number_like", "is_id", "ID_SHAPE", "other_id", "raw_words", "phrase_starts", "stem_word", "stranger", "MONTH",
           "DAY_OR_MONTH", "CALENDAR_WORD", "day_or_month", "another_id", "sibling_id", "raw_capitals"]

#: Cosine from which two statements sharing an attribute slot may be about the same thing even when
#: the later one names the subject differently ("the main db" for "our primary Postgres instance").
CLOSE_SIM = 0.55
#: Cosine from which a pair is compared at all (MiniLM: a reworded update of one fact sits from
#: about 0.25, e.g. a tool record against a sentence; the rules, not the cosine, then decide).
RELATED_MIN_SIM = 0.25
#: The main verb of a statement, or the colon of a "Key: value" line: it ends the key.
MAIN_VERB = re.compile(
    r"\b(is|are|was|were|'re|'m|am|has|have|runs?|lives?|listens?|leads?|uses?|takes?|prefers?|likes?|loves?|meets?|"
    r"sits?|ships?|costs?|gets?|eats?|sleeps?|works?|reads?|parks?|expires?|kicks?|starts?|happens?|coordinates?|"
    r"handles?|builds?|deploys?|pays?|do|does|drinks?|goes|go|serves?|stays?|lands?|volunteers?|owns?|"
    r"(?:keeps?|kept)(?!\s+(?:\w+ing|me|us|you)\b)|"  # "keep dreaming", "keeps me going", "keep you posted": how, not what
    r"manages?|reports?|sends?|wants?|needs?|holds?|tops?|terminates?|stores?|hosts?|sync|syncs|arrives?|ends?|"
    r"closes?|opens?|teaches|attends?|plays?|drives?|rides?|owned|managed|led|held|located|based|called|named|"
    r"scheduled|set|due|booked|puts?|writes?|sees|visits?|walks?|feeds?|bills?|charges?|points?|speaks?|flies|departs?)\b|"
    r"(?<!\d):(?!\d)", re.I)  # a colon, not a time's ("12:30")
_COPULA = frozenset({"is", "are", "was", "were", "'s", "'re", "'m", "am", "has", "have", "do", "does", ":"})
#: Machine output: "[jira] ...", "key=value", "Key: value" lines, a shell prompt, a diff line.
#: A "key=value" pair counts near a line's start or beside another one, not as a label inside a sentence
#: ("logs ship under the label app=web"); a prompt may follow its working folder ("~/site $ ls").
_TOOL_RECORD = re.compile(r"^\s*\[[\w .-]+\]|^[^\n]{0,20}\b\w+=\S|\b\w+=\S[^\n]*\b\w+=\S|^\s*(?:~?[\w/.-]*\s*)?\$ |"
                          r"\n\s*[\w ]+(?:\s\([\w ]+\))?:\s+\S|\w+:\s+[^\s:]+\s*\||"
                          r"[\w.-]+:\s*[^\s:]+\s*(?:->|→|=>)\s*\S|"  # a diff line "key: old -> new"
                          r"^\s*\{\s*\"[\w.-]+\"\s*:|"  # a JSON object
                          r"^[^\n]*[›»][^\n]*:\s+\S|"  # a settings path "Settings › Integrations › Provider: X"
                          # "Pasted from the NHS app: ..."
                          r"^\W*(?i:pasted|pasting|copied|copying)\s+(?:\w+\s+)?from\b[^\n:]{0,40}:\s*\S|"
                          r"^\S[^\n]*\S {2,}\S[^\n]*\S {2,}\S[^\n]*\n\S[^\n]*\S {2,}\S", re.M)  # columns


def is_tool_record(text: str) -> bool:
    """Machine output ("[jira] ...", "key=value", "Key: value" lines, a shell prompt)."""
    return bool(_TOOL_RECORD.search(text))


NOT_VALUE = frozenset({"now", "new", "today", "yesterday", "tomorrow", "morning", "night", "week", "month", "year",
                        "last", "next", "day", "time", "anymore", "finally", "update", "updated"})


@functools.lru_cache(maxsize=4096)
def key_and_value(text: str) -> tuple[tuple[str, ...], str | None, tuple[str, ...]]:
    """``(subject words, attribute verb, value words)``: content words before the main verb, the verb
    when it is not a copula ("listens", "live"), and the words after it.

    With no known verb found, a statement that opens with a pronoun ("I order...", "We book...") has
    the word after it as its verb and no subject words; any other has its first two content words.
    """
    m = _main_verb(text)
    if m is None:
        own = _SPEAKER_VERB.match(text)  # "I order soy lattes": the word after the pronoun is the verb
        if own is not None and content(own.group(1)):
            return (), content(own.group(1))[0], content(text[own.end():])
        toks = content(text)
        return toks[:2], None, toks[2:]
    verb = m.group(m.lastindex or 0).lower()
    inverted = _INVERTED.fullmatch(text[m.end():]) if verb in ("is", "are", "was", "were") else None
    if inverted is not None and not _PRONOUN_SUBJECT.fullmatch(text[: m.start()]):
        # "Hiking and chess are my main hobbies": the possessive names the attribute, the subject is its value
        return content(inverted.group(1)), None, content(text[: m.start()])
    verb_words = content(verb)
    rest = text[m.end():]
    if verb in _COPULA:  # "we are planning to play X": the plan's action is the value, not "planning"
        rest = _INTENT.sub("", rest, count=1)
    head_text = _PREP.split(text[: m.start()], maxsplit=1)[0]  # "manager" in "our manager at the bank"
    subject = content(head_text) + tuple(w for w in content(text[: m.start()]) if w not in content(head_text))
    return subject, None if verb in _COPULA or not verb_words else verb_words[0], content(rest)


def _main_verb(text: str) -> re.Match[str] | None:
    """The statement's attribute verb (:func:`key_and_value`), or a participle after its copula."""
    m = MAIN_VERB.search(text)
    while m is not None and m.group(0) != ":" and _DETERMINER_BEFORE.search(text, 0, m.start()):
        m = MAIN_VERB.search(text, m.end())  # "the *charge* nurse": a noun's modifier, not a verb
    if m is not None and _BEFORE_COPULA.match(text, m.end()):  # "expense *reports* are due": a plural noun
        m = MAIN_VERB.search(text, m.end()) or m
    if m is not None and m.group(0).lower() in _COPULA:  # "reports are *due*", "the office is *based* in"
        m = _PARTICIPLE.match(text, m.end()) or m
    return m


@functools.lru_cache(maxsize=4096)
def subject_head(text: str) -> str | None:
    """The last content word before the subject's first preposition, when one follows it: "standup"
    in "Standup for the data team is at 9:30", "manager" in "Our account manager at Vellum is Priya"."""
    m = _main_verb(text)
    if m is None:
        return None
    parts = _PREP.split(text[: m.start()], maxsplit=1)
    if len(parts) < 2:
        return None
    words = [w for w in content(parts[0]) if not number_like(w) and w not in NOT_VALUE]
    return words[-1] if words else None


#: A participle after a copula names the attribute ("is due", "are based in", "is pinned to").
_PARTICIPLE = re.compile(r"\s+(?:now\s+|still\s+|currently\s+)?(due|located|based|scheduled|set|booked|held|hosted|"
                         r"stored|kept|pinned)\b", re.I)
_SPEAKER_VERB = re.compile(r"\s*(?:I|we|you|they)\s+(?:usually\s+|always\s+|normally\s+|mostly\s+)?([a-z]+)\b",
                           re.I)
#: An article or demonstrative right before a verb form: the form is a noun or a modifier ("the charge
#: nurse"). Not a possessive: "my sleep average" keeps "sleep" as the attribute a tool field ("avg_sleep") names.
_DETERMINER_BEFORE = re.compile(r"\b(?:the|a|an|this|that|these|those)\s+\Z", re.I)
_PREP = re.compile(r"\s(?:at|in|of|for|on|to|from|with|by)\s", re.I)
_BEFORE_COPULA = re.compile(r"\s+(are|is|were|was|have|has)\b", re.I)
#: After a copula, a possessive phrase to the end of the statement ("... are my main hobbies."): an
#: inverted copula, whose possessive phrase is the key ("my main hobbies") and whose subject is the value.
_INVERTED = re.compile(r"\s+((?:my|our|his|her|their)\s+[\w'’ -]{1,40}?)\s*[.!]*\s*", re.I)
#: An intention before its action ("planning to", "hoping to", "thinking of"): how the action is held.
_INTENT = re.compile(r"^\s+(?:still\s+|now\s+|really\s+)?(?:planning|hoping|trying|thinking|aiming|meaning|"
                     r"intending|looking|about)\s+(?:to|of|on|about|forward\s+to)\b", re.I)
_PRONOUN_SUBJECT = re.compile(r"\W*(?:\w+\W+){0,2}?(?:it|this|that|these|those|he|she|they|i|we|you|there|which|what|"
                              r"who|here)\W*", re.I)
_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten eleven twelve".split())


def key_heads(subject: tuple[str, ...], verb: str | None, value: tuple[str, ...],
              head: str | None = None) -> tuple[str, ...]:
    """The words that name the attribute: the subject's last noun, the verb, and, for a statement
    about the speaker ("I take my coffee black", "I'm allergic to nuts"), the first value word.
    ``head``: the noun before the subject's first preposition (:func:`subject_head`), which names
    the thing when an adjunct follows it ("*standup* for the data team")."""
    words = [w for w in subject if not number_like(w) and w not in NOT_VALUE]
    heads = words[-1:] + ([head] if head and head not in words[-1:] else []) + ([verb] if verb else [])
    if not words:
        heads += [w for w in value if not number_like(w) and w not in _NUMBER_WORDS and w not in NOT_VALUE][:1]
    return tuple(heads)


def present(tok: str, r: Reading) -> bool:
    return r.has(tok) or any(same_word(tok, n) for n in r.names)


def number_like(tok: str) -> bool:
    return any(c.isdigit() for c in tok)


def is_id(tok: str) -> bool:
    return number_like(tok) and any(c.isalpha() for c in tok) and ("-" in tok or "_" in tok)


#: The shape of an identifier, digits or not: lowercase words joined by "-", "_" or "."
#: ("pg-main.internal", "warehouse_core", "shipit-v2").
ID_SHAPE = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+")


#: A code of letters then digits ("BA117", "GH4021"): a flight, a ticket, a part. Two digits at
#: least, so "v3" or "Q3" (a version, a quarter) is no such code.
_CODE = re.compile(r"[a-z]{1,4}\d{2,}")


#: The shapes of numbered ids: hyphenated ("db-primary-01") and codes ("BA117").
_ID_SHAPES = (is_id, _CODE.fullmatch)


def other_id(o: Reading, n: Reading) -> bool:
    """Both name a numbered id of one shape ("db-primary-01" / "db-replica-03", "BA117" / "BA119")
    and not each other's."""
    for shape in _ID_SHAPES:
        ids_o = {t for t in o.names if shape(t)}
        ids_n = {t for t in n.names if shape(t)}
        if ids_o and ids_n and not ids_o & ids_n:
            return True
    return False


_RAW_WORD = re.compile(r"[\w'’-]+")
#: What ends a phrase between two words: sentence and clause punctuation, a line break, a spaced dash
#: or a list bullet ("review, backups now write to", "Budget name: sandbox", "\n- dwh migration").
_PHRASE_BREAK = re.compile(r"[.,:;!?()\[\]|{}\n\u2014\u2013→›»>·•]|(?:^|\s)-+(?:\s|$)")


def raw_words(text: str) -> list[str]:
    return [stem_word(w) for w in _RAW_WORD.findall(text.lower())]


def raw_capitals(text: str) -> list[bool]:
    """For each of :func:`raw_words`' words, whether it is written with a capital."""
    return [w[:1].isupper() for w in _RAW_WORD.findall(text)]


@functools.lru_cache(maxsize=4096)
def phrase_starts(text: str) -> tuple[bool, ...]:
    """For each of :func:`raw_words`' words, whether a phrase break stands right before it (a comma,
    colon, line break, dash...). Words on two sides of a break are no modifier and its noun: in
    "after the review, backups now write to ..." "review" does not qualify "backups"."""
    out: list[bool] = []
    end, bullet = 0, False
    for m in _RAW_WORD.finditer(text):
        dash = not m.group(0).strip("-")  # a dash or bullet is punctuation, the words after it a new phrase
        out.append(bullet or dash or bool(_PHRASE_BREAK.search(f" {text[end:m.start()]} ")))
        end, bullet = m.end(), dash
    return tuple(out)


def stem_word(w: str) -> str:
    toks = content(w)
    return toks[0] if toks else w


def stranger(word: str, o_words: list[str]) -> bool:
    """A content word the earlier text does not have, and no number, date or cue."""
    return bool(word) and word not in STOP and word not in NOT_VALUE and not number_like(word) \
        and not day_or_month(word) and not update_cue(word) and not any(same_word(word, x) for x in o_words)


MONTH = re.compile(r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*", re.I)
DAY_OR_MONTH = re.compile(r"(mon|tues|wednes|thurs|fri|satur|sun)day|(jan|febr)uary|march|april|may|june|july|"
                           r"august|(sept|nov|dec)ember|october", re.I)


def day_or_month(word: str) -> bool:
    """A weekday or a month written out, as a whole word, plural or possessive ("Fridays", "May's"):
    unlike a prefix match of :data:`DAY_OR_MONTH`, "Maya", "Marchetti" and "Mayfield" are names. Short
    forms are not read here ("Jan", "Sun" and "Mar" may be names too); :data:`CALENDAR_WORD` reads them
    where a question names a day."""
    w = word.lower().removesuffix("'s").removesuffix("\u2019s")
    return bool(DAY_OR_MONTH.fullmatch(w) or (w.endswith("s") and DAY_OR_MONTH.fullmatch(w[:-1])))


#: A whole word that is a weekday or a month, written out or cut short ("Sat", "Tues", "Sept", "Fridays"),
#: for :meth:`re.Pattern.fullmatch`: unlike a prefix of :data:`DAY_OR_MONTH` it leaves "Mark", "Maya",
#: "Monica" and "Sunita" names.
CALENDAR_WORD = re.compile(r"(?:(?:mon|tue|tues|wed|wednes|thu|thur|thurs|fri|sat|satur|sun)(?:day)?s?|"
                           r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
                           r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?", re.I)


def other_subject_id(older: str, o: Reading, n: Reading) -> bool:
    """:func:`other_id`, where an id of the earlier statement names its subject: "db-primary-01 runs
    Postgres 14" / "db-replica-03 runs 15" are two hosts, but in "Session-cache Redis runs on
    cache-node-07" / "session cache redis now lives on cache-node-12" the id is the value that changed.

    Example:
        >>> older = "Session-cache Redis runs on cache-node-07."
        >>> other_subject_id(older, read(older), read("session cache redis now lives on cache-node-12"))
        False
        >>> older = "db-primary-01 runs Postgres 14."
        >>> other_subject_id(older, read(older), read("db-replica-03 runs 15"))
        True
    """
    if not other_id(o, n):
        return False
    subject = key_and_value(older)[0]
    return any(t in subject for t in o.names if any(shape(t) for shape in _ID_SHAPES))


def another_id(older: str, newer: str) -> bool:
    """Both name a numbered id of one shape and not each other's ("db-primary-01" / "db-replica-03")."""
    return other_id(read(older), read(newer))


#: Codes that number one of a series: "U12" / "U14" (letters, digits), "6B" / "6A" (digits, a letter).
_SERIES_CODE = re.compile(r"(?<![\w-])(?:([a-z]{1,4})(\d{1,4})|(\d{1,4})([a-z]))(?![\w-])", re.I)
#: One numbered of a kind: "bed 5", "table 12", "room #3".
_NUMBERED = re.compile(r"(?<![\w-])([a-z]{2,})\s+(?:no\.?\s*|#\s*)?(\d{1,4})(?![\w:.,]\d|[\w-])", re.I)
#: Hyphenated ids of one family: "ledger-api" / "ledger-worker" (not a phrasal noun: "sign-off", "check-in").
_FAMILY_ID = re.compile(r"(?<![\w-])([a-z][a-z0-9]*)-((?!(?:off|up|in|out|on|down|over|back|by|to)\b)[a-z][a-z0-9]*)"
                        r"(?![\w-])", re.I)


def _series(text: str) -> set[tuple[str, str, str]]:
    return {("letters", m.group(1).lower(), m.group(2)) if m.group(1) else ("digits", m.group(3), m.group(4).lower())
            for m in _SERIES_CODE.finditer(text)}


def sibling_id(older: str, part: str) -> bool:
    """A code or hyphenated id in the earlier statement's subject has a sibling in ``part``, and
    itself is not there: "U12 boys match kicks off at 10" / "U14 boys game kicks off 11:30",
    "ledger-api listens on 8443" / "moved ledger-worker to 9443", "bed 5: NOK is her husband" / "bed 7:
    NOK changed to his niece". One series, two subjects. A code or number that is the value ("my flight
    is TP1353" / "it's TP1351", "the meeting is in room 4" / "moved to room 6") is left to the other rules.

    Example:
        >>> sibling_id("The ledger-api service listens on port 8443.", "moved ledger-worker to 9443")
        True
        >>> sibling_id("bed 5 Mrs Achebe: NOK is her husband", "bed 7 Mr Dunne: NOK changed to his niece")
        True
        >>> sibling_id("The meeting is in room 4.", "the meeting moved to room 6")
        False
        >>> sibling_id("The ledger-api service listens on port 8443.", "ledger-api moved to 9443")
        False
    """
    subject = set(key_and_value(older)[0])
    later = _series(part)
    for kind, stem, tail in _series(older):
        if stem + tail in subject and (kind, stem, tail) not in later \
                and any(k == kind and s == stem and t != tail for k, s, t in later):
            return True
    family = {(m.group(1).lower(), m.group(2).lower()) for m in _FAMILY_ID.finditer(part)}
    if any(f"{a}-{b}" in subject and (a, b) not in family and any(x == a and y != b for x, y in family)
           for m in _FAMILY_ID.finditer(older) for a, b in [(m.group(1).lower(), m.group(2).lower())]):
        return True
    # "bed 5 Mrs Achebe: NOK is ..." / "bed 7 Mr Dunne: NOK changed ...": one numbered one of a kind, another
    key = list(key_and_value(older)[0])
    numbered = {(w, n) for w, n in zip(key, key[1:]) if w.isalpha() and len(w) > 1 and n.isdigit()}
    said = {(m.group(1).lower(), m.group(2)) for m in _NUMBERED.finditer(part)}
    return any((w, n) not in said and any(x == w and y != n for x, y in said) for w, n in numbered)


#: One capitalised word and a colon, maybe with a note on who it is ("Sam:", "Tom (handover):"),
#: opening a text.
_SPEAKER_LABEL = re.compile(r"^\W{0,3}(?-i:[A-Z])[\w'-]*(?:\s*\([^)\n]{1,30}\))?\s*:\s+(?=\S)", re.I)


@functools.lru_cache(maxsize=4096)
def without_speaker_label(text: str) -> str:
    """``text`` without an opening one-word label when what follows is a statement of its own, with its
    own verb: "Sam: my weekly mileage target is 30 km" is Sam saying it, and its key is "weekly mileage
    target". A label followed by a bare value names the subject and stays ("Passports: blue folder").

    Example:
        >>> without_speaker_label("Sam: my weekly mileage target is 30 km for now.")
        'my weekly mileage target is 30 km for now.'
        >>> without_speaker_label("Gym: FitHub Saldanha, Av. da República.")
        'Gym: FitHub Saldanha, Av. da República.'
    """
    m = _SPEAKER_LABEL.match(text)
    if m is None:
        return text
    rest = text[m.end():]
    for verb in MAIN_VERB.finditer(rest):
        before = rest[: verb.start()]
        if verb.group(0) == ":" or re.search(r"[,;\u2013\u2014]|\s-\s", before):
            return text  # "blue folder, top shelf": a list of values, its "top" no verb
        if before.strip():
            return rest  # a subject, then its verb: a statement of its own
    return text


def speaker_label(text: str) -> str | None:
    """The one-word label :func:`without_speaker_label` reads as who says ``text``, lower-cased, or None.

    Example:
        >>> speaker_label("Sam: my weekly mileage target is 30 km for now."), speaker_label("Gym: FitHub Saldanha.")
        ('sam', None)
    """
    if without_speaker_label(text) == text:
        return None
    return re.match(r"\W*([\w'-]+)", text).group(1).lower()
