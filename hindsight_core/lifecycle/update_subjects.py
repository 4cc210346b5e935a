"""Is a later text about the same subject as an earlier statement, or about another one?

Rules that say "another subject" (another instance "staging / prod redis", another owner "my manager /
my brother's manager", a substituted subject word "the data team / ML team", swapped roles) or "another
attribute of the same subject" (:func:`sibling_fact`), so that a new value there supersedes nothing.

Example:
    >>> other_instance("Staging Redis is 6.2.", "prod redis got bumped to 6.4 last night")
    True
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from hindsight_core.lifecycle.slots import Reading, STOP, content, read, same_word
from hindsight_core.lifecycle.update_cues import update_cue
from hindsight_core.lifecycle.update_keys import (MAIN_VERB, NOT_VALUE, day_or_month, key_and_value, number_like,
                                                  phrase_starts, present, raw_capitals, raw_words, stem_word,
                                                  stranger)

__all__ = ["swapped", "flipped", "parallel", "subject_substituted", "subject_replaced", "another_subject",
           "named_subject_swapped", "other_instance", "other_possessor", "about_someone_else", "negates_another",
           "sibling_fact", "place_swapped", "owner_swapped", "named_branch", "INSTANCE_WORDS"]

_PARALLEL_MAX = 14  # content words; longer texts are messages, not template facts
_SHORT_STATEMENT = 6  # content words of a one-fact statement ("The auth api moved to port 3896.")


def swapped(o: Reading, n: Reading) -> bool:
    """Roles swapped: the later text opens with the earlier one's last word and names the earlier
    one's first word after it ("Bruno's manager is Farah" / "Farah's manager is Yusuf")."""
    if len(o.tokens) < 2 or len(n.tokens) < 2:
        return False
    first, last = o.tokens[0], o.tokens[-1]
    return first != last and same_word(n.tokens[0], last) and any(same_word(first, t) for t in n.tokens[1:]) \
        and not same_word(n.tokens[0], first)


_ADJUNCT_PREP = frozenset({"for", "of", "with", "about", "from"})


def flipped(older: str, newer: str) -> bool:
    """The earlier text's first word comes before its second in the earlier text and after it in the
    later one ("Nadia's manager is Hana" / "Bruno's manager is now Nadia")."""
    o_words, n_words = raw_words(older), raw_words(newer)
    o_content = [w for w in o_words if w not in STOP and w not in NOT_VALUE and not _PERIODIC.fullmatch(w)]
    if len(o_content) < 2:
        return False
    first, second = o_content[0], o_content[1]
    breaks = phrase_starts(newer)
    at_first = [j for j, t in enumerate(n_words) if same_word(t, first)  # "the raw diet *for Luna*": an adjunct
                and not (j and n_words[j - 1] in _ADJUNCT_PREP)]
    if any(j and breaks[j] for j in at_first) and not re.search(rf"\b{re.escape(first)}\w*['’]s\b", older, re.I):
        return False  # "billing db upgraded, *prod* now on 16": a modifier of the subject opens a clause, the
        # subject again ("Mum's physio" / "..., Mum likes him": the owner opens a statement of her own)
    at_second = [j for j, t in enumerate(n_words) if same_word(t, second)]
    if _adjunct_of(o_words, first, second) and any(
            j + d in at_first and not any(breaks[j + 1:j + d + 1]) for j in at_second for d in range(1, _COMPOUND + 1)):
        return False  # "Flight *to Lisbon*" said as "the Lisbon flight": one noun phrase, reordered
    if at_second and _adjunct_of(o_words, first, second) and _after_preposition(n_words, min(at_second)):
        return False  # "Fees for court 2" / "booked with the club for court 2, fees ...": an adjunct again
    if re.search(rf"\b{re.escape(first)}['’]s\b", older, re.I) and _of_phrase(n_words, second, first):
        return False  # "the shop's till" said as "the till of the shop": one noun phrase, reordered
    return bool(at_first and at_second) and min(at_first) > min(at_second)


def _of_phrase(words: list[str], head: str, owner: str) -> bool:
    """``words`` say "``head`` of (the) ``owner``" ("the till of the shop")."""
    return any(same_word(w, head) and words[i + 1] == "of"
               and any(same_word(t, owner) for t in [t for t in words[i + 2:i + 4] if t not in _ARTICLES][:1])
               for i, w in enumerate(words[:-2]))


def _after_preposition(words: list[str], i: int) -> bool:
    """``words[i]`` is the object of a preposition ("on court 2", "for the juniors")."""
    k = i - 1
    while k >= 0 and words[k] in _ARTICLES:
        k -= 1
    return k >= 0 and words[k] in _NOUN_PREP


#: How often a value recurs ("*monthly* grocery budget"): it qualifies the value, not the subject, and
#: comes back in any place ("$450 a month").
_PERIODIC = re.compile(r"(hour|dai|night|week|fortnight|month|quarter|year)ly|annual|biweekly", re.I)
#: Words from a compound's first noun to its head: "the data team standup" for "Standup for the data team".
_COMPOUND = 3
_NOUN_PREP = frozenset({"to", "for", "of", "from", "at", "in", "on", "with"})
#: Words between a preposition and its noun: "for *the* U12s", "at *our* place".
_ARTICLES = ("the", "a", "an", "our", "my")


def _adjunct_of(words: list[str], first: str, second: str) -> bool:
    """``second`` is the object of a preposition right after ``first`` ("flight to Lisbon",
    "training for the U12s")."""
    for i, w in enumerate(words[:-2]):
        if same_word(w, first) and words[i + 1] in _NOUN_PREP:
            rest = [t for t in words[i + 2:i + 4] if t not in _ARTICLES]
            if rest and same_word(rest[0], second):
                return True
    return False


