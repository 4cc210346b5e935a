"""Changes of holder, place and name: a duty passed on, someone moved, something renamed.

In these the names are the *value* ("Tomas leads the mobile team" / "Priya now leads mobile"), so the
word-order rules, which read the first name as the subject, do not apply; each rule here checks that
the duty, the subject or the old name recurs instead.

Example:
    >>> from hindsight_core.lifecycle.slots import read
    >>> role_change("Tomas leads the mobile team.", "heads up, mobile is now led by Priya",
    ...             read("Tomas leads the mobile team."))
    'the duty passed to someone else'
"""

from __future__ import annotations

import re

from hindsight_core.lifecycle.slots import WHEN_SLOTS, Reading, STOP, abbreviates, content, read, same_word, slots
from hindsight_core.lifecycle.update_keys import NOT_VALUE, day_or_month, is_id, key_and_value, number_like, present

__all__ = ["role_change", "names_duty", "moved_elsewhere", "moved_thing", "renamed", "renamed_unnamed"]

#: Who does a job: verbs and nouns of a duty held by one person at a time.
_ROLE_WORDS = re.compile(
    r"\b(leads?|led|runs?|owns?|manages?|heads?|handles?|coordinates?|chairs?|covers?|organi[sz]es?|maintains?|"
    r"manager|boss|lead|owner|contact|poc|coordinator|head|point person|maintainer|ping|route|ask|reports? to|"
    r"leading|running|owning|organi[sz]ing|treasurer|secretary|president|chair\w*|captain|nurse|chef|dri|"
    r"organi[sz]er|rep|representative|signs? off|sign-off|booking|in charge|on call|supervisor|director|"
    r"pick-?up|drop-?off|school run)\b", re.I)
#: The duty passes to someone named after the cue ("Priya now leads", "handed to Yusuf", "I report to Ana now").
_TRANSFER = re.compile(
    r"\bnow (leads?|runs?|owns?|manages?|heads?|handles?|coordinates?|chairs?|covers?|organi[sz]es?|maintains?)\b|"
    r"\b(handed|passed|given|reassigned|transferred|moved|routed?|assigned|delegated|redirected|send|sent)"
    r"( (it|them|this|that|\w+ \w+))?( over)? to\b|"
    r"\bnow (owned|led|run|managed|handled|coordinated|headed|chaired|covered|maintained) by\b|"
    r"\b(took|takes|taking|taken) over\b|\bstep(ped|ping|s)? in\b|\bis (now )?the new\b|'s (now )?the new\b|"
    r"\bnew (lead|manager|owner|contact|head|coordinator|boss|poc|point person|maintainer|chair|chairperson|captain|"
    r"coach|president|treasurer|secretary|organi[sz]er|host|editor)\b|"
    r"\breports? to\b|\breporting to\b|"
    # "handing the refactor over to Yusra", "took it over", "stepping up as", "got elected", "picking up the file"
    r"\bhand(ed|ing|s)? ([\w'’-]+ ){0,6}over to\b|\b(took|takes|taking|taken) (it|this|that|them) over\b|"
    r"\bstep(ped|ping|s)? up as\b|\b(elected|appointed|promoted)\b|\bpicking up\b|"
    r"\bowns? (\w+ ){0,4}now\b|\b(is|'s) (now )?(the )?(dri|lead on|in charge of|charge on)\b|"
    r"\b(goes|go|going) to (?-i:[A-Z])|"
    # a round someone does now: "she's doing the Wednesday pickup", "is doing the midweek school run"
    r"\b(?:is|'s|’s|are|'re) (?:now )?doing (?:the|all the) (?:[\w-]+ ){0,2}(?:pick-?up|drop-?off|run|rota)s?\b"
    r"(?! (?:today|tonight|tomorrow|this (?:week|time)|for now|while|until)\b)", re.I)
