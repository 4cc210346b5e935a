"""Updates written in another language than the fact they change.

A user's English fact ("Yoga with Camille: Saturdays 10am, community hall") is often changed in a
message in Spanish, French, German, Portuguese or Italian ("Camille a déplacé le cours de yoga au
dimanche à 9h"). The bundled embedder is English-only, so the two texts sit far apart (cosine
0.05-0.5) and the English rules find no shared key. What still links them is written the same in
both languages: names, places, ids, loanwords ("yoga", "hotel", "pizza"), cognates ("conférence"),
compounds ("Lieblingsrestaurant"), and weekday names, which a small table translates.

The later text updates the earlier one when it is in one of those languages, carries a change cue
in it ("désormais", "ab sofort", "a partir de ahora"), names the earlier subject by such a word,
states a new value of the earlier value's kind (a new name for a name, a new number, another
weekday), and leaves the earlier value only where it is said to be gone ("Forno Rosso a fermé").
Questions, suppositions, one-off exceptions, plans, attempts and additions in those languages
change nothing.

Polish is read for its change words, weekdays and months only ("Od przyszłego tygodnia ... w środy",
"zamiast pierogów"): its names and everyday nouns are mostly not in the glossary.

When none of this finds a change, the English rules read the message again through its
word-for-word English gloss (:mod:`~hindsight_core.lifecycle.glossary`: "Os meus avós mudaram-se
para Braga" as "my grandparents moved to Braga"), unless :func:`glossable` sees a look-alike in it.

Example:
    >>> changed_in_other_language("Yoga with Camille: Saturdays 10am, community hall",
    ...                           "Camille a déplacé le cours de yoga au dimanche à 9h.")
    1.0
    >>> changed_in_other_language("Yoga with Camille: Saturdays 10am, community hall",
    ...                           "Si Camille déplace le cours au dimanche, on y va ?")
    0.0
"""

from __future__ import annotations

import functools
import re
import unicodedata

from hindsight_core.lifecycle._timewords import WEEKDAYS
from hindsight_core.lifecycle.glossary import gloss
from hindsight_core.lifecycle.slots import Reading, read, same_word
from hindsight_core.lifecycle.update_keys import CLOSE_SIM, day_or_month, key_and_value, number_like, present
from hindsight_core.lifecycle.update_values import same_number_kind

__all__ = ["is_foreign", "says_changed", "read_as_written", "in_other_language", "changed_in_other_language",
           "linked_across_languages", "glossable", "read_in_english", "english_gloss"]


def _fold(text: str) -> str:
    """Lower case without accents ("Thèse" -> "these", "Münchner" -> "munchner")."""
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


#: Function words of Spanish, French, German, Portuguese, Italian and Polish: a message with several is in one of them.
_FOREIGN_WORDS = frozenset("""el la los las que es pero por para una del al muy también está
le les des est et une pour avec dans sur pas plus nous vous je c'est aussi au aux
und ist der die das nicht mit ein eine ich wir ihr auch jetzt bitte zu im vom
em pode não uma com pra para você agora também estou está
il che non sono della per gli anche adesso de en y mi tu su lo se un ce qui ne à auf von den dem zum zur di
este esta nos hemos du chez ils elle sont mais très cette ces unser unsere unserem beim bei für noch nach wird
sind haben immer schon oder einen einem os dos meu minha meus nel alla da às ao porque tudo
nie się jest już będzie teraz też także że od przez jestem mam moja mój moje nasz nasza nasze dla tylko bardzo
więc dziś jutro który która oraz""".split())  # the last two lines: Polish
#: Letters only Polish writes: a word with one is a Polish word ("zmieniłam", "pociągiem"), though no function word.
_POLISH_LETTERS = re.compile(r"[ąęłśźżćń]")
_FOREIGN_MIN = 2  # distinct foreign function words that make a message foreign
_FOREIGN_SHARE = 10  # ... and at least one word in this many

#: A foreign "not ... any more X" / "instead of X": X is the old value, named as gone.
_FOREIGN_GONE = re.compile(r"\b(nicht mehr|statt|anstatt|ya no|no más|en vez de|em vez de|não mais|non più|plus|zamiast|"
                          r"au lieu de|invece di)\s+(\S+)", re.I)