def parallel(o: Reading, n: Reading) -> bool:
    """Two statements of one template ("The cafeteria serves ramen on Thursday." / "... risotto on
    Monday."): the word-by-word rules of :func:`~hindsight_core.lifecycle.beliefs.contradicts` decide
    those, since a slot reading cannot tell which of the changed words is the subject."""
    a = [t for t in o.tokens if t not in NOT_VALUE]
    b = [t for t in n.tokens if t not in NOT_VALUE]
    if len(a) != len(b) or len(a) > _PARALLEL_MAX:
        return False
    same = sum(x == y for x, y in zip(a, b))
    return same >= 2 and same * 2 >= min(len(a), len(b))


#: Nouns that name an attribute, not a subject: "the grant *deadline*" for "the grant application is due".
_ATTRIBUTE_NOUNS = frozenset("""deadline date time day price cost budget rate fee address location port version name title
role status schedule slot size count number limit amount""".split())


def _in_value(word: str, value: tuple[str, ...]) -> bool:
    """``word`` is one of the earlier value's words (any word, when the value is not given): "Farah" in
    "Bruno's manager is Farah", not "Saffron" in "my usual lunch order from Saffron Kitchen is ..."."""
    return not value or any(same_word(stem_word(word), v) for v in value)


def subject_substituted(older: str, newer: str, missing: set[str], value: tuple[str, ...] = (),
                        as_fitted: bool = False) -> bool:
    """A ``missing`` subject word of the earlier text is replaced by another word right before the
    same next word: "the *data* team's budget" / "*ML* team's budget", "*Priya* leads" / "*Hiroshi*
    now leads".

    ``as_fitted``: read as when the learned judge's weights were fitted (a word across a phrase break
    or a negation counted as a substitute), so that its signal keeps the reading its weight was fitted
    on (:mod:`~hindsight_core.lifecycle.rival_model`); the rules use the reading without those."""
    o_words, n_words = raw_words(older), raw_words(newer)
    breaks = (False,) * len(n_words) if as_fitted else phrase_starts(newer)
    is_new = _fitted_new_subject_word if as_fitted else _new_subject_word
    # a capitalised word in place of a lower-case one is a name's part ("the office NAS backups" /
    # "[Active Backup] job ..."), not another subject of the kind
    o_caps, n_caps = raw_capitals(older), raw_capitals(newer)
    if len(o_caps) != len(o_words) or len(n_caps) != len(n_words):  # lower-casing split a word differently
        o_caps, n_caps = [False] * len(o_words), [False] * len(n_words)

    def name_part(j: int, i: int) -> bool:
        return not as_fitted and n_caps[j] and not o_caps[i] and (
            not (j == 0 or breaks[j]) or (j + 1 < len(n_caps) and n_caps[j + 1] and newer.lstrip().startswith("[")))

    def no_owner(k: int, i: int) -> bool:
        """The earlier subject's owner is a name ("Don's cholesterol"), and the word in its place owns
        nothing and names no one ("Total cholesterol")."""
        return (not as_fitted and o_caps[i] and bool(re.search(rf"\b{re.escape(o_words[i])}['’]s\b", older, re.I))
                and not re.search(rf"\b{re.escape(n_words[k])}['’]s\b", newer, re.I)
                and (not n_caps[k] or k == 0 or breaks[k]) and not _PERSON.fullmatch(n_words[k]))

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
            while k >= 0 and (n_words[k] in NOT_VALUE or update_cue(n_words[k])):
                k -= 1
            if k >= 0 and any(breaks[k + 1:j + 1]):  # "after the review, backups ...": no modifier of it
                k = -1
            prev = n_words[k] if k >= 0 else ""
            # "Bruno's manager" / "Farah's manager": a word of the earlier value now owns the subject
            if (is_new(prev, o_words) or (prev and prev != w and prev not in STOP and prev in o_words[i + 1:]
                                          and not update_cue(prev) and _in_value(prev, value))) \
                    and not (k >= 0 and (name_part(k, i) or no_owner(k, i))):
                return True
            while k >= 0 and n_words[k] in o_words[:i] and n_words[k] not in STOP and not breaks[k]:
                k -= 1  # past shared subject words: "the *design* team channel" for "the team Slack channel"
            if (k >= 0 and n_words[k] != prev and is_new(n_words[k], o_words) and not name_part(k, i)
                    and not no_owner(k, i)):
                return True
        if _other_head_before_verb(older, newer, w, is_new):
            return True
        before = next((t for t in reversed(o_words[:i]) if t not in STOP and any(same_word(t, x) for x in n_words)),
                      None)  # "project *Nimbus*" / "project *Heron*"
        if before is not None and o_words.index(before) == i - 1:
            for j, t in enumerate(n_words[:-1]):
                if same_word(t, before) and is_new(n_words[j + 1], o_words):
                    return True
    return False


@lru_cache(maxsize=4096)
def _whole_word(word: str) -> re.Pattern[str]:
    """``word`` as a whole word, any case (compiled once: ``re``'s own cache of 512 patterns overflows
    on a long import, and recompiling cost more than the matching)."""
    return re.compile(rf"\b{re.escape(word)}\b", re.I)


def _other_head_before_verb(older: str, newer: str, head: str,
                            is_new: Callable[[str, list[str]], bool] | None = None) -> bool:
    """``head``, the word right before the earlier statement's main verb, is gone and another noun
    stands right before that verb in the later text ("My *laptop* has 16GB" / "my work *desktop* has 64GB")."""
    m = MAIN_VERB.search(older)
    if m is None or m.group(0) == ":":
        return False
    before = raw_words(older[: m.start()])
    if not before or before[-1] != head:
        return False
    verb = m.group(0).lower()
    for n in _whole_word(verb).finditer(newer):
        prev = raw_words(newer[: n.start()])
        if prev and (is_new or _new_subject_word)(prev[-1], raw_words(older)):
            return True
    return False


