"""A word-for-word English gloss of a message in Spanish, French, German, Portuguese or Italian.

The bundled embedder and the word-order rules of :mod:`~hindsight_core.lifecycle.update_rules`
read English. A user whose facts are stored in English often changes one in another language:
"Os meus avós mudaram-se para Braga" for "My grandparents live in Faro". The two share no word, so
no English rule links them. :func:`gloss` writes such a message word for word in English ("my
grandparents moved to Braga"): the common words of everyday facts (people, places, times, food,
health, work, money, tools), the change cues ("ab sofort", "désormais", "ya no") and the numbers,
months and weekdays, from a small table; names, ids, numbers and loanwords are kept as written.
It is no translation: word order stays the source's and unknown words stay as they are. It is
enough for the rules to find the subject, the cue and the new value.

A message is read through its gloss only after the rules find nothing in it as written
(:func:`~hindsight_core.lifecycle.update_rules.update_strength`, :func:`~hindsight_core.lifecycle.rivals.rival`),
and never when it asks, supposes, plans or adds in its own language
(:func:`~hindsight_core.lifecycle.update_languages.glossable`).

Example:
    >>> gloss("Os meus avós mudaram-se para Braga no mês passado")
    'the my grandparents moved to Braga last month'
    >>> gloss("Mi hermana trabaja ahora como enfermera en la Clínica Santa Elena.")
    'my sister works now como nurse in the Clínica Santa Elena.'
    >>> gloss("Ab sofort kostet das Vollkornbrot 4,80.")
    'from now on costs the vollkorn bread 4.80.'
"""

from __future__ import annotations

import functools
import re
import unicodedata

from hindsight_core.lifecycle._glossary_table import TABLE

__all__ = ["gloss", "english_word"]


#: Words left untouched although a row lists them: English words too (a stray English word in the
#: message is more likely meant in English) and forms that clash across the five languages.
_KEEP = frozenset({"team", "hotel", "app", "budget", "server", "system", "status", "version", "restaurant", "steak",
                   "vegan", "bus", "baby", "partner", "date", "source", "files", "password", "repo", "job",
                   "training", "dose", "phase", "chat", "parking", "car",
                   "mal", "pro", "des", "ma", "mag", "will", "chef", "data", "base", "local", "lager",
                   "stand", "stock", "art", "plan", "hier", "box", "round", "visite", "runde", "rue"})


def _fold(text: str) -> str:
    """Lower case without accents, one apostrophe ("Thèse" -> "these", "größer" -> "grosser")."""
    text = text.lower().replace("ß", "ss").replace("’", "'")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


@functools.lru_cache(maxsize=1)
def _table() -> tuple[dict[str, str], dict[tuple[str, ...], str], tuple[tuple[str, str], ...]]:
    """``(word -> English, phrase words -> English, (stem, English) pairs)`` read from the table
    (:mod:`~hindsight_core.lifecycle._glossary_table`)."""
    words: dict[str, str] = {}
    phrases: dict[tuple[str, ...], str] = {}
    stems: list[tuple[str, str]] = []
    for line in TABLE.strip().splitlines():
        english, _, forms = line.partition(":")
        english = english.strip().replace("_", " ")
        for form in forms.replace("/", " ").split():
            form = _fold(form)
            if form.endswith("*"):
                stems.append((form[:-1], english))
            elif "_" in form:
                phrases.setdefault(tuple(form.split("_")), english)
            elif form != _fold(english) and form not in _KEEP:
                words.setdefault(form, english)
    return words, phrases, tuple(stems)


@functools.lru_cache(maxsize=1)
def _english() -> frozenset[str]:
    return frozenset(line.partition(":")[0].strip() for line in TABLE.strip().splitlines())


_TOKEN = re.compile(r"[^\W\d_][\w'’-]*(?:\.\d+)*|\d[\w.,:/-]*\w|\d|[^\w\s]", re.UNICODE)
_LONGEST_PHRASE = 5
#: An elided article or pronoun written onto the next word ("l'hôtel", "d'ora", "dell'ufficio").
_ELISION = re.compile(r"\b([lLdDjJcCnNmMsStT]|[qQ]u|[dD]ell|[aA]ll|[nN]ell|[sS]ull|[dD]all|[uU]n)['’](?=\w)")
#: A decimal comma ("7,20", "0,10 €") and a thousands point ("11.000", "18.500"), written the English way.
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])(\d+),(\d{1,2})(?!\d|[.,]\d)")
_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3})+(?!\d|[.,]\d)")
#: German function words: a message with two of them is German.
_GERMAN = frozenset("und ist der die das nicht mit ich wir auch jetzt bitte zu im vom ein eine den dem fur auf sind "
                    "haben wird noch schon mein meine meinen unser unsere als bei beim hat seit ab sofort aus sich "
                    "sie er wie nach".split())
#: Endings of plurals and verb persons a listed form may carry ("casas", "trabajan", "habitent", "wohnen").
_ENDINGS = ("s", "es", "n", "en", "e", "nt", "ent", "an", "am", "em")
#: Words between the parts of a name ("Avenida de la Constitución", "Clínica La Luz").
_NAME_PARTICLES = frozenset("de del la las los el da do das dos di della le les du".split())
#: "the sister of Jonas": the owner after the thing, as the five languages put it.
_OF_NAME = re.compile(r"\bthe ([a-z]+(?: [a-z]+)?) of ([A-Z][\w'-]+)")
#: "the pilates class of my mother": the owner after the thing.
_OF_OWNER = re.compile(r"\bthe ([a-z]+(?: [a-z]+)?) of (my|our|his|her|their|your) ([a-z]+)\b")
#: "the class of yoga": a noun qualified by a bare noun after it, as an English compound is before it.
_OF_NOUN = re.compile(r"\bthe ([a-z]+) of (?!(?:the|a|an|my|our|his|her|their|this|that|these|those|your|its|"
                      r"to|in|at|from|now)\b)([a-z]+)\b(?! [A-Z])")  # not a title: "of grandmother Edith"