#: "Now", "no longer", "from now on", "moved", "changed", "new", "raised" in those languages.
_FOREIGN_CUE = re.compile(
    r"\b(ahora|ya no|ya|desde ahora|desde (este|esta|hoy)|a partir d[aeo]s?|de ahora en adelante|al final|cambi\w+|"
    r"mud(amos|é|ó|ado|ada)|se ha mudado|migr\w+|nuev[oa]s?|en vez de|"
    r"maintenant|désormais|dorénavant|à partir d\w*|ne \w+ plus|n'\w+ plus|plus de|déménag\w+|déplac\w+|"
    r"repouss\w+|nouve(au|lle)s?|au lieu de|changé|passe à|"
    r"jetzt|nun|inzwischen|mittlerweile|nicht mehr|kein\w* mehr|ab sofort|ab jetzt|ab (morgen|montag|dienstag|"
    r"mittwoch|donnerstag|freitag|nächste\w*)|umgezogen|ge(ä|ae)ndert|verschoben|verlegt|erhöht|gesenkt|"
    r"stattdessen|neu(e|er|es|en)?|"
    r"agora|de agora em diante|não \w+ mais|mud(ou|amos|ei|aram)\w*|em vez de|adesso|ora|d'ora in poi|"
    r"non più|invece|spostat\w+|"
    r"teraz|od teraz|od (?:dziś|dzisiaj|jutra|przyszłego|następnego|poniedziałku|wtorku|środy|czwartku|piątku|soboty|"
    r"niedzieli)|już nie|zamiast|zmieni\w+|zmian\w+|przeni\w+|przesun\w+|przeprowadzi\w+|now(?:y|a|e|ego|ą))\b",
    re.I)
#: The clause says the earlier value is gone: closed, no longer, booked out, too dull, instead of it.
_GONE_CLAUSE = re.compile(
    r"\b(ya no|no más|ha cerrado|cerr(ó|aron|ado)|reformando|en vez de|"
    r"a fermé|fermé|n'est plus|ne \w+ plus|plus de|au lieu de|"
    r"nicht mehr|kein\w* \w* ?mehr|geschlossen|zu \w+ geworden|überbucht|ausgebucht|doppelt gebucht|(an)?statt \w|"
    r"não \w+ mais|fechou|em vez de|non più|chiuso|invece di|już nie|nie \w+ już|zamiast|zamknięt\w+)\b", re.I)
#: Look-alikes: a question, a supposition, a one-off exception, a plan, an attempt or an addition, not a change.
_FOREIGN_LOOK_ALIKE = re.compile(
    r"\?\s*$|^\s*(si|wenn|falls|se|quizás|vielleicht|peut-être|talvez|forse)\b|\b(solo|sólo|nur|juste|seulement|"
    r"só|apenas) (hoy|heute|aujourd'hui|hoje|oggi|esta semana|diese woche|cette semaine)|ausnahmsweise|"
    r"exceptionnellement|excepcionalmente|eccezionalmente|\b(wir wollen|"
    r"intent(é|amos|ó)|versucht|essayé|tentei|provato|pensamos|überlegen|"
    r"wollten?|quería(mos)?|voul(ais|ait|ions)|queria(mos)?|volev(o|amo)|"
    r"también|además|aussi|en plus|auch noch|zusätzlich|também|anche|"
    r"też|także|również|dodatkowo|próbowa\w+|chcieli\w*|chciała\w*|chciał\w*|planuje\w*|myślimy|"
    r"tylko (?:dziś|dzisiaj|w tym tygodniu)|wyjątkowo)\b|^\s*(?:jeśli|jeżeli|gdyby|może)\b", re.I)

#: "Going to" and a verb: a plan, unless the message says from when on ("a partir da próxima semana vou
#: fazer ...": the change, announced). "Voy a spinning" is "I go to spinning", a habit.
_FOREIGN_PLAN = re.compile(r"\b(?:voy|vamos|vou|je vais|on va|nous allons)\s+(?:a\s+)?\w+(?:ar|er|ir|re)\b", re.I)
_FROM_THEN = re.compile(r"\b(?:a partir d[aeo]s?|à partir d\w*|desde (?:este|esta|hoy|mañana|el)|dès|"
                        r"ab (?:nächste|morgen|sofort|jetzt))\b", re.I)


def _looks_alike(text: str) -> bool:
    """A question, a supposition, a one-off, a plan, an attempt or an addition in those languages."""
    return bool(_FOREIGN_LOOK_ALIKE.search(text) or (_FOREIGN_PLAN.search(text) and not _FROM_THEN.search(text)))