def subject_replaced(older: str, part: str) -> bool:
    """The earlier statement's subject is one word the later text drops, another new word stands
    right before the same verb there, and none of the earlier value recurs ("Dagny reports to
    Farrukh" / "Wen reports to Lotte"): the same verb about another pair, not a duty handed over
    ("Jamie walks the dog" / "Corinne walks the dog now")."""
    subject, _, value = key_and_value(older)
    m = MAIN_VERB.search(older)
    n = read(part)
    if len(subject) != 1 or m is None or present(subject[0], n) or any(present(v, n) for v in value):
        return False
    before = raw_words(older[: m.start()])
    return bool(before) and _other_head_before_verb(older, part, before[-1])


def another_subject(older: str, part: str, o: Reading, n: Reading) -> bool:
    """A subject word of the earlier statement is replaced by another one ("the data team's budget" /
    "ML team's budget"), and its names do not all recur: the later text is about something else."""
    subject, _, value = key_and_value(older)
    missing = {w for w in subject if not number_like(w) and w not in NOT_VALUE and not present(w, n)}
    names_ = [x for x in o.names if x not in value]
    if not missing or (names_ and all(present(x, n) for x in names_)):
        return False
    return subject_substituted(older, part, missing, value)


def _new_subject_word(word: str, o_words: list[str]) -> bool:
    """A stranger (:func:`stranger`) that is no attribute noun: it names another subject."""
    return _fitted_new_subject_word(word, o_words) and word not in _NEGATIONS and not _no_noun(word)


#: Words that stand before a key word without naming another subject: prepositions, common adjectives
#: and verbs ("test env *after* the upgrade", "the *current* add-on list", "the *full* draft"), and
#: attribute nouns read by the rules only ("weekly reading *target*" for "weekly reading goal"; the
#: learned judge keeps :data:`_ATTRIBUTE_NOUNS`, the reading its weights were fitted on).
_NOT_NOUNS = frozenset("""after before off around under over above below behind across through during since until
within along near past against toward towards upon onto
full fixed current great different well old good bad big small whole same usual
saw broke ran want keep kept she's he's they're
goal target quota allowance allocation dose dosage go-to favourite favorite provider platform pot kitty""".split())
_VERB_FORM = re.compile(r"[a-z]{3,}(?<!e)ed$")  # "shuffled", "budgeted" ("-ing" words are often nouns)


def _no_noun(word: str) -> bool:
    """``word`` (as :func:`raw_words` reads it) names no other subject: one of :data:`_NOT_NOUNS`, a
    past participle, a flag or a bit of another language ("-n", "um", "de")."""
    return (word in _NOT_NOUNS or bool(_VERB_FORM.match(word)) or not word[:1].isalpha()
            or (len(word) <= 2 and word not in _SHORT_NOUNS))


#: Two-letter words that do name a subject ("ML team", "the TA", "UK office").
_SHORT_NOUNS = frozenset("ml ai ta uk eu hr qa pm ux ui db ci cd os tv pc".split())


def _fitted_new_subject_word(word: str, o_words: list[str]) -> bool:
    """:func:`_new_subject_word` as the learned judge's weights were fitted: a negation counted."""
    return stranger(word, o_words) and word not in _ATTRIBUTE_NOUNS


#: A negation before a noun says the thing is gone ("no deadline anymore", "not veggie"), not which thing.
_NEGATIONS = frozenset({"no", "not", "never", "without"})


#: Qualifiers that pick one instance among several of a kind: environments, regions, platforms,
#: sides. A capitalised word or an acronym ("the *Berlin* offsite", "our *EU* cluster") does too.
INSTANCE_WORDS = frozenset("""staging stage prod production dev development test testing qa uat sandbox preview
canary demo local internal external public private primary replica secondary backup north south east west
northern southern eastern western central eu us uk emea apac latam frontend backend front back web mobile
desktop ios android mac windows linux server client upstairs downstairs""".split())
_RAW = re.compile(r"[\w'’.-]+")


def _instance_word(word: str, text: str) -> bool:
    """``word`` names an instance in ``text``: a known qualifier, an acronym, or capitalised
    anywhere but at the start of ``text``."""
    if word in INSTANCE_WORDS:
        return True
    if not word:
        return False  # a lone dash or dots ("Redis ... staging redis"): no word at all
    for m in _whole_word(word).finditer(text):
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
    o_found, n_found = _RAW.findall(older), _RAW.findall(newer)
    o_raw = [w.strip(".,;:!?").lower() for w in o_found]
    n_raw = [w.strip(".,;:!?").lower() for w in n_found]
    o_set = set(o_raw)
    # a head written with a capital only in the later text is part of a name ("home matches" / "Harbour
    # Homes Arena")
    o_case = [w[:1].isupper() for w in o_found]
    n_case = [w[:1].isupper() for w in n_found]
    for i in range(len(o_raw) - 1):
        qual, head = o_raw[i], o_raw[i + 1]
        if (number_like(qual) or not _instance_word(qual, older)
                or not any(same_word(stem_word(qual), s) for s in subject)
                or not any(same_word(stem_word(head), s) for s in subject)
                or any(same_word(stem_word(qual), stem_word(w)) for w in n_raw)):
            continue
        for j in range(1, len(n_raw)):
            other = n_raw[j - 1]
            if (same_word(stem_word(n_raw[j]), stem_word(head)) and other not in o_set
                    and not (n_case[j] and not o_case[i + 1]) and _instance_word(other, newer)
                    and not number_like(other) and not update_cue(other)
                    and not day_or_month(other)):
                return True
    return _other_known_instance(subject, o_raw, n_raw)