#: Words of a duty that say nothing about which duty it is ("the mobile *team*").
_GENERIC_DUTY = frozenset({"team", "group", "program", "programme", "project", "squad", "org", "department", "dept",
                           "channel", "request", "requests", "thing", "stuff", "work"})
#: "I report to X" names the speaker's manager.
_REPORT_TO = re.compile(r"\breport(s|ing)? to\b", re.I)
_PROMOTION = re.compile(r"\b(promot\w*|promo|new title|new role|stepp(ed|ing) up)\b", re.I)
_DEPARTURE = re.compile(r"\b(retired|retiring|resigned|laid off|let go|stepped down|stepping down|quit (his|her|their|my|the)"
                        r" job|left (his|her|their|my|the) (job|company|firm|team)|between jobs|unemployed)\b", re.I)
_JOB = re.compile(r"\b(works? (as|at|for)|job|employed|career)\b", re.I)


def names_duty(text: str) -> bool:
    """``text`` names a duty someone holds ("Hilde chairs the subcommittee", "Maya is organising it")."""
    return bool(_ROLE_WORDS.search(text))


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
        if number_like(tok) or len(tok) < 4:
            continue
        stem = tok[:-1] if tok.endswith("e") else tok
        agents = [f"{stem}ers?", f"{stem}ors?"] + ([re.escape(tok) + "s?"] if _AGENT_SUFFIX.fullmatch(tok) else [])
        if re.search(r"\bnew (\w+ )?(" + "|".join(agents) + r")\b", part, re.I):
            return True
    return False


#: A capitalised word opening the text right before a transfer cue ("Priya now leads", "Tomasz is stepping
#: up as"): names() skips sentence openers, which are mostly common words, but here the word is the new doer.
_OPENING_NAME = re.compile(r"^\W*([A-Z][a-z'’-]+)(?:\s+(?:is|has|was|got|will))?\s*$")
#: A kinship or courtesy title and the word after it, right before a transfer cue, name a person even
#: in lower case, as chats write them ("uncle raj has taken over the organising").
_TITLED_NAME = re.compile(r"\b(?:uncle|aunt|auntie|aunty|cousin|grandma|grandpa|granny|nana|mr|mrs|ms|dr)\.?\s+"
                          r"([a-z][a-z'’-]+)(?:\s+(?:is|has|was|got|will))?\s*$", re.I)


#: Verbs of a household or work duty that one person holds at a time ("walks the dog", "does payroll"),
#: not of a liking or a habit that two people can share ("likes tea", "drives a Prius").
_DUTY = (r"(?:leads|runs|owns|manages|heads|handles|coordinates|chairs|covers|organi[sz]es|maintains|does|walks|"
         r"feeds|teaches|collects|cooks|cleans|looks after|takes care of)")
_DUTY_VERB = re.compile(r"\b" + _DUTY + r"\b", re.I)
#: A capitalised word opening the text, then a duty verb: names() skips sentence openers, but one
#: doing a duty is its new holder ("Corinne walks the dog now", "Marcus now runs payroll").
_OPENING_DOER = re.compile(r"^\W*([A-Z][a-z'’-]+)\s+(?:now\s+|also\s+)?" + _DUTY + r"\b")
#: Two hold the duty: "also", "too", "as well", "helps", "both", "with".
_SHARED = re.compile(r"\b(also|too|as well|helps?|helping|both|with (him|her|them)|together|sometimes|when)\b", re.I)
#: The later text says the duty changed hands now ("now", "from now on", "these days", "instead"), not
#: "now and then", "right now", "for now".
_CHANGE_NOW = re.compile(r"\b((?<!right )(?<!just )(?<!for )(?<!every )now(?! and (?:then|again))|from (now on|today|tonight|this \w+|next \w+)|going forward|these days|instead)\b", re.I)


