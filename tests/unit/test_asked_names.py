"""A question that says which one it means: a later text naming another one of the kind does not answer it.

Every sentence here is written for these tests (none comes from a benchmark set).
"""

from __future__ import annotations

import pytest

from hindsight_core.lifecycle.asked_names import names_another
from hindsight_core.lifecycle.rival_model import Closeness, probability
from hindsight_core.lifecycle.rivals import rival

# (earlier statement, later text about another one of the kind, question naming the earlier one)
ANOTHER = [
    ("Lab C projector: Epson EB-X51, bulb changed in March.", "swapped the projector in Lab F for a BenQ today",
     "Which projector is in Lab C?"),
    ("The Android build ships through Bitrise, every merge to main.",
     "moved the iOS build over to Xcode Cloud, runs on every merge now",
     "What ships the Android build?"),
    ("Harlow Bakery gets its flour from Marston Mills, 25 kg sacks.",
     "Harlow Deli switched their flour to Pennine Grain last week",
     "Where does Harlow Bakery get its flour?"),
    # a name that merely starts like a month or a day is still a name
    ("Maya's team uses Jenkins for CI.", "fyi Ravi's team switched to GitHub Actions last sprint",
     "What does Maya's team use for CI?"),
]
# (earlier statement, later update that keeps or never needed the name, question)
SAME = [
    ("Lab C projector: Epson EB-X51, bulb changed in March.", "Lab C finally got a new projector, a BenQ MW560",
     "Which projector is in Lab C?"),
    ("Dr Okafor sees patients on Tuesdays.", "Dr O's clinic moved to Thursdays from next month",
     "Which day does Dr Okafor see patients?"),
    ("The client demo is on Monday.", "Client demo pushed to Wednesday, their CTO is away",
     "When is the client demo?"),
    ("Pilates with Jo is on Tues evenings.", "pilates w/ Jo moved to Thurs, same time",
     "Which evening is Pilates with Jo?"),
]


@pytest.mark.parametrize("older,newer,question", ANOTHER)
def test_another_named_one_does_not_answer(older, newer, question):
    assert names_another(older, newer, question)
    assert rival(older, newer, question) is None
    assert probability(older, newer, question, Closeness(0.7, 0.6, 0.7, True, True)) == 0.0


@pytest.mark.parametrize("older,newer,question", SAME)
def test_the_same_one_or_no_asked_name_is_not_another(older, newer, question):
    """An abbreviation ("Dr O"), a capital opening a sentence ("Client demo") or the same name kept."""
    assert not names_another(older, newer, question)


@pytest.mark.parametrize("word, calendar", [
    ("May", True), ("may's", True), ("Mondays", True), ("march", True), ("Sunday", True),
    ("Maya", False), ("Marchetti", False), ("Mayfield", False), ("Sunita", False), ("Mondo", False),
])
def test_a_day_or_month_is_a_whole_word(word, calendar):
    from hindsight_core.lifecycle.update_keys import day_or_month, stranger

    assert day_or_month(word) is calendar
    # a name that starts like a month is a word the earlier text lacks; the month itself is no value word
    assert stranger(word.lower(), ["the", "gym"]) is not calendar
