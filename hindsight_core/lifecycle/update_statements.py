"""Which texts are statements of one belief the update rules may replace, and their sentences.

A chat turn is read for what it states (:func:`said`: the quoted words of reported speech, no opening
address); only one short sentence that is no question, dialogue act or dated past event
(:func:`one_belief`) is a belief a later text may supersede.

Example:
    >>> said('Melanie said, "Hey Caroline! I moved to Leeds."')
    'I moved to Leeds.'
    >>> one_belief("I went to a support group yesterday.")
    False
"""

from __future__ import annotations

import functools
import re

from hindsight_core.lifecycle.slots import Reading, content, hyphenated_word, read

__all__ = ["ATOMIC_MAX_WORDS", "RECORD_MAX_WORDS", "is_atomic", "one_sentence", "is_episode", "is_episode_turn",
           "quoted_turn", "reported_turn", "said", "split_sentences", "statement_parts", "one_belief",
           "without_instructions", "without_note_label", "lead_fact", "spelled_out", "addressed_to_user", "fields_joined"]

#: Texts whose readings are kept: capture asks about both texts of each pair it compares, and a batch
#: of 64 beliefs meets at most 64 x 16 pairs (as ``update_rules``' pair cache).
_CACHE = 4096
#: Reported speech (``Melanie said, "..."``, ``Melanie: ...``): the speaker is who talks, not what
#: the statement is about. Left in, every turn of one speaker shares a "subject" and chat turns
#: supersede each other (LoCoMo conversation 0 lost 18 points of recall@10 that way).
_REPORTED = re.compile(r'^\s*[A-Z][\w.\'-]*(?: [A-Z][\w.\'-]*)?(?: said,?|:)\s*["\u201c](?P<said>.*?)["\u201d]?\s*$', re.S)
#: A turn that opens by addressing someone ("Hey Caroline!", "Thanks, Mel!", "Sure thing!") is a
#: dialogue act; the name in it is the listener, never the subject of a belief.
_ADDRESS = re.compile(r"^\s*(?:hey|hi|hello|thanks|thank you|yeah|yes|wow|oh|aw+|omg|haha|congrats|great|absolutely|"
                      r"sure(?: thing)?|bye)(?:,?\s+(?:(?-i:[A-Z])[\w'-]*|all|everyone|folks|team|guys|there|both))?\s*[,!.]+\s*",
                      re.I)  # "Hey Mel!", "Hi all,"; not "oh wait," (a correction)
#: The most content words an earlier statement may have and still be one belief the rules can update.
#: Every earlier fact of the dev set has at most 9; a chat turn that tells a story has many more.
ATOMIC_MAX_WORDS = 12
#: A sentence ends at ".", "!" or "?" and a space, except after a title or an abbreviation ("Dr. Lee").
_SENTENCE_END = re.compile(r"(?<=[.!?])" + "".join(rf"(?<!\b{a}\.)" for a in ("Dr", "Mr", "Ms", "Mrs", "St", "Prof", "Jr",
                                                                            "Sr", "vs", "e.g", "i.e", "approx", "Mt",
                                                                            "Av", "Ave", "Rd", "Blvd", "Apt"))
                           + r"\s+(?=\S)(?!(?<=\b[Nn]o\.\s)\d)")  # "at no. 14": a number sign


def is_atomic(text: str, reading: Reading) -> bool:
    """One sentence of at most :data:`ATOMIC_MAX_WORDS` content words, not an exclamation: a
    statement of one value.

    The rules supersede only such statements. A multi-sentence chat turn ("Thanks, Mel! The event
    was great. I'm starting to ...") mixes feelings, news and replies; letting it be replaced by the
    next turn that shares a few words superseded 140 turns of four LoCoMo conversations. An
    exclamation ("Keep it up!", "That must've been breathtaking!") is a reaction, not a state. A
    labelled record in the third person (:data:`_RECORD`) may hold up to :data:`RECORD_MAX_WORDS`."""
    limit = RECORD_MAX_WORDS if _RECORD.match(text) else ATOMIC_MAX_WORDS
    return one_sentence(text) and len(reading.tokens) <= limit