def _duty_clause(older: str) -> str:
    """The clause of ``older`` that names the duty ("Kofi owns the imaging refactor" of "..., target is
    end of term"): its other clauses say more about the duty, which a handover need not repeat."""
    clauses = [c for c in re.split(r"[,;]\s+|\s+[-\u2013\u2014]\s+", older) if c.strip()]
    return next((c for c in clauses if _ROLE_WORDS.search(c)), older) if len(clauses) > 1 else older


def _distinct_duty(text: str, people: frozenset[str]) -> list[str]:
    """The words of ``text`` that say which duty it is: no person, role word or generic word."""
    return [w for w in content(text) if w not in people and not _ROLE_WORDS.fullmatch(w) and w not in NOT_VALUE
            and w not in _GENERIC_DUTY and not any(x.startswith(w) for x in people)]


def _new_name(word: str, o: Reading, known: frozenset[str] = frozenset()) -> bool:
    """``word``, a name of a later text, is a new one: not in the earlier reading ``o`` nor among ``known``
    (its people), no id, longer than two letters and no weekday or month ("moved to Wednesdays" names a
    time, not a new holder of a duty or a new place)."""
    return (not present(word, o) and word not in known and not is_id(word) and len(word) > 2
            and not day_or_month(word))


def role_change(older: str, part: str, o: Reading) -> str | None:
    """A duty held by one person passed to another, a title changed, or a job ended; or None.

    "Tomas leads the mobile team" / "Priya now leads mobile": the names are the *value* here, the
    duty ("mobile") is the key, so the word-order rules (which read the first name as the subject)
    do not apply. The duty's distinctive words must recur: "Hiroshi now leads the web team" is
    another duty.
    """
    n = read(part)
    people = _people(older, o)
    subject = [w for w in key_and_value(older)[0] if w not in people]
    if _JOB.search(older) and _DEPARTURE.search(part) and subject and any(present(w, n) for w in subject[-1:]):
        return "the job ended"
    if post_held_by_another(older, part):
        return "the duty passed to someone else"
    if not people:
        return None
    if _PROMOTION.search(part) and any(present(x, n) for x in people) \
            and re.search(r"\b(is|am|'m|are) (a|an|the)\b", older, re.I):
        return "promoted: the title changed"
    if _new_agent(o, part) and any(_new_name(x, o, people) for x in n.names):
        return "the duty passed to someone else"  # "Jamie walks the dog" / "new dog walker ... it's Corinne"
    transfer = _TRANSFER.search(part)
    doer = _OPENING_DOER.match(part)  # "Marcus runs payroll now": the opener does the earlier person's duty
    duty = _DUTY_VERB.search(older[:120]) if doer is not None else None
    if doer is not None and (_SHARED.search(part) or not _CHANGE_NOW.search(part) or duty is None
                             or not people - {doer.group(1).lower()}):
        doer = None
    if not doer and (not _ROLE_WORDS.search(older) or not transfer):
        return None
    if doer is not None:  # the duty's object, right after the earlier verb, must recur: "walks *the dog*"
        duty_obj = content(older[duty.end():])[:1]
        if duty_obj and any(present(w, n) for w in duty_obj) and any(
                not present(x, o) and x not in people for x in n.names | {doer.group(1).lower()}):
            return "the duty passed to someone else"
        if not _ROLE_WORDS.search(older) or not transfer:
            return None
    # "Priya now leads mobile": a name opening the text; "... uncle raj has taken over": a titled name
    opener = doer or _OPENING_NAME.match(part[:transfer.start()]) or _TITLED_NAME.search(part[:transfer.start()])
    named = n.names | ({opener.group(1).lower()} if opener else set())
    newcomers = [x for x in named if _new_name(x, o, people)]
    if not newcomers:
        return None
    distinct = _distinct_duty(_duty_clause(older), people) or _distinct_duty(older, people)
    if not distinct and re.search(r"\b(manager|boss)\b", older, re.I) and _REPORT_TO.search(part):
        return "the duty passed to someone else"  # "My manager is Greta" / "I report to Oluwaseun now"
    if not distinct:
        return None
    # the duty named where something is said to stay ("She's still doing her clinics") did not pass
    kept_apart = " ".join(s for s in re.split(r"(?<=[.!?])\s+|[,;]\s+", part) if not _STILL.search(s))
    passed = read(kept_apart)
    shared = [w for w in distinct if present(w, passed) or any(abbreviates(t, w) for t in passed.tokens)]
    return ("the duty passed to someone else" if len(shared) * 2 >= len(distinct) or _title_again(older, kept_apart)
            else None)


