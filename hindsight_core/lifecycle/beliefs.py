"""Evolving beliefs: contradiction detection, supersession with history, invalidation.

A belief is never silently overwritten. When a captured fact updates an active one about the same
subject and attribute, the older one becomes ``superseded`` (with ``valid_to`` and
``superseded_by``) and the newer one carries the evidence chain of both. ``invalidated`` is
different: a user or tool says the belief was *wrong*, so it is hidden and its sources lose trust.

Detection needs no LLM for the common shapes: the same statement with a new value, a negation,
a changed number, "from X to Y". Candidates are the dense neighbours of the new fact; an LLM judge
(``MemoryEngine(llm=...)``) is asked only about close pairs the rules leave undecided.

Example:
    >>> contradicts("The billing service listens on port 8080.", "The billing service moved to port 9090.")
    'number changed'
    >>> contradicts("The user prefers email for urgent matters.", "The user now prefers calls for urgent matters.")
    'new value'
    >>> contradicts("Our billing service runs on port 8080 in the eu-west cluster.",
    ...             "We moved the billing service to port 9090 yesterday after the outage.")
    'keyed number changed'
    >>> contradicts("The billing service runs on port 8080.", "The billing service also serves metrics on port 9100.") is None
    True
    >>> contradicts("Alice likes tea.", "Alice likes coffee.") is None
    True
    >>> contradicts("The billing service uses port 8080.", "The payments service uses port 9090.") is None
    True
    >>> contradicts("Room 101 is booked for Monday.", "Room 102 is booked for Monday.") is None
    True
    >>> asks_history("What port did billing use before?"), asks_history("Which port does billing use now?")
    (True, False)
    >>> asks_history("Show me the history of the billing port."), asks_history("When is my history essay due?")
    (True, False)
"""

from __future__ import annotations

import functools
import logging
import re
import weakref
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from hindsight_core.errors import InvalidInputError, LLMError
from hindsight_core.lifecycle.belief_trust import corroborated, may_supersede, pending_flags
from hindsight_core.lifecycle.update_cues import closed_by_request, look_alike, update_cue, without_effective_time
from hindsight_core.lifecycle.update_languages import (is_foreign, linked_across_languages, read_as_written,
                                                       read_in_english, says_changed)
from hindsight_core.lifecycle import update_model
from hindsight_core.lifecycle.update_rules import (FORMS, RELATED_MIN_SIM, is_tool_record, judge_update, judgeable,
                                                   sibling_fact, update_strength)
from hindsight_core.lifecycle.update_statements import one_sentence, said, split_sentences
from hindsight_core.models import CaptureResult, Flag, MemoryKind, MemoryStatus, MemoryUnit

if TYPE_CHECKING:
    from hindsight_core.config import BankConfig
    from hindsight_core.storage.unit_store import UnitStore

__all__ = ["contradicts", "judge_update", "asks_history", "supersede_on_capture", "invalidate", "history", "is_belief"]

log = logging.getLogger("hindsight.beliefs")

_WORD = re.compile(r"[a-z0-9]+(?:[.:/_-][a-z0-9]+)*")
_STOP = frozenset("""a an the is are was were be been being am has have had do does did will would shall should can could
may might must of for to in on at by with and or but that this these those it its as from into onto over via than then
there their they them we our us you your he she his her him i my me mine so such too very just also which who whom whose
what when where why how said says tell told about up out""".split())
_MARKERS = frozenset("""now currently actually still anymore instead recently today lately nowadays new moved changed switched
migrated updated relocated became become becomes longer anyway went upgraded downgraded raised lowered increased
decreased reduced bumped""".split())
_NEGATIONS = frozenset({"not", "no", "never", "don't", "doesn't", "isn't", "aren't", "wasn't", "won't", "can't",
                        "didn't", "hasn't", "haven't", "stopped", "quit", "nt"})
_UPDATE_CUES = re.compile(r"\b(now|no longer|moved|changed|switched|migrated|updated|relocated|instead|anymore|"
                          r"from now on|these days|nowadays|has become|became|replaced|any more|went|upgraded|downgraded|raised|"
                          r"lowered|increased|decreased|reduced|bumped)\b", re.I)
# attributes that hold one value at a time: a new value replaces the old without an update cue
_SINGLE = frozenset("""prefer preference favorite favourite port address live located based work job role title name
phone email manager lead owner deadline budget price cost version status capital ceo password schedule plan team
city office use run host database db timezone language default limit salary rent contact channel server region
country home employer boss owner maintainer stack framework editor ide""".split())
_FROM_TO = re.compile(r"\bfrom\s+(.+?)\s+to\s+(.+)$", re.I)
_HISTORY = re.compile(
    r"\b(used to|previous(ly)?|formerly|originally|at first|in the past|changed from|prior|earlier)\b|"
    r"\bhistory of\b|\b(the|its|full|change|version|edit) history\b|\bhistory\W*$|"  # not "my history essay"
    r"\b(what|which|where|who|how)\b.*\b(was|were|did|had)\b.*\bbefore\b|\bbefore\b.*\b(change|changed|move|moved|switch)",
    re.I)