#: A labelled record in the third person ("Clinic note: Dr Amara Osei, Tuesday clinic, 9:00 to 12:30,
#: Room 14 ...", "Bed 4 Mrs Ferrante - fluid restriction 1.5 L/24h, ..."): one thing's fields, not a story.
_RECORD = re.compile(r"^[^:\n]{2,40}(?::|\s[-–—])\s+(?!.*\b(?:i|i'm|i've|we|we're|my|our)\b)", re.I)
#: A field after a record's first sentence: "Organiser: Dagny", "Room: Larch".
_FIELD_AFTER = re.compile(r"(?<=[.!])\s+(?=(?-i:[A-Z])[\w-]*(?: [\w-]+)?:\s+\S)")


def fields_joined(text: str) -> str:
    """A labelled record with its later fields as sentences ("Calendar invite: code freeze — Thu 14
    March, all day. Organiser: Dagny") as one statement, the later fields in brackets.

    Example:
        >>> fields_joined("Calendar invite: code freeze - Thu 14 March, all day. Organiser: Dagny")
        'Calendar invite: code freeze - Thu 14 March, all day (Organiser Dagny)'
    """
    if not _RECORD.match(text) or not _FIELD_AFTER.search(text):
        return text
    parts = _FIELD_AFTER.split(text.strip())  # each part after the first opens with a field
    if not all(one_sentence(p) for p in parts):
        return text  # only fields follow the record's first sentence, each a sentence of its own
    # each field in brackets, its colon dropped: the record's own colon or verb still reads its key
    return parts[0].rstrip(".") + "".join(f" ({p.rstrip('.').replace(':', '', 1)})" for p in parts[1:])


#: The most content words such a record may have: over the update sets, 18 finds seven more updates
#: end to end and keeps every look-alike; LoCoMo still supersedes no chat turn.
RECORD_MAX_WORDS = 18


@functools.lru_cache(maxsize=_CACHE)
def one_sentence(text: str) -> bool:
    """One sentence, not an exclamation: the part of :func:`is_atomic` that needs no reading."""
    text = text.strip()
    return len(_SENTENCE_END.split(_INLINE_NUMBER.sub("", text))) == 1 and (
        not text.endswith("!") or _MEASURED.search(text) is not None)  # "120 g twice a day, weighed!" states a dose


#: A number with its unit of measure: an exclamation holding one still states a value.
_MEASURED = re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:g|kg|mg|mcg|ml|l|km|mi|lbs?|oz|cups?|litres?|liters?)\b", re.I)
#: A numbered item inside a line ("contacts: 1. Jordan 2. Ruth"): its period ends no sentence.
_INLINE_NUMBER = re.compile(r"(?<=[ :])\d\.(?= )")


#: A reply that opens by greeting or thanking someone ("Thanks, Jon! Appreciate your support.") is
#: a dialogue act, and an event placed in the past ("I went to a support group yesterday") stays
#: true whatever comes later: neither is a state a later statement replaces.
_DIALOGUE_ACT = re.compile(r"^\s*(hey|hi|hello|thanks|thank you|thx|congrats|congratulations|bye|wow|aw+)\b", re.I)
#: ("the last week of May" is a date, not a past event.)
_PAST_EVENT = re.compile(r"\b(yesterday|last (night|week|weekend|month|year|time)(?! of\b)|"
                         r"\d+ (days?|weeks?|months?|years?) ago|"
                         r"(a|an|one|two|few|couple of) (days?|weeks?|months?|years?) ago|the other day|this morning|"
                         r"earlier today)\b", re.I)


