"""Does a later statement update an earlier one? Decided on what both are about, without a model.

The earlier statement is split into its *key* (the words that name the subject and attribute, up
to and including its main verb: "payments-api listens", "my favourite colour") and its *value*
(the rest: "on 8443 behind the internal LB", "teal"). The later text, with its look-alike clauses
set aside (:mod:`~hindsight_core.lifecycle.update_cues`), updates the earlier one when

- it speaks about the same key (most key words recur, or the two texts are close and share a slot),
- it states another value of a compatible kind (a new number for a number, a new name or thing for
  a name or thing), and the earlier value is gone or is named as what changed ("from 40k", "not
  Mondays", "we don't use Jenkins anymore"),
- and nothing says it is another subject (another numbered id, another relative's affair).

Example:
    >>> judge_update("payments-api listens on 8443 behind the internal LB.",
    ...              "heads up: we moved payments-api to port 9443 last night", 0.6)
    'same attribute, value changed'
    >>> judge_update("The search cluster runs Elasticsearch 7.17.",
    ...              "if we moved search to OpenSearch we'd have to rewrite every index template", 0.6) is None
    True
    >>> judge_update("I love hiking in the Dolomites.", "I also got really into bouldering lately", 0.4) is None
    True
"""

from __future__ import annotations

import functools
import re

from hindsight_core.lifecycle.slots import STOP, Reading, content, read, same_word, slots
from hindsight_core.lifecycle.update_cues import (assertive_part, denies, is_addition, relations, split_clauses,
                                                  update_cue, without_effective_time)
from hindsight_core.lifecycle.value_forms import FORMS, SUBJECT_CHECKED, form_change

__all__ = ["judge_update", "update_strength", "key_and_value", "is_tool_record", "one_belief", "said", "another_id",
           "subject_substituted", "other_instance", "other_possessor", "sibling_fact", "RELATED_MIN_SIM", "CLOSE_SIM", "SLOT_MATCH_BONUS"]

#: Cosine from which two statements sharing an attribute slot may be about the same thing even when
#: the later one names the subject differently ("the main db" for "our primary Postgres instance").
CLOSE_SIM = 0.55
#: Cosine from which a pair is compared at all (MiniLM: a reworded update of one fact sits from
#: about 0.25, e.g. a tool record against a sentence; the rules, not the cosine, then decide).
RELATED_MIN_SIM = 0.25
_PARALLEL_MAX = 14  # content words; longer texts are messages, not template facts
_SHORT_STATEMENT = 6  # content words of a one-fact statement ("The auth api moved to port 3896.")
#: Share of the earlier statement's key words the later text must repeat to be about the same key.
KEY_COVERAGE = 0.5

_VERB = re.compile(
    r"\b(is|are|was|were|'re|'m|am|has|have|runs?|lives?|listens?|leads?|uses?|takes?|prefers?|likes?|loves?|meets?|"
    r"sits?|ships?|costs?|gets?|eats?|sleeps?|works?|reads?|parks?|expires?|kicks?|starts?|happens?|coordinates?|"
    r"handles?|builds?|deploys?|pays?|keeps?|kept|do|does|drinks?|goes|go|serves?|stays?|lands?|volunteers?|owns?|"
    r"manages?|reports?|sends?|wants?|needs?|holds?|tops?|terminates?|stores?|hosts?|sync|syncs|arrives?|ends?|"
    r"closes?|opens?|teaches|attends?|plays?|drives?|rides?|owned|managed|led|held|located|based|called|named|"
    r"scheduled|set|due|booked)\b|:", re.I)
_COPULA = frozenset({"is", "are", "was", "were", "'s", "'re", "'m", "am", "has", "have", "do", "does", ":"})
_REMOVAL = re.compile(r"\b(was|were|fine|old|no longer|anymore|any more|not|n't|gone off|left|quit|gave|cancel\w*|killing|killed|"
                      r"pulled|dropped|retired|was the old|from|instead of|out of|off|replac\w*|moved|moving|kicked out|"
                      r"closed|took|handed|reassigned)\b|→|->", re.I)
#: Machine output: "[jira] ...", "key=value", "Key: value" lines, a shell prompt.
_TOOL_RECORD = re.compile(r"^\s*\[[\w .-]+\]|\b\w+=\S|^\s*\$ |\n\s*[\w ]+:\s+\S|\w+:\s+[^\s:]+\s*\|", re.M)
#: Attributes that hold several values at once: a new one replaces nothing without a replace cue.
_MULTI = re.compile(r"\b(likes?|loves?|enjoys?|into|fan of|also)\b", re.I)
_REPLACE_CUE = re.compile(r"\b(instead|no longer|anymore|any more|not \w+ any ?more|gone off|switch\w*|replac\w*|"
                          r"now|these days|convert|over it|dead to me|quit|stopped)\b", re.I)
_WEAK_SLOTS = frozenset({"preference", "tool", "role", "status", "version"})


def is_tool_record(text: str) -> bool:
    """Machine output ("[jira] ...", "key=value", "Key: value" lines, a shell prompt)."""
    return bool(_TOOL_RECORD.search(text))


#: Slots read from common verbs ("use", "like"): too loose to say two values are of one kind.
_LOOSE_SLOTS = frozenset({"preference", "tool"})
#: A message updates one of several facts about its subject: the one whose value is of the kind the
#: message states ("physio moves to Wednesdays" updates "appointments are on Mondays", not "my physio
#: is called Rhiannon") is preferred by about one rule step.
SLOT_MATCH_BONUS = 1.0
_NOT_VALUE = frozenset({"now", "new", "today", "yesterday", "tomorrow", "morning", "night", "week", "month", "year",
                        "last", "next", "day", "time", "anymore", "finally", "update", "updated"})


@functools.lru_cache(maxsize=4096)
def key_and_value(text: str) -> tuple[tuple[str, ...], str | None, tuple[str, ...]]:
    """``(subject words, attribute verb, value words)``: content words before the main verb, the verb
    when it is not a copula ("listens", "live"), and the words after it.

    With no verb found, the first two content words are the subject.
    """
    m = _VERB.search(text)
    if m is not None and _BEFORE_COPULA.match(text, m.end()):  # "expense *reports* are due": a plural noun
        m = _VERB.search(text, m.end()) or m
    if m is not None and m.group(0).lower() in _COPULA:  # "reports are *due*", "the office is *based* in"
        m = _PARTICIPLE.match(text, m.end()) or m
    if m is None:
        toks = content(text)
        return toks[:2], None, toks[2:]
    verb = m.group(m.lastindex or 0).lower()
    verb_words = content(verb)
    head_text = _PREP.split(text[: m.start()], maxsplit=1)[0]  # "manager" in "our manager at the bank"
    subject = content(head_text) + tuple(w for w in content(text[: m.start()]) if w not in content(head_text))
    return (subject, None if verb in _COPULA or not verb_words else verb_words[0],
            content(text[m.end():]))


