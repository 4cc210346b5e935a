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
from typing import Collection, Iterator

from hindsight_core.lifecycle.slots import (STOP, WHEN_SLOTS, Reading, abbreviates, content, hyphenated_word, read,
                                            same_word, slots)
from hindsight_core.lifecycle.update_cues import (assertive_part, denies, is_addition, relations, said_unchanged,
                                                  handover_only, shares_with_another, split_clauses, update_cue,
                                                  without_effective_time, without_shared_new)
from hindsight_core.lifecycle.update_keys import (CLOSE_SIM, NOT_VALUE, RELATED_MIN_SIM, another_id, day_or_month, is_id,
                                                  is_tool_record, key_and_value, key_heads, number_like,
                                                  other_subject_id, present, sibling_id, subject_head,
                                                  without_speaker_label, ID_SHAPE)
from hindsight_core.lifecycle.update_languages import (changed_in_other_language, in_other_language, is_foreign,
                                                       read_in_english)
from hindsight_core.lifecycle.update_records import attribute_unreported, diff_replaced, restates, tool_field_changed
from hindsight_core.lifecycle.update_roles import (moved_elsewhere, moved_thing, names_duty, renamed, renamed_unnamed,
                                                   role_change)
from hindsight_core.lifecycle.update_statements import (addressed_to_user, fields_joined, is_atomic, is_episode_turn,
                                                        lead_fact, one_belief, one_sentence, quoted_turn, said,
                                                        split_sentences, spelled_out, without_instructions,
                                                        without_note_label)
from hindsight_core.lifecycle.update_subjects import (about_someone_else, another_subject, flipped, negates_another,
                                                      named_branch, named_subject_swapped, owner_swapped, place_swapped,
                                                      other_instance, other_possessor, parallel, sibling_fact,
                                                      subject_replaced, subject_substituted, swapped, INSTANCE_WORDS)
from hindsight_core.lifecycle.update_values import (magnitude, near_removal, one_number_per_slot, qualifier_swapped,
                                                    record_broken, replaced_in_kind, same_number_kind, same_shape,
                                                    states_new_value, value_removed)
from hindsight_core.lifecycle.value_forms import FORMS, SUBJECT_CHECKED, VALUE_FORMS, cued_nearby_form, form_change

# The rule families live in their own modules (keys, statements, subjects, values, roles, records);
# the public names they had here are re-exported for callers of this module.
__all__ = ["judge_update", "update_strength", "judgeable", "two_voices", "key_and_value", "is_tool_record", "one_belief",
           "said",
           "another_id", "subject_substituted", "other_instance", "other_possessor", "about_someone_else", "sibling_fact",
           "replaces_another", "RELATED_MIN_SIM", "CLOSE_SIM", "SLOT_MATCH_BONUS"]

#: Share of the earlier statement's key words the later text must repeat to be about the same key.
KEY_COVERAGE = 0.5
#: Content words from which an earlier statement with no subject and no attribute verb is a remark or
#: a story, not one attribute's value (of the update sets' 1,313 updates, one has such an earlier
#: statement, and the rules did not find that update before this check either).
LONG_KEYLESS = 9
#: Attributes that hold several values at once: a new one replaces nothing without a replace cue.
_MULTI = re.compile(r"\b(likes?|loves?|enjoys?|into|fan of|also)\b", re.I)
_REPLACE_CUE = re.compile(r"\b(instead|no longer|anymore|any more|not \w+ any ?more|gone off|switch\w*|replac\w*|"
                          r"now|these days|convert|over it|dead to me|quit|stopped)\b", re.I)
_WEAK_SLOTS = frozenset({"preference", "tool", "role", "status", "version"})
#: Slots read from common verbs ("use", "like"): too loose to say two values are of one kind.
_LOOSE_SLOTS = frozenset({"preference", "tool"})
#: A message updates one of several facts about its subject: the one whose value is of the kind the
#: message states ("physio moves to Wednesdays" updates "appointments are on Mondays", not "my physio
#: is called Rhiannon") is preferred by about one rule step.
SLOT_MATCH_BONUS = 1.0
#: ... and more surely the one whose value of a definite form it replaces by one of that form ("runs on
#: atlas-02" / "moved it over to hermes-07"; "30 km" / "42 km a week"), not a fact with a value of
#: another form ("pinned to 10.2", "4 runs a week").
VALUE_KIND_BONUS = 1.0
#: A message in another language is read a second time through its English gloss
#: (:mod:`~hindsight_core.lifecycle.glossary`) when the rules find nothing in it as written. What they
#: find there counts this much of its strength: a word-for-word reading is less sure, and an earlier
#: fact the message updates as written wins over one it updates only in the gloss.
GLOSSED_WEIGHT = 0.5


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
             "same subject, another named value": 1.0, "the slot's value replaced": 1.0,
             "the duty passed to someone else": 2.0, "promoted: the title changed": 2.0, "the job ended": 2.0,
             "a tool field reports another value": 2.0, "moved to another place": 2.0,
             "changed, said in another language": 2.0, "renamed": 2.0,
             "the value's qualifier changed": 1.5, "the record corrected": 1.5, "the status moved on": 1.5,
             "another value of its form": 1.5, "a new record": 1.5,
             **{form: 1.5 for form in FORMS},
             # a value of one kind for a value of that kind (grams for grams, a version after its product)
             **{form: 2.5 for form in VALUE_FORMS}}
#: Pair verdicts kept: capture asks about each (older, newer, sim) pair up to three times (candidate
#: fetch, best slot, decision), and a batch of 64 beliefs meets at most 64 x 16 pairs.
_PAIR_CACHE = 4096


@functools.lru_cache(maxsize=_PAIR_CACHE)
def update_strength(older: str, newer: str, sim: float) -> tuple[str | None, float]:
    """``(reason, strength)``: :func:`judge_update`'s reason and how strongly the rules hold it
    (rule weight plus the share of the earlier subject the later text repeats, plus ``sim``, plus
    :data:`SLOT_MATCH_BONUS` when both state a value of one kind: a day for a day, a sum for a sum,
    plus :data:`VALUE_KIND_BONUS` when a value of a definite form is replaced by another of that form,
    plus :data:`LABEL_MATCH_BONUS` when the later text says a labelled record's whole label again).
    A message in another language the rules find nothing in as written is judged again in its English
    gloss, at :data:`GLOSSED_WEIGHT` of the strength."""
    reason, coverage = _judge(older, newer, sim)
    weight = 1.0
    glossed = None if reason else read_in_english(older, newer)  # "Os meus avós mudaram-se para Braga"
    if glossed is not None:
        (older, newer), weight = glossed, GLOSSED_WEIGHT
        reason, coverage = _judge(older, newer, sim, glossed=True)
    if not reason:
        return None, 0.0
    stated = without_effective_time(assertive_part(newer, relations(older)))
    same_kind = bool(read(older).slots & read(stated).slots - _LOOSE_SLOTS)
    return reason, weight * (_STRENGTH.get(reason, 0.0) + coverage + sim + (SLOT_MATCH_BONUS if same_kind else 0.0)
                             + (VALUE_KIND_BONUS if replaced_in_kind(older, stated) else 0.0)
                             + (LABEL_MATCH_BONUS if _label_said(older, stated) else 0.0))