def is_episode(text: str) -> bool:
    """A dialogue act or a dated past event (see :data:`_DIALOGUE_ACT`), not a belief to update."""
    return bool(_DIALOGUE_ACT.match(text) or _PAST_EVENT.search(text))


@functools.lru_cache(maxsize=_CACHE)  # asked of the earlier text of every pair capture compares
def is_episode_turn(text: str) -> bool:
    """:func:`is_episode` on what a turn says, reported speech read inside its quotes (an opening
    address kept: "Hey Caroline! ..." is a dialogue act)."""
    reported = _REPORTED.match(text)
    return is_episode(reported.group("said") if reported else text)


def quoted_turn(text: str) -> bool:
    """A turn of a conversation reported as said ('Caroline said, "..."', 'Mel: "..."')."""
    return _REPORTED.match(text) is not None


#: The opening of reported speech, whatever follows its quote (LoCoMo's '... and shared a photo of ...').
_REPORTED_OPENING = re.compile(r'^\s*[A-Z][\w.\'-]*(?: [A-Z][\w.\'-]*)?(?: said,?|:)\s*["\u201c]')


def reported_turn(text: str) -> bool:
    """A turn of a conversation reported as said, perhaps with what was shared after the quote: its
    sentences tell a talk, not a note's facts one by one."""
    return _REPORTED_OPENING.match(text) is not None


@functools.lru_cache(maxsize=_CACHE)  # asked for both texts of every pair capture compares
def said(text: str) -> str:
    """What a turn states: the quoted words of reported speech, without an opening address."""
    reported = _REPORTED.match(text)
    body = reported.group("said") if reported else text
    return _ADDRESS.sub("", body, count=1) or body