#: Weekday names in English and the five languages, accents folded, to the day's number (Monday = 0):
#: the time parser's table (en, es, fr, de; Portuguese shares "sábado" and "domingo"), and the other
#: Portuguese and the Italian names, which the time parser does not read ("a quinta vez" is "the
#: fifth time", not a Thursday).
_DAYS = {**{_fold(name): day for name, day in WEEKDAYS.items()}, "sonnabend": 5,
         **{name: day for day, names in enumerate((("segunda", "lunedi"), ("terca", "martedi"), ("quarta", "mercoledi"),
                                                   ("quinta", "giovedi"), ("sexta", "venerdi"), ("sabato",),
                                                   ("domenica",))) for name in names},
         # Polish, folded ("środy" -> "srody"), with the forms after "w" ("w środy") and "od" ("od środy")
         **{name: day for day, names in enumerate((
             ("poniedzialek", "poniedzialki", "poniedzialku"), ("wtorek", "wtorki", "wtorku"),
             ("sroda", "srode", "srody", "srodach"), ("czwartek", "czwartki", "czwartku"),
             ("piatek", "piatki", "piatku", "piatkowy", "piatkowe", "piatkowa"), ("sobota", "sobote", "soboty"),
             ("niedziela", "niedziele", "niedzieli"))) for name in names}}
#: Subject words too common to link two messages by themselves.
_WEAK_ANCHORS = frozenset({"team", "group", "new", "old", "weekly", "daily", "usual", "always", "every", "place"})
#: A label before the fact ("Noted:", "FYI -"), which is not its subject.
_LABEL = re.compile(r"^\s*(noted|note|fyi|reminder|for the record|update)\b[^:\-–—]{0,20}[:\-–—]\s*", re.I)
_WORD = re.compile(r"[^\W_][\w.'-]*", re.UNICODE)
_CAPITAL = re.compile(r"(?<![.!?:]\s)(?<!^)(?<![\w'])([A-Z][\w'-]+)")
_CLAUSES = re.compile(r"[,;!:()]|\.(?=\s|$)|\s[-–—]\s")


@functools.lru_cache(maxsize=4096)
def is_foreign(text: str) -> bool:
    """Whether ``text`` reads as Spanish, French, German, Portuguese, Italian or Polish: two of their
    function words or more (a word with a letter only Polish writes counts as one), and one word in ten
    at least (an English chat turn holds a stray "de" or "con").
    Cached: a capture asks it of the same pair several times (each other-language rule, then the
    guard before the English word-order rules), and recall of each statement in its head."""
    words = re.findall(r"[\w']+", text.lower())
    found = [w for w in words if w in _FOREIGN_WORDS or _POLISH_LETTERS.search(w)]
    return len(set(found)) >= _FOREIGN_MIN and len(found) * _FOREIGN_SHARE >= len(words)


def in_other_language(older: str, part: str, o: Reading, n: Reading, sim: float) -> bool:
    """A message in Spanish, French, German, Portuguese or Italian with a change cue in that language
    names another language to use, or another number of the earlier value's kind for a subject it
    names (a shared name or id, or a close enough meaning)."""
    if is_foreign(older) or not is_foreign(part) or not _FOREIGN_CUE.search(part):
        return False
    old_lang = {_LANGUAGE_GROUP.get(m.lower()[:4], m.lower()) for m in _LANGUAGE.findall(older)}
    new_lang = {_LANGUAGE_GROUP.get(m.lower()[:4], m.lower()) for m in _LANGUAGE.findall(part)}
    if old_lang and new_lang and not new_lang <= old_lang:
        return True
    old_nums = {t for t in o.tokens if number_like(t)}
    new_nums = [t for t in n.tokens if number_like(t) and not present(t, o)]
    subject = [w for w in key_and_value(older)[0] if not number_like(w)]
    shared = any(present(x, n) for x in list(o.names) + subject) or sim >= CLOSE_SIM
    kept = read(_FOREIGN_GONE.sub(" ", part))  # "nicht mehr 8443" names the old value as gone
    return bool(old_nums and new_nums and shared and not any(present(v, kept) for v in old_nums)
                and same_number_kind(old_nums, new_nums, o, n))


#: Names of languages in those languages and English: a reply-language preference changes by name.
_LANGUAGE = re.compile(
    r"\b(english|inglés|ingles|anglais|englisch|inglês|inglese|spanish|español|espagnol|spanisch|espanhol|spagnolo|"
    r"french|francés|français|französisch|francês|francese|german|alemán|allemand|deutsch|alemão|tedesco|"
    r"portuguese|portugués|portugais|portugiesisch|português|portoghese|italian|italiano|italien|italienisch)\b",
    re.I)