#: Posts one person holds at a time, read by both :data:`_TITLE` and :data:`_POST`.
_ONE_HOLDER = r"treasurer|secretary|captain|organi[sz]er|supervisor|director|coordinator"
#: A title: a role noun with the word that says which ("release manager", "PTA treasurer").
_TITLE = re.compile(rf"\b([a-z][\w-]+) ({_ONE_HOLDER}|manager|lead|owner|maintainer|chair)\b", re.I)


#: A number or version naming which one ("for v4.2", "for 5.0").
_NUMBERED = re.compile(r"\b[vV]?\d+(?:\.\d+)*\b")


def _title_again(older: str, part: str) -> bool:
    """The earlier statement's title said again, as written ("Release manager for v4.2 is Priyanka" /
    "Goran takes over as release manager for 4.2"): the title names the duty, whatever else the earlier
    text says, unless the later text numbers another one ("release manager for 5.0")."""
    numbered = {t.lower().lstrip("v") for t in _NUMBERED.findall(older)}
    if any(t.lower().lstrip("v") not in numbered for t in _NUMBERED.findall(part)):
        return False
    titles = {(m.group(1).lower(), m.group(2).lower()) for m in _TITLE.finditer(older)
              if m.group(1).lower() not in STOP}
    return any((m.group(1).lower(), m.group(2).lower()) in titles for m in _TITLE.finditer(part))


_STILL = re.compile(r"\b(still|stays?|staying|keeps?|keeping)\b", re.I)

#: A post one person holds at a time, by its noun ("treasurer", "head nurse"); the word before it may
#: say which ("*PTA* treasurer").
_POST = (rf"(?:{_ONE_HOLDER}|chair(?:person|woman|man)?|president|coach|head ?teacher|principal|head nurse|"
         r"nurse in charge|charge nurse|accountant|landlord|landlady|lead)")
_POST_IN = re.compile(rf"\b(?:([\w-]+) )?({_POST})\b", re.I)
#: A person's name: an optional honorific, then one or two capitalised words.
_PERSON = r"(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.? )?((?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+)?)"
#: Words before a post that make it another one, or one held beside or after the earlier holder.
_OTHER_POST = frozenset({"deputy", "assistant", "acting", "interim", "former", "ex", "old", "previous", "vice", "co",
                         "outgoing", "last", "other", "second", "junior", "associate", "trainee", "student",
                         "temporary", "temp", "relief", "locum", "agency", "next"})
#: Words before a post that only point at it ("*our* treasurer").
_POINTING = frozenset({"the", "our", "my", "your", "their", "his", "her", "new", "as", "a", "an"})


