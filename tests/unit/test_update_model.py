"""The learned update reader: the fitted part ships as deltas on the bundled model and loads as fitted."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hindsight_core.lifecycle import update_model
from hindsight_core.lifecycle.update_rules import judgeable


def test_what_the_fitting_code_writes_the_reader_loads_and_reads_alike(tmp_path):
    """Export names and the folded scale must match the runtime's merge: a mismatch would load the
    bare base model (or fail) instead of the fitted one."""
    torch = pytest.importorskip("torch")
    from benchmarks.update_model import _build, _logits, export

    torch.manual_seed(1)
    tokenizer, encoder, head, params = _build()
    with torch.no_grad():
        for p in params:
            p.add_(torch.randn_like(p) * 0.02)  # fitted-looking factors, norms and head
    encoder.eval()
    path = tmp_path / "fitted.npz"
    np.savez(path, **export((tokenizer, encoder, head)))
    rows = [{"a": "Our team standup is at 9:30 every day.", "b": "Standup moved to 10:15 starting this week."},
            {"a": "The kiln is fired on Thursdays.", "b": "should we fire the kiln on fridays"}]
    with torch.inference_mode():
        fitted = torch.sigmoid(_logits(tokenizer, encoder, head, rows)).tolist()
    loaded = update_model._Model(path)([(r["a"], r["b"]) for r in rows])
    assert loaded == pytest.approx(fitted, abs=2e-3)  # float16 storage


def test_probabilities_are_batched_alike():
    pairs = [("Our team standup is at 9:30 every day.", "Standup moved to 10:15 starting this week."),
             ("My sister lives in Porto.", "the printer on the second floor is out of toner again")]
    batched = update_model.probabilities(pairs, batch_size=2)
    assert batched == pytest.approx([update_model.probability(*p) for p in pairs], abs=1e-4)
    assert all(0.0 <= p <= 1.0 for p in batched)


@pytest.mark.parametrize("older, readable", [
    ("Our team standup is at 9:30 every day.", True),
    ("The portal sits behind the new LB pool. Health check hits port 8081. Femi watches it.", True),
    ("Is the standup at 9:30?", False),
    ("Hey Caroline! How have you been?", False),
    ("We drove to the lake house in May with the kids. It rained for three straight days. The old mountain hut "
     "was shut for repairs. We ended up sleeping in the car by the river.", False),
])
def test_the_reader_is_asked_only_about_statements(older, readable):
    assert judgeable(older, "standup's at 10:15 now") is readable


def test_two_speakers_each_in_their_own_voice_are_not_read():
    assert not judgeable("Sam: I'm vegetarian.", "Nadia: I've gone back to eating meat.")


def test_the_fitting_code_runs_on_a_few_pairs():
    """A smoke run of ``python -m benchmarks.update_model``'s parts: pairs, fit, predict, shares."""
    pytest.importorskip("torch")
    from benchmarks.update_model import fit, pairs, predict, shares

    cases = [{"id": f"t{n}", "type": kind, "before": [f"The team standup is at 9:{30 + n}.", "Standup is in room 4."],
              "old_index": 0 if kind == "update" else None, "keep_index": 0 if kind == "no_update" else None,
              "after": f"standup moved to 10:{n:02d}" if kind == "update" else f"is standup still at 9:{30 + n}?"}
             for n, kind in enumerate(["update", "no_update"] * 4)]
    rows = pairs(cases, random.Random(0))
    assert {r["role"] for r in rows} == {"update", "lookalike", "distractor", "random"}
    assert sum(r["y"] for r in rows) == 4
    model = fit(rows, epochs=1)
    p = predict(model, rows)
    assert len(p) == len(rows) and all(0.0 <= q <= 1.0 for q in p)
    figures = shares(rows, p, 0.5)
    assert figures["update"]["n"] == 4 and figures["lookalike"]["n"] == 4 and figures["distractor"]["n"] == 8


@pytest.mark.parametrize("older, newer", [
    ('Caroline said, "I\'m keen on counseling or working in mental health."',
     'Caroline said, "Thanks, Melanie! Now I want to help people go through it too."'),
    ("I'm keen on counseling or working in mental health.", 'Mel: "my pottery class moved to Fridays"'),
])
def test_turns_of_a_conversation_are_not_read(older, newer):
    """On LoCoMo's chat the reader took one friendly reply for the update of another (41 turns of one
    conversation superseded): it was fitted on notes and messages, so chat turns are not its to read."""
    assert not judgeable(older, newer)


def test_a_message_that_greets_or_tells_of_this_morning_is_read():
    assert judgeable("The planning portal health check hits /healthz on port 8081.",
                     "fyi changed the planning portal health check to port 8095 this morning")
    assert judgeable("Order cut-off is Monday 2pm.", "Hi all, starting next month the order cut-off moves to Tuesday")