def _other_known_instance(subject: tuple[str, ...], o_raw: list[str], n_raw: list[str]) -> bool:
    """An environment, region or platform word of the earlier subject is gone and another one stands
    right before a subject word the later text repeats ("Grafana for the *prod* cluster" / "the
    *staging* Grafana"): the qualifier need not sit next to the same noun in both."""
    gone = [w for w in o_raw if w in INSTANCE_WORDS and any(same_word(stem_word(w), s) for s in subject)
            and not any(same_word(w, x) for x in n_raw)]
    if not gone:
        return False
    return any(n_raw[j - 1] in INSTANCE_WORDS and n_raw[j - 1] not in o_raw
               and any(same_word(stem_word(n_raw[j]), s) for s in subject) for j in range(1, len(n_raw)))


_MINE = frozenset({"my", "our"})
#: Words that name no one: pronouns, determiners, words of time and place. Before "'s" they own nothing
#: and report nothing ("It's now ...", "That's", "Let's", "Today's"); nor does a clause opening on one
#: speak of another person.
_NO_ONE = frozenset("""it this that there here what which who let everything nothing something everyone someone
nobody anyone the a an he she they you we i today tomorrow tonight now then everybody somebody one each all both
either neither another other""".split())
#: "Mia's flight": a capitalised owner and the word after it.
_NAMED_OWNER = re.compile(r"\b([A-Z][\w-]+)['’]s\s+(\w+)")
_THEIRS = re.compile(r"\b(their|his|her|its|[\w-]+'s|[\w-]+’s)\s+(\w+)", re.I)
#: A later text that opens on another named owner's thing, perhaps as reported ("Jo's spaniel Bramble has
#: moved ...", "Meg says the Stockport Harriers' social is ..."); not "Jo's got ..." (Jo has).
_OWNER_OPENING = re.compile(r"^\W*(?:[A-Z][\w-]+ (?:says|said|reckons|mentioned|told me)\s+(?:that\s+)?)?(?:the\s+)?"
                            r"((?-i:[A-Z])[\w-]+(?:\s+(?-i:[A-Z])[\w-]+)?)(?:['’]s|(?<=s)['’])\s+"
                            r"(?!(?:got|been|gone|going|decided|done|just|now|finally|back|already|not|still|also|"
                            r"moved|taken|had|left)\b)(?![a-z]{2,}(?:ed|ing)\b)[a-z][\w-]+", re.I)  # "Tommy's allowed"


def other_possessor(older: str, newer: str, heads: tuple[str, ...] = ()) -> bool:
    """The earlier statement is about the speaker's own thing ("my manager", "our Pro plan") and the
    later text gives that thing another owner ("my brother's manager", "their Pro plan"); or it is a
    named owner's thing ("Mia's flight") and the later text another name's, not naming the first
    ("Ben's flight home got moved").

    ``heads``: the words that name the thing (default: the earlier statement's subject words)."""
    o_raw = [w.lower() for w in _RAW.findall(older)]
    heads = heads or key_and_value(older)[0]
    if _another_named_owner(older, newer, heads) or _another_qualified_owner(older, newer, heads):
        return True
    owned = {stem_word(o_raw[i + 1]) for i in range(len(o_raw) - 1) if o_raw[i] in _MINE}
    owned = {w for w in owned if any(same_word(w, h) for h in heads)}
    if not owned:
        return False
    n_raw = [w.lower() for w in _RAW.findall(newer)]
    # "they shuffled their accounts, our new account manager is ...": the speaker's own thing said again
    # beside another's is still the speaker's ("my brother's manager" is the brother's)
    if any(_mine_again(n_raw[i + 1:i + 3], owned) for i in range(len(n_raw)) if n_raw[i] in _MINE):
        return False
    for m in _THEIRS.finditer(newer):
        owner = m.group(1).lower().replace("’", "'").removesuffix("'s")
        if owner in o_raw or owner in _MINE or owner in _NO_ONE:  # "it's" is "it is"
            continue
        if any(same_word(stem_word(m.group(2).lower()), w) for w in owned):
            return True
    if _only_as_owner(older, newer, heads):
        return True
    if any(w in _MINE for w in n_raw):
        return False
    if (len(n_raw) >= 2 and any(same_word(stem_word(n_raw[1]), w) for w in owned) and n_raw[0] not in _NOT_OTHER
            and not n_raw[0].endswith("s") and stranger(stem_word(n_raw[0]), o_raw)):
        # "staging postgres moved to ..." for "our Postgres": another one, named first (not "papas tablet",
        # an owner written without its apostrophe, whom the speaker's "my" may well be)
        return True
    for j in range(2, len(n_raw)):  # "the *platform* team" for "our team": one team named among others
        if (n_raw[j - 2] in ("the", "a", "an") and any(same_word(stem_word(n_raw[j]), w) for w in owned)
                and n_raw[j - 1] not in _NOT_OTHER and stranger(stem_word(n_raw[j - 1]), o_raw)):
            return True
    return False


def _mine_again(after: list[str], owned: set[str]) -> bool:
    """The words after "my" / "our" name the speaker's own thing before any other owner ("our new
    account manager", not "my brother's manager")."""
    for w in after:
        if w.endswith(("'s", "’s")):
            return False
        if any(same_word(stem_word(w), x) for x in owned):
            return True
    return False


