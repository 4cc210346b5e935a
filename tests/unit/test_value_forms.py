"""Update forms read by the kind of attribute that changed (amount, kind switched, relationship,
attribute gone, new role), each with its look-alikes; sentences written for these tests."""

from __future__ import annotations

import pytest

from hindsight_core.lifecycle.gate import score_text
from hindsight_core.lifecycle.update_rules import judge_update
from hindsight_core.lifecycle.value_forms import FORMS, amounts, form_change


@pytest.mark.parametrize("text, expected", [
    ("The warranty covers two years.", ((2.0, "year"),)),
    ("we need 48 hours of notice", ((48.0, "hour"),)),
    ("three business days at most", ((3.0, "day"),)),
    ("twice a week", ((2.0, "time"), (1.0, "week"))),  # how many times, in one word
    ("pushed it back by two weeks", ()),  # a difference, not the amount
    ("it took two more weeks", ()),
    ("I saw her three weeks ago", ()),
    # units written on, other spellings of one unit, thousands, one-character fractions
    ("the cat gets 60g of wet food", ((60.0, "gram"),)),
    ("the cat gets 75 grams of wet food", ((75.0, "gram"),)),
    ("3,500 steps by lunch", ((3500.0, "step"),)),
    ("\u00bd cup of oats", ((0.5, "cup"),)),
    ("4 m3 of topsoil", ((4.0, "cubic"),)),
    ("meet at 9:30 on the 12th, 3pm", ()),  # times and ordinals are no amounts
])
def test_amounts_are_counts_and_durations(text, expected):
    assert amounts(text) == expected


@pytest.mark.parametrize("older, newer, form", [
    # amount: a duration in words or digits, under a change cue
    ("The onboarding course takes four weeks.", "HR shortened the onboarding course to ten days", FORMS[0]),
    ("Refunds are processed within 72 hours.", "refunds now get processed within one business day", FORMS[0]),
    ("We keep backups for 30 days.", "compliance made us extend backups to ninety days", FORMS[0]),
    # kind switched: the subject's noun, plural after a switch verb, with a new name
    ("Our plumber is Reyes Plumbing.", "we changed plumbers after the leak, Bright Flow Services comes now", FORMS[1]),
    ("The wedding caterer is Olive & Thyme.", "new caterer is Saffron Table, the old one went out of business", FORMS[1]),
    # relationship: the named partner, now engaged / married / separated
    ("I've been seeing Jonah for a year.", "Jonah and I split up over the summer", FORMS[2]),
    ("My partner Ines and I live in Lyon.", "Ines and I got married in June!", FORMS[2]),
    # attribute gone: "no <key> anymore"
    ("The expense report cutoff is the 20th.", "there's no expense report cutoff anymore, submit whenever", FORMS[3]),
    # new role: a named person now works as another role noun
    ("Mateo is a QA analyst.", "Mateo just started as product designer on the growth squad", FORMS[4]),
    # moved to a value of its type, whatever else the message says about the old one
    ("Choir practice is on Wednesdays.", "we moved choir practice to Thursdays, Wednesdays clash with league night",
     FORMS[5]),
    # a typed value corrected, a subject word reworded
    ("The venue deposit deadline is June 12.", "oops, the hall deposit deadline is June 19 actually", FORMS[6]),
    # another version of the same major number for a subject named by a part
    ("Our edge Nginx is on 1.24.", "edge proxy runs 1.26 now after the patch window", FORMS[7]),
    # another of a closed set of alternatives
    ("Show me temperatures in Celsius.", "please switch me to Fahrenheit, I'm in Chicago now", FORMS[8]),
    # a cabin, a plan's tier, a loyalty status: one at a time
    ("For the Oslo trip I'm booked in economy, seat 31A.", "got upgraded to business for the Oslo trip!", FORMS[8]),
    ("Our Notion workspace is on the free plan.", "we're on the Notion plus plan now, finally", FORMS[8]),
    ("My hotel loyalty status is Silver.", "my hotel loyalty status went up to Gold after that stay", FORMS[8]),
    ("For the Oslo trip I'm booked in economy.", "switched to premium economy for the Oslo trip", FORMS[8]),  # two words
    # a listed item done
    ("Move-out to-dos: deep clean, key handover, meter reading.", "deep clean is finished, the landlord was happy",
     FORMS[9]),
    # possible again
    ("My wrist is sprained, so no climbing for a while.", "hand surgeon says I can climb again", FORMS[10]),
    ("I can't drive until my licence is renewed.", "licence came through, I'm driving again", FORMS[10]),
    # a product named before another version, in pasted machine output
    ("The billing service is built with Rust 1.75.", "$ rustc --version\nrustc 1.79.0\nRust 1.79.0", FORMS[11]),
    ("Our docs site is on Node 18.17.", "docs site is on Node 20.11 now, bumped it in the last PR", FORMS[11]),
    # another model number of a capitalised product
    ("My e-reader is a Kindle Paperwhite 4.", "upgraded to the Paperwhite 5 last weekend", FORMS[12]),
    # a list stated again: an item kept, one gone, one new
    ("The quiz team members are Ana, Ravi and Tom.", "the quiz team is Ana, Ravi and Lucy (Tom moved away)", FORMS[13]),
])
def test_each_form_fires(older, newer, form):
    assert form_change(older, newer, 0.4) == form
    assert judge_update(older, newer, 0.4) is not None  # and the update rules reach it (maybe by an older rule)


