"""The fresh update sets in ``benchmarks/data/updates_fresh`` keep the dev set's key rules (its
README): a broken key would score a case as passed or failed for the wrong reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.updates import load_cases

SETS = sorted((Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "updates_fresh").glob("set_*.json"))
FORMS = {"update": {"explicit", "implicit", "correction", "negation", "quantity", "relative_time", "tool_output", "list",
                    "role", "rename", "move", "upgrade", "buried", "multilingual"},
         "no_update": {"question", "hypothetical", "different_entity", "different_attribute", "other_person",
                       "past_event", "addition", "plan", "temporary", "failed_attempt", "cancelled_plan", "denial"}}


def _has(text: str, key: str) -> bool:
    return key.lower() in text.lower()


def test_the_sets_are_the_listed_ones_and_the_judge_was_fitted_on_the_first_eight():
    from benchmarks.rival_model import FIT_SETS

    assert [p.name for p in SETS] == sorted([f"set_{c}.json" for c in "abcdefghijklmnopqrstuvwxyz"]
                                            + [f"set_a{c}.json" for c in "abcdefghijklmnopqrstuvwxyz"]
                                            + [f"set_b{c}.json" for c in "abcdefghijklmnopqrstuvwxyz"]
                                            + [f"set_c{c}.json" for c in "abcdefghijklmnopqrstuvwxyz"]
                                            + [f"set_d{c}.json" for c in "abcdefgh"])
    assert FIT_SETS == tuple(f"set_{c}" for c in "abcdefgh")


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_every_case_keeps_the_key_rules(path: Path):
    cases = load_cases(path)
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert c["form"] in FORMS[c["type"]], c["id"]
        assert 1 <= len(c["before"]) <= 3 and c["after"].strip() and c["question"].strip(), c["id"]
        if c["type"] == "update":
            old = c["before"][c["old_index"]]
            assert c["keep_index"] is None and c["must_keep"] is None, c["id"]
            assert _has(c["after"], c["current"]) and not any(_has(b, c["current"]) for b in c["before"]), c["id"]
            assert _has(old, c["stale"]), c["id"]
            assert not any(_has(b, c["stale"]) for i, b in enumerate(c["before"]) if i != c["old_index"]), c["id"]
        else:
            assert c["old_index"] is None and c["current"] is None and c["stale"] is None, c["id"]
            assert _has(c["before"][c["keep_index"]], c["must_keep"]), c["id"]
            assert not _has(c["after"], c["must_keep"]), c["id"]


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_no_contact_details_or_credentials(path: Path):
    text = re.sub(r"\bgit@[\w.-]+:", "", path.read_text())  # a git SSH remote in tool output is no address
    assert not re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", text)
    assert not re.search(r"\b\d{3}[-. ]\d{3}[-. ]\d{4}\b|\b(?:\d[ -]?){13,16}\b", text)