#: A participle after a copula names the attribute ("is due", "are based in", "is pinned to").
_PARTICIPLE = re.compile(r"\s+(?:now\s+|still\s+|currently\s+)?(due|located|based|scheduled|set|booked|held|hosted|"
                         r"stored|kept|pinned)\b", re.I)
_PREP = re.compile(r"\s(?:at|in|of|for|on|to|from|with|by)\s", re.I)
_BEFORE_COPULA = re.compile(r"\s+(are|is|were|was|have|has)\b", re.I)
_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten eleven twelve".split())


def _heads(subject: tuple[str, ...], verb: str | None, value: tuple[str, ...]) -> tuple[str, ...]:
    """The words that name the attribute: the subject's last noun, the verb, and, for a statement
    about the speaker ("I take my coffee black", "I'm allergic to nuts"), the first value word."""
    words = [w for w in subject if not _number_like(w) and w not in _NOT_VALUE]
    heads = words[-1:] + ([verb] if verb else [])
    if not words:
        heads += [w for w in value if not _number_like(w) and w not in _NUMBER_WORDS and w not in _NOT_VALUE][:1]
    return tuple(heads)


def _present(tok: str, r: Reading) -> bool:
    return r.has(tok) or any(same_word(tok, n) for n in r.names)


def _number_like(tok: str) -> bool:
    return any(c.isdigit() for c in tok)


def _is_id(tok: str) -> bool:
    return _number_like(tok) and any(c.isalpha() for c in tok) and ("-" in tok or "_" in tok)


#: A code of letters then digits ("BA117", "GH4021"): a flight, a ticket, a part. Two digits at
#: least, so "v3" or "Q3" (a version, a quarter) is no such code.
_CODE = re.compile(r"[a-z]{1,4}\d{2,}")


def _other_id(o: Reading, n: Reading) -> bool:
    """Both name a numbered id of one shape ("db-primary-01" / "db-replica-03", "BA117" / "BA119")
    and not each other's."""
    for shape in (_is_id, _CODE.fullmatch):
        ids_o = {t for t in o.names if shape(t)}
        ids_n = {t for t in n.names if shape(t)}
        if ids_o and ids_n and not ids_o & ids_n:
            return True
    return False


def _value_removed(value: tuple[str, ...], newer: str, n: Reading, key: tuple[str, ...] = (), older: str = "") -> str:
    """``gone`` when no value word recurs, ``named`` when one recurs next to a removal cue, ``kept``
    when all recur in a clause that also names the key (or anywhere, with no key), else ``partly``.

    "Boulder Barn raised prices again" keeps the old venue's name, but not as the meetup's venue.
    """
    words = [v for v in value if v not in STOP and v not in _NOT_VALUE]
    if not words:
        return "gone"
    found = [v for v in words if _present(v, n)]
    if not found:
        return "gone"
    clauses = split_clauses(newer)
    if any(_near_removal(clause, found, older) for clause in clauses):
        return "named"
    if len(found) < len(words):
        return "partly"
    if not key:
        return "kept"
    for clause in clauses:
        r = read(clause)
        if any(_present(k, r) for k in key) and all(_present(v, r) for v in found):
            return "kept"
    return "partly"


#: Words before an earlier value that say it went ("no longer X", "off Jira", "from 40k", "dropping Venice").
_GONE_BEFORE = re.compile(r"(no|not|never|longer|off|from|left|leaving|quit|gave|cancel\w*|kill\w*|pull\w*|stopp?\w*|"
                          r"dropp?\w*|instead|out|retired|replac\w*|swap\w*|ditch\w*|\w+n't|without|ex|former)",
                          re.I)
#: Words after it that say so ("Jenkins anymore", "Reno is closed", "Tomas is moving", "X → Y").
_GONE_AFTER = re.compile(r"(anymore|closed|was|were|fine|moving|moved|left|retired|gone|out|off|→|->|=>|"
                         r"is(n't)?|stays?)", re.I)
_GONE_WINDOW = 3  # words between the earlier value and the cue


def _near_removal(clause: str, found: list[str], older: str = "") -> bool:
    """A removal cue next to a distinctive earlier value word ("don't use Jenkins anymore", "cut
    from 40k", "Tomas is moving over"); a bare month or unit does not count, and a value that acts
    ("Rhiannon changed her hours") is not removed."""
    words = [w.strip(".,:;!?()") for w in re.findall(r"[\w'’$€£.,:/-]+|→|->|=>", clause.lower())]
    for i, w in enumerate(words):
        tok = content(w)
        if not tok or _MONTH.fullmatch(tok[0]) or len(tok[0]) < 3 and not _number_like(tok[0]):
            continue
        if not any(same_word(tok[0], v) or _number_like(v) and tok[0].strip("$€£.,") == v.strip("$€£.,")
                   for v in found):
            continue
        own = set(re.findall(r"[\w'’]+", older.lower()))  # "Someone left a box": its own verb, no removal
        before = [b for b in words[max(0, i - _GONE_WINDOW):i] if b not in own]
        after = [a for a in words[i + 1:i + 1 + _GONE_WINDOW] if a not in own or a in ("is", "was")]
        if any(_GONE_BEFORE.fullmatch(b) for b in before):
            return True
        if after and (_GONE_AFTER.fullmatch(after[0]) or (len(after) > 1 and after[0] in ("is", "was", "has", "got")
                                                           and _GONE_AFTER.fullmatch(after[1]))):
            if not (after[0] in ("is", "isn't") and len(after) > 1 and not _GONE_AFTER.fullmatch(after[1])):
                return True
    return False


def _swapped(o: Reading, n: Reading) -> bool:
    """Roles swapped: the later text opens with the earlier one's last word and names the earlier
    one's first word after it ("Bruno's manager is Farah" / "Farah's manager is Yusuf")."""
    if len(o.tokens) < 2 or len(n.tokens) < 2:
        return False
    first, last = o.tokens[0], o.tokens[-1]
    return first != last and same_word(n.tokens[0], last) and any(same_word(first, t) for t in n.tokens[1:]) \
        and not same_word(n.tokens[0], first)


_ADJUNCT_PREP = frozenset({"for", "of", "with", "about", "from"})


def _flipped(older: str, newer: str) -> bool:
    """The earlier text's first word comes before its second in the earlier text and after it in the
    later one ("Nadia's manager is Hana" / "Bruno's manager is now Nadia")."""
    o_words, n_words = _raw_words(older), _raw_words(newer)
    o_content = [w for w in o_words if w not in STOP]
    if len(o_content) < 2:
        return False
    first, second = o_content[0], o_content[1]
    at_first = [j for j, t in enumerate(n_words) if same_word(t, first)  # "the raw diet *for Luna*": an adjunct
                and not (j and n_words[j - 1] in _ADJUNCT_PREP)]
    at_second = [j for j, t in enumerate(n_words) if same_word(t, second)]
    return bool(at_first and at_second) and min(at_first) > min(at_second)