def test_another_subject_of_one_kind_is_not_read():
    """On the lifecycle benchmark the reader took one service's store for another's of the same system."""
    assert not judgeable("The catalog gateway migrated its data to pg-6.",
                         "The catalog service migrated its data to pg-18.")
    assert judgeable("The catalog gateway migrated its data to pg-6.", "catalog gateway is on pg-18 since the move")


def test_two_records_of_one_template_are_not_read():
    """Two writer processes' numbered facts: the reader took fact 13 for an update of fact 7."""
    assert not judgeable("worker 2 fact 7: host w2h7 runs the nightly Zephyr job 7.",
                         "worker 2 fact 13: host w2h13 runs the nightly Zephyr job 13.")


def test_a_restatement_with_no_new_word_is_not_read():
    """A trusted paraphrase corroborates a draft; the reader had taken it for a change."""
    assert not judgeable("The Orion release ships to Berlin customers first.",
                         "Berlin customers get the Orion release first.")


@pytest.mark.parametrize("older, newer", [
    ("finally unboxed my new MacBook, migrating everything tonight", "my new MacBook sleeve arrived"),
    ("The nightly backup job failed with a disk full error on db-1.",
     "Tuesday: the nightly backup job failed again, disk full error on db-1."),
])
def test_a_text_that_builds_on_the_earlier_value_is_not_read(older, newer):
    """An accessory of the new laptop, a failure that recurs: the earlier value still holds (the reader
    read both as updates, at 0.975 and 0.953)."""
    assert not judgeable(older, newer)


def test_a_text_that_names_the_earlier_value_beside_a_change_cue_is_read():
    assert judgeable("The standup is at 9:30 in the Orion room.", "fyi the Orion room standup moved to 10:15")


def test_the_next_of_a_numbered_series_is_not_read():
    """Five writer threads' notes: the reader took worker 3's note for an update of worker 1's."""
    assert not judgeable("Worker 1 noted basilquill harborquill harborkiln (step 1).",
                         "Worker 3 noted basilnook harborpylon ambermast (step 3).")
    assert judgeable("Room 12 is booked for the design review.",
                     "Room 12 went to the finance team, design review is in the library now")


@pytest.mark.parametrize("older, newer", [
    ("The reporting gateway migrated its data to pg-56.", "The search api migrated its data to pg-9."),
    ("Nadia's manager is now Hana.", "Bruno's manager is now Nadia."),
    ("Nadia's manager is now Zoe.", "Chen's manager is Nadia."),
])
def test_the_same_said_of_another_subject_is_not_read(older, newer):
    """On the lifecycle benchmark's templated bank a refit reader took these for updates (0.956, 0.965, 0.96)."""
    assert not judgeable(older, newer)


def test_a_pronoun_is_no_owner():
    """"It's" is "it is", not the thing of someone called It: the reader may still judge the pair."""
    from hindsight_core.lifecycle.update_subjects import other_possessor

    older, newer = "It's now on Tuesdays.", "That's now on Fridays."
    assert not other_possessor(older, newer)
    assert judgeable(older, newer)


def test_the_shipped_reader_reads_its_held_out_sets_as_published():
    """On AO-AR, held out of the fit, the shipped weights read 35% of the update pairs at the threshold and 1
    look-alike pair of 120 (``results/update_model.json``); landing 45's fit read 18% there. A refit that reads
    fewer updates, or more look-alikes, fails here before it reaches the end-to-end sets."""
    from benchmarks.update_model import CHECK_SETS, _load, pairs, shares

    rows = [r for cases in _load(CHECK_SETS).values() for r in pairs(cases)]
    read = shares(rows, update_model.probabilities([(r["a"], r["b"]) for r in rows]), update_model.THRESHOLD)
    assert read["update"]["n"] == 200 and read["lookalike"]["n"] == 120
    assert read["update"]["judged_update"] >= 65 / 200 and read["lookalike"]["judged_update"] <= round(2 / 120, 4)


def test_the_reader_is_fitted_on_no_set_it_is_checked_on_nor_on_any_written_after_it():
    """BA onward were written after the fit and are its clean check (benchmarks/data/updates_fresh/README.md)."""
    from benchmarks.update_model import CHECK_SETS, FIT_SETS, FRESH

    fresh = {p.stem for p in FRESH.glob("set_*.json")}
    assert set(FIT_SETS) - {"shared-dev"} <= fresh and set(CHECK_SETS) <= fresh
    assert not set(FIT_SETS) & set(CHECK_SETS)
    assert not [name for name in FIT_SETS if name.startswith("set_b") and len(name) > len("set_b")]