#: An owner said with a word that says which one: "the design team's standup".
_QUALIFIED_OWNER = re.compile(r"\bthe\s+([\w-]+)\s+([\w-]+)['’]s\s+([\w-]+)", re.I)


def _another_qualified_owner(older: str, newer: str, heads: tuple[str, ...]) -> bool:
    """The later text gives the earlier subject's thing to an owner the earlier text does not name:
    "the *design* team's standup" after "The team standup is at 9:30" (the owner's word said, but
    not which team), or opens on a named owner's one of them ("Raj's team does standup at 10")."""
    older_low = older.lower()
    said = {w.lower() for w in re.findall(r"[\w-]+", older)}
    words = [stem_word(w.lower()) for w in re.findall(r"[\w-]+", newer)]

    def only_theirs(thing: str) -> bool:  # the thing said once, as theirs ("...; standup itself is at 10" is ours)
        matched = [h for h in heads if same_word(stem_word(thing), h)]
        return bool(matched) and sum(any(same_word(w, h) for h in matched) for w in words) == 1

    for m in _QUALIFIED_OWNER.finditer(newer):
        which, owner, thing = (g.lower() for g in m.groups())
        if owner in said and which not in said and which not in STOP and which not in _NOT_WHICH and only_theirs(thing):
            return True
    opener = _NAMED_OWNER_OPENING.match(newer)  # "Raj's team does standup at 10"
    return (opener is not None and opener.group(1).lower() not in older_low and opener.group(1).lower() not in _NO_ONE
            and only_theirs(opener.group(2).lower()))


#: Words before an owner that do not say which one ("the whole team's", "our new team's").
_NOT_WHICH = frozenset({"whole", "new", "old", "entire", "same", "usual", "own"})


def _another_named_owner(older: str, newer: str, heads: tuple[str, ...]) -> bool:
    newer_low = newer.lower()
    opener = _OWNER_OPENING.match(newer)
    stranger_opens = (opener is not None and opener.group(1).lower() not in older.lower()
                      and opener.group(1).lower() not in _NO_ONE)
    for m in _NAMED_OWNER.finditer(older):
        owner, thing = m.group(1).lower(), stem_word(m.group(2).lower())
        if owner in _NO_ONE or not any(same_word(thing, h) for h in heads) or _whole_word(owner).search(newer_low):
            continue
        if stranger_opens:
            return True  # "Pickle's daycare day" / "Jo's spaniel Bramble has moved to Thursdays": the other dog's
        for t in _THEIRS.finditer(newer):
            other = t.group(1).lower().replace("’", "'")
            if (other.endswith("'s") and other[:-2] != owner and other[:-2] not in _NO_ONE
                    and same_word(stem_word(t.group(2).lower()), thing)):
                return True
    return False


#: What family call one another ("Mum", "my gran", "her stepdad"), shared by the rules below.
_FAMILY = (r"(?:grand|step)?(?:mum|mom|mother|dad|father|parents|son|daughter|sister|brother|sis|bro|wife|husband|hubby|"
           r"partner|aunt|auntie|uncle|cousin|niece|nephew|ma|pa|nan|nana|gran|granny)")


#: The speaker opens the earlier statement about themselves ("I prefer...", "My step goal is...", after a
#: label such as "Noted:"), not about a person they have ("My sister lives in Porto").
_PEOPLE_HAD = (r"(" + _FAMILY + r"|boyfriend|girlfriend|fianc[ée]e?|roommate|flatmate|friend|neighbou?r|colleague|"
               r"coworker|kids?|children|boss|coach|teacher|doctor|dentist|physio|therapist|manager|landlord|ex)")
_NOT_HAD = r"\b(?!\s+" + _PEOPLE_HAD + r"\b)"  # "my sister" names another person, not the speaker
_SELF_OPENING = re.compile(r"^\W*(?:(?:noted|note|fyi|reminder|allerg(?:y|ies)|preferences?|update)\s*:\s*)?"
                           r"(?:(?:how|what|where|when|why)\s+)?"  # "How I take my tea: ..."
                           r"(?:i|i'm|i've|i'd|i'll|my|mine)" + _NOT_HAD, re.I)
#: The earlier statement opens on a named person's own way ("Priya wants invites with a Meet link").
_PERSON_OPENING = re.compile(r"^\W*(?-i:([A-Z][a-z]+))\s+(?:always\s+|never\s+|only\s+)?"
                             r"(?:wants|prefers|likes|loves|hates|takes|drinks|eats|needs|uses)\b", re.I)
_I = r"i|i'm|i've|i'd|i'll|my|mine|myself"
_SPEAKER = re.compile(r"\b(" + _I + r")" + _NOT_HAD, re.I)
_SPEAKERS = re.compile(r"\b(" + _I + r"|we|we're|we've|we'd|our|ours|us)" + _NOT_HAD, re.I)
_TOLD_ME = re.compile(r"\b(told|tells|asked|sent|gave|showed|texted|emailed|messaged) (me|us)\b", re.I)
_THIRD_PERSON = re.compile(r"\b(he|she|he's|she's|his|her|him|hers)\b", re.I)
_REPORTS = re.compile(r"\b(?!(?:" + "|".join(sorted(_NO_ONE)) + r")\b)"
                      r"([a-z][a-z-]+)(?:'s|’s)?\s+(says|said|keeps|kept|told me|tells me|thinks|reckons|insists|"
                      r"insisted|swears)\b", re.I)
_INNER_NAME = re.compile(r"(?<!^)(?<![.!?:]\s)\b([A-Z][a-z]+)")


#: A clause opening with a capitalised name's thing ("Tom's gym slot ..."): the name, the thing's first word.
_NAMED_OWNER_OPENING = re.compile(r"^\W*(?-i:([A-Z][a-z]+))(?:'s|’s)\s+(?!(?:been|got|gone|had)\b)([\w-]+)", re.I)