#: A labelled record whose whole label the later text says again ("Housing go-live blockers: ..." /
#: "remaining go-live blockers for the housing system -> ...") is the record it speaks of, before
#: another record of the subject ("Housing go-live target: end of Q2").
LABEL_MATCH_BONUS = 0.5
_LABEL = re.compile(r"^\W*([^:\n]{3,60}):\s")


def _label_said(older: str, stated: str) -> bool:
    label = _LABEL.match(older)
    if label is None:
        return False
    words, said_again = read(label.group(1)).tokens, read(stated)
    return len(words) >= 2 and all(present(w, said_again) for w in words)


#: A remark on what was just said, or a showing, with "it", "that" or "this" for its whole subject
#: ("It's nice to have those reminders", "Yep, it's like a reminder to slow down", "Here's a photo of
#: them"): with no name or number in it, there is no attribute to update ("This repo uses pnpm" has one).
_REMARK = re.compile(r"^\W*(?:(?:yep|yeah|yes|yup|oh|well|so|and|honestly)\W+)?(?:it|that|this)(?:'s|’s| is| was| feels|"
                     r" seems| looks| sounds)\b|^\W*(?:here's|here’s|here is|here are|check out|look at)\b", re.I)
#: A labelled line in the speaker's own voice ("Sam: I'm vegetarian", "Nadia: my flight ..."): the label
#: is who speaks. A label before a note about someone ("Noted: Kofi wants ...") names no speaker.
_VOICE = re.compile(r"^\W{0,3}((?-i:[A-Z])[\w'-]*)(?:\s*\([^)\n]{1,30}\))?\s*:\s+"
                    r"(?:i|i'm|i’m|i've|i’ve|i'll|i’ll|i'd|i’d|my|we|we're|we’re|we've|we’ve|our)\b", re.I)
#: With some of the earlier value's words said again, the slot rule asks this much closeness.
_PARTLY_REPLACED_SIM = 0.35
#: "Uncle Sam takes Friday swims too": another value beside the earlier one.
_SHARED_TOO = re.compile(r"\b(?:too|as well|also)\b", re.I)
#: "also" opening a sentence: in a longer message it turns to another matter ("also, since ...").
_OPENING_ALSO = re.compile(r"(?:^|(?<=[.!?])\s+)\W*(?:(?:oh|and|oh and)\s+)?also\b[,:]?\s*", re.I)
#: A sentence saying its subject was moved to another value: "X goes to Y now", "moved X to Y".
_MOVED_TO = re.compile(r"\b(?:mov\w*|switch\w*|chang\w*|now)\b", re.I)
#: One more of a kind, beside those there are: "added an extra session", "one more litre" ("an extra
#: two weeks" on a deadline moves it).
_EXTRA = re.compile(r"\b(?:an? (?:extra|additional)|one more|a further)\b"
                    r"(?! (?:\w+ )?(?:minute|hour|day|week|month|year)s?\b)", re.I)
#: A date and a weekday both say which day: "3 October" / "next Wednesday".
_DAY_OR_DATE = frozenset({"day", "date"})
#: The later text replaces the earlier value outright.
_FROM_NOW_ON = re.compile(r"\b(from now on|going forward|instead|switch\w*|rather than)\b", re.I)


#: An id of words joined by hyphens or underscores ("data-team-monthly", "log_retention_days"); not a
#: channel, a handle or a path ("#ops-alerts" names the channel, not alerts).
_ID_WORDS = re.compile(r"(?<![#@/.])\b[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+\b", re.I)
#: A record's field key: "workbench.colorTheme", "maxInflight".
_FIELD_KEY = re.compile(r"\b[a-z]+(?:\.[a-z]+)*(?:[A-Z][a-z]+)+\b")


def _ids_spelled(text: str) -> str:
    """``text`` with its hyphenated or underscored ids written as words ("log_retention_days" as "log
    retention days"): read so, an id's first word qualifies the next as a modifier would."""
    return _ID_WORDS.sub(lambda m: re.sub(r"[-_]", " ", m.group(0)), text)


def _with_id_words(text: str) -> str:
    """``text`` with the words of its ids and of its camel-case field keys said again after it
    ("data-team-monthly" says "data team monthly", "workbench.colorTheme" says "color theme"), for
    what the record names; the ids themselves stay whole, as values."""
    parts = [w for m in _ID_WORDS.finditer(text) for w in re.split(r"[-_]", m.group(0))
             if len(w) >= 3 and w.isalpha()]
    parts += [w.lower() for m in _FIELD_KEY.finditer(text) for w in re.findall(r"[A-Z]?[a-z]+", m.group(0))
              if len(w) >= 3]
    return f"{text} {' '.join(parts)}" if parts else text


def two_voices(older: str, newer: str) -> bool:
    """Two labelled speakers, each in their own voice ("Sam: I'm vegetarian" / "Nadia: I've gone back
    to eating meat"): each one's facts are their own, neither updates the other's.

    Example:
        >>> two_voices("Ravi: I'm vegan.", "Lena: I've gone back to eating cheese.")
        True
        >>> two_voices("Ravi: I'm vegan.", "Ravi: I eat fish now.")
        False
    """
    voices = _VOICE.match(without_note_label(older)), _VOICE.match(without_note_label(newer))  # "Noted:" is no one
    return bool(voices[0] and voices[1]) and voices[0].group(1).lower() != voices[1].group(1).lower()


#: More sentences than this make an earlier text a story rather than statements of values.
READABLE_SENTENCES = 3


def builds_on(older: str, newer: str, o: Reading, n: Reading) -> bool:
    """Whether ``newer`` names every value and name ``older`` states and carries no change cue of its
    own: it builds on the earlier value rather than replacing it ("my new MacBook sleeve arrived" after
    "finally unboxed my new MacBook"; "Tuesday: the backup job failed again on db-1" after "the backup
    job failed on db-1"). "new" before a word both texts say is no cue here.

    Example:
        >>> builds_on("finally unboxed my new MacBook", "my new MacBook sleeve arrived",
        ...           read("finally unboxed my new MacBook"), read("my new MacBook sleeve arrived"))
        True
    """
    values = o.values | o.names
    return bool(values) and all(n.has(v) for v in values) and update_cue(without_shared_new(older, newer)) is None


