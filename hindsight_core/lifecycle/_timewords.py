"""Time words beyond English relative phrases: other languages (es, fr, de), clock times, and absolute
dates, which are read by ``dateparser``.

Finding a phrase is ours (regular expressions, fast on every captured text); turning an absolute date
phrase ("the 5th of March", "5 de marzo de 2021", "am 3. Mai") into a date is dateparser's, which knows
month names, ordinals and year-less dates in many languages. Year-less dates and "on <weekday>" take the
latest one up to the day said, or the next one when the sentence speaks of the future.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from functools import lru_cache

__all__ = ["ML_RULES", "ABS_DATE", "DAY_WORDS", "NUMBER_WORDS", "UNIT_WORDS", "WEEKDAYS", "SPAN_WORDS",
           "is_future", "parse_absolute"]

# Weekday names (Monday = 0) in each language.
WEEKDAYS: dict[str, int] = {}
for _names in ("monday tuesday wednesday thursday friday saturday sunday",
               "lunes martes miércoles jueves viernes sábado domingo",
               "lundi mardi mercredi jeudi vendredi samedi dimanche",
               "montag dienstag mittwoch donnerstag freitag samstag sonntag"):
    WEEKDAYS.update({n: i for i, n in enumerate(_names.split())})
WEEKDAYS["miercoles"], WEEKDAYS["sabado"] = 2, 5

MONTHS = {
    "en": "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?",
    "es": "enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre",
    "fr": "janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|novembre|décembre|decembre",
    "de": "januar|jänner|februar|märz|maerz|april|mai|juni|juli|august|september|oktober|november|dezember",
}
_ANY_MONTH = "|".join(f"(?:{m})" for m in MONTHS.values())

# Days relative to the day said.
DAY_WORDS = {
    "ayer": -1, "anteayer": -2, "antier": -2, "hoy": 0, "pasado mañana": 2,
    "hier": -1, "avant-hier": -2, "aujourd'hui": 0, "aujourd’hui": 0, "demain": 1, "après-demain": 2,
    "gestern": -1, "vorgestern": -2, "heute": 0, "übermorgen": 2,
}
NUMBER_WORDS = {
    "un": 1, "una": 1, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
    "nueve": 9, "diez": 10, "unos": 2, "unas": 2,
    "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9, "dix": 10,
    "quelques": 3,
    "einem": 1, "einer": 1, "einen": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7,
    "acht": 8, "neun": 9, "zehn": 10, "ein paar": 2,
}
UNIT_WORDS = {
    "día": "day", "días": "day", "dia": "day", "dias": "day", "semana": "week", "semanas": "week", "mes": "month",
    "meses": "month", "año": "year", "años": "year",
    "jour": "day", "jours": "day", "semaine": "week", "semaines": "week", "mois": "month", "an": "year",
    "ans": "year", "année": "year", "années": "year",
    "tag": "day", "tagen": "day", "woche": "week", "wochen": "week", "monat": "month", "monaten": "month",
    "jahr": "year", "jahren": "year",
}
# "last week" and friends: (unit, step).
SPAN_WORDS = {
    "la semana pasada": ("week", -1), "el mes pasado": ("month", -1), "el año pasado": ("year", -1),
    "la semana que viene": ("week", 1), "la próxima semana": ("week", 1), "el próximo mes": ("month", 1),
    "la semaine dernière": ("week", -1), "la semaine derniere": ("week", -1), "le mois dernier": ("month", -1),
    "l'année dernière": ("year", -1), "l’année dernière": ("year", -1), "la semaine prochaine": ("week", 1),
    "le mois prochain": ("month", 1),
    "letzte woche": ("week", -1), "letzten woche": ("week", -1), "vergangene woche": ("week", -1),
    "letzten monat": ("month", -1), "letztes jahr": ("year", -1), "nächste woche": ("week", 1),
    "nächsten monat": ("month", 1),
}

_WD = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_NUM = "|".join([r"\d+", *sorted(map(re.escape, NUMBER_WORDS), key=len, reverse=True)])
_UNIT = "|".join(sorted(map(re.escape, UNIT_WORDS), key=len, reverse=True))
_B = r"(?<![\w'’-])"  # a word start that also respects apostrophes and hyphens ("avant-hier")
_E = r"(?![\w'’-])"

ML_RULES = re.compile(
    rf"""{_B}(?:
    (?P<span>(?:{"|".join(sorted(map(re.escape, SPAN_WORDS), key=len, reverse=True))}){_E})
  | (?P<dword>(?:{"|".join(sorted(map(re.escape, DAY_WORDS), key=len, reverse=True))}){_E})
  | (?P<manana>(?<!la\s)(?<!esta\s)mañana{_E})
  | (?P<morgen>(?-i:morgen{_E}))
  | (?P<wlast>(?:(?:el\s+)?(?P<wl1>{_WD})\s+(?:pasado|dernier)|(?:letzten|vergangenen|letzter)\s+(?P<wl2>{_WD})){_E})
  | (?P<wnext>(?:(?:el\s+)?próximo\s+(?P<wn1>{_WD})|(?:el\s+)?(?P<wn2>{_WD})\s+(?:que\s+viene|prochain)
                   |(?:nächsten|kommenden)\s+(?P<wn3>{_WD})){_E})
  | (?P<ago>(?:hace|il\s+y\s+a|vor)\s+(?P<an>{_NUM})\s+(?P<au>{_UNIT}){_E})
  | (?P<onwd>on\s+(?P<onname>{_WD}){_E})
  | (?P<clock>at\s+(?:(?P<ch>\d{{1,2}})(?::(?P<cm>\d\d))?\s*(?P<ap>[ap]\.?m\.?)(?![\w])|(?P<ch24>\d{{1,2}}):(?P<cm24>\d\d)\b|(?P<noon>noon|midnight)\b))
    )
    """,
    re.IGNORECASE | re.VERBOSE,
)

# An absolute date phrase, with or without a year, in any of the languages above.
ABS_DATE = re.compile(
    rf"""{_B}(?:
      (?P<d1>\d{{1,2}})(?:st|nd|rd|th|er|\.)?\s+(?:of\s+|de\s+)?(?P<m1>{_ANY_MONTH})\.?(?:,?\s+(?:de\s+|of\s+)?(?P<y1>\d{{4}}))?
    | (?P<m2>{_ANY_MONTH})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)(?:,?\s+(?P<y2>\d{{4}}))?
    ){_E}""",
    re.IGNORECASE | re.VERBOSE,
)

_FUTURE = re.compile(
    r"\b(?:will|shall|going\s+to|gonna|plan(?:s|ned)?\s+to|is\s+due|due\s+on|starts?\s+on|upcoming|"
    r"vamos\s+a|va\s+a|será|serán|tendrá|voy\s+a|"
    r"va\s+\w+er|allons|sera|aura|"
    r"wird|werden|werde)\b|\w'll\b",
    re.IGNORECASE,
)


def is_future(text: str) -> bool:
    """Whether the sentence speaks of the future (then year-less dates and bare weekdays look forward)."""
    return bool(_FUTURE.search(text))


def _language(month: str) -> str:
    month = month.lower()
    for lang, pattern in MONTHS.items():
        if re.fullmatch(pattern, month, re.IGNORECASE):
            return lang
    return "en"


def parse_absolute(m: re.Match[str], now: datetime, future: bool) -> datetime | None:
    """The day an :data:`ABS_DATE` match names, read by dateparser (None if it is not a real date)."""
    day, month, year = (m.group("d1"), m.group("m1"), m.group("y1")) if m.group("d1") else (
        m.group("d2"), m.group("m2"), m.group("y2"))
    phrase = f"{int(day)} {month.rstrip('.')}" + (f" {year}" if year else "")
    return _parse(phrase, _language(month), now.date().isoformat(), future and not year)


@lru_cache(maxsize=4096)
def _parse(phrase: str, lang: str, base: str, future: bool) -> datetime | None:
    import dateparser

    settings = {"RELATIVE_BASE": datetime.fromisoformat(base), "PREFER_DATES_FROM": "future" if future else "past",
                "REQUIRE_PARTS": ["day", "month"], "RETURN_AS_TIMEZONE_AWARE": False}
    value = dateparser.parse(phrase, languages=[lang], settings=settings)
    if value is None:
        return None
    return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
