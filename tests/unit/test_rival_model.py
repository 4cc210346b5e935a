"""The learned present-value judge: its gate, its weights, its fit, and how earlier_rivals consults it."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.rival_model import fit, leave_one_set_out
from hindsight_core.lifecycle._rival_weights import WEIGHTS
from hindsight_core.lifecycle.rival_model import FEATURES, MIN_CLOSENESS, Closeness, features, probability
from hindsight_core.lifecycle.rivals import MIN_GAP_S, Statement, earlier_rivals

DAY = 86400.0
NEAR = Closeness(0.6, 0.5, 0.7, True, True)


def test_the_shipped_weights_are_fitted_for_these_signals():
    assert WEIGHTS["features"] == list(FEATURES)
    assert len(WEIGHTS["coef"]) == len(WEIGHTS["mean"]) == len(WEIGHTS["scale"]) == len(FEATURES)
    assert 0.5 <= WEIGHTS["threshold"] < 1.0


@pytest.mark.parametrize("later", [
    "should we move the backups to 4am?",  # a question
    "thinking about moving the backups to 4am",  # a plan
    "the backups did not move, ignore the rumour",  # a denial
    "we also run a weekly full backup on Sundays",  # an addition
])
def test_look_alikes_as_a_whole_are_never_judged(later):
    older, q = "Our backups run at 2am every night.", "When do our backups run?"
    assert features(older, later, q, NEAR) is None
    assert probability(older, later, q, NEAR) == 0.0


def test_two_labelled_speakers_in_their_own_voice_are_never_judged():
    """ "Ana: my ..." and "Ben: I'm ..." are each speaker's own; one label, or the same one, is judged, and so
    is what two labelled members of a group chat say of a shared thing (landing 55)."""
    q = "What's the half-marathon goal?"
    assert features("Ana: my half-marathon goal is 1:55.", "Ben: I'm going for 1:45 in the half", q, NEAR) is None
    assert features("Ana: my half-marathon goal is 1:55.", "Ana: I'm going for 1:45 in the half now", q, NEAR) \
        is not None
    # a label in the speaker's own voice, whatever follows it ("I've gone back to ...")
    assert features("Ravi: I'm vegan, no cheese on mine please.",
                    "Lena: I've gone back to eating cheese, Ravi's the last holdout now", "Does Ravi eat cheese?",
                    NEAR) is None
    pacer = "Who is the club's half-marathon pacer?"
    assert features("Ana: the club's half-marathon pacer is Joe.", "Ben: Maria is the club's half-marathon pacer now",
                    pacer, NEAR) is not None


def test_a_later_text_far_from_the_earlier_one_is_not_judged():
    far = NEAR._replace(on=MIN_CLOSENESS - 0.01)
    assert features("Our backups run at 2am every night.", "backups kick off at 4:30 now", "When?", far) is None


def test_a_change_buried_in_a_long_message_is_judged_though_it_sits_far_from_its_fact():
    """A message of several matters sits far from the one fact it changes (cosine about 0.2): from landing 58
    the judge reads such pairs down to 0.15, below the 0.25 its weights were fitted from."""
    older, q = "Grandma takes her blood pressure tablets at 8am.", "When does Grandma take her tablets?"
    later = ("Long day. The boiler's fixed, the kids were off school, and the GP says grandma's tablets are "
             "at 9pm now because of the dizziness. The dog needs worming too.")
    assert features(older, later, q, NEAR._replace(on=0.2)) is not None
    assert features(older, later, q, NEAR._replace(on=0.14)) is None


def test_signals_come_in_feature_order_and_probability_is_a_probability():
    x = features("Our backups run at 2am every night.", "nightly backup job kicks off at 4:30 these days",
                 "When do our backups run?", NEAR)
    assert x is not None and len(x) == len(FEATURES)
    assert x[:5] == (0.6, 0.5, 0.7, 1.0, 1.0)
    assert 0.0 < probability("Our backups run at 2am every night.", "nightly backup job kicks off at 4:30 these days",
                             "When do our backups run?", NEAR) < 1.0


def test_closer_texts_rate_higher_all_else_equal():
    args = ("Our backups run at 2am every night.", "nightly backup job kicks off at 4:30 these days",
            "When do our backups run?")
    low = probability(*args, NEAR._replace(on=0.3, best_for_question=False, best_for_newer=False))
    high = probability(*args, NEAR._replace(on=0.8))
    assert high > low


def test_fit_separates_a_separable_problem():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 2))
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(float)
    model = fit(x, y)
    z = model["intercept"] + ((x - model["mean"]) / np.array(model["scale"])) @ np.array(model["coef"])
    assert np.mean((z > 0) == (y > 0)) > 0.95
    assert model["coef"][0] > model["coef"][1] > 0


def test_leave_one_set_out_counts_gated_pairs_as_not_let_answer():
    rng = np.random.default_rng(1)
    rows = []
    for s in ("a", "b", "c"):
        for n in range(40):
            y = n % 2
            rows.append({"set": s, "role": "update" if y else "look-alike", "y": y,
                         "x": (float(y) + rng.normal(scale=0.1), rng.normal())})
        rows.append({"set": s, "role": "look-alike", "y": 0, "x": None})  # gated
    out = leave_one_set_out(rows, 0.5)
    assert out["all"]["update"] == 1.0
    assert out["all"]["look-alike"] == 0.0 and set(out) == {"a", "b", "c", "all"}


def _s(uid: str, text: str, day: float, **kw) -> Statement:
    return Statement(uid, text, day * DAY, **kw)


def test_earlier_rivals_asks_the_judge_only_where_the_rules_name_nothing():
    asked: list[tuple[str, list[str]]] = []

    def judge(newer, earlier):
        asked.append((newer.id, [o.id for o in earlier]))
        return earlier[0]

    tea = [_s("tea", "I drink my tea with honey.", 0),
           _s("new", "been having my tea with lemon every afternoon since the cold", 30)]
    assert earlier_rivals(tea, "How do I drink my tea?", judge) == {"tea": "new"}
    assert asked == []  # the rules decided

    backups = [_s("old", "Our backups run at 2am every night.", 0),
               _s("new", "nightly backup job kicks off at 4:30 these days", 30)]
    assert earlier_rivals(backups, "When do our backups run?", judge) == {"old": "new"}
    assert asked == [("new", ["old"])]
    assert earlier_rivals(backups, "When do our backups run?", lambda n, e: None) == {}


def test_the_judge_never_sees_pairs_the_rules_of_time_speaker_and_trust_exclude():
    def judge(newer, earlier):
        raise AssertionError(f"judge asked about {newer.id}")

    older = _s("a", "Our backups run at 2am every night.", 0)
    q = "When do our backups run?"
    assert earlier_rivals([older, _s("b", "backups at 4:30", MIN_GAP_S / DAY / 2)], q, judge) == {}
    assert earlier_rivals([older, _s("b", "backups at 4:30", 3, speaker="Bo")], q, judge) == {}
    assert earlier_rivals([older, _s("b", "backups at 4:30", 3, source="agent")], q, judge) == {}


def test_the_fitting_benchmark_runs_end_to_end(tmp_path):
    """A smoke run of ``python -m benchmarks.rival_model`` (hash embedder: seconds, figures meaningless)."""
    import json

    from benchmarks.rival_model import FIT_SETS, FRESH, main

    out = tmp_path / "fit.json"
    assert main(["--embedder", "hash", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    held = {p.stem for p in FRESH.glob("set_*.json")} - set(FIT_SETS)
    assert report["pairs"] > 1000 and set(report["held_out"]) == (held | {"all"} if held else set())
    assert {"update", "look-alike", "distractor", "random"} <= set(report["leave_one_set_out"]["all"])


def test_an_addition_opening_a_longer_message_is_never_judged():
    older, q = "Our cat Miso is a grey tabby.", "What is our cat like?"
    later = "We've taken in a second cat, a ginger kitten called Yuzu. Miso is sulking about it."
    assert features(older, later, q, NEAR) is None
    # an "also" opening a later sentence may turn to another matter: the pair is still judged
    assert features("Choir rehearsals are on Mondays.",
                    "Great concert! Also, from next week rehearsals move to Thursdays.", "When are rehearsals?",
                    NEAR) is not None


@pytest.mark.parametrize("older, later, question", [
    # another of a kind, as capture reads it: placed elsewhere, another named office, another branch
    ("My favourite bakery near work is Crumb & Crust.", "found a new favourite bakery near home, Loaf Lane, right by "
     "the station", "What's my favourite bakery near work?"),
    ("The firm's Leeds office is on Park Row, third floor.", "Big news, the York office is moving to Micklegate next "
     "month!", "Where's our Leeds office?"),
    ("Sam's gym: FitBox Central - opens 6:00 on weekdays.", "FitBox's Riverside branch now opens at 5:30 on weekdays, "
     "says the app.", "What time does my gym open on weekdays?"),
    # the later text names the value it replaces, and it is another fact's
    ("Gran's physio starts at 10am at the Oak clinic.", "the taxi for Gran's physio now comes at 9:05 not 9:20, they "
     "changed the route", "What time does Gran's physio start?"),
])
def test_another_of_a_kind_or_another_facts_value_is_not_judged(older, later, question):
    assert probability(older, later, question, NEAR) == 0.0


def test_a_note_is_judged_by_the_sentence_the_question_asks_about():
    """A pinned note of a fact and a remark is judged as its asked sentence; a chat story is not judged."""
    note = "Nightly builds run on buildbox-02 under my desk. Do not reboot it during crunch week, ask first."
    later = "the nightly is building on forge-ci now, buildbox-02 goes to recycling"
    q = "Which machine runs the nightly builds?"
    assert features(note, later, q, NEAR) == features("Nightly builds run on buildbox-02 under my desk.", later, q, NEAR)
    assert features(note, later, q, NEAR) is not None
    story = "I went to the lake yesterday with Sam. We rented a boat and it was lovely."
    assert features(story, "Sam and I are going to the coast next weekend", "Where did we go with Sam?", NEAR) is None