#: A text that opens with a numbered subject: "Worker 3 noted ...", "Bed 12 Mr Hale - ...", "Table #4: ...".
_NUMBERED_OPENING = re.compile(r"^\W*([a-z][\w'-]*)\s+#?(\d+[a-z]?)\b", re.I)


def numbered_apart(older: str, newer: str) -> bool:
    """Both texts open with one noun numbered apart: two members of a series, each with its own facts
    ("Bed 11 Mrs Hale - warfarin held" / "Bed 12 Mr Hale - warfarin restarted").

    Example:
        >>> numbered_apart("Worker 1 noted the kiln (step 1).", "Worker 3 noted the loom (step 3).")
        True
        >>> numbered_apart("Bed 4 Mrs Ode - nil by mouth", "Bed 4 Mrs Ode: eating and drinking now")
        False
    """
    o, n = _NUMBERED_OPENING.match(older), _NUMBERED_OPENING.match(newer)
    return bool(o and n and o.group(1).lower() == n.group(1).lower() and o.group(2).lower() != n.group(2).lower())


def same_frame_other_subject(older: str, newer: str, o: Reading, n: Reading) -> bool:
    """The later text says the same thing of another subject: its words besides its subject and values
    are the earlier text's and its subject lacks a word of the earlier subject ("The search api migrated
    its data to pg-9" after "The reporting gateway migrated its data to pg-56").

    Example:
        >>> a, b = "The reporting gateway migrated its data to pg-56.", "The search api migrated its data to pg-9."
        >>> same_frame_other_subject(a, b, read(a), read(b))
        True
    """
    subject_o, subject_n = set(key_and_value(older)[0]), set(key_and_value(newer)[0])
    if not subject_o or not subject_n or subject_o <= subject_n:
        return False
    frame_o = set(o.tokens) - subject_o - o.values - o.names
    return bool(frame_o) and frame_o == set(n.tokens) - subject_n - n.values - n.names


@functools.lru_cache(maxsize=4096)  # capture asks it of a pair when fetching and again when reading
def judgeable(older: str, newer: str) -> bool:
    """Whether a reader of meaning (the learned one of :mod:`~hindsight_core.lifecycle.update_model`)
    may judge the pair: ``older`` is a statement (no dialogue act or dated past event, no question, no
    story), neither text is a turn of a conversation reported as said (the reader was fitted on notes and
    messages; on LoCoMo's chat it took one friendly reply for the update of another), and not two
    labelled speakers each in their own voice; and ``newer`` puts no other word in a word of the earlier
    subject's place (:func:`~hindsight_core.lifecycle.update_subjects.another_subject`), says the same of
    another subject (:func:`same_frame_other_subject`) or of another owner's thing
    (:func:`~hindsight_core.lifecycle.update_subjects.other_possessor`) or of the next of a numbered series
    (:func:`numbered_apart`), is no second
    statement of one template (:func:`~hindsight_core.lifecycle.update_subjects.parallel`) and does not
    build on the earlier value (:func:`builds_on`). The slot rules
    ask more of ``older`` (one sentence, one value), since they read values word by word. A later text
    may open with a greeting or tell of this morning ("fyi changed the health check to port 8095 this
    morning"): many updates do."""
    if is_episode_turn(older) or quoted_turn(older) or quoted_turn(newer) or two_voices(older, newer):
        return False
    if older.rstrip().endswith("?") or len(split_sentences(older)) > READABLE_SENTENCES:
        return False
    if not set(content(newer)) - set(content(older)):
        return False  # no new word, no new value: "Berlin customers get the Orion release first" restates
    if numbered_apart(older, newer):
        return False
    o, n = read(older), read(newer)
    # one kind, two subjects: "The catalog gateway migrated its data to pg-6" / "The catalog service ... pg-18";
    # one template, two records: "worker 2 fact 7: host w2h7 runs ..." / "worker 2 fact 13: host w2h13 runs ..."
    # another owner's thing: "Chen's manager is Nadia" after "Nadia's manager is now Zoe"
    return not (another_subject(older, newer, o, n) or same_frame_other_subject(older, newer, o, n)
                or other_possessor(older, newer) or parallel(o, n) or builds_on(older, newer, o, n))


def _judge(older: str, newer: str, sim: float, glossed: bool = False) -> tuple[str | None, float]:
    if is_episode_turn(older) or two_voices(older, newer):
        return None, 0.0
    older, newer = said(older), said(newer)
    older = lead_fact(fields_joined(addressed_to_user(without_speaker_label(without_note_label(
        without_instructions(older))))))
    older, newer = spelled_out(older, newer), spelled_out(newer, older)  # "PT" for "physical therapy"
    if older.rstrip().endswith("?") or not one_sentence(older):
        return None, 0.0  # (before the reading below, which costs more than all the rest of a stop)
    o = read(older)
    if not is_atomic(older, o):  # checked first: on chat, three in four pairs stop here
        return None, 0.0  # a multi-sentence turn, a long story or a dated event is not one belief with one value
    if _REMARK.match(older) and not (o.values or o.names):
        return None, 0.0  # "It's nice to have those reminders ...", "Here's a photo of them ...": no attribute
    subject, verb, value = key_and_value(older)
    if not subject and verb is None and len(value) >= LONG_KEYLESS:
        return None, 0.0  # no subject or attribute to update: a remark ("gonna chat with local leaders, ...")
    if denies(newer, subject) or named_subject_swapped(older, newer):
        return None, 0.0  # "Pinecrest prod moved" says nothing of "Oakmoor prod"
    # "hotel: Harbour Inn, unchanged", "Mochi stays on her usual": the thing is kept, however the rest reads
    named = [w for w in subject if _capitalised(w, older)]  # "Mochi"
    instance = [w for w in subject if w in INSTANCE_WORDS]  # "staging kafka: dropped retention ... prod untouched"
    if any(words and said_unchanged(words, newer)
           for words in (list(key_heads(subject, None, value, subject_head(older))), list(subject), named, instance)):
        return None, 0.0
    if _back_to_earlier(o, newer, value):
        return None, 0.0  # "switched him to Acana for a week, tummy went funny, back on Nordpaw": it stands
    stated = assertive_part(newer, relations(older))
    stated = without_shared_new(older, stated)  # "the new payments app" said in both is a name, no cue
    cue = update_cue(stated)
    sentences = split_sentences(stated)
    if len(sentences) == 1 or is_tool_record(newer):
        return _judge_part(older, newer, stated, cue, sim, glossed=glossed)
    # An update states the key and the new value in one sentence ("...Office hours are moving to
    # Monday 3-4pm..."); words gathered across the sentences of a chat turn are not one statement.
    # The cue may sit in another sentence ("Sorry, my mistake. It's Thursday.").
    best: tuple[str | None, float] = (None, 0.0)
    for sentence in sentences:
        reason, coverage = _judge_part(older, newer, sentence, update_cue(sentence) or cue, sim, part_of_many=True,
                                       glossed=glossed)
        if reason is not None and (best[0] is None or _STRENGTH.get(reason, 0.0) + coverage
                                   > _STRENGTH.get(best[0], 0.0) + best[1]):
            best = (reason, coverage)
    return best