#: A sentence with fewer content words than this ("new PR!", "Crazy week.") belongs to its neighbour.
_SENTENCE_MIN_WORDS = 3


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, a very short one joined to the one before it (or after it, first)."""
    out: list[str] = []
    for sentence in _SENTENCE_END.split(text.strip()):
        if out and (len(content(sentence)) < _SENTENCE_MIN_WORDS or len(content(out[-1])) < _SENTENCE_MIN_WORDS):
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


def statement_parts(text: str, commas: bool = True) -> list[str]:
    """The parts of a note that may each state one value: its sentences, one too long to be one value
    cut at its dashes and semicolons ("Flour comes to the back door on Carver St — ring the bell, the
    driver won't wait"), and (``commas``) a part still too long at its commas ("doors open 7:30
    weekdays, 8:30 Sat, shut Sun, bake team in by 5:45").

    Example:
        >>> parts = statement_parts("Flour deliveries from Hartley Mills come to the back door on Carver "
        ...                         "Street — ring the bell, the driver will not wait around. Ask Jo for keys.")
        >>> parts[0], len(parts)
        ('Flour deliveries from Hartley Mills come to the back door on Carver Street', 3)
    """
    parts = [part for sentence in split_sentences(text)
             for part in ([sentence] if one_belief(sentence) else _CLAUSE_BREAK.split(sentence))]
    if not commas:
        return parts
    return [piece for part in parts for piece in ([part] if one_belief(part) else _COMMA_BREAK.split(part))]


def one_belief(text: str) -> bool:
    """``text`` (as :func:`said` gives it) states one present value the rules may update: one
    sentence of a few words, no question, no dialogue act or dated past event."""
    # one_sentence first: it needs no reading, and most chat turns fail it
    return (not text.rstrip().endswith("?") and one_sentence(text) and not is_episode(text)
            and is_atomic(text, read(text)))


#: A sentence that asks the listener to do something: "Please ...", "Don't ...", "Use that ...". Not
#: "Let's ..." or "Let me know ...": chat turns end that way after a feeling or a story (LoCoMo).
_INSTRUCTION = re.compile(r"^\W*(please|pls|use|make sure|don'?t|do not|ask|call|ping|remind|bring|text|email|send|"
                          r"mention|turn (?:on|off)|keep|leave|check|tell|avoid|contact|ring|forward)\b", re.I)


def without_instructions(text: str) -> str:
    """``text`` without the requests that follow its statement: an instruction to the listener is no
    second fact, so the statement before it can still be updated as one.

    Example:
        >>> without_instructions("Sprint boards live in Jotwell. Please make sure you have an account.")
        'Sprint boards live in Jotwell.'
    """
    if one_sentence(text):  # most texts: nothing follows the statement (and this is cached)
        return text
    sentences = _SENTENCE_END.split(text.strip())  # as written: a short request ("Use it when ...") too
    kept = list(sentences)
    while len(kept) > 1 and _INSTRUCTION.match(kept[-1]):
        kept.pop()
    return " ".join(kept) if len(kept) < len(sentences) else text


#: A label that opens a note and names no subject: "Noted: your resting heart rate is 68",
#: "Reminder - the PTA treasurer is ...". A label that is a noun of the fact ("Passports: blue folder",
#: "Daily standup: 9:30") is its subject and stays.
_NOTE_LABEL = re.compile(r"^\W*(?:noted|note(?: to self)?|notes?|reminder|remember|fyi|for the record|for reference|"
                         r"saved|got it|ok(?:ay)?|psa|memo|btw|calendar(?: invite| entry)?)"
                         r"\s*(?::|-|\u2013|\u2014|,)\s*(?=\S)|"
                         # where it was read: "Meadow Lane Allotments — April newsletter:", "Staff bulletin wk 9:"
                         r"^[^:\n.]{0,40}\b(?:newsletter|bulletin|announcement|circular)s?"
                         r"(?:\s+(?:wk|week|no|#)\.?\s*\d+)?\s*:\s*(?=\S)|"
                         # a place's or an organisation's name before a whole statement: "Meadow Lane: the new ..."
                         r"^\W*(?-i:[A-Z][\w&'-]+ [A-Z][\w&'-]+):\s+(?=(?:the|our|its|their)\s+\w+(?:\s+[\w-]+){0,3}?"
                         r"\s+(?:is|are|has|have)\b)|"
                         # a shift's handover and its time: "HANDOVER 07:30 -"
                         r"^\W*handover(?:\s+\d{1,2}[:.]?\d{2})?\s*(?::|[-–—])\s*(?=\S)",
                         re.I)


#: A greeting said before the note: "Good afternoon.", "Hi all!".
_GREETING = re.compile(r"^\W*(?:good (?:morning|afternoon|evening)|hi|hello|hey|morning|evening)"
                       r"(?: (?:all|everyone|there|team|folks))?\s*[.!,]+\s+(?=\S)", re.I)


def without_note_label(text: str) -> str:
    """``text`` without an opening greeting or note label: the word before the colon is the note's kind,
    not the subject of its fact, so the key is read from what follows.

    Example:
        >>> without_note_label("Noted: your resting heart rate usually sits around 68 bpm.")
        'your resting heart rate usually sits around 68 bpm.'
        >>> without_note_label("Good morning. For the record, the gate code is 4417.")
        'the gate code is 4417.'
        >>> without_note_label("Passports: blue folder, top shelf.")
        'Passports: blue folder, top shelf.'
    """
    return _NOTE_LABEL.sub("", _GREETING.sub("", text, count=1), count=1)


#: A note about the user in the third person: "The user's flight ...", "The user lives in ...".
_THE_USER = re.compile(r"^(\W*)the user(?:'s|’s|\s+(is|was|has|(\w+?)(?:es|s)))\b", re.I)
_SECOND_PERSON = {"is": "you are", "was": "you were", "has": "you have"}


def addressed_to_user(text: str) -> str:
    """``text`` with a third-person note about the user ("The user lives in Leeds", as assistants and
    extractors write facts) said to the user ("you live in Leeds"), as "Noted: you live in Leeds" is:
    the user's own later "I moved to York" speaks of the same subject.

    Example:
        >>> addressed_to_user("The user's bike is a Trek.")
        'your bike is a Trek.'
        >>> addressed_to_user("The user takes the 8:10 train.")
        'you take the 8:10 train.'
    """
    def second_person(m: re.Match[str]) -> str:
        if m.group(2) is None:
            return m.group(1) + "your"
        verb = m.group(2).lower()
        if verb in _SECOND_PERSON:
            return m.group(1) + _SECOND_PERSON[verb]
        stem = m.group(3) + ("e" if verb.endswith("es") and not re.search(r"(?:ss|sh|ch|x|o)es$", verb) else "")
        return f"{m.group(1)}you {stem}"
    return _THE_USER.sub(second_person, text, count=1)


#: A second sentence that adds a fact rather than remarking on the first ("It also hosts the bot").
_ANOTHER_FACT = re.compile(r"\b(also|as well|too|another|second|additionally|in addition|plus)\b", re.I)
#: Where a remark joins a fact inside one sentence: a spaced dash or a semicolon.
_CLAUSE_BREAK = re.compile(r"\s+[\u2014\u2013-]\s+|;\s+")
#: Where a part still too long for one value is cut last (English notes only): a comma.
_COMMA_BREAK = re.compile(r",\s+")
#: A fact, then one remark about it: "Workshop paper deadline: 14 March. Let's have a draft a week before."
_RIDER_SENTENCES = 2


#: A sentence closing on the name of the one it is said to ("I hope so, Gina.", "They are your rock, Mel."):
#: a chat turn, not a note.
_ADDRESSED = re.compile(r",\s+(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?\b)(?-i:[A-Z])[a-z]+[.!?]+(?:\s|$)")


#: A first sentence that tells what the speaker did or is doing ("I played my favourite game in a
#: tournament", "I'm playing this new RPG") or reacts ("Yep, ...", "Glad you've got ..."): chat news,
#: whose second sentence goes on with the story rather than remarking on a value.
_NARRATION = re.compile(r"^\W*((yep|yeah|yes|yup|glad|thanks|thank you|wow|oh|aw+|haha|lol|cool|great|nice)\b|"
                        r"(i|we)\s+(did|was|were|went|had|got|took|made|\w+ed)\b|(i|we)('m|'re| am| are)\s+\w+ing\b)", re.I)


@functools.lru_cache(maxsize=_CACHE)
def lead_fact(text: str) -> str:
    """The first sentence of a note that states a fact and then adds one remark on it ("Harlow Dairy
    delivers Tues & Fri between 6 and 8am. Someone has to be in to sign."): that sentence holds the
    value a later text may update. Only when it names a value (a name or a number), nothing is
    exclaimed and the text is no dialogue act: a chat turn of feelings and news stays whole. A second
    sentence that adds a fact ("also", or a name the first does not hold: "Ade manages the account")
    keeps the text whole, as superseding it would hide that fact too. One sentence too long to be one
    value is read the same way at a dash or a semicolon ("ruff is pinned at 0.1.6 — don't bump it
    without rerunning the autofix").

    Example:
        >>> lead_fact("Workshop paper deadline: 14 March, AoE. Let's have a full draft a week before.")
        'Workshop paper deadline: 14 March, AoE.'
    """
    if "!" in text or "?" in text or is_episode(text) or _ADDRESSED.search(text):
        return text  # an exclamation, a question, a dialogue act or a line addressed to someone: a chat turn
    if one_sentence(text):
        if is_atomic(text, read(text)):
            return text
        parts = _CLAUSE_BREAK.split(text, maxsplit=1)
        if len(parts) != _RIDER_SENTENCES or re.match(r"(?-i:[A-Z])(?!\b)", parts[1]):
            return text  # "Mia empties the dishwasher; Leo feeds the cat": mid-sentence, a capital is a name
    else:  # each sentence as written: a short remark ("Someone has to be in to sign.") is one too
        parts = _SENTENCE_END.split(text.strip())
        if len(parts) != _RIDER_SENTENCES:
            return text
    first, rest = parts
    if _NARRATION.match(first):
        return text
    r, remark = read(first), read(rest)
    if _ANOTHER_FACT.search(rest) or any(not r.has(x) and x not in r.names and not hyphenated_word(x)
                                         and not _initialism_in(x, rest) for x in remark.names):
        return text  # "It also hosts the release bot", "Ade manages the account": a second fact, kept whole
    return first if (r.values or r.names) and is_atomic(first, r) else text


def _initialism_in(word: str, text: str) -> bool:
    """``word`` (as :func:`read` gives it: "chg" for "CHGs", "prs" for "PRs") is written in ``text`` as an
    :data:`_INITIALISM` ("CAB", "CHGs"): a board or a kind of record the remark mentions, not a person or
    a thing whose own fact the remark adds."""
    written = {m.group(0).lower() for m in _INITIALISM.finditer(text)}
    return word in written or f"{word}s" in written


#: Two to four capitals standing alone: not part of an id or a code ("EDC-1", "LB-01", "UA 455").
_INITIALISM = re.compile(r"(?<![\w-])(?-i:[A-Z]{2,4})s?(?![\w-]|\s*\d)")
_WORD = re.compile(r"[A-Za-z][\w'-]*")


#: Sets and repetitions, written out ("3 sets of 12") and as a product ("4x15").
_SETS_OF = re.compile(r"\b\d+ sets? of \d+", re.I)
_SETS_BY = re.compile(r"\b(\d+)\s?[x×]\s?(\d+)\b")
#: A numeronym: first letter, how many letters between, last letter ("k8s", "a11y").
_NUMERONYM = re.compile(r"\b([A-Za-z])(\d{1,2})([A-Za-z])\b")


@functools.lru_cache(maxsize=_CACHE)
def spelled_out(text: str, other: str) -> str:
    """``text`` with each initialism spelled out as the words of ``other`` it abbreviates: "PT" for
    "physical therapy", "NIC" for "nurse in charge", "CD" for "controlled drug"; and each numeronym as the
    word of ``other`` it shortens ("k8s" for "Kubernetes"). Only a run of as many
    consecutive words of ``other`` as the initialism has letters, each starting with its letter, counts;
    an initialism that is itself a word of ``other`` stays. Sets by repetitions ("4x15") are written out
    as ``other`` writes them ("3 sets of 12").

    Example:
        >>> spelled_out("PT says we drop to every other week", "Physical therapy is every Tuesday at 4pm.")
        'Physical therapy says we drop to every other week'
    """
    words = _WORD.findall(other)

    def numeronym(m: re.Match[str]) -> str:  # "k8s" for "Kubernetes", "i18n" for "internationalisation"
        first, count, last = m.group(1).lower(), int(m.group(2)), m.group(3).lower()
        return next((w for w in words if len(w) == count + 2 and w[0].lower() == first and w[-1].lower() == last),
                    m.group(0))

    text = _NUMERONYM.sub(numeronym, text)
    if _SETS_OF.search(other):
        text = _SETS_BY.sub(r"\1 sets of \2", text)  # "4x15" for "4 sets of 15"
    if not _INITIALISM.search(text):
        return text
    lowered = {w.lower() for w in words}

    def expand(m: re.Match[str]) -> str:
        letters = m.group(0).rstrip("s").lower() if m.group(0)[-1] == "s" else m.group(0).lower()
        if letters in lowered or m.group(0).lower() in lowered:
            return m.group(0)
        k = len(letters)
        for i in range(len(words) - k + 1):
            run = words[i:i + k]
            if "".join(w[0] for w in run).lower() == letters and all(len(w) > 1 for w in run):
                return " ".join(run)
        return m.group(0)

    return _INITIALISM.sub(expand, text)