def post_held_by_another(older: str, part: str) -> bool:
    """The earlier statement names who holds a post ("the PTA treasurer is Mrs. Okonkwo-Hale") and the
    later text names someone else in that post, written the same way ("our PTA treasurer Mr. Dario
    Vescovi is happy to answer ...", "Lucy Brennan as head nurse needs to countersign"): one holder at a
    time, so the post passed on. Not a deputy, an acting or a former holder, nor the post of something
    else ("treasurer of the choir").

    Example:
        >>> post_held_by_another("Head nurse is Sandra Okafor.", "Lucy Brennan as head nurse signs it today")
        True
        >>> post_held_by_another("Head nurse is Sandra Okafor.", "Lucy Brennan as deputy head nurse signs it")
        False
    """
    posts: dict[str, str] = {}  # post -> the word that says which ("" when none)
    holder_named = False
    for m in _POST_IN.finditer(older):
        which = (m.group(1) or "").lower()
        posts[m.group(2).lower()] = "" if which in _POINTING or which in STOP else which
        holder_named = holder_named or _holder(older, m) is not None
    if not holder_named:
        return False
    o_words = {w.lower() for w in re.findall(r"[\w'’-]+", older)}
    for m in _POST_IN.finditer(part):
        post, which = m.group(2).lower(), (m.group(1) or "").lower()
        # the words between a pointing word and the post ("our *deputy* swim club secretary")
        before_words = re.findall(r"[\w'’-]+", part[:m.start()].lower())[-3:]
        while any(w in _POINTING for w in before_words):
            before_words = before_words[1:]
        if post not in posts or {which, *before_words} & _OTHER_POST or (posts[post] and which != posts[post]):
            continue
        if not posts[post] and which and which not in _POINTING and which not in STOP:
            continue  # "the choir treasurer" beside "the treasurer"
        after = part[m.end():]
        if (re.match(r"(?:'s|’s| of| for| at)\b", after)
                and not re.search(rf"{re.escape(post)}(?: of| for| at)\b", older, re.I)):
            continue  # "our treasurer's son", "the treasurer of the choir"
        holder = _holder(part, m, anew=True)
        if holder is None:
            continue
        named = [w for w in holder.group(1).split() if w.lower() not in STOP]
        if named and not any(w.lower() in o_words for w in named):
            return True
    return False


def _holder(text: str, post: re.Match[str], anew: bool = False) -> re.Match[str] | None:
    """The person named right after or right before ``post`` (a :data:`_POST_IN` match in ``text``);
    ``anew``: read as the later text, which may say who holds it now ("is now ...", "our new ...") and
    whose spacing before the post is not kept."""
    now, new = ("(?:now )?", "(?:new )?") if anew else ("", "")
    before = text[:post.start()].rstrip() + " " if anew else text[:post.start()]
    return (re.match(rf"(?:,? is {now}|:\s*|\s*[=—–-]\s*| ){_PERSON}", text[post.end():])
            or re.search(rf"{_PERSON}{_STARTED if anew else ''},? (?:is {now}|as )?(?:(?:the|our|my|your|their) )?{new}"
                         rf"\(?$", before))


#: The holder begins in the post: "Gemma's first week as network lead", "Gemma started as network lead".
_STARTED = r"(?:['’]s first (?:day|week|month|shift)s?|,? (?:started|starts|starting|began|begins))?"


#: Where someone or something is: "lives in", "is based in", "sits in", "is at".
_LOCATED = re.compile(r"\b(live[sd]?|living|based|located|sits?|stationed|hosted|held|(is|are|'s|'re) (at|in))\b", re.I)
#: It went elsewhere: "moved", "relocated", "new place", "move into".
_MOVED = re.compile(r"\b(moved|moving|move[sd]? (in)?to|relocat\w+|new (place|flat|apartment|house|home|office|address|"
                    r"venue|location|spot|digs|condo|bungalow|cottage|townhouse|studio|loft|villa|shop|premises|hq)|"
                    r"now (lives?|based|located)|set up shop|settled in at)\b", re.I)


#: Where a thing is kept: "keys live in", "is stored at", "hangs on", "is hosted on"; else a label "Passports: ...".
_KEPT = re.compile(r"\b(?:(?:lives?|kept|keeps?|stored|stores?|hangs?|sits?|hosted|located|parked)\s+"
                   r"(?:(?:the|a|an|my|our|his|her|their)\s+)?(?:[\w-]+\s+){0,3}?|(?:is|are)\s+(?:kept\s+|stored\s+|"
                   r"located\s+|hosted\s+|parked\s+|filed\s+)?)(?:in|on|at|with|by|under|inside|behind|next to)\b", re.I)