def _judge_part(older: str, newer: str, part: str, cue: str | None, sim: float,
                part_of_many: bool = False, glossed: bool = False) -> tuple[str | None, float]:
    """:func:`_judge` on one stated part of ``newer`` (its look-alike clauses set aside): the guards of
    another subject, owner or instance, then the forms that name their change (a duty handed over, a tool
    field, a move, a rename, an arrow, a qualifier, another language, a value form), then
    :func:`_slot_change`. ``part_of_many``: the part is one sentence of several; ``glossed``: the pair is
    read in the English gloss of a message in another language."""
    cued = update_cue(part) is not None  # "from now on" is a cue as well as a time
    part = without_effective_time(part)  # "as of Monday" says when, not what
    if not part.strip():
        return None, 0.0
    part = " ".join(c for c in split_clauses(part) if not negates_another(older, c))  # "Kenji doesn't run it"
    if not part.strip():
        return None, 0.0
    o, n = read(older), read(part)
    if (other_subject_id(older, o, n) or sibling_id(older, part) or other_instance(older, part)
            or other_possessor(older, part) or about_someone_else(older, part, newer) or named_branch(older, part)
            or owner_swapped(older, part)):
        return None, 0.0  # one template, two subjects; or the speaker's fact, then another person's
    role = role_change(older, part, o)
    if role is not None and not subject_replaced(older, part):
        return role, 1.0
    if cue and handover_only(part) and not names_duty(older):
        cue = None  # a duty changed hands, and the earlier text names none: its value is not what changed
    if tool_field_changed(older, newer, o) or diff_replaced(older, newer):
        return "a tool field reports another value", 1.0
    if moved_elsewhere(older, part, o, n) or (moved_thing(older, part) and not another_subject(older, part, o, n)):
        return "moved to another place", 1.0
    if renamed(older, part, o, n) or (sim >= RELATED_MIN_SIM and renamed_unnamed(older, part, o)
                                      and not another_subject(older, part, o, n)):
        return "renamed", 1.0
    if _arrow_from_value(older, part, n):
        return "earlier value named as changed", 1.0
    if parallel(o, n) and not _names_dropped(older, part, o, n):
        return None, 0.0  # one template, two subjects: the word-by-word rules decide
    if (cue and sim >= RELATED_MIN_SIM
            and qualifier_swapped(older, part, key_and_value(older)[2],
                                   plain=cue == "correction" or bool(_FROM_NOW_ON.search(newer)))):
        return "the value's qualifier changed", 1.0
    if in_other_language(older, part, o, n, sim):
        return "changed, said in another language", 1.0
    fit = changed_in_other_language(older, part, newer)  # a name, a place, a weekday or a number in another language
    if fit:
        return "changed, said in another language", fit
    if is_foreign(older) and is_foreign(part):
        return None, 0.0  # the word-order rules below read English: "Le cours de judo de Inès" has no English key
    tool = is_tool_record(newer)
    if tool:  # a record names things by ids: "data-team-monthly" says "data team monthly"
        n = read(_with_id_words(part))
    # an amount, a kind switched, a relationship, a key gone, a role, a version, a list
    form = form_change(older, part, sim, cued, tool)
    if form is None and part_of_many and cue in ("change", "correction"):
        form = cued_nearby_form(older, part)  # "the Pixel 9 came today. the old one goes to my dad"
    if form is not None and (shares_with_another(part) or _added_with_number(part, o)):
        return None, 0.0  # "the drinks fridge now alarms above 5°C too": another thing shares the form
    if form is not None and (form in SUBJECT_CHECKED or not another_subject(older, part, o, n)):
        return form, 1.0
    if swapped(o, n) or flipped(older, part):
        return None, 0.0
    return _slot_change(older, newer, part, cue, sim, o, n, tool=tool, part_of_many=part_of_many, glossed=glossed)