_BATCH_NEIGHBOURS = 8  # earlier units of the same capture batch checked per new belief
_ENTITY_CAP = 50  # an entity named by more units than this (a team, a city) does not pick candidates
_ENTITY_MIN_SIM = 0.25  # cosine from which a stored fact naming the same rare entity is compared
_TEMPLATE_MIN_SIM = 0.35  # word-by-word rules apply from here (as for the entity neighbours before)
#: The nearest stored units from this cosine go to the rules, which decide: a reworded update sits far
#: below the slot rules' own closeness ("Marco is treasurer of the ... parents' association" / "handed
#: all the PA money stuff over to Yusra" at 0.17, an inventory line "CI: Buildkite" at 0.09); the rules
#: that weigh closeness ask it themselves.
_RULES_MIN_SIM = 0.05
_JUDGE_MIN_SIM = 0.6  # the LLM judge is asked only about pairs this close that the rules leave open
#: Pairs the learned reader reads per new fact, the closest the rules leave open: the fact a message
#: changes sits among its nearest, and capture into a bank dense with related facts stays cheap (each
#: read costs a pass of the model).
READ_MAX = 4
#: A rule's update of one earlier fact is passed over when the reader reads another close fact as updated
#: at least :data:`PASS_OVER_LEVEL` and by :data:`PASS_OVER_MARGIN` more surely: the rules matched the wrong
#: fact of the subject ("Mum's chiropodist is called Aled." for "From next month Mum's chiropodist is coming
#: Monday mornings instead."), and a message updates one fact. Chosen before any count (landing 55).
PASS_OVER_LEVEL = 0.5
PASS_OVER_MARGIN = 0.3
#: Where the reader reads the other fact at its own update threshold, this smaller margin suffices: a rule
#: matched "Invoice Heller Q1: €2,050" for "Correction on the Brightline March invoice — total is €1,420"
#: (read 0.78) where "Invoice Brightline March: €1,240" reads 0.99 (landing 58: dev pool +4 -1 updates).
PASS_OVER_SURE_MARGIN = 0.15
_JUDGE_CACHE_SIZE = 4096  # LLM verdicts kept per model, keyed by the two texts


def _stem(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=8192)  # capture compares each text with up to 16 others
def _tokens(text: str) -> tuple[tuple[str, ...], bool]:
    """Content tokens in order (stemmed, no stop words or update markers) and whether it is negated."""
    lowered = text.lower().replace("’", "'").replace("n't", " nt")
    lowered = re.sub(r"'s\b", "", lowered)  # "Quinn's" is Quinn, not "quinn" + a shared token "s"
    words = _WORD.findall(lowered)
    negated = any(w in _NEGATIONS for w in words) or "no longer" in lowered
    out = tuple(_stem(w) for w in words if w not in _STOP and w not in _MARKERS and w not in _NEGATIONS)
    return out, negated


@functools.lru_cache(maxsize=8192)
def _subject_id(text: str) -> str | None:
    """A number in the first two words names the subject: "Room 101", "Ticket 3", "Server node-3"."""
    words = [w for w in re.findall(r"[\w#.-]+", text.lower()[:80]) if w not in ("the", "a", "an")][:2]
    return next((w.strip(".") for w in words if any(c.isdigit() for c in w)), None)


@functools.lru_cache(maxsize=8192)  # asked for every token of every compared pair
def _is_number(tok: str) -> bool:
    return any(c.isdigit() for c in tok)


def _one_run(seq: tuple[str, ...], diff: set[str]) -> bool:
    """The tokens of ``diff`` sit next to each other in ``seq`` (one changed value, not two)."""
    pos = [i for i, t in enumerate(seq) if t in diff]
    return bool(pos) and pos[-1] - pos[0] + 1 == len(pos)