@pytest.mark.parametrize("older, newer", [
    # amount look-alikes: no change cue, another unit, a difference, the same amount restated
    ("The onboarding course takes four weeks.", "I spent ten days in Lisbon after onboarding"),
    ("We keep backups for 30 days.", "we now keep backups for 30 days on the new cluster too"),
    ("The sprint is two weeks long.", "the release slipped by three days"),
    ("We have two cats.", "now we have two cats and a hamster"),
    # kind switched look-alikes: no new name, or the noun is not the earlier subject
    ("Our plumber is Reyes Plumbing.", "we changed plumbers once before, years ago"),
    ("I like the Grand Hotel.", "we switched hotels in Rome, the Albergo Sole was lovely"),
    # relationship look-alikes: someone else's engagement, no change of state
    ("I'm dating Jonah.", "my cousin Lara got engaged to Pete"),
    ("My wife Ines and I live in Lyon.", "Ines and I are still married, happily"),
    # attribute gone look-alikes: another key, or "no" about something else
    ("The expense report cutoff is the 20th.", "no more paper receipts, just photos"),
    # new role look-alikes: someone else's role, the same role, no start cue
    ("Mateo is a QA analyst.", "Mateo introduced me to the new product designer"),
    ("Mateo is a QA analyst.", "Mateo started this week as QA analyst for the mobile app too"),
    # moved-to look-alikes: another key moved, or the same value restated
    ("Choir practice is on Wednesdays.", "we moved the bake sale to Thursdays"),
    # correction look-alikes: another named subject, no correction cue, the value restated
    ("The venue deposit deadline is June 12.", "sorry, the Hartley venue deposit deadline is June 19"),
    ("The venue deposit deadline is June 12.", "the catering deposit deadline is June 19"),
    # version look-alikes: another environment, another major version line
    ("Staging Nginx is on 1.24.", "prod nginx is on 1.26 now"),
    # alternative look-alikes: someone else's, no change cue, both named
    ("Show me temperatures in Celsius.", "my aunt only thinks in Fahrenheit"),
    ("Show me temperatures in Celsius.", "now give me Celsius and Fahrenheit side by side"),
    ("For the Oslo trip I'm booked in economy.", "business class on the Oslo route looks lovely"),  # no change cue
    # list look-alikes: an item still open, an item not on the list
    ("Move-out to-dos: deep clean, key handover, meter reading.", "deep clean isn't finished, the oven is a disaster"),
    ("Move-out to-dos: deep clean, key handover, meter reading.", "the garage sale is done"),
    # possible-again look-alikes: still ruled out, or another activity again
    ("My wrist is sprained, so no climbing for a while.", "it hurts again, can't climb at all"),
    ("My wrist is sprained, so no climbing for a while.", "I'm swimming again, easy laps only"),
    # product version look-alikes: another subject in a message, the same version, a date after a month
    ("Our docs site is on Node 18.17.", "$ node --version\nv18.17.0\nNode 18.17"),
    ("The launch party is on March 3.", "we moved things around, the launch party is March 9 now"),
    ("My son is in Year 4 at Oakfield.", "now my nephew is in Year 2 at Oakfield too"),
    ("Note 3 from the standup: the search work is on track.", "Note 9 from the standup: the menu changes in May"),
    # list look-alikes: every item kept with one added, or no word of what the list is of
    ("The quiz team members are Ana, Ravi and Tom.", "quiz team this season: Ana, Ravi, Tom and Lucy"),
    ("The quiz team members are Ana, Ravi and Tom.", "dinner guests: Ana, Ravi and Lucy"),
])
def test_look_alikes_do_not_fire(older, newer):
    assert form_change(older, newer, 0.4) is None