def _slot_change(older: str, newer: str, part: str, cue: str | None, sim: float, o: Reading, n: Reading, *,
                 tool: bool, part_of_many: bool, glossed: bool) -> tuple[str | None, float]:
    """The word-by-word rules, once no form of :func:`_judge_part` has decided: ``part`` names the
    earlier statement's subject (its words, its head or its names), speaks of the same attribute (the
    verb said again, a slot shared, a cue) and states a new value in place of one gone or named as
    changed. ``o`` and ``n`` are the two readings (``n`` with a record's ids spelled out); the result
    is a reason and how much of the subject ``part`` names."""
    subject, verb, value = key_and_value(older)
    heads = key_heads(subject, verb, value, subject_head(older))
    value = tuple(v for v in value if v not in heads)
    removed = value_removed(value, part, n, tuple(w for w in subject + heads if not number_like(w)), older)
    said_heads = [h for h in heads if not subject and h != verb and present(h, n)]  # "Booked *the Ibis*"
    if removed != "named" and said_heads and any(near_removal(c, said_heads, older) for c in split_clauses(part)):
        removed = "named"  # "cancelled the Ibis": the speaker's own value, named as gone
    gone_names = [x for x in o.names if present(x, n) and not day_or_month(x) and not is_id(x)]
    if (removed != "named" and gone_names and _REPLACE_CUE.search(part)
            and any(not present(x, o) for x in n.names)
            and any(near_removal(c, gone_names, older) for c in split_clauses(part))):
        removed = "named"  # "cancelled the Hilton, ... at Hotel Avenida instead": a named thing replaced
    if removed == "kept" and cue != "correction":
        return None, 0.0  # the earlier value still stands; the text adds or restates
    # "also" opening one sentence of a longer message (this part, or a short one joined to it) turns to
    # another matter of it ("also, as the hall is booked, we'll meet on Fridays"); opening a message it
    # adds ("also using X for drafts")
    said_beside = _OPENING_ALSO.sub(" ", part).strip() if part_of_many else part
    if is_addition(said_beside) and cue != "correction" and (
            _EXTRA.search(part) or not any(number_like(t) for t in n.tokens)):
        return None, 0.0  # "I also like tea"; with a number only "an extra lesson on Sundays at 10"
    new_value = states_new_value(o, n, value)
    if replaces_another(older, part):
        return None, 0.0  # "collects Mum at 8:10 not 8:25": the old value named is not this fact's
    if any(same_word(m.group(1).lower(), w) for m in _NOT_THE.finditer(part) for w in subject):
        return None, 0.0  # "Harbour Catering (..., not the bakery)": the earlier subject named as not meant
    # the slots of what is said about the subject: "office hours" names no location of its own
    o_said = slots(" ".join(([verb] if verb else []) + list(key_and_value(older)[2])))
    n_said = slots(" ".join(t for t in n.tokens if not any(same_word(t, w) for w in subject)))
    # a date for a weekday or the other way round, the earlier one gone: the day it falls on
    shared_slot = bool(o_said & n_said - _WEAK_SLOTS) or bool(
        removed == "gone" and o_said & _DAY_OR_DATE and n_said & _DAY_OR_DATE)
    if (_MULTI.search(older) and removed != "named" and not _REPLACE_CUE.search(part) and cue != "correction"
            and not (one_number_per_slot(value, o, n) and not is_addition(part))):
        return None, 0.0  # "Alice likes tea" / "Alice likes coffee": both can hold
    nouns = [w for w in subject if not number_like(w) and w not in NOT_VALUE]
    # a word said only as who reports the change is not said of the subject ("the dentist said ...")
    def said_of_subject(w: str) -> bool:
        return ((present(w, n) or _shortened_word(w, older, n))
                and (_capitalised(w, older) or not _only_as_speaker(w, part)))
    missing = {w for w in nouns if not said_of_subject(w)}
    coverage = 1.0 - len(missing) / len(nouns) if nouns else 0.5
    head_said = any(said_of_subject(h) for h in heads)
    head_ok = head_said or (  # half the subject, with a cue: "Pro is $35 now" (not "Rex ..., the vet said")
        bool(cue) and len(nouns) >= 2 and len(missing) * 2 <= len(nouns)
        and not any(present(h, n) for h in heads if h in missing))
    subject_names = [x for x in o.names if x not in value]
    named_subject = bool(subject_names) and all(present(x, n) for x in subject_names)
    if missing and not named_subject and (subject_substituted(older, part, missing, value)
                                          or place_swapped(older, part, missing)
                                          or (tool and subject_substituted(older, _ids_spelled(part), missing, value))):
        return None, 0.0
    # a full verb names the attribute ("stores its data", "listens on"): the later text must repeat it
    # or share a slot with it, else it is another attribute of the same subject ("moved to port 9")
    strong_o, strong_n = o.slots - _WEAK_SLOTS, n.slots - _WEAK_SLOTS
    other_slot = bool(strong_o and strong_n and not strong_o & strong_n)  # "lives in" / "manager is"
    attr_ok = verb is None or present(verb, n) or shared_slot or tool or (
        bool(cue) and not other_slot and same_shape(value, o, n))
    o_named_value = any(present(v, o) and v in o.names for v in value)
    # the earlier statement holds a name or a number: two guards below ask it of chat-like pairs
    concrete = bool(o.values or o.names)
    # with no cue and no word of the earlier subject, the earlier value is the later text's subject:
    # "Mrs Okafor is out on Wednesdays" says nothing of the keys she holds
    about_value = not cue and bool(nouns) and not head_ok and len(missing) == len(nouns) and not is_foreign(part)
    # without an update cue, a common word near a removal is an idiom as often as a change ("I hate
    # not being on the court" / "both on and off the court"); a name or a number is not
    if (removed == "named" and (head_ok or sim >= RELATED_MIN_SIM) and (new_value or cue) and (cue or concrete)
            and not about_value):
        return "earlier value named as changed", coverage
    if head_ok and not about_value and status_moved_on(older, part):
        return "the status moved on", coverage
    if head_ok and (cue or tool) and shaped_value_replaced(older, part):
        return "another value of its form", coverage
    if head_ok and record_broken(older, part):
        return "a new record", coverage
    if not new_value:
        return None, 0.0
    # "my editor font" repeated in full in a long message, with a value of the same kind
    whole_subject = ((verb is None or present(verb, n)) and len(nouns) >= 2 and not missing
                     and bool(o.slots & n.slots))
    # without a cue, two plain statements of one slot are two attributes as often as a change
    # ("the gym opens at 6:00" / "the gym requires a badge after 8pm"): recall's present-value check
    # answers with the later one when it is one, and the earlier stays active
    # ``sim`` is the two whole texts' cosine: for one sentence of a longer message (``part_of_many``)
    # it says little about that sentence ("Memories can give us so much comfort" / a reply's "I have
    # lots of great memories, like..."), so there closeness counts for a named or numbered value only
    close = sim >= CLOSE_SIM and (not part_of_many or concrete)
    # a record counts when it names the subject's head or its slot: "Vexo jams: lift the lid ..." (a
    # how-to) names only the owner of the firmware a maintenance record reports
    # a record that lists the earlier value's every name and number reports it unchanged ("Owner: Farah"
    # after "owned by Farah"): the record's other fields are other attributes
    if tool and restates([v for v in value if v in o.names or number_like(v)], newer):
        return None, 0.0
    # a record's fields are what it reports: with no slot of the earlier statement among them, its words
    # for the attribute must be ("kept for 30 days" is no field of a crontab line)
    record_ok = tool and (shared_slot or not attribute_unreported(older, value, o, n))
    if head_ok and attr_ok and ((record_ok and (head_said or shared_slot))
                                or (cue and (shared_slot or close or whole_subject))):
        return "same attribute, value changed", coverage
    # a number that labels a thing ("locker 318", "room 12") is no amount a price or a count replaces
    o_nums = {v for v in value if number_like(v) and not _labelled(v, older)}
    # a name of the earlier statement said again anchors a reworded subject ("knocked the millbrook order
    # down to 25"), unless the number is that name's own version ("Postgres 14": another server's, maybe)
    named_again = any(present(x, n) for x in o.names if _proper_name(x) and not number_like(x)
                      and not re.search(rf"\b{re.escape(x)}\w*(?:\s+(?-i:[A-Z])[\w-]*)*\s+v?\d", older, re.I))
    n_nums = [t for t in n.tokens if number_like(t) and not present(t, o)]
    if (o_nums and cue and attr_ok and (sim >= RELATED_MIN_SIM or glossed)
            and (head_ok or coverage > KEY_COVERAGE
                 or ((coverage > 0 or named_again) and same_number_kind(o_nums, n_nums, o, n))
                 or _counted_alike(older, part, o_nums, n_nums) or _as_worked_out(part, o_nums, n_nums))
            and _number_replaced(older, part, o_nums, n_nums, n)):
        return "the number changed", coverage
    # a correction giving one number for the earlier statement's one number, however the subject is
    # reworded ("maya's shoe size: 2" / "she's a 3.5 actually, not what I'd written down")
    if (cue == "correction" and (sim >= RELATED_MIN_SIM or glossed) and len(o_nums) == 1 and len(set(n_nums)) == 1
            and _number_replaced(older, part, o_nums, n_nums, n)):
        return "the number changed", coverage
    if tool and (head_ok or any(present(w, n) for w in nouns)) and (shared_slot or sim >= RELATED_MIN_SIM):
        return "a tool reports another value", coverage
    if head_ok and attr_ok and cue and o_named_value and (shared_slot or sim >= CLOSE_SIM) and any(not present(t, o) for t in n.names):
        return "same subject, a new name for its value", coverage
    if sim >= CLOSE_SIM and shared_slot and cue:
        return "close reworded statement, value changed", coverage
    # a message in another language, read in its gloss: the two texts' cosine says little across
    # languages, so what counts is every name of the subject and a word of the attribute said again
    # (not a name nor the verb: "Omar avoids dairy" shares only Omar with his new favourite dish), a cue
    # and a new value for a gone one
    if (glossed and cue and attr_ok and new_value and removed in ("gone", "partly") and not about_value
            and not any(_name_like(w, o, older, first=False) for w in missing)
            and any(present(w, n) for w in heads + value
                    if w != verb and not _name_like(w, o, older) and not number_like(w))):
        return "changed, said in another language", coverage
    # a cue, the earlier value's time (a day, a time, a date) stated again and every word of the
    # earlier value gone, however the subject is reworded ("Recycling goes out Tuesday" / "the blue
    # bin is collected on Fridays from now on")
    when_said = bool(o_said & n_said & WHEN_SLOTS) or (
        removed == "gone" and bool(o_said & WHEN_SLOTS) and bool(n_said & WHEN_SLOTS))
    if (cue and when_said and new_value and not glossed
            # one sentence of several must name the subject or someone of the earlier statement again
            and (not part_of_many or len(missing) < len(nouns)
                 or any(_name_like(w, o, older) and present(w, n) for w in o.tokens if not number_like(w)))
            and not _SHARED_TOO.search(said_beside) and (
            removed == "gone" and sim >= RELATED_MIN_SIM or removed == "partly" and sim >= _PARTLY_REPLACED_SIM)):
        return "the slot's value replaced", coverage
    # the subject's head said again, a cue, the earlier named value gone (beside a number or time the
    # later text says is kept: "NexGard, on the 1st" / "switched to Simparica, still monthly") and a new
    # name in its place ("Our dog Pip eats Acme Kibble" / "vet put Pip on Brightpaw Senior ..., so that
    # is all he gets now"), however far apart MiniLM puts the two texts
    # In a longer message the sentence itself says the value was replaced ("the new pup Ned" is no such
    # word), names the subject and writes the new name with capitals ("Oh and Rex sees Dr Feld at
    # Northgate Vets now"; a hostname is another kind)
    if (cue and attr_ok and removed == "gone" and sim >= RELATED_MIN_SIM and head_ok
            and not (o.values and (n_nums or not _SAID_KEPT.search(part))) and _named_value(older, o, value)
            and any(_proper_name(t) and (not part_of_many or _capitalised(t, part))
                    for t in n.names if not present(t, o))
            and (not part_of_many or (_MOVED_TO.search(part) and any(_name_like(w, o, older) and present(w, n)
                                                                     for w in nouns)))):
        return "same subject, another named value", coverage
    # the record called wrong ("no wait, you've got it wrong: it's tree nuts I react to"): a correction of
    # the near fact whose value it replaces outright, however the attribute is reworded
    if (cue == "correction" and _SAID_WRONG.search(newer) and sim >= _CORRECTED_MIN_SIM and removed == "gone"
            and new_value and not about_value and (head_ok or coverage > 0 or not nouns)):
        return "the record corrected", coverage
    return None, 0.0