def _parallel(o: Reading, n: Reading) -> bool:
    """Two statements of one template ("The cafeteria serves ramen on Thursday." / "... risotto on
    Monday."): the word-by-word rules of :func:`~hindsight_core.lifecycle.beliefs.contradicts` decide
    those, since a slot reading cannot tell which of the changed words is the subject."""
    a = [t for t in o.tokens if t not in _NOT_VALUE]
    b = [t for t in n.tokens if t not in _NOT_VALUE]
    if len(a) != len(b) or len(a) > _PARALLEL_MAX:
        return False
    same = sum(x == y for x, y in zip(a, b))
    return same >= 2 and same * 2 >= min(len(a), len(b))


def _shape(tok: str) -> str:
    """The form of a value: ``id`` (pg-12, p3), ``version`` (1.29), ``number`` (5184) or ``word``."""
    if not _number_like(tok):
        return "word"
    if any(c.isalpha() for c in tok):
        return "id" if ("-" in tok or "_" in tok or tok[0].isalpha()) else "number"
    return "version" if tok.count(".") >= 1 else "number"


def _same_shape(value: tuple[str, ...], o: Reading, n: Reading) -> bool:
    """The later text's new values include one of the earlier value's form."""
    old = {_shape(v) for v in value if v not in _NOT_VALUE}
    new = {_shape(t) for t in n.tokens if not _present(t, o) and t not in _NOT_VALUE}
    return bool(old & new)


def _new_value(o: Reading, n: Reading, value: tuple[str, ...]) -> bool:
    """The later text states a value of a kind the earlier value has: a new number for a number,
    a new word or name for words."""
    o_nums = {t for t in value if _number_like(t)}
    n_new = [t for t in n.tokens if not _present(t, o) and t not in _NOT_VALUE]
    if o_nums:
        named = (any(v in o.names and not _number_like(v) for v in value)  # "Fira Code 14pt" -> a new font
                 and any(t in n.names and not _number_like(t) for t in n_new))
        return named or any(_number_like(t) for t in n_new) or bool(n.slots & o.slots & {"day", "status"}
                                                                     and any(not _number_like(t) for t in n_new))
    if o.slots & _WHEN and n.slots & _WHEN and any(_number_like(t) for t in n_new):
        return True  # "the first Friday" -> "by the 10th": a date for a day
    return any(not _number_like(t) or _is_id(t) for t in n_new)


#: Slots of a point in time, whose values stand in for each other (a day, a date, a clock time).
_WHEN = frozenset({"time", "day", "date"})


#: Slots whose values are numbers of one kind: a count for a count, a sum for a sum.
_NUMBER_SLOTS = frozenset({"quantity", "money", "percent", "duration", "time", "date", "version", "port"})
#: Two plain numbers within this factor of each other measure the same thing ("HR 68" / "down to 58").
_MAGNITUDE_FACTOR = 3.0


def _magnitude(tok: str) -> float | None:
    try:
        return float(tok)
    except ValueError:
        return None


def _one_number_per_slot(value: tuple[str, ...], o: Reading, n: Reading) -> bool:
    """The earlier value is a number or time ("I like my digest at 7am") and the later text states
    another of its kind: one thing liked holds one such value at a time, unlike the things liked."""
    old = {v for v in value if _number_like(v)}
    new = [t for t in n.tokens if _number_like(t) and not _present(t, o)]
    return bool(old and new and not any(_present(v, n) for v in old) and _same_number_kind(old, new, o, n))


def _same_number_kind(old: set[str], new: list[str], o: Reading, n: Reading) -> bool:
    """The later text's new number is of the earlier one's kind: a shared number slot, the same
    version shape ("1.27" / "1.29"), or plain numbers of about one size ("120 people" / "95 guests")."""
    if o.slots & n.slots & _NUMBER_SLOTS:
        return True
    for a in old:
        for b in new:
            if _shape(a) == _shape(b) == "version":
                return True
            x, y = _magnitude(a), _magnitude(b)
            if x and y and max(x, y) / min(x, y) <= _MAGNITUDE_FACTOR:
                return True
    return False


def _raw_words(text: str) -> list[str]:
    return [_stem_word(w) for w in re.findall(r"[\w'’-]+", text.lower())]


def _stem_word(w: str) -> str:
    toks = content(w)
    return toks[0] if toks else w


#: Nouns that name an attribute, not a subject: "the grant *deadline*" for "the grant application is due".
_ATTRIBUTE_NOUNS = frozenset("""deadline date time day price cost budget rate fee address location port version name title
role status schedule slot size count number limit amount""".split())


def subject_substituted(older: str, newer: str, missing: set[str], value: tuple[str, ...] = ()) -> bool:
    """A ``missing`` subject word of the earlier text is replaced by another word right before the
    same next word: "the *data* team's budget" / "*ML* team's budget", "*Priya* leads" / "*Hiroshi*
    now leads"."""
    o_words, n_words = _raw_words(older), _raw_words(newer)
    a, b = content(older), content(newer)
    short_pair = max(len(a), len(b)) <= _SHORT_STATEMENT and abs(len(a) - len(b)) <= 1
    for i, w in enumerate(o_words):
        if w not in missing:
            continue
        nxt = next((t for t in o_words[i + 1:] if t not in STOP and t not in value  # a key word, not the value
                    and any(same_word(t, x) for x in n_words)), None)
        if nxt is None and not short_pair:
            continue  # a message rewords the subject freely; only two short statements are compared word by word
        for j, t in enumerate(n_words if nxt is not None else ()):  # no next key word: the word before decides
            if j == 0 or not same_word(t, nxt):
                continue
            k = j - 1
            while k >= 0 and (n_words[k] in _NOT_VALUE or update_cue(n_words[k])):
                k -= 1
            prev = n_words[k] if k >= 0 else ""
            if _new_subject_word(prev, o_words) or (prev and prev != w and prev not in STOP and prev in o_words[i + 1:]
                                                    and not update_cue(prev)):  # "Bruno's manager" / "Farah's manager"
                return True
        before = next((t for t in reversed(o_words[:i]) if t not in STOP and any(same_word(t, x) for x in n_words)),
                      None)  # "project *Nimbus*" / "project *Heron*"
        if before is not None and o_words.index(before) == i - 1:
            for j, t in enumerate(n_words[:-1]):
                if same_word(t, before) and _new_subject_word(n_words[j + 1], o_words):
                    return True
    return False


def _another_subject(older: str, part: str, o: Reading, n: Reading) -> bool:
    """A subject word of the earlier statement is replaced by another one ("the data team's budget" /
    "ML team's budget"), and its names do not all recur: the later text is about something else."""
    subject, _, value = key_and_value(older)
    missing = {w for w in subject if not _number_like(w) and w not in _NOT_VALUE and not _present(w, n)}
    names_ = [x for x in o.names if x not in value]
    if not missing or (names_ and all(_present(x, n) for x in names_)):
        return False
    return subject_substituted(older, part, missing, value)


def _new_subject_word(word: str, o_words: list[str]) -> bool:
    """A stranger (:func:`_stranger`) that is no attribute noun: it names another subject."""
    return _stranger(word, o_words) and word not in _ATTRIBUTE_NOUNS


