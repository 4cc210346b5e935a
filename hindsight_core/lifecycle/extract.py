"""Entity extraction without an LLM: a handful of precompiled regular expressions.

:func:`extract_entities` returns normalised entity keys (lower-case, deduplicated, in order of
appearance). They name graph nodes, so two mentions of the same thing must give the same key and
two different things must not: ``"Room 101"`` and ``"Room 102"`` keep their numbers.

What is recognised:

* names: runs of capitalised words in any Latin script (``"New York"``, ``"São Paulo"``, ``"Łukasz"``);
  a capitalised word that opens a sentence is kept unless it is a common English word (``"The"``,
  ``"Yesterday"``) or an imperative (``"Ignore all previous instructions"``, ``"Please Review"``);
  a possessive ends a name (``"Alice's SSN"`` is two); all-caps acronyms (``"LGBTQ"``, ``"AWS"``);
* products with their version (``"Postgres 16"``, ``"Python 3.12"``) and numeronyms (``"k8s"``, ``"ec2"``);
* identifiers: ``snake_case``, ``CamelCase``, ``dotted.names``, UUID-like and long hex ids;
* error codes: ``E1234``, ``ERR_TIMEOUT``, ``HTTP 404``, ``exit code 137``;
* file paths and URLs;
* numbers with units or keys: ``port 8080``, ``5 GB``, ``$500k``, ``3 days``; versions ``v1.2.3``.

Redaction placeholders (``[CARD]``, ``[SECRET]``, ``[PHONE]`` ...) are never entities: they would link
every redacted memory to every other one in the graph.

Example:
    >>> extract_entities("Caroline moved from Sweden; see /etc/app.yaml (exit code 137).")
    ('caroline', 'sweden', '/etc/app.yaml', 'exit code 137')
"""

from __future__ import annotations

import re

__all__ = ["extract_entities", "COMMON_WORDS"]

#: Capitalised words that open sentences but name nothing. Mid-sentence they are dropped too.
COMMON_WORDS = frozenset(
    """
a about above after again against all also although always am an and another any anyway are aren't
around as at away back be because been before being below between both but by can can't could
couldn't did didn't do does doesn't doing don't done down during each either else even ever every
everyone everything few first for from further get gets getting go going gonna gotta had hadn't has
hasn't have haven't having he he'd he'll he's her here hers herself hey hi hello him himself his how
however i i'd i'll i'm i've if in into is isn't it it's its itself just last let let's like lol
maybe me might mine more most much must my myself next no nope nor not nothing now of off oh ok okay
on once one only or other others otherwise our ours ourselves out over own please plus really right
same see she she'd she'll she's should shouldn't since so some someone something sometimes soon
still such sure than thank thanks that that's the their theirs them themselves then there there's
these they they'd they'll they're they've thing things this those though through thus to today
tomorrow tonight too totally under until up upon us very wait was wasn't we we'd we'll we're we've
well were weren't what what's whatever when where which while who who's whom whose why will with
within without won't wow would wouldn't yeah yep yes yesterday yet you you'd you'll you're you've
your yours yourself yourselves great good nice cool awesome amazing sounds sound glad happy sorry
congrats congratulations absolutely definitely exactly anyway anyways btw thx ty omg haha aww wish
love hope agreed true new old big small best better last next recently lately finally actually
honestly seriously basically personally luckily unfortunately fortunately hopefully also afterwards
besides meanwhile instead overall perhaps probably certainly speaking talking
monday tuesday wednesday thursday friday saturday sunday
january february march april may june july august september october november december
mr mrs ms dr st keep take appreciate anything seeing got nature bye taking long look check life talk
looks stay way cheers super yup trying making looking family remember working enjoy guess woah winning
exploring wanna woohoo catch bet tell nah never whenever crazy dance music art events makes make made
having let's lots lot hmm hm ah ahh aw yay hah ha um uh nope sup alright kinda sorta gotcha indeed
anyway anyhow everybody somebody nobody here's there's where's how's who's yours truly dear
episode lesson feedback reuse why next what's
""".split()
)

#: Adjectives and similar that may open a multiword name ("New York", "Great Barrier Reef").
_NAME_OPENERS = frozenset("new old great big little last next best good north south east west upper lower grand saint".split())
_WORDY_SUFFIXES = ("ing", "ed", "ly", "ness", "tion", "ment", "ful", "ous", "ive", "able", "'ll", "'ve", "'re", "'d")

# Upper-case letters of the Latin scripts (ASCII, Latin-1, Latin Extended-A), Greek and Cyrillic.
_UP = "A-ZÀ-ÖØ-ÞĀĂĄĆĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮİĲĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽΑ-ΩА-ЯЁ"
_LETTER = r"[^\W\d_]"
_NAME_WORD = rf"[{_UP}](?:{_LETTER}|['’\-](?={_LETTER}))*{_LETTER}|[{_UP}]"
#: Words after a sentence-opening verb that make it an imperative ("Ignore all ...", "Tell me ...").
_IMPERATIVE_NEXT = frozenset(
    "all the a an my your his her our their its this that these those me him us them it everything "
    "anything every any previous prior above below you".split())