#: The later text says the record was wrong (not "wrong chat", not "what's wrong").
_SAID_WRONG = re.compile(r"\b(?:(?:got|had|have) (?:it|that|this) (?:all )?wrong|you'?ve got it wrong|i meant|"
                         r"meant to say|typo|my mistake|mis(?:heard|read|typed|remembered)|correction (?:to|on)|"
                         r"(?:that|this|it) was wrong)\b", re.I)
#: How close a corrected fact must be: a correction speaks of the fact in hand.
_CORRECTED_MIN_SIM = 0.4
#: The later text says something stays as it was: "still monthly", "same days", "as before".
_SAID_KEPT = re.compile(r"\b(?:still|same|unchanged|as before)\b", re.I)
#: Where a piece of work stands: in draft, on hold, blocked ..., then submitted, shipped, signed off ...
_STATUS = re.compile(
    r"\b(?:in (?:draft|beta|closed beta|open beta|review|design review|progress|testing|qa|development|"
    r"active development|acclimati[sz]ation|production|planning)|on hold|off hold|paused|blocked|waiting (?:on|for)|pending|"
    r"not started|drafting|submitted|shipped|(?:is|are|went|gone|now) live|launched|released|done|complete[d]?|"
    r"closed|merged|approved|signed off|finished|published|deployed|went out|started|resumed|cancel+ed|"
    r"dropped|accepted|rejected)\b", re.I)


def status_moved_on(older: str, part: str) -> bool:
    """The earlier statement says where a piece of work stands and the later text says it stands
    elsewhere, the earlier status gone ("Chapter 3 is in draft" / "ch3 is signed off!").

    Example:
        >>> status_moved_on("The grant application is still in draft.", "the grant application got submitted at 4:58pm")
        True
        >>> status_moved_on("The grant application is in draft.", "the grant application is in draft, submitting Friday")
        False
    """
    return _another_of(_STATUS, older, part)


#: Values written in a form of their own: a channel, a handle, an e-mail address, a web address, a path.
_SHAPES = (re.compile(r"(?<![\w#&])#[a-z][\w-]+", re.I), re.compile(r"(?<![\w@])@[a-z][\w.-]*\w", re.I),
           re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.]*\w"), re.compile(r"\bhttps?://[^\s,;)]+"),
           re.compile(r"(?<![\w/~.])/[\w.-]+(?:/[\w.-]+)+/?"))


def shaped_value_replaced(older: str, part: str) -> bool:
    """The earlier statement's value is written in a form of its own (``#ops-alerts``, ``@ade``, an
    address, a path) and the later text gives another of that form, the earlier one unsaid.

    Example:
        >>> shaped_value_replaced("Incidents go to #ops-fire.", "incidents go in #sev-room going forward")
        True
        >>> shaped_value_replaced("Incidents go to #ops-fire.", "#ops-fire is muted, ping #sev-room too")
        False
    """
    return any(_another_of(shape, older, part) for shape in _SHAPES)