#: The thing was taken somewhere: a verb of moving a thing, then (a few words on) where to.
_MOVED_THING = re.compile(r"\b(moved|shifted|put|relocated|towed|wheeled|hauled|lifted|transferred|migrated|carried)\b"
                          r"(?P<what>(?:\s+[\w'’-]+){0,6}?)\s+(?:over\s+)?(?:into|to|onto|in|under)\s+(?P<where>[^,.;—]+)",
                          re.I)
#: Words that say where a note comes from, not what it is about.
_NOTE_WORDS = frozenset({"note", "noted", "newsletter", "reminder", "fyi", "user", "desk", "front"})
_THING_BEFORE = 6  # words before the verb that may name the thing ("the caravan's been towed to")


#: Before the verb: the move was tried, planned or wished for, not done.
_NOT_DONE = re.compile(r"\b(tried|trying|try|wanted|want|hoping|hope|planning|plan|might|may|could|would|should|will|"
                       r"going to|gonna)\b", re.I)
#: A team or a group is no place to keep a thing ("Lena moved over to the ranking team").
_GROUPS = frozenset({"team", "squad", "group", "department", "dept", "side", "project", "role", "job"})
_WHERE_OPENING = 3  # words after "to" that say whether it names a time ("to the 8:40 departure")
#: Which one of a kind, not the kind: "the *east* hose" is no word of "the east-section standpipe".
_SIDES = frozenset({"east", "west", "north", "south", "upper", "lower", "left", "right", "front", "back", "top",
                    "bottom", "old", "new", "main", "section", "side"})
_HEAD_WORDS = 3  # the last words of a thing's name before "for"/"of" ("the shockwave therapy machine")


def _head_words(phrase: str) -> list[str]:
    """The last words of what ``phrase`` names, before any "for"/"of" and after any comma or
    parenthesis: "the hose reel for the east section" -> hose, reel; "Backend repo uses ruff, config" ->
    config."""
    phrase = re.sub(r"\([^)]*\)", " ", phrase).rsplit(",", 1)[-1]
    phrase = re.split(r"\b(?:for|of|from|at|on|in|with)\b", phrase, maxsplit=1, flags=re.I)[0]
    return [w for w in content(phrase) if w not in _NOTE_WORDS and w not in _SIDES
            and not re.match(r"keeps?$", w)][-_HEAD_WORDS:]


def moved_thing(older: str, part: str) -> bool:
    """A thing kept somewhere ("Passports: blue folder, top shelf", "spare keys live in the blue bowl")
    was moved to a place the earlier statement does not name ("moved all the passports into the fire safe").
    A word of the thing must sit by the verb, and a word of the new place be new; the caller checks that
    the thing is not another one of its kind ("the finance team moved their dashboards")."""
    m = _KEPT.search(older)
    if m is not None:
        before = older[: m.start()].rsplit(":", 1)[-1]  # "Front desk note: the shockwave machine lives in"
    elif ":" in older:
        before = older.split(":", 1)[0]  # "Passports: blue folder"
    else:
        return False
    if m is not None and re.match(r"keeps?\b", m.group(0), re.I):  # "keeps the spare key with ...": it follows
        before = m.group(0)
    thing = _head_words(before)
    if not thing:
        return False
    known = content(older)

    def names_thing(words: tuple[str, ...]) -> bool:
        return any(any(same_word(w, t) for t in thing) for w in words)

    for mv in _MOVED_THING.finditer(part):
        lead = " ".join(re.split(r"[,.;:!?—]", part[: mv.start()])[-1].split()[-_THING_BEFORE:])
        where = content(mv.group("where"))
        said_first = " ".join(mv.group("where").split()[:_WHERE_OPENING])
        if _NOT_DONE.search(lead) or slots(said_first) & WHEN_SLOTS or any(w in _GROUPS for w in where):
            continue  # "tried to get Jean moved", "moved to Thursdays", "moved over to the ranking team"
        if (names_thing(content(mv.group("what"))) or names_thing(content(lead))) and \
                any(not any(same_word(w, k) for k in known) for w in where):
            return True
    return False