#: A named person's relative opening a clause: "Lena's brother ...".
_RELATIVE_OPENING = re.compile(r"^\W*(?-i:([A-Z][a-z]+))(?:'s|’s)\s+(friend|brother|sister|cousin|mum|mom|dad|mother|"
                               r"father|son|daughter|partner|boyfriend|girlfriend|wife|husband|colleague|flatmate|"
                               r"roommate|neighbou?r|boss|manager)\b")
_KIN = (r"mum|mom|mother|dad|father|gran|granny|grandma|grandpa|grandad|nan|nana|uncle|aunt|auntie|brother|sister|"
        r"son|daughter|wife|husband|stepdad|stepmum")
#: A relative opening a text ("Dad takes ...", "my mum's on ...", "mums on ...", "uncle jim got ...").
_KIN_OPENING = re.compile(rf"^\W*(?:(?:my|our)\s+)?({_KIN})(?:s|'s|’s)?\b", re.I)


def _kin_swapped(older: str, part: str) -> bool:
    """The earlier statement opens on one relative and the later text on another, never naming the first."""
    o, p = _KIN_OPENING.match(older), _KIN_OPENING.match(part)
    if o is None or p is None:
        return False
    first = _KIN_ALIKE.get(o.group(1).lower(), o.group(1).lower())
    words = [first, *(w for w, kin in _KIN_ALIKE.items() if kin == first)]  # "Mum" is said as "my mother" too
    return not any(re.search(rf"\b{w}", part, re.I) for w in words)


#: Words for one relative: "Mum" is "my mother", "Gran" is "Nana".
_KIN_ALIKE = {"mom": "mum", "mother": "mum", "father": "dad", "granny": "gran", "grandma": "gran", "nan": "gran",
              "nana": "gran", "grandad": "grandpa", "auntie": "aunt"}


#: A named person's relation, named too ("Ayla's friend Noor", "Tom's brother Jim"): the later text is about them.
_RELATED_OPENING = re.compile(r"^\W*[A-Za-z][a-z]+(?:'s|’s)\s+(?:friend|best friend|brother|sister|cousin|mum|mom|"
                              r"dad|partner|boyfriend|girlfriend|wife|husband|colleague|flatmate|roommate|neighbou?r)"
                              # the relation's name; typed in lower case, a verb must follow it ("maya's friend
                              # ava has piano"), so that "maya's mum picks her up" names no one
                              r"\s+(?:(?-i:([A-Z][a-z]+))\b|(?!(?:is|was|has|had|and|who|just|now|got|says|said|"
                              r"will|can)\b)([a-z]+)\s+(?:has|have|is|does|goes|takes|gets|got|now)\b)")


#: A clause opening with someone as its subject, a name typed in lower case too ("jordan's gone off
#: honey", "turns out tobias is allergic to amoxicillin"), when "he" or "she" follows.
_OTHER_OPENING = re.compile(r"^\W*(?:(?:turns out|apparently|fyi|btw|oh|so|update)[,:]?\s+)?([a-z]+)"
                            r"(?:'s|’s|\s+(?:is|has|was|wants|needs|says|said|prefers|likes|takes))\b", re.I)


#: Where a message's first clause ends: a sentence, a dash, or ", but", ", so", ", which".
_CLAUSE_END = re.compile(r",\s+(?=(?:but|so|and then|though|although|which)\b)|\s+but\s+|[.;!?]\s+|\s+[—–-]\s+")


def _first_clause(text: str) -> str:
    return _CLAUSE_END.split(text, maxsplit=1)[0]


def about_someone_else(older: str, part: str, message: str = "") -> bool:
    """The earlier statement is the speaker's own ("I prefer morning meetings", "My step goal is
    10,000") and ``part`` (the stated part of the later text) is another person's affair in the
    speaker's words: "Chris told me he prefers afternoons", "farrukh keeps insisting 19 is ...",
    "my brother's resting HR is 72, he's ...". It must not speak of the speaker's own thing
    ("I", "my"; "we" only outside its first clause) nor name a person the earlier statement names.
    ``message``: the whole later text when ``part`` is one sentence of it (a "he" or "she" there
    tells a person opening ``part`` from a thing). Whatever the earlier statement, ``part`` opening with
    a named relation of someone it names ("Ayla's friend Noor wears a 34") is that relation's affair.

    Example:
        >>> about_someone_else("I prefer morning meetings.", "Chris told me he prefers afternoon meetings now.")
        True
        >>> about_someone_else("I prefer morning meetings.", "I prefer afternoons now, he says it suits the team.")
        False
    """
    if _kin_swapped(older, part):
        return True  # "Dad takes amlodipine 5mg" / "mums on 10mg amlodipine now": Mum's dose
    related = _RELATED_OPENING.match(part)  # "Ayla's friend Noor wears a 34": Noor's, though Ayla is known
    if related is not None and (related.group(1) or related.group(2)).lower() not in older.lower():
        return True
    relative = _RELATIVE_OPENING.match(part)  # "Lena uses ..." / "Lena's brother is on ... now": the brother's
    if (relative is not None and re.search(rf"\b{relative.group(1)}\b", older)
            and not re.search(rf"\b{relative.group(2)}", older, re.I)):
        return True
    person = _PERSON_OPENING.match(older)
    if person is not None:
        return _another_persons_way(older, part, message, person.group(1))
    if not _SELF_OPENING.match(older):
        return False
    part = _TOLD_ME.sub("", part)
    if _SPEAKER.search(part):
        return False
    first = _first_clause(part)
    older_low, part_low = older.lower(), part.lower()
    owner = _NAMED_OWNER_OPENING.match(part)  # "Tom's gym slot is at 7:15 now so we won't overlap": Tom's, not mine
    if owner is not None and owner.group(1).lower() not in older_low and not day_or_month(owner.group(1)):
        return True
    if _SPEAKERS.search(first):
        return False
    reporter = _REPORTS.search(first)
    if reporter is not None and reporter.group(1).lower() not in older_low:
        return True
    opener = _OTHER_OPENING.match(first)  # "jordan's gone off honey - he wants ...", "turns out tobias is ... his"
    if (opener is not None and opener.group(1).lower() not in older_low and opener.group(1).lower() not in _NO_ONE
            and _THIRD_PERSON.search(message or part)):  # a person ("clinic's moved it to 4pm" is the speaker's)
        return True
    kin = _MY_KIN.match(older)  # "My grandmother lives in Lyon" / "grandmother lives now in a care home ... her"
    if kin is not None and re.search(rf"\b{kin.group(1)}\b(?!['’]s)", first, re.I):
        return False
    return bool(_THIRD_PERSON.search(first)) and not any(n.lower() in part_low for n in _INNER_NAME.findall(older))