#: The first four letters of a language's name in any of the six languages, to the language.
_LANGUAGE_GROUP = {**{r: "en" for r in ("engl", "ingl", "angl")}, **{r: "es" for r in ("span", "espa", "spag")},
                   **{r: "fr" for r in ("fren", "fran")}, **{r: "de" for r in ("germ", "alem", "deut", "tede")},
                   **{r: "pt" for r in ("port",)}, **{r: "it" for r in ("ital",)}}


def says_changed(text: str) -> bool:
    """Whether a message in one of those languages carries a change cue ("ab sofort", "désormais")."""
    return is_foreign(text) and bool(_FOREIGN_CUE.search(text)) and not _looks_alike(text)


def read_as_written(text: str) -> bool:
    """Whether the English look-alike gates may read ``text`` as written: English, or another language
    with a change cue of its own ("ab sofort"); a message without one is read through its gloss, if at all."""
    return not is_foreign(text) or says_changed(text)


def _words(text: str) -> list[str]:
    return [w.strip(".'-") for w in _WORD.findall(_fold(text)) if w.strip(".'-")]


def _day(word: str) -> int | None:
    """The weekday a word names in any of the six languages ("mittwochs", "Saturdays"), else None."""
    w = word[:-1] if word.endswith("s") and word[:-1] in _DAYS else word
    return _DAYS.get(w)


def _matches(anchor: str, words: list[str]) -> bool:
    """``anchor`` (an earlier word, folded) is written in ``words``: the same word, a form of it
    ("berliner"), a compound ending in it ("lieblingsrestaurant") or the same weekday."""
    day = _day(anchor)
    for w in words:
        if (w == anchor or same_word(anchor, w) or (len(anchor) >= 5 and w.endswith(anchor))
                or (len(anchor) >= 3 and w.startswith(anchor) and len(w) - len(anchor) <= 1)  # "luka" (stemmed) / "lukas"
                or (len(anchor) >= 5 and _one_letter_apart(anchor, w))):  # "tokyo" / "tokio"
            return True
        if day is not None and _day(w) == day:
            return True
    return False


def _one_letter_apart(a: str, b: str) -> bool:
    """One vowel spelt another way ("tokyo" / "tokio"), not a consonant ("night" / "nicht")."""
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    return len(a) == len(b) and len(diff) == 1 and set(diff[0]) <= set("aeiouy")


@functools.lru_cache(maxsize=4096)
def _earlier(older: str) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str], frozenset[int], frozenset[str]]:
    """The earlier fact read once: subject anchors (its subject words and the names outside its value),
    value words, value numbers, value weekdays, value names."""
    older = _LABEL.sub("", older, count=1)
    subject, _, value = key_and_value(older)
    values = tuple(_fold(w) for w in value)
    older_names = [_fold(w) for w in read(older).names]
    outside = tuple(w for w in older_names if w not in values)
    anchors = tuple(dict.fromkeys(_fold(w) for w in subject + outside
                                  if not number_like(w) and len(w) >= 3 and w not in _WEAK_ANCHORS))
    numbers = frozenset(_fold(w) for w in value if number_like(w))
    days = frozenset(d for d in (_day(w) for w in values) if d is not None)
    names = frozenset(w for w in older_names if w in values and w not in anchors and not day_or_month(w))
    return anchors, values, numbers, days, names


def linked_across_languages(older: str, newer: str) -> bool:
    """Whether a foreign ``newer`` names the subject of an English ``older`` (worth comparing
    however far apart the two texts' embeddings are)."""
    if is_foreign(older) or not is_foreign(newer):
        return False
    anchors, _, numbers, _, names = _earlier(older)
    words = _words(newer)
    # its subject, or its value (said to be gone); or its subject's English word in the gloss ("pais" for "parents")
    return (_matches_any(anchors + tuple(names | numbers), words)
            or _matches_any(tuple(a for a in anchors if a not in _GLOSS_FUNCTION_WORDS), _words(gloss(newer))))


#: English words of the gloss too common to link two messages ("the", "my", "now").
_GLOSS_FUNCTION_WORDS = frozenset("the a an my our his her your their to of in at and but that is are not with "
                                  "without for has now new old from".split())