@functools.lru_cache(maxsize=8192)  # capture asks it of a pair twice: to fetch the earlier fact, then to decide
def contradicts(older: str, newer: str) -> str | None:
    """Why ``newer`` updates ``older`` (the rule that fired), or None when the rules see no conflict.

    Reported speech is read for what was said (:func:`~hindsight_core.lifecycle.update_statements.said`):
    in ``Caroline said, "Wow, Mel! ..."`` the speaker opens every turn of hers and the listener is
    addressed, so neither is the subject that must recur.
    """
    older, newer = said(older), said(newer)
    a, neg_a = _tokens(older)
    b, neg_b = _tokens(without_effective_time(newer) or newer)  # "From this month the gym opens at 6:30"
    if not a or not b or len(a) > 40 or len(b) > 40 or newer.rstrip().endswith("?") or older.rstrip().endswith("?"):
        return None
    id_a, id_b = _subject_id(older), _subject_id(newer)
    if id_a and id_b and id_a != id_b:  # numbered subjects: Room 101 is not Room 102
        return None
    sa, sb = set(a), set(b)
    if a[0] not in sb or b[0] not in sa:  # the subject changed, not the value
        return None
    for x, other in ((a, sb), (b, sa)):  # "billing service" is not "billing api"
        if len(x) >= 4 and not _is_number(x[1]) and x[1] not in other:
            return None
    shared = sa & sb
    only_a, only_b = sa - sb, sb - sa
    words_a = {t for t in sa if not _is_number(t)}
    words_b = {t for t in sb if not _is_number(t)}
    jaccard = len(words_a & words_b) / max(len(words_a | words_b), 1)
    nums_a = [t for t in a if _is_number(t)]
    nums_b = [t for t in b if _is_number(t)]
    if neg_a != neg_b and not only_a and len(only_b) <= 1 and jaccard >= 0.6:
        return "negation"
    if neg_a != neg_b and not only_b and len(only_a) <= 1 and jaccard >= 0.6:
        return "negation"
    if neg_a != neg_b:
        return None
    m = _FROM_TO.search(newer)
    m_old = _FROM_TO.search(older)
    if m and not (m_old and _tokens(m_old.group(1))[0] == _tokens(m.group(1))[0]):  # "a trip from X to Y" twice
        was, _ = _tokens(m.group(1))
        if was and set(was) <= sa and len(shared) >= 2:
            return "from-to"
    cue = bool(_UPDATE_CUES.search(newer))
    names = _names(older) | _names(newer)
    if nums_a and nums_b and set(nums_a) != set(nums_b) and jaccard >= (0.6 if cue else 0.7):
        num_a, num_b = only_a - words_a, only_b - words_b
        if (num_a and num_b and len(only_a - num_a) <= 2 and len(only_b - num_b) <= 2
                and not (only_a | only_b) & names  # another name changed too: another subject
                and _one_run(a, num_a) and _one_run(b, num_b)):
            return "number changed"
    if cue and a[0] == b[0] and a[1:2] == b[1:2] and not (only_a | only_b) & names and _keyed_change(a, b):
        return "keyed number changed"  # "runs on port 8080 in eu-west" -> "moved ... to port 9090 yesterday"
    if (len(shared) >= 2 and 1 <= len(only_a) <= 4 and 1 <= len(only_b) <= 4
            and len(shared) / min(len(sa), len(sb)) >= 0.5 and _one_run(a, only_a) and _one_run(b, only_b)
            and not any(_is_number(t) for t in only_a | only_b)):
        start = min(i for i, t in enumerate(b) if t in only_b)
        if (cue or any(t in _SINGLE and not _owner(t, newer) for t in b[:start])) and not sibling_fact(older, newer):
            return "new value"  # the attribute names come before the value; "is LastPass" / "is paid yearly" are two
    return None


def _owner(word: str, text: str) -> bool:
    """``word`` owns what follows it in ``text`` ("the analytics *team's* dashboards"): the subject,
    not a single-valued attribute."""
    return re.search(rf"\b{re.escape(word)}['\u2019]s\b", text, re.I) is not None