def _another_of(form: re.Pattern[str], older: str, part: str) -> bool:
    """``older`` and ``part`` each say something of ``form``, and ``part`` none of what ``older`` says."""
    old = {m.group(0).lower() for m in form.finditer(older)}
    new = {m.group(0).lower() for m in form.finditer(part)}
    return bool(old and new) and not old & new


#: Who reports the change: "the dentist said to use only this paste" names the dentist as no attribute.
_SPEECH = r"(?:says|said|told|thinks|reckons|recommends|recommended|suggests|suggested|wants|asked)"


def _shortened_word(word: str, older: str, n: Reading) -> bool:
    """``word`` is written in capitals in ``older`` and the later text spells it out as one word ("SG leg" /
    "the singapore leg"). Initialisms of several words are spelled out before the rules read the pair
    (:func:`~hindsight_core.lifecycle.update_statements.spelled_out`); doing this there too, for every
    word of both texts, took the verdict from four updates of the update sets and gave one to a
    distractor, so it is asked of the earlier subject's words only."""
    return bool(re.search(rf"\b{re.escape(word.upper())}\b", older)) and any(abbreviates(word, t) for t in n.tokens)


def _only_as_speaker(word: str, text: str) -> bool:
    """Every mention of ``word`` (as read: lower case, maybe stemmed) in ``text`` is the one who speaks."""
    mentions = len(re.findall(rf"\b{re.escape(word)}(?:s|es)?\b", text, re.I))
    return mentions > 0 and len(re.findall(rf"\b{re.escape(word)}(?:s|es)?\s+{_SPEECH}\b", text, re.I)) == mentions


def _capitalised(word: str, text: str, first: bool = True) -> bool:
    """``word`` (as read: lower case, maybe stemmed) is written with a capital and then as read in
    ``text`` ("Northgate", not an acronym such as "URL", which is as often a common noun); ``first``:
    as the text's first word too."""
    written = _as_written(word)
    return re.search(rf"\b{written}" if first else rf"(?<!^)\b{written}", text.strip()) is not None


def _name_like(word: str, o: Reading, text: str, first: bool = True) -> bool:
    """``word`` (as read: lower case, maybe stemmed) is a name of ``text``: one of its names, an owner
    ("Carla's rota") or a capitalised word; ``first``: the text's first word too ("Omar avoids
    dairy"), which may as well be a common noun ("Kitchen towels ...")."""
    return (word in o.names or re.search(rf"\b{_as_written(word)}\w*['’]s\b", text) is not None
            or _capitalised(word, text, first))


def _as_written(word: str) -> str:
    """``word`` (as read: lower case) as a pattern of its capitalised spelling."""
    return re.escape(word[:1].upper() + word[1:])


#: The old value a message names beside the new one: "8:10 not 8:25", "instead of 8:25", "(was 8:25)".
_NAMED_OLD = re.compile(r"\b(?:not|instead of|rather than|was|(?:chang\w*|went|gone|moved|up|down|increased|decreased|"
                        r"dropped|bumped|cut|raised|reduced|jumped|fell|rose)\s+from)\s+(\d[\d:.,]*(?:\s?[ap]m)?)", re.I)


#: Words before a number that labels a thing rather than counting it ("locker 318", "room 12").
_LABEL_WORDS = r"unit|room|flat|apt|apartment|suite|stall|bay|gate|platform|desk|locker|pitch|plot|bed|ward|no\.?|number"


def _number_replaced(older: str, part: str, old: Collection[str], new: list[str], n: Reading) -> bool:
    """Every earlier number gone from ``part`` and a new one said in its place, of the same kind: no
    share for a price ("66%" / "£6"), no count or clock time for a sum of money."""
    return (bool(new) and not any(present(v, n) for v in old) and _as_share(old, older) == _as_share(new, part)
            and not _another_kind_than_money(old, older, new, part))


def _as_share(numbers: Collection[str], text: str) -> bool:
    """Every one of ``numbers`` is written in ``text`` as a share ("66%")."""
    return all(re.search(rf"(?<![\d.]){re.escape(v.rstrip('%'))}\s?%", text) for v in numbers)


def _another_kind_than_money(old: Collection[str], older: str, new: Collection[str], part: str) -> bool:
    """A sum of money on one side only, against a count ("5 seats" / "$35/mo") or a clock time ("£45" /
    "moves to wednesdays at 5"); a sum restated without its sign ("$2,400" / "down to 1,850") is money still."""
    old_money, new_money = _as_money(old, older), _as_money(new, part)
    return (new_money and not old_money) or (old_money and not new_money and _at_clock(new, part))


def _at_clock(numbers: Collection[str], text: str) -> bool:
    """One of ``numbers`` is written as a time of day ("at 5", "5pm", "17:30")."""
    return any(":" in v or re.search(rf"\bat\s+{re.escape(v)}\b(?![.,]?\d)|\b{re.escape(v)}\s?[ap]\.?m\b", text, re.I)
               for v in numbers)


def _as_money(numbers: Collection[str], text: str) -> bool:
    """Every one of ``numbers`` is written in ``text`` as a sum of money ("£45", "$1,200")."""
    return all(re.search(rf"[£$€]\s?(?:{re.escape(v)}|{_with_commas(v)})(?!\d)", text) for v in numbers)


def _with_commas(number: str) -> str:
    """``number`` as it may be written with thousands separators ("1200" as "1,200")."""
    head, dot, tail = number.partition(".")
    grouped = f"{int(head):,}" if head.isdigit() else head
    return re.escape(grouped + dot + tail)


def _counted_alike(older: str, part: str, old_numbers: Collection[str], new_numbers: Collection[str]) -> bool:
    """An earlier number and a new one each right before the same word ("the 3rd floor" / "up to the
    11th floor"): the same thing counted, however the subject is reworded."""
    def nouns_after(text: str, number: str) -> set[str]:
        return {m.group(1).lower() for m in re.finditer(rf"(?<![\w.,]){re.escape(number)}\s?([A-Za-z]{{3,}})\b", text)
                if m.group(1).lower() not in STOP}
    counted = {w for a in old_numbers for w in nouns_after(older, a)}
    return bool(counted) and any(nouns_after(part, b) & counted for b in new_numbers)


#: The change said as an operation on the earlier number: "doubled it", "halved", "tripled" (not "a
#: double espresso").
_TIMES_OVER = {"doubl": 2.0, "halv": 0.5, "tripl": 3.0}
_OPERATION = re.compile(r"\b(doubl|halv|tripl)(?:ed|es|ing|e (?:it|that|them))\b", re.I)