def glossable(older: str, newer: str) -> bool:
    """Whether ``newer`` is worth reading through its English gloss against ``older`` (read through
    its own gloss when it is in another language too): a message in one of the five languages, and
    no question, supposition, one-off, plan, attempt or addition in its own words (those change
    nothing, in any language).

    Example:
        >>> glossable("My grandparents live in Faro.", "Os meus avós mudaram-se para Braga.")
        True
        >>> glossable("My grandparents live in Faro.", "Talvez os meus avós se mudem para Braga.")
        False
    """
    return is_foreign(newer) and not _looks_alike(newer)


def read_in_english(older: str, newer: str) -> tuple[str, str] | None:
    """``(older, newer)`` as the English rules read them again when they find nothing in the pair as
    written: ``newer`` glossed, ``older`` glossed too when it is in one of the five languages; None
    when ``newer`` is not :func:`glossable`.

    Example:
        >>> read_in_english("My grandparents live in Faro.", "Os meus avós mudaram-se para Braga.")
        ('My grandparents live in Faro.', 'the my grandparents moved to Braga.')
    """
    if not glossable(older, newer):
        return None
    return (gloss(older) if is_foreign(older) else older), gloss(newer)


def english_gloss(text: str) -> str | None:
    """The word-for-word English gloss of a message in one of the five languages, which capture
    embeds beside the message (recall's judge weighs the pair through it: the bundled embedder reads
    English), or None for a text in English or with nothing to gloss.

    Example:
        >>> english_gloss("Os meus avós mudaram-se para Braga."), english_gloss("My grandparents live in Faro.")
        ('the my grandparents moved to Braga.', None)
    """
    if not is_foreign(text):
        return None
    glossed = gloss(text)
    return glossed if glossed.strip() and glossed != text else None


def _matches_any(anchors: tuple[str, ...], words: list[str]) -> bool:
    return any(_matches(a, words) for a in anchors)


def changed_in_other_language(older: str, part: str, message: str | None = None) -> float:
    """How surely ``part`` (a sentence of ``message``, or the whole message), in Spanish, French,
    German, Portuguese or Italian, changes the value of the English statement ``older`` (see the
    module docstring): 0.0 when it does not, 1.0 for a new number or weekday, 0.5 for a new name
    (a German noun is capitalised too). The change cue may sit in another sentence of the message."""
    message = message or part
    if (is_foreign(older) or not is_foreign(message) or _looks_alike(message)
            or not (_FOREIGN_CUE.search(message) or _GONE_CLAUSE.search(message))):
        return 0.0
    newer = part
    anchors, _, numbers, days, names = _earlier(older)
    older_words = set(_words(older))
    clauses = [(c, _words(c), bool(_GONE_CLAUSE.search(c))) for c in _CLAUSES.split(newer)]
    stated = [w for _, said, gone in clauses if not gone for w in said]  # what is gone is no new value
    new_numbers = {w for w in stated if number_like(w) and w not in older_words}
    said_days = {d for d in (_day(w) for w in stated) if d is not None}
    if days & said_days:
        return 0.0  # the earlier weekday still stands ("Saturdays, and Sundays now")
    new_days = said_days - days
    new_names = {w for w in {_fold(x) for c, _, gone in clauses if not gone for x in _CAPITAL.findall(c)} - older_words
                 if _day(w) is None and not day_or_month(w) and not any(_matches(a, [w]) for a in anchors)}
    named_gone = False  # the earlier value recurs only where it is said to be gone ("Forno Rosso a fermé")
    for _, said, gone in clauses:
        if not any(_matches(v, said) for v in names | numbers):
            continue
        if gone:
            named_gone = True
        elif not all(j + 1 < len(said) and said[j + 1] in new_names  # "im Chalet Bergkristall": a head of the new name
                     for j, w in enumerate(said) if any(_matches(v, [w]) for v in names | numbers)):
            return 0.0
    if not named_gone and not (anchors and _matches_any(anchors, [w for _, said, _ in clauses for w in said])):
        return 0.0
    if (numbers and any(_clock(w) == _clock(v) for w in new_numbers for v in numbers)) or (days and new_days):
        return 1.0
    return 0.5 if names and new_names else 0.0


def _clock(word: str) -> bool:
    """A time of day ("10:00", "7pm", "19h30", "9h"), as against another number."""
    return bool(re.fullmatch(r"\d{1,2}([:h.]\d{2}|h|am|pm|uhr)", word))
