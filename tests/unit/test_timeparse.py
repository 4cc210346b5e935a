"""Relative-date resolution at write time and query windows at read time."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hindsight_core.lifecycle.timeparse import parse_query_window, resolve_time_refs

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)  # a Monday


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("I went to a support group yesterday", "2023-05-07"),
        ("last night was fun", "2023-05-07"),
        ("today I rest", "2023-05-08"),
        ("tomorrow we fly", "2023-05-09"),
        ("We met last Friday", "2023-05-05"),
        ("next Tuesday works", "2023-05-09"),
        ("3 days ago", "2023-05-05"),
        ("two weeks ago", "2023-04-24"),
        ("in 2 days", "2023-05-10"),
        ("on 8 May 2023", "2023-05-08"),
        ("May 7, 2023", "2023-05-07"),
        ("2023-04-01", "2023-04-01"),
        ("last weekend", "2023-05-06"),
        ("the week before", "2023-05-01"),
        ("the day before yesterday", "2023-05-06"),
    ],
)
def test_resolves_against_said_at(text: str, day: str) -> None:
    res = resolve_time_refs(text, SAID)
    assert res.occurred_at is not None and res.occurred_at.tzinfo is not None
    assert res.occurred_at.date().isoformat() == day
    assert res.refs


def test_months_and_years() -> None:
    assert resolve_time_refs("in May 2023", SAID).refs == ("may 2023=2023-05",)
    assert resolve_time_refs("back in 2022", SAID).occurred_at == datetime(2022, 1, 1, tzinfo=timezone.utc)
    assert resolve_time_refs("last month", SAID).refs == ("last month=2023-04",)
    assert resolve_time_refs("last year", SAID).refs == ("last year=2022",)


def test_refs_are_human_readable() -> None:
    assert resolve_time_refs("I went yesterday", SAID).refs == ("yesterday=2023-05-07",)


def test_nothing_to_resolve() -> None:
    res = resolve_time_refs("I may go to the park with 2022 friends", SAID)
    assert res.occurred_at is None


def test_naive_input_is_utc() -> None:
    res = resolve_time_refs("yesterday", datetime(2023, 5, 8))
    assert res.occurred_at == datetime(2023, 5, 7, tzinfo=timezone.utc)


def _days(window):
    return [d.date().isoformat() for d in window]


def test_query_windows() -> None:
    now = datetime(2023, 5, 10, tzinfo=timezone.utc)  # Wednesday
    assert _days(parse_query_window("what did we do last week?", now)) == ["2023-05-01", "2023-05-08"]
    assert _days(parse_query_window("what happened in May 2023?", now)) == ["2023-05-01", "2023-06-01"]
    assert _days(parse_query_window("yesterday?", now)) == ["2023-05-09", "2023-05-10"]
    assert _days(parse_query_window("anything in 2022", now)) == ["2022-01-01", "2023-01-01"]
    start, end = parse_query_window("what changed before June 2023?", now)
    assert end == datetime(2023, 6, 1, tzinfo=timezone.utc) and start < end
    start, end = parse_query_window("what did I do in the last 2 weeks", now)
    assert start.date().isoformat() == "2023-04-26" and end > now
    assert parse_query_window("When did Caroline go to the support group?", now) is None


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("I called her on Friday", "2023-05-05"),  # the misses, said on Monday 2023-05-08
        ("We will call her on Friday", "2023-05-12"),
        ("We flew out on the 5th of March", "2023-03-05"),
        ("I joined at 3pm", "2023-05-08T15:00"),
        ("Nos vimos el martes pasado", "2023-05-02"),
        ("Il y a deux semaines", "2023-04-24"),
        ("am 3. Mai 2022 umgezogen", "2022-05-03"),
    ],
)
def test_first_hour_forms(text: str, expect: str) -> None:
    got = resolve_time_refs(text, SAID).occurred_at
    assert got is not None and got.isoformat().startswith(expect)


def test_the_week_before_last_is_the_whole_week_two_weeks_back() -> None:
    res = resolve_time_refs("I was in Lisbon the week before last", SAID)
    assert res.refs == ("the week before last=2023-04-24..2023-04-30",)


def test_no_time_words_no_date() -> None:
    for text in ("May I ask a question?", "Call me at the office.", "The budget is 2000 dollars.", "Guten Morgen!"):
        assert resolve_time_refs(text, SAID).occurred_at is None, text


def test_accuracy_on_the_labelled_time_expressions(capsys) -> None:
    """The published figure (python -m benchmarks.time_expressions): >= 150 cases, 5 anchors, 4 languages."""
    from benchmarks.time_expressions import evaluate

    out = evaluate()
    with capsys.disabled():
        print(f"\ntime expressions: {out['accuracy']['all']}% of {out['cases']} resolved right")
    assert out["cases"] >= 150 and {k for k in out["accuracy"] if k.startswith("lang:")} >= {"lang:en", "lang:es"}
    assert out["accuracy"]["all"] >= 95.0, out["misses"]
    assert out["accuracy"]["form:none"] == 100.0  # no invented dates