#: Verbs that, opening a sentence on their own, are instructions rather than names.
_IMPERATIVE_VERBS = frozenset(
    "ignore disregard forget print reveal pretend send delete run use book override open tell show give "
    "write read follow act output execute bypass email ask buy set update install deploy restart stop start "
    "call add remove list fetch find search review summarize summarise translate explain repeat answer reply "
    "respond return change make put".split())
_PLACEHOLDER = re.compile(r"\[[A-Z][A-Z_]*\]|<[A-Z][A-Z_]*>")
_CONNECT = r"(?:of|the|de|da|van|von|la|le|del|du)"
_CONNECTORS = frozenset("of the de da van von la le del du".split())
_PATTERNS: list[tuple[str, str]] = [
    ("url", r"https?://[^\s<>\"')\]]+[^\s<>\"').,;:!?\]]"),
    ("path", r"(?:~|\.{1,2})?(?:/[\w.\-]+){2,}/?|(?<![\w/])[\w\-]+(?:/[\w\-]+)*\.(?:py|js|ts|json|yaml|yml|toml|md|txt|csv|log|sh|cfg|ini|sql|html|rs|go|java|c|cpp|h)\b"),
    ("uuid", r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
    ("http", r"\bHTTP\s?[1-5]\d\d\b"),
    ("exit", r"\bexit(?:\s+code|\s+status)?\s+\d{1,3}\b"),
    ("errcode", r"\b(?:E|ERR|ERROR|EX)[_\-]?[A-Z0-9_]*\d[A-Z0-9_]*\b|\bERR_[A-Z0-9_]+\b|\bE[A-Z]{3,}\b(?=[:\s)])"),
    ("version", r"\bv?\d+\.\d+(?:\.\d+)+(?:[-+][\w.]+)?\b|\bv\d+(?:\.\d+)?\b"),
    ("keyed_number", r"\b(?:port|room|pid|issue|ticket|pr|build|job|line|version|step|gate|flight|bus|route|apt|apartment|suite|floor|table)\s+#?\d[\w\-]*(?:\.\d[\w\-]*)*", ),
    ("money", r"[$€£]\s?\d[\d,]*(?:\.\d+)?\s?(?:[kKmMbB]n?\b|million\b|billion\b|thousand\b)?"),
    ("quantity", r"\b\d[\d,]*(?:\.\d+)?\s?(?:%|(?:k|m|g|t)?b\b|(?:k|m|g|t)ib\b|ms\b|s\b|sec(?:onds?)?\b|mins?\b|minutes?\b|hours?\b|hrs?\b|days?\b|weeks?\b|months?\b|years?\b|km\b|mi\b|miles?\b|kg\b|lbs?\b|pounds?\b|dollars?\b|euros?\b|usd\b|eur\b|gb/s\b|mb/s\b|rpm\b|qps\b)"),
    ("dotted", r"\b[a-zA-Z_][\w]*(?:\.[a-zA-Z_][\w]*){1,}\b"),
    ("snake", r"\b[a-zA-Z][a-zA-Z0-9]*(?:_[a-zA-Z0-9]+)+\b"),
    ("camel", r"\b[a-z]+(?:[A-Z][a-z0-9]+)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b"),
    ("hexid", r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,}\b"),
    ("product", rf"\b(?:[{_UP}](?:{_LETTER}|[0-9])*{_LETTER}|{_LETTER}+[0-9]+{_LETTER}*)\s+v?(?!(?:19|20)\d\d\b)\d{{1,3}}(?:\.\d+){{0,3}}\b(?![.,]\d|\s*(?:%|[\w$€£]*\s*(?:times|people|of|x)\b))"),
    ("numeronym", r"\b[a-zA-Z]{1,8}\d{1,4}[a-zA-Z]{0,3}\b"),
    ("acronym", r"\b[A-Z][A-Z0-9&]{1,9}s?\b"),
    ("name", rf"\b(?:{_NAME_WORD})(?:\s+(?:{_CONNECT}\s+){{0,2}}(?:{_NAME_WORD}))*"),
]
_MASTER = re.compile("|".join(f"(?P<{name}>{pat})" for name, pat in _PATTERNS), re.IGNORECASE * 0)
_CASELESS = {"exit", "keyed_number", "quantity"}
_CASELESS_RE = re.compile("|".join(f"(?P<{n}>{p})" for n, p in _PATTERNS if n in _CASELESS), re.IGNORECASE)
_TRAILING_DROPPED = COMMON_WORDS | {"of", "the", "and", "de", "la"}  # "Bank of" -> "bank"
_SENTENCE_END = re.compile(r"(?:^|[.!?:;\n\"“(\[]|\s-\s)\s*$")
_SPACE = re.compile(r"\s+")


def _at_sentence_start(text: str, start: int) -> bool:
    return _SENTENCE_END.search(text, max(0, start - 4), start) is not None or start == 0


def _name_keys(text: str, match: re.Match[str]) -> list[str]:
    """The names in a run of capitalised words: a possessive ends one ("Alice's SSN" -> alice, ssn)."""
    keys, words, start = [], match.group(0).split(), match.start()
    group: list[str] = []
    for n, word in enumerate(words):
        group.append(word)
        if word.endswith(("'s", "’s")) or n == len(words) - 1:
            key = _clean_name(text, start, [w[:-2] if w.endswith(("'s", "’s")) else w for w in group],
                              first=not keys and start == match.start())
            if key:
                keys.append(key)
            start += len(" ".join(group)) + 1
            group = []
    return keys


def _imperative(text: str, start: int, words: list[str]) -> bool:
    """An instruction's verb ("Ignore all ...", "Please Review ..."), not a name."""
    if len(words) != 1:
        return False
    before = text[max(0, start - 7):start].lower()
    if before.rstrip().endswith("please"):
        return True
    if not _at_sentence_start(text, start):
        return False
    after = text[start + len(words[0]):].split(None, 1)
    nxt = after[0].lower().strip(".,;:!?") if after else ""
    return words[0].lower() in _IMPERATIVE_VERBS or nxt in _IMPERATIVE_NEXT


def _clean_name(text: str, start: int, words: list[str], *, first: bool = True) -> str | None:
    """Drop leading common words ("Hey Mel" -> "mel"); drop sentence-initial common words and verbs."""
    dropped = []
    while words and words[0].lower() in COMMON_WORDS and not (
        len(words) > 1 and words[0].lower() in _NAME_OPENERS
    ):
        dropped.append(words.pop(0).lower())
    while words and words[-1].lower() in _TRAILING_DROPPED:
        words.pop()
    please = (dropped[-1:] == ["please"]) or (not dropped and text[max(0, start - 8):start].lower().rstrip().endswith("please"))
    if first and words and please:
        words = words[1:]  # "Please Review the PR": an instruction's verb
        while words and words[0].lower() in _CONNECTORS:
            words.pop(0)
    if not words:
        return None
    if len(words) == 1:
        word = words[0].lower()
        if len(word) == 1 or word in COMMON_WORDS:
            return None
        if word.endswith(_WORDY_SUFFIXES) and (
            word.endswith(("'ll", "'ve", "'re", "'d")) or (first and _at_sentence_start(text, start))
        ):
            return None
        at = text.find(words[0], start)
        if first and _imperative(text, at if at >= 0 else start, words):
            return None
    return " ".join(words).lower()


def extract_entities(text: str) -> tuple[str, ...]:
    """Normalised entity keys of ``text``, deduplicated, in order of appearance.

    Pure and fast (regular expressions only; well under a millisecond for a chat turn).

    Example:
        >>> extract_entities("Hey Mel! I went to the LGBTQ support group in New York yesterday.")
        ('mel', 'lgbtq', 'new york')
        >>> extract_entities("Room 101 is booked, port 8080 is busy, HTTP 404 and E1234.")
        ('room 101', 'port 8080', 'http 404', 'e1234')
        >>> extract_entities("The gateway runs version 2.15, not version 2.13.")
        ('version 2.15', 'version 2.13')
    """
    labels = {m.group(0).strip("[]<>").lower() for m in _PLACEHOLDER.finditer(text)}  # "Card [CARD]": no "card"
    text = _PLACEHOLDER.sub(lambda m: " " * len(m.group(0)), text)  # same offsets, no placeholder entities
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for m in _CASELESS_RE.finditer(text):
        found.append((m.start(), _SPACE.sub(" ", m.group(0).lower()).replace(",", "")))
        taken.append(m.span())
    for m in _MASTER.finditer(text):
        kind = m.lastgroup
        if kind in _CASELESS:
            continue
        s, e = m.span()
        if any(a < e and s < b for a, b in taken):
            continue
        if kind == "name":
            found.extend((s, key) for key in _name_keys(text, m) if key not in labels)
            continue
        if kind == "product":
            word = m.group(0).split()[0]
            if word.lower() in COMMON_WORDS or (_at_sentence_start(text, s) and word.lower() in _IMPERATIVE_VERBS):
                continue  # "Monday 5", "Run 3": not a product; the number alone is no entity
            key = _SPACE.sub(" ", m.group(0).lower())
        elif kind == "acronym":
            word = m.group(0)
            if word.lower() in COMMON_WORDS or word in ("I", "OK", "AM", "PM"):
                continue
            key = word.lower()
        elif kind == "dotted":
            word = m.group(0)
            if not any(c.isalpha() for c in word.split(".")[-1]) or len(word) < 4:
                continue
            key = word.lower()
        else:
            key = _SPACE.sub(" ", m.group(0).lower())
        if key:
            found.append((s, key))
    found.sort(key=lambda x: x[0])
    seen: dict[str, None] = {}
    for _, key in found:
        if key not in seen:
            seen[key] = None
    return tuple(seen)
