"""Relative and absolute time references: phrases found with regular expressions, absolute dates read
by ``dateparser`` (see :mod:`hindsight_core.lifecycle._timewords` for other languages and clock times).

* :func:`resolve_time_refs` runs at write time: "I went there yesterday", said on 8 May 2023,
  happened on 7 May 2023. The first resolved reference becomes the unit's ``occurred_at``.
* :func:`parse_query_window` runs at query time: "what did I do last week?" asked on a date
  gives the window ``[start, end)`` the temporal channel searches.

All datetimes are timezone-aware UTC, in and out (naive inputs are taken as UTC).

Example:
    >>> from datetime import datetime, timezone
    >>> said = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    >>> resolve_time_refs("I went to a support group yesterday", said).refs
    ('yesterday=2023-05-07',)
    >>> start, end = parse_query_window("what happened in May 2023?", said)
    >>> start.date().isoformat(), end.date().isoformat()
    ('2023-05-01', '2023-06-01')
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from hindsight_core.lifecycle import _timewords as tw

__all__ = ["TimeResolution", "resolve_time_refs", "parse_query_window"]

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
_MONTHS["sept"] = 9
_DAYS = {d.lower(): i for i, d in enumerate(calendar.day_name)}
_NUMS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2, "a couple of": 2,
    "couple": 2, "few": 3, "a few": 3, "several": 3,
}
_MONTH_RE = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_DAY_RE = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NUM_RE = r"(?:\d+|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT_RE = r"(?:day|week|month|year)s?"

_RULES = re.compile(
    rf"""
    \b(?:  # every alternative starts at a word boundary: tested once per position, not 15 times
      (?P<iso>(?P<iy>\d{{4}})-(?P<im>\d{{2}})-(?P<id>\d{{2}})\b)
    | (?P<dmy>(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH_RE})\.?,?\s+(?P<y1>\d{{4}})\b)
    | (?P<mdy>(?P<m2>{_MONTH_RE})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y2>\d{{4}})\b)
    | (?P<my>(?P<m3>{_MONTH_RE})\.?,?\s+(?P<y3>\d{{4}})\b)
    | (?P<dby>the\s+day\s+before\s+yesterday\b)
    | (?P<yday>(?:yesterday|last\s+night)\b)
    | (?P<today>(?:today|tonight|this\s+(?:morning|afternoon|evening))\b)
    | (?P<tmrw>tomorrow\b)
    | (?P<rel>(?P<rdir>last|this|next|past)\s+(?P<runit>week(?:end)?|month|year)\b)
    | (?P<wday>(?P<wdir>last|next|this)\s+(?P<wname>{_DAY_RE})\b)
    | (?P<ago>(?P<an>{_NUM_RE})\s+(?P<au>{_UNIT_RE})\s+ago\b)
    | (?P<inn>in\s+(?P<inn_n>{_NUM_RE})\s+(?P<inn_u>{_UNIT_RE})\b)
    | (?P<wbl>the\s+(?P<wblu>week|month|year)\s+before\s+last\b)
    | (?P<before>the\s+(?P<bu>day|week|month|year|weekend)\s+before\b)
    | (?P<year>(?:in|since|during|of|from|back\s+in)\s+(?P<yy>(?:19|20)\d\d)\b)
    )
    """,
    re.IGNORECASE | re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class TimeResolution:
    """What :func:`resolve_time_refs` found: the best date and every reference it resolved."""

    occurred_at: datetime | None
    refs: tuple[str, ...] = ()


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def _add_months(value: datetime, months: int) -> datetime:
    total = value.year * 12 + value.month - 1 + months
    year, month = divmod(total, 12)
    day = min(value.day, calendar.monthrange(year, month + 1)[1])
    return value.replace(year=year, month=month + 1, day=day)


def _num(word: str) -> int:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else _NUMS.get(word, 1)


def _shift(now: datetime, n: int, unit: str) -> datetime:
    unit = unit.lower().rstrip("s")
    if unit == "day":
        return now + timedelta(days=n)
    if unit == "week":
        return now + timedelta(weeks=n)
    if unit == "month":
        return _add_months(now, n)
    return _add_months(now, 12 * n)


def _day(dt: datetime) -> datetime:
    return dt.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_start(dt: datetime) -> datetime:
    return _day(dt).replace(day=1)


def _week_start(dt: datetime) -> datetime:
    return _day(dt) - timedelta(days=dt.weekday())


def _period(now: datetime, unit: str, step: int) -> tuple[datetime, datetime, datetime]:
    """The calendar week / month / year ``step`` periods from the one holding ``now``: (start, start, end)."""
    if unit == "week":
        start = _week_start(now) + timedelta(weeks=step)
        return start, start, start + timedelta(weeks=1)
    if unit == "month":
        start = _add_months(_month_start(now), step)
        return start, start, _add_months(start, 1)
    start = _month_start(now).replace(month=1, year=now.year + step)
    return start, start, start.replace(year=start.year + 1)


# Each resolver returns (label, representative datetime, window start, window end).
_Span = tuple[str, datetime, datetime, datetime]


def _resolve(m: re.Match[str], now: datetime) -> _Span | None:
    g = m.groupdict()
    text = " ".join(m.group(0).lower().split())
    try:
        if g["iso"]:
            d = datetime(int(g["iy"]), int(g["im"]), int(g["id"]), tzinfo=timezone.utc)
            return text, d, d, d + timedelta(days=1)
        if g["dmy"] or g["mdy"]:
            day, mon, year = (g["d1"], g["m1"], g["y1"]) if g["dmy"] else (g["d2"], g["m2"], g["y2"])
            d = datetime(int(year), _MONTHS[mon.lower()[:3]], int(day), tzinfo=timezone.utc)
            return text, d, d, d + timedelta(days=1)
        if g["my"]:
            d = datetime(int(g["y3"]), _MONTHS[g["m3"].lower()[:3]], 1, tzinfo=timezone.utc)
            return text, d, d, _add_months(d, 1)
    except (ValueError, KeyError):
        return None
    if g["dby"]:
        d = _day(now) - timedelta(days=2)
        return text, d, d, d + timedelta(days=1)
    if g["yday"]:
        d = _day(now) - timedelta(days=1)
        return text, d, d, d + timedelta(days=1)
    if g["today"]:
        d = _day(now)
        return text, d, d, d + timedelta(days=1)
    if g["tmrw"]:
        d = _day(now) + timedelta(days=1)
        return text, d, d, d + timedelta(days=1)
    if g["rel"]:
        step = {"last": -1, "past": -1, "this": 0, "next": 1}[g["rdir"].lower()]
        unit = g["runit"].lower()
        if unit == "weekend":
            sat = _week_start(now) + timedelta(days=5 + 7 * step)
            if step == -1 and now.weekday() >= 5:
                sat = _week_start(now) - timedelta(days=2)
            return text, sat, sat, sat + timedelta(days=2)
        if unit == "week":
            start = _week_start(now) + timedelta(weeks=step)
            return text, _day(now) + timedelta(weeks=step), start, start + timedelta(weeks=1)
        if unit == "month":
            start = _add_months(_month_start(now), step)
            return text, _add_months(_day(now), step), start, _add_months(start, 1)
        start = _month_start(now).replace(month=1, year=now.year + step)
        return text, _add_months(_day(now), 12 * step), start, start.replace(year=start.year + 1)
    if g["wday"]:
        target = _DAYS[g["wname"].lower()]
        direction = g["wdir"].lower()
        today = _day(now)
        if direction == "last":
            delta = (today.weekday() - target) % 7 or 7
            d = today - timedelta(days=delta)
        else:
            delta = (target - today.weekday()) % 7
            if direction == "next" and delta == 0:
                delta = 7
            d = today + timedelta(days=delta)
        return text, d, d, d + timedelta(days=1)
    if g["ago"] or g["inn"]:
        n = _num(g["an"] or g["inn_n"])
        unit = (g["au"] or g["inn_u"]).lower().rstrip("s")
        d = _shift(_day(now), -n if g["ago"] else n, unit)
        pad = {"day": 1, "week": 4, "month": 15, "year": 183}[unit]
        return text, d, d - timedelta(days=pad), d + timedelta(days=pad + 1)
    if g["wbl"]:
        return (text, *_period(now, g["wblu"].lower(), -2))
    if g["before"]:
        unit = g["bu"].lower()
        days = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}[unit]
        d = _day(now) - timedelta(days=days)
        return text, d, d - timedelta(days=days // 2), _day(now)
    if g["year"]:
        d = datetime(int(g["yy"]), 1, 1, tzinfo=timezone.utc)
        return text, d, d, d.replace(year=d.year + 1)
    return None


def _weekday(today: datetime, target: int, forward: bool, *, skip_today: bool) -> datetime:
    delta = ((target - today.weekday()) if forward else (today.weekday() - target)) % 7
    if delta == 0 and skip_today:
        delta = 7
    return today + timedelta(days=delta if forward else -delta)


def _resolve_ml(m: re.Match[str], now: datetime, future: bool) -> _Span | None:
    """Other languages, "on <weekday>" and clock times (a clock span has an empty window: no day)."""
    g = m.groupdict()
    text = " ".join(m.group(0).lower().split())
    today = _day(now)
    if g["span"]:
        unit, step = tw.SPAN_WORDS[text]
        start, _, end = _period(now, unit, step)
        return text, start, start, end
    if g["dword"] or g["manana"] or g["morgen"]:
        d = today + timedelta(days=tw.DAY_WORDS.get(text, 1))
        return text, d, d, d + timedelta(days=1)
    if g["wlast"] or g["wnext"] or g["onwd"]:
        name = next(g[k] for k in ("wl1", "wl2", "wn1", "wn2", "wn3", "onname") if g[k])
        forward = bool(g["wnext"]) or (bool(g["onwd"]) and future)
        d = _weekday(today, tw.WEEKDAYS[name.lower()], forward, skip_today=not g["onwd"])
        return text, d, d, d + timedelta(days=1)
    if g["ago"]:
        word = " ".join(g["an"].lower().split())
        n = int(word) if word.isdigit() else tw.NUMBER_WORDS.get(word, 1)
        unit = tw.UNIT_WORDS[g["au"].lower()]
        d = _shift(today, -n, unit)
        pad = {"day": 1, "week": 4, "month": 15, "year": 183}[unit]
        return text, d, d - timedelta(days=pad), d + timedelta(days=pad + 1)
    if g["clock"]:
        if g["noon"]:
            hour, minute = (12 if g["noon"].lower() == "noon" else 0), 0
        elif g["ch24"]:
            hour, minute = int(g["ch24"]), int(g["cm24"])
        else:
            hour, minute = int(g["ch"]) % 12 + (12 if g["ap"].lower().startswith("p") else 0), int(g["cm"] or 0)
        if hour > 23 or minute > 59:
            return None
        t = today.replace(hour=hour, minute=minute)
        return text, t, t, t  # empty window: a time of day, placed on the day the text speaks of
    return None


def _spans(text: str, now: datetime) -> list[_Span]:
    """Every time reference in ``text``, in reading order (overlaps: the longer phrase wins)."""
    future = tw.is_future(text)
    found: list[tuple[int, int, _Span]] = []
    for m in _RULES.finditer(text):
        if m.group("dmy") or m.group("mdy"):
            continue  # absolute dates are dateparser's (below)
        span = _resolve(m, now)
        if span is not None:
            found.append((m.start(), m.end(), span))
    for m in tw.ABS_DATE.finditer(text):
        d = tw.parse_absolute(m, now, future)
        if d is not None:
            found.append((m.start(), m.end(), (" ".join(m.group(0).lower().split()), d, d, d + timedelta(days=1))))
    for m in tw.ML_RULES.finditer(text):
        span = _resolve_ml(m, now, future)
        if span is not None:
            found.append((m.start(), m.end(), span))
    found.sort(key=lambda f: (f[0], f[0] - f[1]))
    out: list[_Span] = []
    end = -1
    for start, stop, span in found:
        if start >= end:
            out.append(span)
            end = stop
    return out


_SPECIFIC = ("iso", "dmy", "mdy")


def resolve_time_refs(text: str, said_at: datetime) -> TimeResolution:
    """Resolve the time references in ``text`` against ``said_at``.

    ``occurred_at`` is the first day-precise reference, else the first reference at all, else None.

    Example:
        >>> from datetime import datetime, timezone
        >>> r = resolve_time_refs("We met last Friday", datetime(2023, 5, 8, tzinfo=timezone.utc))
        >>> r.occurred_at.date().isoformat(), r.refs
        ('2023-05-05', ('last friday=2023-05-05',))
    """
    now = _utc(said_at)
    spans = _spans(text, now)
    clocks = [d for _, d, s, e in spans if s == e]
    days = [sp for sp in spans if sp[2] != sp[3]]
    if not days and not clocks:
        return TimeResolution(None, ())
    precise = [d for _, d, s, e in days if e - s <= timedelta(days=1)]
    when = precise[0] if precise else days[0][1] if days else _day(now)
    if clocks and (precise or not days):  # "yesterday at 9:30", "at 3pm": that day, that time
        when = when.replace(hour=clocks[0].hour, minute=clocks[0].minute)
    refs = tuple(f"{label}={_ref_value(d, s, e, when)}" for label, d, s, e in spans)
    return TimeResolution(when, refs)


def _ref_value(d: datetime, s: datetime, e: datetime, when: datetime) -> str:
    if s == e:
        return f"{when:%Y-%m-%dT%H:%M}"
    return d.date().isoformat() if (e - s) <= timedelta(days=1) else _label(s, e)


def _label(start: datetime, end: datetime) -> str:
    if start.day == 1 and end == _add_months(start, 1):
        return start.strftime("%Y-%m")
    if start.month == 1 and start.day == 1 and end == start.replace(year=start.year + 1):
        return str(start.year)
    return f"{start.date().isoformat()}..{(end - timedelta(days=1)).date().isoformat()}"


_ABS_KINDS = ("iso", "dmy", "mdy", "my")
_OPS = re.compile(r"\b(?P<op>before|after|since|until|till|prior\s+to|as\s+of|by)\s*$", re.IGNORECASE)
_ANCHORED = re.compile(
    rf"\b(?:the|last|that)\s+(?P<u>day|week|weekend|month|year|{_DAY_RE})\s+(?:just\s+)?before\s*$", re.IGNORECASE
)
_BETWEEN = re.compile(r"\bbetween\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)(?:[?.!;]|$)", re.IGNORECASE)
_RECENT = re.compile(rf"\b(?:in\s+the\s+|within\s+the\s+)?(?:last|past)\s+(?P<n>{_NUM_RE})\s+(?P<u>{_UNIT_RE})\b", re.IGNORECASE)
_BARE_MONTH = re.compile(
    rf"\b(?:in|during|of|early|late|mid|since|until|before|after)[\s-]+(?P<m>{_MONTH_RE})\b(?!\s*\d)", re.IGNORECASE
)
_BARE_YEAR = re.compile(r"(?<![\w-])(?<![A-Z][a-z] )(?P<y>(?:19|20)\d\d)(?![\w-])")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_SPAN_DAYS = {"day": 1, "week": 7, "weekend": 7, "month": 31, "year": 366}


def _absolute(text: str, now: datetime) -> list[tuple[int, int, datetime, datetime]]:
    """Absolute dates in ``text`` as (start offset, end offset, window start, window end)."""
    out: list[tuple[int, int, datetime, datetime]] = []
    for m in _RULES.finditer(text):
        if any(m.group(k) for k in _ABS_KINDS):
            span = _resolve(m, now)
            if span is not None:
                out.append((m.start(), m.end(), span[2], span[3]))
    for m in _BARE_MONTH.finditer(text):
        month = _MONTHS[m.group("m").lower()[:3]]
        year = now.year if month <= now.month else now.year - 1
        start = datetime(year, month, 1, tzinfo=timezone.utc)
        out.append((m.start("m"), m.end(), start, _add_months(start, 1)))
    for m in _BARE_YEAR.finditer(text):
        year = int(m.group("y"))
        if year <= now.year + 1 and not any(a <= m.start() < b for a, b, _, _ in out):
            start = datetime(year, 1, 1, tzinfo=timezone.utc)
            out.append((m.start(), m.end(), start, start.replace(year=year + 1)))
    out.sort(key=lambda x: x[0])
    return out


def parse_query_window(query: str, as_of: datetime) -> tuple[datetime, datetime] | None:
    """The ``[start, end)`` time window a query asks about, relative to ``as_of``; None if none.

    Absolute dates win over relative words ("last weekend before 4 October" is about October):
    "in May 2023", "on 3 June, 2023", "in June" (the latest June up to ``as_of``), "2022";
    "before/after/since/until/as of <date>", "the week (Monday, weekend ...) before <date>",
    "between <date> and <date>"; otherwise relative words: "yesterday", "last week", "this month",
    "3 days ago", "in the last 2 weeks". Vague words ("recently") give no window.

    Example:
        >>> from datetime import datetime, timezone
        >>> now = datetime(2023, 5, 10, tzinfo=timezone.utc)
        >>> [d.date().isoformat() for d in parse_query_window("what did we do last week?", now)]
        ['2023-05-01', '2023-05-08']
        >>> [d.date().isoformat() for d in parse_query_window("the week before August 3, 2023?", now)]
        ['2023-07-27', '2023-08-04']
    """
    now = _utc(as_of)
    found = _absolute(query, now)
    if found:
        m = _BETWEEN.search(query)
        if m and len(found) >= 2:
            inside = [f for f in found if m.start() <= f[0] < m.end()]
            if len(inside) >= 2:
                return min(f[2] for f in inside), max(f[3] for f in inside)
        pos, _, start, end = found[0]
        prefix = query[:pos]
        anchored = _ANCHORED.search(prefix)
        if anchored:
            return start - timedelta(days=_SPAN_DAYS.get(anchored.group("u").lower(), 7)), end
        op = _OPS.search(prefix)
        if op:
            word = op.group("op").lower()
            if word.startswith(("before", "prior")):
                return _EPOCH, start
            if word.startswith(("until", "till", "as", "by")):
                return _EPOCH, end
            if word == "since":
                return start, max(end, now + timedelta(days=1))
            return end, max(end, now + timedelta(days=1))
        return start, end
    m = _RECENT.search(query)
    if m:
        return _shift(_day(now), -_num(m.group("n")), m.group("u")), now + timedelta(days=1)
    spans = _spans(query, now)
    if not spans:
        return None
    _, _, s, e = spans[0]
    return s, e