def moved_elsewhere(older: str, part: str, o: Reading, n: Reading) -> bool:
    """Someone or something located at a named place moved to another named place ("I live in
    Leith" / "Finally moved!! New place is in Portobello"); the subject's words must recur unless
    the statement is the speaker's own. (:func:`moved_thing`: a thing kept somewhere, moved to a place
    said in common words.)"""
    m = _LOCATED.search(older)
    if m is None or not _MOVED.search(part):
        return False
    after = older[m.end():].lower()  # the whole statement's names: "Tilburg" opens the rest, still a name
    places = [x for x in o.names | read(older[m.end():]).names if not is_id(x) and x in after]
    if not places:
        return False
    if not any(_at_place(x, part) for x in n.names if _new_name(x, o)):
        return False
    subject = [w for w in content(older[:m.start()]) if w not in o.names and not number_like(w)]
    distinct = [w for w in subject if w not in _GENERIC_DUTY]
    named = [x for x in o.names if x in older[: m.start()].lower()]  # "Bike shop Spoke & Co": Spoke recurs
    if (distinct or subject) and not any(present(w, n) for w in (distinct or subject) + named):
        return False
    return not any(_at_place(x, part) for x in places)  # "still in Leith": not moved


def _at_place(name: str, text: str) -> bool:
    """``name`` follows a place preposition in ``text`` ("in Portobello", "to The Crux")."""
    return bool(re.search(r"\b(in|at|to|into)\s+(the\s+)?" + re.escape(name) + r"\b", text, re.I))


_NAMING = re.compile(r"\b(named|called|name is|name's|names? (are|were)|known as|goes by|go by)\b", re.I)
_RENAMED = re.compile(r"\b(renam\w+|re-?brand\w*|(now|officially) (called|named|known as)|officially|goes by|going by|"
                      r"new name|name change|changed (his|her|their|its|the) name|"
                      r"(took|taking|takes|take) ((his|her|their) )?(\w+'s )?(last )?name)\b", re.I)
#: "she's Hannah Lindqvist now", "the release channel is called #launch-pad now", "it's 'Harbour Fitness' now",
#: "it's Harbour Arena on the match tickets now".
_NAME_NOW = re.compile(r"\b(is|'s|are|'re) (officially |now )?((?i:called|named) )?(['\"\u2018\u201c]?[A-Z][\w'&-]+"
                       r"( [A-Z][\w'&-]+){0,3}['\"\u2019\u201d]?|#[\w-]+)"
                       r"(?: (?:on|in|at|for|across)(?: [a-z]+){1,3}?)? now\b")


#: A channel named anew: "#launch-pad" is no capitalised name, yet a new one.
_NEW_CHANNEL = re.compile(r"(?:called|named) #[\w-]+")
#: "renamed #ops-alerts to #incidents", "renamed the 'Dispensary Shared' folder to 'Pharmacy Ops'".
_RENAME_TO = re.compile(r"\brenam\w*\s+(?P<old>\S.{0,40}?)\s+(?:to|as|into)\s+(?P<new>\S+)", re.I)


def _renamed_from(older: str, part: str, o: Reading) -> bool:
    """``part`` renames a name in the value of ``older`` (a name, a #channel, a quoted name) to one
    ``older`` lacks: "renamed the primary postgres host to ..." renames the host, not Postgres."""
    value = key_and_value(older)[2]
    for m in _RENAME_TO.finditer(part):
        said = read(m.group("old"))
        if any(present(x, said) for x in o.names if x in value) or any(
                w.lower() in older.lower() for w in re.findall(r"#[\w-]+|'[^']+'|\"[^\"]+\"", m.group("old"))):
            new = m.group("new").strip(".,'\"").lower()
            return bool(new) and new not in older.lower()
    return False