def _another_persons_way(older: str, part: str, message: str, person: str) -> bool:
    """The earlier statement is ``person``'s own way ("Priya wants ...") and ``part``, not naming them,
    opens on or reports another person's, told in the third person ("Hamish says he much prefers Zoom")."""
    whole = message or part
    if _whole_word(person.lower()).search(whole.lower()) or not _THIRD_PERSON.search(whole):
        return False
    first = _first_clause(part)
    reporter = _REPORTS.search(first)
    if reporter is not None and not _SELF_REPORTED.match(first, reporter.end()):
        return False  # "vet says biscuits getting porky": the vet reports on another, maybe the same one
    other = reporter or _OTHER_OPENING.match(first)
    return (other is not None and other.group(1).lower() not in older.lower()
            and other.group(1).lower() not in _NO_ONE and not _KIN_WORD.fullmatch(other.group(1)))


#: A report of the reporter's own way: "says he much prefers", "reckons she'd rather".
_SELF_REPORTED = re.compile(r"\s+(?:that\s+)?(?:he|she|they)\b", re.I)
#: What a person is called by kin, whatever their name ("Mum's stopped taking sugar" of Margaret).
_KIN_WORD = re.compile(_FAMILY, re.I)


#: The speaker's relative as the earlier subject ("My grandmother ..."): "she" in the later text is her.
_MY_KIN = re.compile(r"^\W*my\s+(" + _FAMILY + r")\b", re.I)


#: People someone has: "my brother's *best friend*" is another person than my brother.
_PERSON = re.compile(r"(?:\w+\s+)?" + _PEOPLE_HAD + r"\b", re.I)


def _only_as_owner(older: str, newer: str, heads: tuple[str, ...]) -> bool:
    """The earlier subject's head noun recurs in the later text only as the owner of another person
    ("My brother lives in Glasgow." / "my brother's best friend moved to Bristol")."""
    for head in (w for w in heads if not number_like(w)):
        seen = [m for m in re.finditer(r"\b([\w-]+?)(['’]s\s+)?\b", newer)
                if same_word(stem_word(m.group(1).lower()), head)]
        if seen and all(m.group(2) and _PERSON.match(newer, m.end()) for m in seen):
            return True
    return False


#: Words between "the" and a noun that do not name another one of it ("the whole team", "the new team").
_NOT_OTHER = frozenset("""whole entire same current usual old new main full core own""".split())


#: Predicates of one kind: "is green" / "are green", "has a lock" / "have a lock".
_PREDICATE_CLASS = {"are": "is", "was": "is", "were": "is", "'s": "is", "'re": "is", "'m": "is", "am": "is",
                    "have": "has", "had": "has"}


#: Participles not ending in -ed: "is *paid* yearly", "is *kept* in the shed", "was *built* in 1990".
_IRREGULAR_PARTICIPLES = ("paid|kept|held|built|sold|made|done|run|shown|taken|given|known|written|spent|sent|"
                          "bought|brought|taught|found|worn|grown|drawn|cut|shut|put|set|split|shared")


def _predicate(text: str) -> tuple[tuple[str, ...], str] | None:
    """``(subject words, main verb)`` of a plain statement that opens with its subject, or None."""
    m = MAIN_VERB.search(text)
    if m is None or m.group(0) == ":":
        return None
    subject = content(text[: m.start()])
    verb = m.group(0).lower()
    after = re.match(r"\s+(?:(?:now|still|currently|officially)\s+)?(?:been\s+)?(\w+(?:ing|ed)|" + _IRREGULAR_PARTICIPLES
                     + r")\b", text[m.end():], re.I)  # "is *now* owned by": the same predicate as "is owned by"
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
    return not (any(number_like(t) for t in value_o) and any(number_like(t) for t in content(newer)[len(b[0]):]))



#: A name, then a negated verb: "Kenji doesn't run payroll", "Lisa isn't on call".
_NEGATED = re.compile(r"\b([A-Z][\w'-]+)\s+(doesn't|does not|didn't|did not|isn't|is not|wasn't|was not|won't|"
                      r"will not|hasn't|has not|never|can't|cannot)\b")


def negates_another(older: str, clause: str) -> bool:
    """``clause`` says what someone the earlier statement does not name does *not* do or is not
    ("no, Kenji doesn't manage data platform" after "Marta manages the data platform team"): a
    denial of a rumour about another person, not the earlier value named as gone."""
    o_words = {w.lower() for w in _RAW.findall(older)}
    for m in _NEGATED.finditer(clause):
        name = m.group(1).lower()
        if content(name) and name not in STOP and name not in o_words:
            return True
    return False