def _stranger(word: str, o_words: list[str]) -> bool:
    """A content word the earlier text does not have, and no number, date or cue."""
    return bool(word) and word not in STOP and word not in _NOT_VALUE and not _number_like(word) \
        and not _DAY_OR_MONTH.match(word) and not update_cue(word) and not any(same_word(word, x) for x in o_words)


_MONTH = re.compile(r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*", re.I)
_DAY_OR_MONTH = re.compile(r"(mon|tues|wednes|thurs|fri|satur|sun)day|(jan|febr)uary|march|april|may|june|july|"
                           r"august|(sept|nov|dec)ember|october", re.I)


def judge_update(older: str, newer: str, sim: float) -> str | None:
    """Why ``newer`` updates ``older`` (a short reason), or None when it does not.

    ``sim`` is the cosine of the two texts' embeddings; it only decides for reworded subjects.
    """
    return update_strength(older, newer, sim)[0]


#: How sure each rule is, to pick the one earlier fact a message updates when several qualify:
#: the earlier value named as what changed beats a kept key, which beats a reworded match.
_STRENGTH = {"earlier value named as changed": 3.0, "same attribute, value changed": 2.0,
             "a tool reports another value": 1.5, "the number changed": 1.5,
             "close reworded statement, value changed": 1.0, "same subject, a new name for its value": 1.0,
             "the duty passed to someone else": 2.0, "promoted: the title changed": 2.0, "the job ended": 2.0,
             "a tool field reports another value": 2.0, "moved to another place": 2.0,
             "changed, said in another language": 2.0, "renamed": 2.0,
             "the value's qualifier changed": 1.5, **{form: 1.5 for form in FORMS}}


#: Pair verdicts kept: capture asks about each (older, newer, sim) pair up to three times (candidate
#: fetch, best slot, decision), and a batch of 64 beliefs meets at most 64 x 16 pairs.
_PAIR_CACHE = 4096


@functools.lru_cache(maxsize=_PAIR_CACHE)
def update_strength(older: str, newer: str, sim: float) -> tuple[str | None, float]:
    """``(reason, strength)``: :func:`judge_update`'s reason and how strongly the rules hold it
    (rule weight plus the share of the earlier subject the later text repeats, plus ``sim``, plus
    :data:`SLOT_MATCH_BONUS` when both state a value of one kind: a day for a day, a sum for a sum)."""
    reason, coverage = _judge(older, newer, sim)
    if not reason:
        return None, 0.0
    stated = without_effective_time(assertive_part(newer, relations(older)))
    same_kind = bool(read(older).slots & read(stated).slots - _LOOSE_SLOTS)
    return reason, _STRENGTH.get(reason, 0.0) + coverage + sim + (SLOT_MATCH_BONUS if same_kind else 0.0)


#: Who does a job: verbs and nouns of a duty held by one person at a time.
_ROLE_WORDS = re.compile(
    r"\b(leads?|led|runs?|owns?|manages?|heads?|handles?|coordinates?|chairs?|covers?|organi[sz]es?|maintains?|"
    r"manager|boss|lead|owner|contact|poc|coordinator|head|point person|maintainer|ping|route|ask|reports? to)\b", re.I)
#: The duty passes to someone named after the cue ("Priya now leads", "handed to Yusuf", "I report to Ana now").
_TRANSFER = re.compile(
    r"\bnow (leads?|runs?|owns?|manages?|heads?|handles?|coordinates?|chairs?|covers?|organi[sz]es?|maintains?)\b|"
    r"\b(handed|passed|given|reassigned|transferred|moved|routed?|assigned|delegated|redirected|send|sent)"
    r"( (it|them|this|that|\w+ \w+))?( over)? to\b|"
    r"\bnow (owned|led|run|managed|handled|coordinated|headed|chaired|covered|maintained) by\b|"
    r"\b(took|takes|taking|taken) over\b|\bstep(ped|ping|s)? in\b|\bis (now )?the new\b|'s (now )?the new\b|"
    r"\bnew (lead|manager|owner|contact|head|coordinator|boss|poc|point person|maintainer)\b|"
    r"\breports? to\b|\breporting to\b", re.I)
#: Words of a duty that say nothing about which duty it is ("the mobile *team*").
_GENERIC_DUTY = frozenset({"team", "group", "program", "programme", "project", "squad", "org", "department", "dept",
                           "channel", "request", "requests", "thing", "stuff", "work"})
#: "I report to X" names the speaker's manager.
_REPORT_TO = re.compile(r"\breport(s|ing)? to\b", re.I)
_PROMOTION = re.compile(r"\b(promot\w*|promo|new title|new role|stepp(ed|ing) up)\b", re.I)
_DEPARTURE = re.compile(r"\b(retired|retiring|resigned|laid off|let go|stepped down|stepping down|quit (his|her|their|my|the)"
                        r" job|left (his|her|their|my|the) (job|company|firm|team)|between jobs|unemployed)\b", re.I)
_JOB = re.compile(r"\b(works? (as|at|for)|job|employed|career)\b", re.I)


def _people(text: str, r: Reading) -> frozenset[str]:
    """Names in ``text``, with a capitalised first word that is no stop word ("*Tomas* leads ...")."""
    m = re.match(r"\s*([A-Z][a-z]+)\b", text)
    first = m.group(1).lower() if m else ""
    return r.names | ({first} if first and first not in STOP and first not in _GENERIC_DUTY else set())


_AGENT_SUFFIX = re.compile(r"\w{3,}(er|or|ist|ian|ant)$")


def _new_agent(o: Reading, part: str) -> bool:
    """The later text names a *new* doer of the earlier statement's duty: the agent noun of one of
    its verbs ("walks" -> "a new dog walker", "teaches" -> "new teacher") or its own agent noun
    ("my dentist" -> "my new dentist")."""
    for tok in o.tokens:
        if _number_like(tok) or len(tok) < 4:
            continue
        stem = tok[:-1] if tok.endswith("e") else tok
        agents = [f"{stem}ers?", f"{stem}ors?"] + ([re.escape(tok) + "s?"] if _AGENT_SUFFIX.fullmatch(tok) else [])
        if re.search(r"\bnew (\w+ )?(" + "|".join(agents) + r")\b", part, re.I):
            return True
    return False


def _role_change(older: str, part: str, o: Reading) -> str | None:
    """A duty held by one person passed to another, a title changed, or a job ended; or None.

    "Tomas leads the mobile team" / "Priya now leads mobile": the names are the *value* here, the
    duty ("mobile") is the key, so the word-order rules (which read the first name as the subject)
    do not apply. The duty's distinctive words must recur: "Hiroshi now leads the web team" is
    another duty.
    """
    n = read(part)
    people = _people(older, o)
    subject = [w for w in key_and_value(older)[0] if w not in people]
    if _JOB.search(older) and _DEPARTURE.search(part) and subject and any(_present(w, n) for w in subject[-1:]):
        return "the job ended"
    if not people:
        return None
    if _PROMOTION.search(part) and any(_present(x, n) for x in people) \
            and re.search(r"\b(is|am|'m|are) (a|an|the)\b", older, re.I):
        return "promoted: the title changed"
    if _new_agent(o, part) and any(not _present(x, o) and x not in people and not _is_id(x) and len(x) > 2
                                   and not _DAY_OR_MONTH.fullmatch(x) for x in n.names):
        return "the duty passed to someone else"  # "Jamie walks the dog" / "new dog walker ... it's Corinne"
    if not _ROLE_WORDS.search(older) or not _TRANSFER.search(part):
        return None
    newcomers = [x for x in n.names if not _present(x, o) and x not in people and not _is_id(x) and len(x) > 2]
    if not newcomers:
        return None
    duty = [w for w in content(older) if w not in people and not _ROLE_WORDS.fullmatch(w) and w not in _NOT_VALUE]
    distinct = [w for w in duty if w not in _GENERIC_DUTY and not any(x.startswith(w) for x in people)]
    if not distinct and re.search(r"\b(manager|boss)\b", older, re.I) and _REPORT_TO.search(part):
        return "the duty passed to someone else"  # "My manager is Greta" / "I report to Oluwaseun now"
    if not distinct:
        return None
    shared = [w for w in distinct if _present(w, n)]
    return "the duty passed to someone else" if len(shared) * 2 >= len(distinct) else None


_FIELD_EQ = re.compile(r"([A-Za-z][\w.-]*)\s*=\s*")
_FIELD_COLON = re.compile(r"(?:^\s*|(?<=[.;|] ))([A-Za-z][\w.-]*(?: [A-Za-z][\w.-]*){0,2}):\s+(\S[^\n]*?)\.?$", re.M)
_FIELD_END = re.compile(r"[,;|(\n]")
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
    return out


def _tool_field_changed(older: str, newer: str, o: Reading) -> bool:
    """A machine record has a field for the earlier statement's attribute (its verb or value word,
    "avg_sleep" for "sleep", or the slot a short name fills, "qty" for a count) holding another
    value, and names part of its subject ("laptop-spare" for "spare laptops")."""
    if not is_tool_record(newer):
        return False
    subject, verb, value = key_and_value(older)
    words = {w for t in re.findall(r"[\w.-]+", newer.lower()) for w in [t, *re.split(r"[-_.]", t)] if w}
    nouns = [w for w in (subject or ((verb,) if verb else ()) + value)
             if not _number_like(w) and w not in _NOT_VALUE and len(w) > 2]
    if not any(w == x or same_word(w, x) for w in nouns for x in words):
        return False
    attribute = [w for w in ([verb] if verb else []) + list(value) if not _number_like(w)]
    old_values = {v for v in value if v not in _NOT_VALUE and (_number_like(v) or v not in subject)}
    for name, field_value in _fields(newer):
        keys = [k for k in re.split(r"[-_. ]+", name.lower()) if k]
        if not any(_FIELD_SLOTS.get(k) in o.slots or any(same_word(k, a) or k == a for a in attribute)
                   for k in keys):
            continue
        got = read(field_value)
        if not got.tokens or any(_present(v, got) for v in old_values):
            continue
        if any(_number_like(v) for v in old_values) and not any(_number_like(t) for t in got.tokens):
            continue
        return True
    return False


#: Where someone or something is: "lives in", "is based in", "sits in", "is at".
_LOCATED = re.compile(r"\b(live[sd]?|living|based|located|sits?|stationed|hosted|held|(is|are|'s|'re) (at|in))\b", re.I)
#: It went elsewhere: "moved", "relocated", "new place", "move into".
_MOVED = re.compile(r"\b(moved|moving|move[sd]? (in)?to|relocat\w+|new (place|flat|apartment|house|home|office|address|"
                    r"venue|location|spot|digs|condo|bungalow|cottage|townhouse|studio|loft|villa|shop|premises|hq)|now (lives?|based|located)|set up shop)\b", re.I)


def _moved(older: str, part: str, o: Reading, n: Reading) -> bool:
    """Someone or something located at a named place moved to another named place ("I live in
    Leith" / "Finally moved!! New place is in Portobello"); the subject's words must recur unless
    the statement is the speaker's own."""
    m = _LOCATED.search(older)
    if m is None or not _MOVED.search(part):
        return False
    places = [x for x in read(older[m.end():]).names if not _is_id(x)]
    if not places:
        return False
    if not any(_at_place(x, part) for x in n.names  # "moving to Monday" is a time, not a place
               if not _present(x, o) and not _is_id(x) and len(x) > 2 and not _DAY_OR_MONTH.fullmatch(x)):
        return False
    subject = [w for w in content(older[:m.start()]) if w not in o.names and not _number_like(w)]
    distinct = [w for w in subject if w not in _GENERIC_DUTY]
    if (distinct or subject) and not any(_present(w, n) for w in distinct or subject):
        return False
    return not any(_at_place(x, part) for x in places)  # "still in Leith": not moved


def _at_place(name: str, text: str) -> bool:
    """``name`` follows a place preposition in ``text`` ("in Portobello", "to The Crux")."""
    return bool(re.search(r"\b(in|at|to|into)\s+(the\s+)?" + re.escape(name) + r"\b", text, re.I))


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


def _in_other_language(older: str, part: str, o: Reading, n: Reading, sim: float) -> bool:
    """A message in Spanish, French, German, Portuguese or Italian with a change cue in that language
    names another language to use, or another number of the earlier value's kind for a subject it
    names (a shared name or id, or a close enough meaning)."""
    if _foreign(older) or not _foreign(part) or not _FOREIGN_CUE.search(part):
        return False
    old_lang = {_LANGUAGE_GROUP.get(m.lower()[:4], m.lower()) for m in _LANGUAGE.findall(older)}
    new_lang = {_LANGUAGE_GROUP.get(m.lower()[:4], m.lower()) for m in _LANGUAGE.findall(part)}
    if old_lang and new_lang and not new_lang <= old_lang:
        return True
    old_nums = {t for t in o.tokens if _number_like(t)}
    new_nums = [t for t in n.tokens if _number_like(t) and not _present(t, o)]
    subject = [w for w in key_and_value(older)[0] if not _number_like(w)]
    shared = any(_present(x, n) for x in list(o.names) + subject) or sim >= CLOSE_SIM
    kept = read(_FOREIGN_GONE.sub(" ", part))  # "nicht mehr 8443" names the old value as gone
    return bool(old_nums and new_nums and shared and not any(_present(v, kept) for v in old_nums)
                and _same_number_kind(old_nums, new_nums, o, n))


#: The first four letters of a language's name in any of the six languages, to the language.
_LANGUAGE_GROUP = {**{r: "en" for r in ("engl", "ingl", "angl")}, **{r: "es" for r in ("span", "espa", "spag")},
                   **{r: "fr" for r in ("fren", "fran")}, **{r: "de" for r in ("germ", "alem", "deut", "tede")},
                   **{r: "pt" for r in ("port",)}, **{r: "it" for r in ("ital",)}}


_NAMING = re.compile(r"\b(named|called|name is|name's|names? (are|were)|known as|goes by|go by)\b", re.I)
_RENAMED = re.compile(r"\b(renam\w+|re-?brand\w*|(now|officially) (called|named|known as)|officially|goes by|going by|"
                      r"new name|name change|changed (his|her|their|its|the) name|took (his|her|their) \w+'s (last )?name)\b",
                      re.I)
_NAME_NOW = re.compile(r"\b(is|'s|are|'re) (officially |now )?[A-Z][\w'-]+( [A-Z][\w'-]+)? now\b")


def _renamed(older: str, part: str, o: Reading, n: Reading) -> bool:
    """Something named or called X is now called Y ("the kitten is officially Waffles now", "she's
    Hannah Lindqvist now"): a rename cue, a new name, and the subject's words or its old name recur."""
    m = _NAMING.search(older)
    if m is None or not (_RENAMED.search(part) or _NAME_NOW.search(part)):
        return False
    if not any(not _present(x, o) and not _is_id(x) and len(x) > 2 for x in n.names):
        return False
    subject = [w for w in content(older[:m.start()]) if w not in o.names and w not in _GENERIC_DUTY
               and not _number_like(w)]
    after = content(older[m.end():])
    return any(_present(w, n) for w in subject + [w for w in after if w not in o.names]) \
        or bool(o.names & (n.names | set(n.tokens)))  # the old name itself, not "#nimbus-core" for Nimbus


#: The later text replaces the earlier value outright.
_FROM_NOW_ON = re.compile(r"\b(from now on|going forward|instead|switch\w*|rather than)\b", re.I)


def _qualifier_swapped(older: str, part: str, value: tuple[str, ...], plain: bool = False) -> bool:
    """The earlier value's head word recurs under another capitalised qualifier, a named tier
    ("Silver Medallion" / "hit Gold Medallion", "Standard tier" / "Premium tier"), and the old
    qualifier is gone ("the back door" for "a red door" is another door, not a new colour).

    ``plain``: the later text says it replaces or corrects ("window seats from now on", "sorry, I
    meant the blue one"), so a lower-case qualifier counts too ("aisle seats" / "window seat")."""
    o_caps = {w.lower() for w in re.findall(r"\b[A-Z][\w'-]*", older)}
    n_caps = {w.lower() for w in re.findall(r"\b[A-Z][\w'-]*", part)}
    o_words, n_words = _raw_words(older), _raw_words(part)
    for i in range(len(o_words) - 1):
        qual, head = o_words[i], o_words[i + 1]
        if qual in STOP or head in STOP or qual not in value or head not in value or _number_like(qual) \
                or (qual not in o_caps and not plain) or any(same_word(qual, x) for x in n_words):
            continue
        for j in range(1, len(n_words)):
            if same_word(n_words[j], head) and (n_words[j - 1] in n_caps or plain) \
                    and _stranger(n_words[j - 1], o_words):
                return True
    return False


#: Reported speech (``Melanie said, "..."``, ``Melanie: ...``): the speaker is who talks, not what
#: the statement is about. Left in, every turn of one speaker shares a "subject" and chat turns
#: supersede each other (LoCoMo conversation 0 lost 18 points of recall@10 that way).
_REPORTED = re.compile(r'^\s*[A-Z][\w.\'-]*(?: [A-Z][\w.\'-]*)?(?: said,?|:)\s*["\u201c](?P<said>.*?)["\u201d]?\s*$', re.S)
#: A turn that opens by addressing someone ("Hey Caroline!", "Thanks, Mel!", "Yeah, Caroline!") is a
#: dialogue act; the name in it is the listener, never the subject of a belief.
_ADDRESS = re.compile(r"^\s*(?:hey|hi|hello|thanks|thank you|yeah|yes|wow|oh|aw+|omg|haha|congrats|great|absolutely|"
                      r"sure|bye)(?:,?\s+[A-Z][\w'-]*)?\s*[,!.]+\s*", re.I)


#: The most content words an earlier statement may have and still be one belief the rules can update.
#: Every earlier fact of the dev set has at most 9; a chat turn that tells a story has many more.
ATOMIC_MAX_WORDS = 12
#: A sentence ends at ".", "!" or "?" and a space, except after a title or an abbreviation ("Dr. Lee").
_SENTENCE_END = re.compile(r"(?<=[.!?])" + "".join(rf"(?<!\b{a}\.)" for a in ("Dr", "Mr", "Ms", "Mrs", "St", "Prof", "Jr",
                                                                            "Sr", "vs", "e.g", "i.e", "approx", "Mt"))
                           + r"\s+(?=\S)")


def _atomic(text: str, reading: Reading) -> bool:
    """One sentence of at most :data:`ATOMIC_MAX_WORDS` content words, not an exclamation: a
    statement of one value.

    The rules supersede only such statements. A multi-sentence chat turn ("Thanks, Mel! The event
    was great. I'm starting to ...") mixes feelings, news and replies; letting it be replaced by the
    next turn that shares a few words superseded 140 turns of four LoCoMo conversations. An
    exclamation ("Keep it up!", "That must've been breathtaking!") is a reaction, not a state."""
    return _one_sentence(text) and len(reading.tokens) <= ATOMIC_MAX_WORDS


@functools.lru_cache(maxsize=_PAIR_CACHE)
def _one_sentence(text: str) -> bool:
    """One sentence, not an exclamation: the part of :func:`_atomic` that needs no reading."""
    text = text.strip()
    return len(_SENTENCE_END.split(text)) == 1 and not text.endswith("!")


#: A reply that opens by greeting or thanking someone ("Thanks, Jon! Appreciate your support.") is
#: a dialogue act, and an event placed in the past ("I went to a support group yesterday") stays
#: true whatever comes later: neither is a state a later statement replaces.
_DIALOGUE_ACT = re.compile(r"^\s*(hey|hi|hello|thanks|thank you|thx|congrats|congratulations|bye|wow|aw+)\b", re.I)
_PAST_EVENT = re.compile(r"\b(yesterday|last (night|week|weekend|month|year|time)|\d+ (days?|weeks?|months?|years?) ago|"
                         r"(a|an|one|two|few|couple of) (days?|weeks?|months?|years?) ago|the other day|this morning|"
                         r"earlier today)\b", re.I)


def _episode(text: str) -> bool:
    """A dialogue act or a dated past event (see :data:`_DIALOGUE_ACT`), not a belief to update."""
    return bool(_DIALOGUE_ACT.match(text) or _PAST_EVENT.search(text))


@functools.lru_cache(maxsize=_PAIR_CACHE)  # asked for both texts of every pair capture compares
def said(text: str) -> str:
    """What a turn states: the quoted words of reported speech, without an opening address."""
    reported = _REPORTED.match(text)
    body = reported.group("said") if reported else text
    return _ADDRESS.sub("", body, count=1) or body


def _judge(older: str, newer: str, sim: float) -> tuple[str | None, float]:
    reported = _REPORTED.match(older)
    if _episode(reported.group("said") if reported else older):
        return None, 0.0
    older, newer = said(older), said(newer)
    if older.rstrip().endswith("?") or not _one_sentence(older):
        return None, 0.0  # (before the reading below, which costs more than all the rest of a stop)
    o = read(older)
    if not _atomic(older, o):  # checked first: on chat, three in four pairs stop here
        return None, 0.0  # a multi-sentence turn, a long story or a dated event is not one belief with one value
    if denies(newer):
        return None, 0.0
    stated = assertive_part(newer, relations(older))
    cue = update_cue(stated)
    sentences = _sentences(stated)
    if len(sentences) == 1 or is_tool_record(newer):
        return _judge_part(older, newer, stated, cue, sim)
    # An update states the key and the new value in one sentence ("...Office hours are moving to
    # Monday 3-4pm..."); words gathered across the sentences of a chat turn are not one statement.
    # The cue may sit in another sentence ("Sorry, my mistake. It's Thursday.").
    best: tuple[str | None, float] = (None, 0.0)
    for sentence in sentences:
        reason, coverage = _judge_part(older, newer, sentence, update_cue(sentence) or cue, sim)
        if reason is not None and (best[0] is None or _STRENGTH.get(reason, 0.0) + coverage
                                   > _STRENGTH.get(best[0], 0.0) + best[1]):
            best = (reason, coverage)
    return best


#: A sentence with fewer content words than this ("new PR!", "Crazy week.") belongs to its neighbour.
_SENTENCE_MIN_WORDS = 3


def _sentences(text: str) -> list[str]:
    """The sentences of ``text``, a very short one joined to the one before it (or after it, first)."""
    out: list[str] = []
    for sentence in _SENTENCE_END.split(text.strip()):
        if out and (len(content(sentence)) < _SENTENCE_MIN_WORDS or len(content(out[-1])) < _SENTENCE_MIN_WORDS):
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


def _judge_part(older: str, newer: str, part: str, cue: str | None, sim: float) -> tuple[str | None, float]:
    """:func:`_judge` on one stated part of ``newer`` (its look-alike clauses set aside)."""
    part = without_effective_time(part)  # "as of Monday" says when, not what
    if not part.strip():
        return None, 0.0
    o, n = read(older), read(part)
    if _other_id(o, n) or _parallel(o, n) or other_instance(older, part) or other_possessor(older, part):
        return None, 0.0  # one template, two subjects: the word-by-word rules decide
    role = _role_change(older, part, o)
    if role is not None:
        return role, 1.0
    if _tool_field_changed(older, newer, o):
        return "a tool field reports another value", 1.0
    if _moved(older, part, o, n):
        return "moved to another place", 1.0
    if _renamed(older, part, o, n):
        return "renamed", 1.0
    if (cue and sim >= RELATED_MIN_SIM
            and _qualifier_swapped(older, part, key_and_value(older)[2],
                                   plain=cue == "correction" or bool(_FROM_NOW_ON.search(newer)))):
        return "the value's qualifier changed", 1.0
    if _in_other_language(older, part, o, n, sim):
        return "changed, said in another language", 1.0
    form = form_change(older, part, sim)  # an amount, a kind switched, a relationship, a key gone, a role
    if form is not None and (form in SUBJECT_CHECKED or not _another_subject(older, part, o, n)):
        return form, 1.0
    if _swapped(o, n) or _flipped(older, part):
        return None, 0.0
    subject, verb, value = key_and_value(older)
    heads = _heads(subject, verb, value)
    value = tuple(v for v in value if v not in heads)
    removed = _value_removed(value, part, n, tuple(w for w in subject + heads if not _number_like(w)), older)
    said_heads = [h for h in heads if not subject and h != verb and _present(h, n)]  # "Booked *the Ibis*"
    if removed != "named" and said_heads and any(_near_removal(c, said_heads, older) for c in split_clauses(part)):
        removed = "named"  # "cancelled the Ibis": the speaker's own value, named as gone
    gone_names = [x for x in o.names if _present(x, n) and not _DAY_OR_MONTH.match(x) and not _is_id(x)]
    if (removed != "named" and gone_names and _REPLACE_CUE.search(part)
            and any(not _present(x, o) for x in n.names)
            and any(_near_removal(c, gone_names, older) for c in split_clauses(part))):
        removed = "named"  # "cancelled the Hilton, ... at Hotel Avenida instead": a named thing replaced
    if removed == "kept" and cue != "correction":
        return None, 0.0  # the earlier value still stands; the text adds or restates
    if is_addition(part) and not any(_number_like(t) for t in n.tokens) and cue != "correction":
        return None, 0.0
    new_value = _new_value(o, n, value)
    # the slots of what is said about the subject: "office hours" names no location of its own
    o_said = slots(" ".join(([verb] if verb else []) + list(key_and_value(older)[2])))
    n_said = slots(" ".join(t for t in n.tokens if not any(same_word(t, w) for w in subject)))
    shared_slot = bool(o_said & n_said - _WEAK_SLOTS)
    if (_MULTI.search(older) and removed != "named" and not _REPLACE_CUE.search(part) and cue != "correction"
            and not (_one_number_per_slot(value, o, n) and not is_addition(part))):
        return None, 0.0  # "Alice likes tea" / "Alice likes coffee": both can hold
    tool = bool(_TOOL_RECORD.search(newer))
    nouns = [w for w in subject if not _number_like(w) and w not in _NOT_VALUE]
    missing = {w for w in nouns if not _present(w, n)}
    coverage = 1.0 - len(missing) / len(nouns) if nouns else 0.5
    head_ok = any(_present(h, n) for h in heads) or (  # half the subject, with a cue: "Pro is $35 now"
        bool(cue) and len(nouns) >= 2 and len(missing) * 2 <= len(nouns))
    subject_names = [x for x in o.names if x not in value]
    named_subject = bool(subject_names) and all(_present(x, n) for x in subject_names)
    if missing and not named_subject and subject_substituted(older, part, missing, value):
        return None, 0.0
    # a full verb names the attribute ("stores its data", "listens on"): the later text must repeat it
    # or share a slot with it, else it is another attribute of the same subject ("moved to port 9")
    strong_o, strong_n = o.slots - _WEAK_SLOTS, n.slots - _WEAK_SLOTS
    other_slot = bool(strong_o and strong_n and not strong_o & strong_n)  # "lives in" / "manager is"
    attr_ok = verb is None or _present(verb, n) or shared_slot or tool or (
        bool(cue) and not other_slot and _same_shape(value, o, n))
    o_named_value = any(_present(v, o) and v in o.names for v in value)
    if removed == "named" and (head_ok or sim >= RELATED_MIN_SIM) and (new_value or cue):
        return "earlier value named as changed", coverage
    if not new_value:
        return None, 0.0
    # "my editor font" repeated in full in a long message, with a value of the same kind
    whole_subject = ((verb is None or _present(verb, n)) and len(nouns) >= 2 and not missing
                     and bool(o.slots & n.slots))
    if head_ok and attr_ok and (shared_slot or tool or (cue and (sim >= CLOSE_SIM or whole_subject))):
        return "same attribute, value changed", coverage
    o_nums = {v for v in value if _number_like(v)}
    n_nums = [t for t in n.tokens if _number_like(t) and not _present(t, o)]
    if (o_nums and cue and attr_ok and sim >= RELATED_MIN_SIM
            and (head_ok or coverage > KEY_COVERAGE or (coverage > 0 and _same_number_kind(o_nums, n_nums, o, n)))
            and not any(_present(v, n) for v in o_nums) and n_nums):
        return "the number changed", coverage
    if tool and (head_ok or any(_present(w, n) for w in nouns)) and (shared_slot or sim >= RELATED_MIN_SIM):
        return "a tool reports another value", coverage
    if head_ok and attr_ok and cue and o_named_value and (shared_slot or sim >= CLOSE_SIM) and any(not _present(t, o) for t in n.names):
        return "same subject, a new name for its value", coverage
    if sim >= CLOSE_SIM and shared_slot and cue:
        return "close reworded statement, value changed", coverage
    return None, 0.0


def one_belief(text: str) -> bool:
    """``text`` (as :func:`said` gives it) states one present value the rules may update: one
    sentence of a few words, no question, no dialogue act or dated past event."""
    return not text.rstrip().endswith("?") and not _episode(text) and _atomic(text, read(text))


def another_id(older: str, newer: str) -> bool:
    """Both name a numbered id of one shape and not each other's ("db-primary-01" / "db-replica-03")."""
    return _other_id(read(older), read(newer))


#: Qualifiers that pick one instance among several of a kind: environments, regions, platforms,
#: sides. A capitalised word or an acronym ("the *Berlin* offsite", "our *EU* cluster") does too.
_INSTANCE_WORDS = frozenset("""staging stage prod production dev development test testing qa uat sandbox preview
canary demo local internal external public private primary replica secondary backup north south east west
northern southern eastern western central eu us uk emea apac latam frontend backend front back web mobile
desktop ios android mac windows linux server client upstairs downstairs""".split())
_RAW = re.compile(r"[\w'’.-]+")


def _instance_word(word: str, text: str) -> bool:
    """``word`` names an instance in ``text``: a known qualifier, an acronym, or capitalised
    anywhere but at the start of ``text``."""
    if word in _INSTANCE_WORDS:
        return True
    for m in re.finditer(rf"\b{re.escape(word)}\b", text, re.I):
        raw = m.group(0)
        if raw.isupper() and len(raw) > 1 or (raw[0].isupper() and text[:m.start()].strip()):
            return True
    return False


def other_instance(older: str, newer: str) -> bool:
    """The later text names the earlier subject's head noun under another instance qualifier
    ("*staging* Redis is 6.2" / "*prod* redis bumped to 6.4", "our *EU* cluster" / "the *US*
    cluster", "the *Lisbon* offsite" / "the *Madrid* offsite"), so its value says nothing about the
    earlier one. The earlier qualifier must be absent from the later text; a reworded noun that
    names no instance ("the venue deposit" / "the hall deposit") is left to the other rules."""
    subject = key_and_value(older)[0]
    o_raw = [w.strip(".,;:!?").lower() for w in _RAW.findall(older)]
    n_raw = [w.strip(".,;:!?").lower() for w in _RAW.findall(newer)]
    o_set = set(o_raw)
    for i in range(len(o_raw) - 1):
        qual, head = o_raw[i], o_raw[i + 1]
        if (_number_like(qual) or not _instance_word(qual, older)
                or not any(same_word(_stem_word(qual), s) for s in subject)
                or not any(same_word(_stem_word(head), s) for s in subject)
                or any(same_word(_stem_word(qual), _stem_word(w)) for w in n_raw)):
            continue
        for j in range(1, len(n_raw)):
            other = n_raw[j - 1]
            if (same_word(_stem_word(n_raw[j]), _stem_word(head)) and other not in o_set
                    and _instance_word(other, newer) and not _number_like(other) and not update_cue(other)
                    and not _DAY_OR_MONTH.match(other)):
                return True
    return False


_MINE = frozenset({"my", "our"})
_THEIRS = re.compile(r"\b(their|his|her|its|[\w-]+'s|[\w-]+’s)\s+(\w+)", re.I)


def other_possessor(older: str, newer: str, heads: tuple[str, ...] = ()) -> bool:
    """The earlier statement is about the speaker's own thing ("my manager", "our Pro plan") and the
    later text gives that thing another owner ("my brother's manager", "their Pro plan").

    ``heads``: the words that name the thing (default: the earlier statement's subject words)."""
    o_raw = [w.lower() for w in _RAW.findall(older)]
    heads = heads or key_and_value(older)[0]
    owned = {_stem_word(o_raw[i + 1]) for i in range(len(o_raw) - 1) if o_raw[i] in _MINE}
    owned = {w for w in owned if any(same_word(w, h) for h in heads)}
    if not owned:
        return False
    for m in _THEIRS.finditer(newer):
        owner = m.group(1).lower().replace("’", "'").removesuffix("'s")
        if owner in o_raw or owner in _MINE:
            continue
        if any(same_word(_stem_word(m.group(2).lower()), w) for w in owned):
            return True
    return False


#: Predicates of one kind: "is green" / "are green", "has a lock" / "have a lock".
_PREDICATE_CLASS = {"are": "is", "was": "is", "were": "is", "'s": "is", "'re": "is", "'m": "is", "am": "is",
                    "have": "has", "had": "has"}


def _predicate(text: str) -> tuple[tuple[str, ...], str] | None:
    """``(subject words, main verb)`` of a plain statement that opens with its subject, or None."""
    m = _VERB.search(text)
    if m is None or m.group(0) == ":":
        return None
    subject = content(text[: m.start()])
    verb = m.group(0).lower()
    after = re.match(r"\s+(?:been\s+)?(\w+(?:ing|ed))\b", text[m.end():])
    if verb in _PREDICATE_CLASS or verb in ("is", "has"):
        if after is not None:  # "has been running", "is moving": the participle is the predicate
            verb = after.group(1).lower()
    return (subject, _lemma(_PREDICATE_CLASS.get(verb, verb))) if subject else None


def _lemma(verb: str) -> str:
    """A crude verb stem: "running" / "runs" / "run" -> "run", "moved" -> "mov"."""
    for suffix in ("ing", "ed", "es", "s"):
        if verb.endswith(suffix) and len(verb) - len(suffix) >= 2:
            verb = verb[: -len(suffix)]
            break
    return verb[:-1] if len(verb) > 2 and verb[-1] == verb[-2] else verb


def sibling_fact(older: str, newer: str) -> bool:
    """The later text is a plain statement about the same subject with another predicate: another
    attribute of it ("The shed is painted green." / "The shed has a padlock."), not a new value.
    A new number for a numeric value is left to the other rules ("Leo is 9." / "Leo turns 10 ...")."""
    a, b = _predicate(older), _predicate(newer)
    if a is None or b is None or a[1] == b[1]:
        return False
    if not (all(any(same_word(w, x) for x in b[0]) for w in a[0])
            and all(any(same_word(w, x) for x in a[0]) for w in b[0])):
        return False
    value_o = content(older)[len(a[0]):]
    return not (any(_number_like(t) for t in value_o) and any(_number_like(t) for t in content(newer)[len(b[0]):]))