def _keyed_change(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The same key word ("port", "version", "room") is followed by different numbers in ``a`` and ``b``."""
    keyed_a = {x: y for x, y in zip(a, a[1:]) if _is_number(y) and not _is_number(x)}
    keyed_b = {x: y for x, y in zip(b, b[1:]) if _is_number(y) and not _is_number(x)}
    return any(key in keyed_b and keyed_b[key] != value for key, value in keyed_a.items())


def _names(text: str) -> set[str]:
    """Capitalised words not opening the text: names, as tokens."""
    words = re.findall(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z]+)", text.strip())
    return {_stem(w.lower()) for w in words}


def asks_history(query: str) -> bool:
    """Whether a query asks about the past ("what was it before?", "used to", "previously")."""
    return bool(_HISTORY.search(query))


def is_belief(kind: str, status: str, outcome: Any, flags: tuple[str, ...], text: str) -> bool:
    """Units whose truth can change: active world facts and observations that are not lessons,
    small talk, digests or questions (a quoted one too: ``Jolene said, "Do you think she'd like it?"``).
    A note that states something and closes by asking someone to act ("... so the 29th, same place.
    Can someone drive?") is a statement."""
    return (kind in (MemoryKind.WORLD.value, MemoryKind.OBSERVATION.value) and status == MemoryStatus.ACTIVE.value
            and outcome is None and not {Flag.LOG_ONLY, Flag.DIGEST} & set(flags) and not _asks(text))


#: A closing request for someone to act ("Can someone drive?", "Keisha, can you open the diary up?",
#: a list's last item "- Dad, can you do the pickup?"), unlike a question about the matter ("Have you
#: ever been there?").
_REQUEST = re.compile(r"^(?:[-*•]\s*)?(?:\w+,\s*)?(?:can|could|would|will)\s+"
                      r"(?:someone|somebody|anyone|anybody|whoever|you)\b", re.I)
#: A sentence ends at its mark, or at a line's end (a list's items).
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")


@functools.lru_cache(maxsize=8192)
def _asks(text: str) -> bool:
    """``text`` (what it says, :func:`said`) ends with a question, and is not a statement closed by a request
    (in a sentence of its own, or after a comma: :func:`~hindsight_core.lifecycle.update_cues.closed_by_request`)."""
    text = said(text).rstrip()
    if not text.endswith("?"):
        return False
    sentences = _SENTENCE.split(text)
    news = _ASIDE.sub("", " ".join(sentences[:-1]))  # "(overbooked??)" asks nothing
    if len(sentences) >= _NOTE_SENTENCES and not {"?", "!"} & set(news) and len(news.split()) >= _NOTE_WORDS:
        return False  # a note of news closing with a question on another matter ("... any tips for a gift?")
    return not ((len(sentences) > 1 and "?" not in sentences[0] and _REQUEST.match(sentences[-1]))
                or closed_by_request(sentences[-1]))


#: Sentences (the closing question one of them) and words before the question that make a message a
#: note of news, not a question: a chat turn's "Went hiking. It was great. Have you been?" stays one, as
#: does an exclaimed one however long ("Hey James! Long time no see! I have great news! ... Have you ...?").
_NOTE_SENTENCES, _NOTE_WORDS = 3, 30
_ASIDE = re.compile(r"\([^)]*\)")


#: Capitalised words, a sentence's first included: in another language the entity reader finds no
#: name ("Camille a déplacé le cours de yoga..."), yet a name written alike links the two facts.
_CAPITALISED = re.compile(r"\b[A-ZÀ-Þ][\w'’-]{2,}")


def _with_entity_neighbours(index: Any, unit: MemoryUnit, vec: np.ndarray,
                            close: list[tuple[str, float]], foreign: bool = False) -> list[tuple[str, float]]:
    """``close`` (dense neighbours past the similarity gate) plus stored units that share a rare
    entity with ``unit``, best first.

    Among 26 people's "X lives in Y" facts the nearest vectors are other people's in the same city
    ("Tara lives in Cairo" is closer to "Wen lives in Cairo" than "Wen now lives in Quito" is).
    The shared name finds Wen's own earlier fact; a lower similarity suffices for it, since the
    contradiction rules still have to fire. A ``foreign`` message (another language than the
    English embedder's) also looks up its capitalised words as entities, at any similarity.
    """
    seen = {i for i, _ in close}
    keys = set(unit.entities)
    if foreign:
        keys |= {w.lower() for w in _CAPITALISED.findall(unit.text)}
    ids = sorted({uid for key in keys if 0 < index.graph.entity_degree(key) <= _ENTITY_CAP
                  for uid in index.graph.entity_units(key, ("mentions",)) if uid not in seen and uid in index.units})
    if not ids:
        return close
    sims = index.vectors(ids) @ np.asarray(vec, dtype=np.float32)
    least = -1.0 if foreign else _ENTITY_MIN_SIM
    extra = [(ids[j], float(sims[j])) for j in np.argsort(-sims, kind="stable")[:_BATCH_NEIGHBOURS]
             if sims[j] >= least]
    return sorted(close + extra, key=lambda hit: -hit[1])


_VERDICTS: "weakref.WeakKeyDictionary[Any, dict[tuple[str, str], str | None]]" = weakref.WeakKeyDictionary()
_VERDICTS_BY_ID: dict[int, dict[tuple[str, str], str | None]] = {}  # models that cannot be weakly referenced


def _verdict_cache(llm: Any) -> dict[tuple[str, str], str | None]:
    try:
        return _VERDICTS.setdefault(llm, {})
    except TypeError:
        return _VERDICTS_BY_ID.setdefault(id(llm), {})


def _judge(llm: Any, older: str, newer: str) -> str | None:
    """The LLM's verdict on one pair (cached per model: the same pair is never asked twice)."""
    from hindsight_core.lifecycle._llm import ask_json
    from hindsight_core.prompts import contradiction

    cache = _verdict_cache(llm)
    if (older, newer) in cache:
        return cache[(older, newer)]
    try:
        verdict = contradiction.ContradictionVerdict.model_validate(ask_json(llm, contradiction.build_messages(older, newer)))
    except (LLMError, ValueError) as exc:
        log.warning("contradiction judge failed, keeping both beliefs: %s", exc)
        return None  # not cached: a later capture may ask again
    reason = f"llm: {verdict.explanation}".strip() if verdict.updates else None
    if len(cache) >= _JUDGE_CACHE_SIZE:
        cache.pop(next(iter(cache)))
    cache[(older, newer)] = reason
    return reason


def _ambiguous(older: str, newer: str, sim: float) -> bool:
    """A pair worth an LLM's judgement: close, and the later text is no obvious look-alike."""
    return sim >= _JUDGE_MIN_SIM and look_alike(newer) is None


def _effective(newer: MemoryUnit) -> datetime:
    """When the newer fact starts to hold: a future date it names with an effective cue
    ("starting Monday", "from next week"), else when it was said or happened."""
    if (newer.occurred_at is not None and newer.occurred_at > newer.mentioned_at
            and update_cue(newer.text) == "effective"):
        return newer.occurred_at
    return newer.when


def _decide(older: str, newer: str, sim: float, strict_min_sim: float, llm: Any,
            model: bool = False, veto: bool = False) -> tuple[str | None, bool]:
    """``(reason, by the slot rules)``: the template rules on close pairs, then the slot rules
    (:func:`~hindsight_core.lifecycle.update_rules.judge_update`), then the LLM on ambiguous pairs,
    else (``model``) the learned reader on related pairs (:mod:`~hindsight_core.lifecycle.update_model`).
    A verdict of the LLM or the reader counts as the slot rules' (one such update per new fact). With
    ``veto``, a rule's verdict on a pair the reader reads as no update stands for nothing (:func:`_vetoed`)."""
    close = sim >= min(strict_min_sim, _TEMPLATE_MIN_SIM)
    reason = contradicts(older, newer) if close else None
    if close and reason is None:
        reason = _sentence_contradicts(older, newer)
    glossed = read_in_english(older, newer) if close and reason is None else None
    if glossed is not None:
        reason = contradicts(*glossed)  # "El gimnasio abre a las 6:30 desde hoy"
    if reason is not None:
        return (None, False) if veto and _vetoed(older, newer, reason) else (reason, False)
    reason = judge_update(older, newer, sim)
    if reason is not None:
        return (None, False) if veto and _vetoed(older, newer, reason) else (reason, True)
    if llm is not None and _ambiguous(older, newer, sim):
        return _judge(llm, older, newer), True
    if model and _readable(older, newer, sim):
        p = update_model.probability(older, newer)
        if p >= update_model.THRESHOLD:
            return f"read as an update ({p:.2f})", True
    return None, False


#: Rules the reader does not veto: they name who now holds a duty, what a thing is now called, or a value of a
#: definite form or a closed set changed (an amount, a version, Windows for a Mac). The reader reads such changes
#: low when they come chatty ("handed all the TA paperwork over to Dev at the meeting. I'm only doing the garden
#: now, bliss" at 0.01; "finally unboxed my new MacBook, migrating everything tonight" at 0.08), and on the read
#: sets these rules were right every time it would have vetoed them.
_NOT_VETOED = frozenset({"the duty passed to someone else", "promoted: the title changed", "the job ended", "renamed",
                         *FORMS})


def _vetoed(older: str, newer: str, reason: str) -> bool:
    """An English pair the reader may judge and reads as almost surely no update
    (:data:`~hindsight_core.lifecycle.update_model.VETO`): the rules read "bumped the newsletter send time to
    07:30" as a new value of "The newsletter goes out via Mailchimp."; the reader, fitted on many writers'
    look-alikes, does not."""
    if reason in _NOT_VETOED or not judgeable(older, newer) or is_foreign(newer):  # fitted on English
        return False
    p = update_model.probability(older, newer)
    vetoed = p < update_model.VETO
    if vetoed:
        log.debug("the rules' update of %r by %r is read as no update (%.2f): not applied", older, newer, p)
    return vetoed


def _readable(older: str, newer: str, sim: float) -> bool:
    """A pair the learned reader is asked about: related, a statement and a message the reader may judge
    (:func:`~hindsight_core.lifecycle.update_rules.judgeable`), and the later text as a whole no
    look-alike (a question, plan, denial... stays one whatever it reads); in another language, only
    with a change cue of that language ("Quizás ... abra a las 6:00" is a supposition)."""
    return (sim >= RELATED_MIN_SIM and look_alike(newer) is None and judgeable(older, newer)
            and read_as_written(newer))  # the look-alike cues read English


def _sentence_contradicts(older: str, newer: str) -> str | None:
    """The template rules on each sentence of a longer message against a one-sentence fact: "new
    favorite tea alert: genmaicha. drinking it all day" restates "My favorite tea is Earl Grey" in its
    first sentence, and the second one keeps the whole from matching the template."""
    older, sentences = said(older), split_sentences(said(newer))
    if len(sentences) < 2 or not one_sentence(older):
        return None
    return next((r for r in (contradicts(older, s) for s in sentences) if r is not None), None)


def _oriented(unit: MemoryUnit, cands: list[tuple[float, str, int | None]], units: list[MemoryUnit],
              stored: dict[str, MemoryUnit],
              loaded: dict[str, MemoryUnit]) -> Iterator[tuple[float, str, MemoryUnit, MemoryUnit]]:
    """Each candidate of ``unit`` as ``(sim, id, older, newer)``: the pair in the order it was said (a
    same-batch candidate is ``units[q]``; a stored one, as changed here or as loaded)."""
    for sim, uid, q in cands:
        other = units[q] if q is not None else stored.get(uid, loaded[uid])
        yield (sim, uid, other, unit) if _ts(other) <= _ts(unit) else (sim, uid, unit, other)


def _best_slot_candidate(unit: MemoryUnit, cands: list[tuple[float, str, int | None]], units: list[MemoryUnit],
                         stored: dict[str, MemoryUnit], loaded: dict[str, MemoryUnit]) -> str | None:
    """The one earlier fact the slot rules say ``unit`` updates most surely (a message updates one
    fact; the other facts about the same subject stay)."""
    best: tuple[float, str | None] = (0.0, None)
    for sim, uid, older, newer in _oriented(unit, cands, units, stored, loaded):
        reason, strength = update_strength(older.text, newer.text, sim)
        if reason is not None and strength > best[0]:
            best = (strength, uid)
    return best[1]


def _best_read_candidate(unit: MemoryUnit, cands: list[tuple[float, str, int | None]], units: list[MemoryUnit],
                         stored: dict[str, MemoryUnit], loaded: dict[str, MemoryUnit],
                         strict_min_sim: float) -> str | None:
    """Where no rule names the fact ``unit`` updates: the one the learned reader reads as updated most
    surely, at :data:`~hindsight_core.lifecycle.update_model.THRESHOLD` or above ("Group members now: ...,
    Jean left" updates the members list, not the group's name, though both are read as changed). It reads
    the :data:`READ_MAX` closest pairs the rules leave open, together (``cands`` come closest first)."""
    pairs: list[tuple[str, str]] = []
    ids: list[str] = []
    for sim, uid, older, newer in _oriented(unit, cands, units, stored, loaded):
        if (_decide(older.text, newer.text, sim, strict_min_sim, None, veto=True)[0] is None
                and _readable(older.text, newer.text, sim)):
            pairs.append((older.text, newer.text))
            ids.append(uid)
            if len(pairs) == READ_MAX:
                break
    if not pairs:
        return None
    p, uid = max(zip(update_model.probabilities(pairs), ids), key=lambda read: read[0])
    return uid if p >= update_model.THRESHOLD else None


def _passed_over(unit: MemoryUnit, cands: list[tuple[float, str, int | None]], units: list[MemoryUnit],
                 stored: dict[str, MemoryUnit], loaded: dict[str, MemoryUnit], strict_min_sim: float) -> set[str]:
    """The earlier facts the rules say ``unit`` updates that the learned reader reads far less surely as
    updated than another close one (:data:`PASS_OVER_LEVEL`, :data:`PASS_OVER_MARGIN`, or
    :data:`PASS_OVER_SURE_MARGIN` when the other is read at the reader's threshold), whether the rules
    name that one too or leave it open: those the rules matched by a word the two share, not by the value
    that changed. Read only on English pairs the reader may judge, and only the :data:`READ_MAX` closest
    open ones; the rules the reader does not veto (:data:`_NOT_VETOED`) are passed over only for a reading at
    the reader's threshold, by :data:`PASS_OVER_MARGIN` ("Invoice Keller Q1: €1,980, sent" read as a listed
    item done by "Correction on the Northwind March invoice ... Sent the fixed PDF", where the Northwind
    invoice reads 0.98 and Keller's 0.48)."""
    if len(cands) < 2:
        return set()  # no other fact to prefer: spare the rules' and the reader's work
    ruled: list[tuple[str, str, str]] = []
    unruled: list[tuple[str, str, str]] = []
    kept: set[str] = set()  # ruled by a rule the reader never vetoes: passed over only for a sure reading
    for sim, uid, older, newer in _oriented(unit, cands, units, stored, loaded):
        reason = _decide(older.text, newer.text, sim, strict_min_sim, None, veto=True)[0]
        if reason is not None:
            if judgeable(older.text, newer.text) and not is_foreign(newer.text):
                ruled.append((older.text, newer.text, uid))
                if reason in _NOT_VETOED:
                    kept.add(uid)
        elif len(unruled) < READ_MAX and _readable(older.text, newer.text, sim):
            unruled.append((older.text, newer.text, uid))
    if not ruled or len(ruled) + len(unruled) < 2:
        return set()
    reads = update_model.probabilities([(older, newer) for older, newer, _ in ruled + unruled])
    best = max(reads)
    if best < PASS_OVER_LEVEL:
        return set()
    sure = best >= update_model.THRESHOLD
    if not sure:
        return {uid for (_, _, uid), p in zip(ruled, reads) if uid not in kept and p + PASS_OVER_MARGIN <= best}
    return {uid for (_, _, uid), p in zip(ruled, reads)
            if p + (PASS_OVER_MARGIN if uid in kept else PASS_OVER_SURE_MARGIN) <= best}


def _other_speakers(one: str | None, other: str | None) -> bool:
    """Two statements by different named speakers: neither updates the other (each person's facts are
    their own), so such pairs are not judged at all; nor do they compete for a message's one slot update."""
    return one is not None and other is not None and one != other


def _ts(unit: MemoryUnit) -> float:
    """When a statement was made: the later *statement* wins, whatever past date it mentions
    ("Marcus left last month" said today updates what was said three weeks ago)."""
    return unit.mentioned_at.timestamp()


def _supersede(older: MemoryUnit, newer: MemoryUnit, reason: str) -> tuple[MemoryUnit, MemoryUnit]:
    chain = tuple(dict.fromkeys(newer.evidence_ids + (older.id,) + older.evidence_ids))
    old = older.model_copy(update={"status": MemoryStatus.SUPERSEDED, "superseded_by": newer.id,
                                   "valid_to": _effective(newer),
                                   "flags": older.flags + (f"{Flag.SUPERSEDED} ({reason})"[:200],)})
    new = newer.model_copy(update={"evidence_ids": chain})
    return old, new


def supersede_on_capture(
    store: "UnitStore",
    config: "BankConfig",
    new_units: list[tuple[MemoryUnit, Any]],
    results: list[CaptureResult],
    near: dict[str, list[tuple[str, float]]],
) -> tuple[list[tuple[MemoryUnit, Any]], list[CaptureResult], list[MemoryUnit]]:
    """Find stored or same-batch beliefs the new units update; called by capture under the bank lock.

    ``near`` maps each new unit's id to its nearest stored units, best first (capture searched
    them once for dedup too). Returns the new units (evidence chains extended; an out-of-order
    older fact comes back superseded), the results (with ``supersedes``) and the stored units to
    rewrite after the write.
    """
    cfg = config.lifecycle
    todo = [n for n, (u, _) in enumerate(new_units)
            if is_belief(u.kind.value, u.status.value, u.outcome, u.flags, u.text)]
    if not cfg.supersede_on_capture or not todo:
        return new_units, results, []
    index = store.index
    llm = store.llm if cfg.llm_judge else None
    units = [u for u, _ in new_units]
    vecs = np.stack([np.asarray(new_units[n][1], dtype=np.float32) for n in todo])
    stored: dict[str, MemoryUnit] = {}  # stored units changed here
    stored_cands: dict[str, list[tuple[str, float]]] = {}  # new unit id -> stored units to compare, best first
    gate = min(cfg.contradiction_min_sim, RELATED_MIN_SIM)  # the slot rules compare reworded pairs too
    for row, n in enumerate(todo):
        foreign = is_foreign(units[n].text)  # the embedder is English: a message in another language sits far away
        close = [(i, sim) for i, sim in near.get(units[n].id, []) if sim >= _RULES_MIN_SIM or (
            foreign and i in index.units and linked_across_languages(index.units[i].text, units[n].text))]
        speaker = units[n].speaker
        stored_cands[units[n].id] = [  # another speaker's statement is theirs to update, never this one's
            (i, sim) for i, sim in _with_entity_neighbours(index, units[n], vecs[row], close, foreign)
            if not _other_speakers(speaker, index.units[i].speaker if i in index.units else None)]
    fetch: set[str] = set()  # stored beliefs that may be updated: only these are read in full
    for n in todo:
        text, when = units[n].text, _ts(units[n])
        to_read = READ_MAX if cfg.update_model else 0  # the closest open pairs, read once loaded
        for uid, sim in stored_cands[units[n].id]:
            light = index.units.get(uid)
            if (light is None or uid in fetch
                    or not is_belief(light.kind, light.status, light.outcome, light.flags, light.text)):
                continue
            older, newer = (light.text, text) if light.mentioned_at <= when else (text, light.text)
            if ((llm is not None and sim >= _JUDGE_MIN_SIM)
                    or _decide(older, newer, sim, cfg.contradiction_min_sim, None, veto=cfg.update_model)[0]
                    is not None):
                fetch.add(uid)
            elif to_read and _readable(older, newer, sim):
                fetch.add(uid)
                to_read -= 1
    loaded = {u.id: u for u in store.get_many(sorted(fetch))} if fetch else {}
    superseded: dict[str, list[str]] = {}
    for row, pos in enumerate(todo):
        unit = units[pos]
        speaker = unit.speaker
        slot_updates = 0  # supersessions by the slot rules: one per new fact (its best candidate)
        cands: list[tuple[float, str, int | None]] = []
        for uid, sim in stored_cands[unit.id]:
            if uid in loaded and uid not in stored and uid not in unit.evidence_ids:
                cands.append((sim, uid, None))
        if row:  # the closest earlier beliefs of this batch, as many as stored neighbours are searched
            sims = vecs[:row] @ vecs[row]
            for col in np.argsort(-sims, kind="stable")[:_BATCH_NEIGHBOURS]:
                q = todo[col]
                if (sims[col] >= gate and units[q].status is MemoryStatus.ACTIVE
                        and not _other_speakers(speaker, units[q].speaker)):
                    cands.append((float(sims[col]), units[q].id, q))
        cands.sort(key=lambda c: -c[0])
        if cfg.update_model:
            passed_over = _passed_over(units[pos], cands, units, stored, loaded, cfg.contradiction_min_sim)
            cands = [c for c in cands if c[1] not in passed_over]
        best_slot = _best_slot_candidate(units[pos], cands, units, stored, loaded)
        best_read = (_best_read_candidate(units[pos], cands, units, stored, loaded, cfg.contradiction_min_sim)
                     if cfg.update_model and best_slot is None else None)
        for sim, uid, q in cands:
            other = units[q] if q is not None else stored.get(uid, loaded[uid])
            if other.status is not MemoryStatus.ACTIVE or units[pos].status is not MemoryStatus.ACTIVE:
                continue
            dated = bool(other.time_refs and units[pos].time_refs and other.occurred_at and units[pos].occurred_at
                         and other.occurred_at.date() != units[pos].occurred_at.date())
            new_first = _ts(other) <= _ts(units[pos])
            older, newer = (other, units[pos]) if new_first else (units[pos], other)
            reason, by_slots = _decide(older.text, newer.text, sim, cfg.contradiction_min_sim,
                                       llm if slot_updates == 0 and best_slot is None else None,
                                       slot_updates == 0 and uid == best_read, cfg.update_model)
            if (reason is None or (by_slots and (slot_updates or best_slot not in (None, uid)))
                    or (dated and not (by_slots and (update_cue(newer.text) is not None or says_changed(newer.text)
                                                   or is_tool_record(newer.text))))):
                continue  # two dated events are both true, unless the later one says it changed or a tool reports it
            slot_updates += 1  # one slot-rule update per fact, and none beside a template update
            if may_supersede(older.source, newer.source) or corroborated(older, newer):
                old, new = _supersede(older, newer, reason)
                superseded.setdefault(new.id, []).append(old.id)
            else:  # a lower-trust source contradicts the user: both stay, the conflict waits
                old, new = pending_flags(older, newer, reason)
            for changed in (old, new):
                if changed.id == units[pos].id:
                    units[pos] = changed
                elif q is not None and changed.id == units[q].id:
                    units[q] = changed
                else:
                    stored[changed.id] = changed
            if units[pos].status is not MemoryStatus.ACTIVE:
                break
    by_id = {u.id: u for u in units}
    results = [r.model_copy(update={"unit": by_id[r.unit_id], "supersedes": tuple(superseded.get(r.unit_id, ()))})
               if r.unit_id in by_id and r.unit is not None and not r.merged else r for r in results]
    return [(u, v) for u, (_, v) in zip(units, new_units)], results, list(stored.values())


def invalidate(store: "UnitStore", unit_id: str, reason: str | None = None, *, penalty: float = 0.2) -> MemoryUnit:
    """Mark a belief wrong: hidden from recall (even history), its sources lose ``penalty`` confidence."""
    if reason is not None and not isinstance(reason, str):
        raise InvalidInputError("reason must be a str or None")
    if not 0.0 <= penalty <= 1.0:
        raise InvalidInputError("penalty must be between 0 and 1")
    unit = store.get(unit_id)
    now = datetime.now(timezone.utc)
    with store.write():
        wrong = unit.model_copy(update={
            "status": MemoryStatus.INVALIDATED, "valid_to": unit.valid_to or now,
            "flags": unit.flags + (f"{Flag.INVALIDATED} ({reason or 'no reason given'})"[:200],)})
        store.update(wrong)
        for source in store.get_many(unit.evidence_ids):
            store.update(source.model_copy(update={"confidence": round(max(0.0, source.confidence - penalty), 3)}))
    return wrong


def history(store: "UnitStore", unit_id: str) -> list[MemoryUnit]:
    """The supersession chain through ``unit_id``, oldest first (the current belief last)."""
    unit = store.get(unit_id)
    chain = [unit]
    seen = {unit.id}
    cur = unit
    while True:  # back: the evidence it superseded
        prev = [u for u in store.get_many(cur.evidence_ids) if u.superseded_by == cur.id and u.id not in seen]
        if not prev:
            break
        cur = prev[0]
        seen.add(cur.id)
        chain.insert(0, cur)
    cur = unit
    while cur.superseded_by and cur.superseded_by not in seen:  # forward: what replaced it
        nxt = store.get_many([cur.superseded_by])
        if not nxt:
            break
        cur = nxt[0]
        seen.add(cur.id)
        chain.append(cur)
    return chain