#: Prepositions that place a subject ("the coffee shop *near the office*", "the gym *at work*").
_PLACING = frozenset({"near", "at", "by"})
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "his", "her", "their", "your"})


def place_swapped(older: str, newer: str, missing: set[str]) -> bool:
    """A word of the earlier subject that places it ("near *the office*") is missing, and the later
    text places its subject with the same preposition elsewhere ("near *home*"): another one of a kind.

    Example:
        >>> place_swapped("My favourite pub near the office is the Crown.", "new favourite pub near home: the Swan",
        ...               {"office"})
        True
    """
    o_words, n_words = raw_words(older), raw_words(newer)
    for i, w in enumerate(o_words):
        if w not in missing:
            continue
        k = i - 1
        while k >= 0 and o_words[k] in _DETERMINERS:
            k -= 1
        if k < 0 or o_words[k] not in _PLACING:
            continue
        for j, t in enumerate(n_words[:-1]):
            if t != o_words[k]:
                continue
            m = j + 1
            while m < len(n_words) - 1 and n_words[m] in _DETERMINERS:
                m += 1
            if (n_words[m] not in STOP and not day_or_month(n_words[m]) and not number_like(n_words[m])
                    and not any(same_word(n_words[m], x) for x in o_words)):
                return True
    return False


#: A preposition and the organisation a thing belongs to ("our account manager *at Brightbank*",
#: "the rep *for Acme*").
_OWNER_AFTER = re.compile(r"\b(at|for|with|on)\s+(?:the\s+)?((?-i:[A-Z])[\w&.-]*)", re.I)


def owner_swapped(older: str, newer: str) -> bool:
    """The earlier text names an organisation its subject belongs to ("account manager *at Brightbank*"),
    the later one does not name it and names another in the same way ("*on the Nordpay side*"): the same
    role somewhere else.

    Example:
        >>> owner_swapped("Our account manager at Brightbank is Selma Ortiz.",
        ...               "new account manager on the Nordpay side, it's Ivo Lind")
        True
    """
    subject = key_and_value(older)[0]
    olds = [m.group(2) for m in _OWNER_AFTER.finditer(older) if not day_or_month(m.group(2).lower())
            and any(same_word(stem_word(m.group(2).lower()), w) for w in subject)]  # the subject's, not the value's
    if not olds or any(_whole_word(w).search(newer) for w in olds):
        return False
    return any(not day_or_month(m.group(2).lower()) and not _whole_word(m.group(2)).search(older)
               for m in _OWNER_AFTER.finditer(newer))


#: Nouns for one of several places of a business: a name before them tells it from the others.
_BRANCH = r"(?:branch|site|location|campus|office|store|shop|clinic|studio|depot|outlet)\b"
_CAPITALISED_RUN = re.compile(r"\b(?-i:[A-Z])[\w&-]*(?:\s+(?-i:[A-Z])[\w&-]*)+")


def named_branch(older: str, newer: str) -> bool:
    """A name of the earlier text ends in a word that tells one of several apart ("FitLoop
    *Centro*") and the later text names another branch of the same stem ("FitLoop's *Norte*
    branch"): a sibling, not the same thing.

    Example:
        >>> named_branch("My gym is FitLoop Centro.", "FitLoop's Norte branch now opens at 6")
        True
    """
    for m in _CAPITALISED_RUN.finditer(older):
        *stem, last = m.group(0).split()
        if _whole_word(last).search(newer):
            continue
        after = re.search(rf"\b{re.escape(' '.join(stem))}(?:'s|’s)?\s+((?-i:[A-Z])[\w&-]*)\s+{_BRANCH}", newer)
        if after and not _whole_word(after.group(1)).search(older):
            return True
    return False


#: A name and the word right after it (or after a dash), which it qualifies or owns: "Oakmoor prod",
#: "Mia's flight".
_NAMED_HEAD = re.compile(r"\b([A-Z][\w-]*)(?:['’]s)?(?:\s+-)?\s+([a-z][\w-]*)")


def named_subject_swapped(older: str, newer: str) -> bool:
    """The earlier statement's subject is a named one ("*Oakmoor* prod runs in eu-west-2", "*Mia's* flight
    lands at 6pm") and the later text puts another name right before the same subject word ("moved
    *Pinecrest* prod to eu-west-1", "*Ben's* flight got moved"), naming the earlier one nowhere: another
    thing of the kind, whatever changed about it. A name that is the subject itself ("Yusuf is head of
    legal") qualifies no subject word, so a duty passed to another name is still read.

    Example:
        >>> named_subject_swapped("Oakmoor prod runs in AWS eu-west-2.", "moved Pinecrest prod to eu-west-1")
        True
        >>> named_subject_swapped("Oakmoor prod runs in AWS eu-west-2.", "moved prod to eu-west-1 last night")
        False
    """
    subject = key_and_value(older)[0]
    named = [(m.group(1), m.group(2)) for m in _NAMED_HEAD.finditer(older)
             if m.group(2) not in STOP and _name_word(m.group(1)) and any(same_word(m.group(2), w) for w in subject)]
    for name, head in named:
        if _whole_word(name).search(newer):
            continue
        for m in _NAMED_HEAD.finditer(newer):
            other = m.group(1)
            if same_word(m.group(2), head) and _name_word(other) and not _whole_word(other).search(older):
                return True
    return False


def _name_word(word: str) -> bool:
    """A capitalised word that may be a name: no function word ("The", "Our") and no weekday or month."""
    return word.lower() not in STOP and not day_or_month(word)