@pytest.mark.parametrize("older, newer, changed", [
    ("The cat gets 60g of wet food a day.", "vet says the cat gets 45 g a day from now on, she's getting round", True),
    ("The cat gets 60g of wet food a day, in two meals.", "vet says cut the cat to 45 grams a day, still two meals", True),
    ("The cat gets 60g of wet food a day.", "the cat gets 60g a day now, weighed", False),  # the same amount
])
def test_an_amount_is_compared_unit_by_unit(older, newer, changed):
    """One unit changed is a change though another ("a day", "two meals") is restated; an effective time
    ("from now on") is the cue even after it is taken off the text."""
    assert (judge_update(older, newer, 0.5) is not None) is changed


def test_another_subjects_product_version_is_no_update():
    """A product's version in a message is read as a model change; the update rules then see the other subject."""
    assert judge_update("The billing service is built with Rust 1.75.", "the search service is on Rust 1.79 now", 0.5) \
        is None


def test_anchored_forms_reach_far_apart_texts(embedder):
    """A closed-set alternative is compared however far apart the two texts sit (a phone brand for a phone brand)."""
    from datetime import datetime, timedelta, timezone

    from hindsight_core import MemoryEngine

    t0 = datetime(2024, 5, 1, tzinfo=timezone.utc)
    with MemoryEngine.ephemeral(embedder=embedder) as engine:
        bank = engine.bank("anchored", lifecycle={"consolidate_every": 0})
        old = bank.capture("I've always been a Windows person.", mentioned_at=t0)
        new = bank.capture("finally unboxed my new MacBook, migrating everything tonight",
                           mentioned_at=t0 + timedelta(days=20))
        assert new.supersedes == (old.unit_id,)
        kept = bank.capture("I only wear running shoes from one brand.", mentioned_at=t0)
        other = bank.capture("my new MacBook sleeve arrived", mentioned_at=t0 + timedelta(days=21))
        assert other.supersedes == () and bank.get(kept.unit_id).status.value == "active"


def test_an_abbreviated_title_does_not_split_the_statement():
    older = "Our pediatrician is Dr. Amari at Northside Clinic."
    assert judge_update(older, "we switched pediatricians, the kids see Dr. Wells at Lakeview Health now", 0.5) \
        == FORMS[1]


@pytest.mark.parametrize("text, kept", [
    ("I'm vegan.", True),
    ("I am a pharmacist", True),
    ("I'm fine.", False),
    ("I'm tired", False),
])
def test_a_short_self_statement_is_a_fact_not_small_talk(text, kept):
    assert ("self" in score_text(text).reasons) is kept


def test_taking_another_tier_is_the_change():
    """No cue but the verb: "went premium", "moved up to the anytime plan"."""
    assert form_change("My climbing gym membership is the basic tier.", "went premium at the climbing gym today", 0.4)
    assert form_change("My climbing gym membership is the basic tier.", "the premium lounge at the gym looks nice",
                       0.4) is None