def _written_as_name(word: str, text: str) -> bool:
    """``word`` (a name as read, lower case) is written in ``text`` as a name: capitalised or after "#"
    or "@", and neither a month or weekday nor a short acronym ("GB", "USD" are units)."""
    if day_or_month(word):
        return False
    for m in re.finditer(r"(?<![\w-])[#@]?" + re.escape(word) + r"(?![\w-])", text, re.I):
        written = m.group(0)
        if written[0] in "#@" or (written[0].isupper() and not (written.isupper() and len(written) <= 3)):
            return True
    return False


def renamed(older: str, part: str, o: Reading, n: Reading) -> bool:
    """Something named or called X is now called Y ("the kitten is officially Waffles now", "she's
    Hannah Lindqvist now"): a rename cue, a new name, and the subject's words or its old name recur;
    or any name of the earlier statement renamed to another ("renamed #ops-alerts to #incidents")."""
    if _renamed_from(older, part, o):
        return True
    if not (_RENAMED.search(part) or _NAME_NOW.search(part)):
        return False
    if not any(_new_name(x, o) for x in n.names) and not _NEW_CHANNEL.search(part):
        return False
    m = _NAMING.search(older)
    if m is None:  # "My aunt is Carla Mendes" / "she's going by Carla Duarte now": a name in the value, said again
        subject, _, value = key_and_value(older)
        value_names = [x for x in o.names if x in value and _written_as_name(x, older)]
        nouns = [w for w in subject if w not in o.names and w not in _GENERIC_DUTY and not number_like(w)
                 and not _written_as_name(w, older)]  # "Priya lives in Pune": renaming Priya renames no value
        return bool(value_names) and (any(present(x, n) for x in value_names) or any(present(w, n) for w in nouns))
    subject = [w for w in content(older[:m.start()]) if w not in o.names and w not in _GENERIC_DUTY
               and not number_like(w)]
    after = content(older[m.end():])
    return any(present(w, n) for w in subject + [w for w in after if w not in o.names]) \
        or bool(o.names & (n.names | set(n.tokens)))  # the old name itself, not "#nimbus-core" for Nimbus


#: A new name written as one: quoted, or capitalised words after "it's", "as", "to" ("it's 'Forge Athletics' now",
#: "going out as 'Cazuela Carmen'", "the shop's Hearthloaf now").
_NEW_NAME = re.compile(r"(?:['\"\u2018\u201c][A-Z][\w'&-]*(?: [A-Z][\w'&-]*){0,3}['\"\u2019\u201d]|"
                       r"\b(?:is|'s|as|to) (?-i:[A-Z])[\w&-]+(?: (?-i:[A-Z])[\w&-]+){0,2} now\b)")
#: Renamed without a name said: "rebranded", "going out as", "the rebrand".
_REBRANDED = re.compile(r"\b(?:re-?brand\w*|renam\w+|going out as|now goes by)\b", re.I)


def renamed_unnamed(older: str, part: str, o: Reading) -> bool:
    """A rename said of the speaker's thing without naming it ("my box rebranded, it's 'Forge Athletics'
    now", "the pork & bean one is going out as 'Cazuela Carmen'"): a rename cue, a new name written as
    one, and an earlier statement whose value is one such name, not said again. The caller asks the
    two texts to be related (their cosine) and no other subject to be named."""
    if not _REBRANDED.search(part) or not _NEW_NAME.search(part):
        return False
    _, _, value = key_and_value(older)
    names = [x for x in o.names if x in value and _written_as_name(x, older) and not is_id(x)]
    return bool(names) and not any(re.search(rf"\b{re.escape(x)}\b", part, re.I) for x in names)