def _as_worked_out(part: str, old_numbers: Collection[str], new_numbers: Collection[str]) -> bool:
    """``part`` says how the number changed and a new number is what that makes of an earlier one
    ("1000 IU of vitamin D" / "the doc doubled it, 2000 a day now"): the numbers are one quantity,
    however the subject is reworded."""
    factors = {_TIMES_OVER[m.group(1).lower()] for m in _OPERATION.finditer(part)}
    olds = [x for x in map(magnitude, old_numbers) if x]  # read's numbers carry no thousands commas
    news = [x for x in map(magnitude, new_numbers) if x]
    return any(abs(a * f - b) < 1e-9 for f in factors for a in olds for b in news)


def _labelled(number: str, text: str) -> bool:
    """``text`` writes ``number`` as a label, after one of :data:`_LABEL_WORDS`."""
    return bool(re.search(rf"\b(?:{_LABEL_WORDS})\s+#?{re.escape(number)}\b", text, re.I))


#: A thing named as not the one meant: "(not the bakery)", "not our Leeds site".
_NOT_THE = re.compile(r"\bnot (?:the|our|my|their) ([\w-]+)\b", re.I)


def replaces_another(older: str, part: str) -> bool:
    """``part`` names the number or time it replaces, and ``older`` does not hold it: the change is
    another fact's."""
    olds = [m.group(1).rstrip(".,") for m in _NAMED_OLD.finditer(part)]
    return bool(olds) and not any(re.search(rf"(?<![\d:.]){re.escape(v)}(?![\d:])", older) for v in olds)


#: An acronym of two to four capitals ("in QA", "the DRI"): a stage or a title more often than a name.
_ACRONYM = re.compile(r"[A-Z]{2,4}")


def _proper_name(name: str) -> bool:
    """A name (as :attr:`Reading.names` holds it) of a thing, a person or a place: no weekday or month
    and no lower-case hyphenated word."""
    return not day_or_month(name) and not hyphenated_word(name)


def _named_value(older: str, o: Reading, value: tuple[str, ...]) -> bool:
    """The earlier value holds a proper name (:func:`_proper_name`) that is no acronym."""
    acronyms = {a.lower() for a in _ACRONYM.findall(older)}
    return any(v in o.names and _proper_name(v) and v not in acronyms for v in value)


#: "old -> new": an arrow from one value to another.
_ARROW = re.compile(r"(?<!\S)(\S+)\s*(?:->|\u2192|=>|\u21d2)\s*(\S+)")
#: The new value with the earlier one in brackets: "10:00 (was 9:30)", "db-02 (previously db-01)".
_WAS = re.compile(r"(?<!\S)(\S+)\s*\((?:was|previously|formerly|prev\.?|used to be)\s+([^()\s]+)\s*\)", re.I)
_EDGE = ".,;:()[]{}<>\"'`*"


def _from_to(part: str) -> Iterator[tuple[str, str]]:
    """``(earlier, later)`` value pairs ``part`` writes as a change: "9:30 -> 10:00", "10:00 (was 9:30)"."""
    yield from ((m.group(1), m.group(2)) for m in _ARROW.finditer(part))
    yield from ((m.group(2), m.group(1)) for m in _WAS.finditer(part))


#: "back on Nordpaw", "back to 5mg", "back at the old desk": what the text returns to.
_BACK_TO = re.compile(r"\b(?:back|reverted|went back|gone back) (?:on|to|at|with|in) (?:the |his |her |my |our |their )?"
                      r"(?:old |usual )?([\w'-]+)", re.I)


def _back_to_earlier(o: Reading, newer: str, value: tuple[str, ...]) -> bool:
    """The later text ends up back on the earlier value (``value``, of the earlier statement read as ``o``:
    "... made him dizzy, back to 5mg now"): whatever it tried in between, the earlier value stands."""
    return any(present(w, o) and any(same_word(w, v) or w == v for v in value)
               for m in _BACK_TO.finditer(newer) for w in read(m.group(1)).tokens)


def _added_with_number(part: str, o: Reading) -> bool:
    """A clause of ``part`` says "also" of another thing with a number of its own ("dad's also on
    atorvastatin 20mg at night now" beside "Dad takes amlodipine 5mg"): one more, the earlier one's
    number untouched. ("another couple of drives, volume is 6 TB now" is the same volume grown.)"""
    for clause in split_clauses(part):
        c = read(clause)
        if (_ALSO.search(clause) and not _REPLACE_CUE.search(_CLOSING_NOW.sub("", clause))
                and any(number_like(t) and not present(t, o) for t in c.tokens)
                and any(not number_like(t) and not present(t, o) and t not in NOT_VALUE for t in c.tokens)):
            return True
    return False


_ALSO = re.compile(r"\balso\b", re.I)
#: "now" closing the clause says since when, not that anything was replaced.
_CLOSING_NOW = re.compile(r"\bnow\s*\W*$", re.I)


def _arrow_from_value(older: str, part: str, n: Reading) -> bool:
    """``part`` (read as ``n``) draws an arrow from a value of ``older`` to a value ``older`` lacks: the
    earlier value is named as what changed. A value that names the thing itself (a channel, an id, a name said
    after "called": "#ops-alerts -> #inc-firehose", "shipit -> launchpad") counts however the subject
    is said; a number ("firmware 5.2.0 -> 6.0.1") only with a word of the earlier subject in ``part``.
    Plain capitalised words are left out: "Lisbon -> Rome" is a route as often as a change."""
    low = older.lower()
    for old, new in _from_to(part):
        old, new = old.strip(_EDGE), new.strip(_EDGE)
        if not old or not new or old.lower() == new.lower():
            continue
        at = re.search(rf"(?<![\w#-]){re.escape(old.lower())}(?![\w-])", low)
        if at is None or re.search(rf"(?<![\w#-]){re.escape(new.lower())}(?![\w-])", low):
            continue
        if old[0] in "#@" or re.search(rf"\b(called|named)\s+[`'\"]?{re.escape(old.lower())}\b", low) or (
                ID_SHAPE.fullmatch(old.lower()) and not any(c.isdigit() for c in old)):
            return True  # the thing's own name or handle
        if any(c.isdigit() for c in old) and any(present(w, n) for w in key_and_value(older)[0]
                                                 if not number_like(w) and w not in NOT_VALUE):
            return True
    return False


def _names_dropped(older: str, part: str, o: Reading, n: Reading) -> bool:
    """A name of the earlier statement recurs next to a removal cue ("we don't use Slack anymore"):
    the later text retires it, even when the two read like one template with two subjects."""
    names = [x for x in o.names if present(x, n) and not day_or_month(x) and not is_id(x)]
    return bool(names) and any(near_removal(c, names, older) for c in split_clauses(part))