#: "da" is "from" before a time in Italian ("da lunedì", "da domani"), "of the" in Portuguese.
_FROM_BEFORE_TIME = frozenset({"da"})
_TIME_WORDS = frozenset("monday tuesday wednesday thursday friday saturday sunday today tomorrow now january february "
                        "march april may june july august september october november december next".split())
#: Listed words no compound ends in ("mitm|acht" is no "eight").
_NOT_HEADS = frozenset("one two three four five six seven eight nine ten twelve twenty thousand the a in at to of and "
                       "but that is are not my our his her with without for has i we".split())
#: The shortest words a compound is split into ("Vollkorn|brot", "Schritt|ziel").
_COMPOUND_PART = 4


def english_word(word: str, compounds: bool = False) -> str | None:
    """The English of one word in the table (accents and case aside), or None. ``compounds``: the
    word may be a German compound ending in a listed word.

    Example:
        >>> english_word("Großmutter"), english_word("désormais"), english_word("Porto")
        ('grandmother', 'now', None)
    """
    words, _, stems = _table()
    folded = _fold(word)
    if folded in words:
        return words[folded]
    if folded in _english() and folded != word.lower():
        return folded  # "hôtel", "café": the English word with an accent
    for end in _ENDINGS:  # a plural or an inflected form of a listed word ("habitent" of "habite")
        base = folded[: -len(end)]
        if folded.endswith(end) and len(base) >= 4:
            for form in (base, base + "e", base + "o", base + "a"):
                if form in words:
                    return words[form]
    for stem, english in stems:
        if folded.startswith(stem) and len(folded) > len(stem):
            return english + " " + (english_word(folded[len(stem):]) or folded[len(stem):])
    if not compounds:
        return None
    # a German compound ends in a listed word: "Vollkornbrot" is a "vollkorn bread"
    for cut in range(_COMPOUND_PART, len(folded) - _COMPOUND_PART + 1):
        head = folded[cut:]
        english = words.get(head) or (head if head in _english() else None)  # "Monats|budget"
        if english and english not in _NOT_HEADS:
            left = folded[:cut]
            return f"{words.get(left) or words.get(left[:-1]) or left} {english}"
    return None


def _in_name(tokens: list[str], folded: list[str], i: int) -> bool:
    """Whether capitalised ``tokens[i]`` is part of a name: after a capitalised word the table does not
    know, or before one across a particle ("*Avenida* de la Constitución", "*Clínica* La Luz"). A listed
    word alone is glossed, German nouns included ("Meine Schwester" is "my sister"), and so is a
    title right before a name ("Abuela Rosa")."""
    if not tokens[i][:1].isupper():
        return False
    if i > 0 and tokens[i - 1] == "&":
        return True  # "Martin & Fils"
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(tokens) and folded[j] in _NAME_PARTICLES:
            j += step
        if step == 1 and j == i + 1:
            continue  # a title before a name is glossed: "Abuela Rosa", "Hotel Bellavista"
        if 0 <= j < len(tokens) and tokens[j][:1].isupper() and english_word(tokens[j]) is None:
            return True
    return False


@functools.lru_cache(maxsize=2048)
def gloss(text: str) -> str:
    """``text`` word for word in English where the table knows the words (see the module docstring).

    Names, numbers, ids and unknown words are kept as written; punctuation is kept. The result is
    for the rules to read, not for people."""
    _, phrases, _ = _table()
    text = _THOUSANDS.sub(lambda m: m.group(0).replace(".", ""), _DECIMAL_COMMA.sub(r"\1.\2", text))
    tokens = _TOKEN.findall(_ELISION.sub(r"\1' ", text))
    folded = [_fold(t) for t in tokens]
    german = len(_GERMAN.intersection(folded)) >= 2  # German runs nouns together: "Vollkorn|brot"
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for size in range(min(_LONGEST_PHRASE, len(tokens) - i), 1, -1):
            english = phrases.get(tuple(folded[i:i + size]))
            if english is not None:
                out.append(english)
                i += size
                break
        else:
            token = tokens[i]
            if folded[i] in _FROM_BEFORE_TIME and i + 1 < len(tokens) and (
                    tokens[i + 1][:1].isdigit() or english_word(tokens[i + 1]) in _TIME_WORDS):
                out.append("from")  # Italian "da lunedì" ("of" elsewhere: "da minha irmã")
                i += 1
                continue
            english = (english_word(token, compounds=german)
                       if token[0].isalpha() and not _in_name(tokens, folded, i) else None)
            out.append(token if english is None else english)
            i += 1
    english = re.sub(r"\s+([,.;:!?)])", r"\1", " ".join(out)).replace("( ", "(")
    english = _OF_NOUN.sub(r"the \2 \1", english)  # "the class of yoga" is "the yoga class"
    english = _OF_OWNER.sub(r"\2 \3's \1", english)  # "the class of my mother" is "my mother's class"
    return _OF_NAME.sub(r"\2's \1", english)  # "the sister of Jonas" is "Jonas's sister"
