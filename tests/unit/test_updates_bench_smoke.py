"""benchmarks.updates runs the README protocol end to end (two hand-written cases, hash embedder)."""

from __future__ import annotations

import json

from benchmarks.updates import in_split, load_cases, run
from hindsight_core.testing import HashEmbedder

_CASES = [
    {"id": "t1-infra-explicit", "type": "update", "domain": "infrastructure", "form": "explicit",
     "before": ["The billing service listens on port 8080."], "old_index": 0, "keep_index": None,
     "after": "The billing service moved to port 9090.", "question": "Which port does the billing service use?",
     "current": "9090", "stale": "8080", "must_keep": None},
    {"id": "t2-infra-question", "type": "no_update", "domain": "infrastructure", "form": "question",
     "before": ["The billing service listens on port 8080."], "old_index": None, "keep_index": 0,
     "after": "did someone move billing to port 9090?", "question": "Which port does the billing service use?",
     "current": None, "stale": None, "must_keep": "8080"},
]


def test_protocol_scores_both_halves(tmp_path):
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(_CASES))
    res = run(HashEmbedder(dim=64), load_cases(path))
    assert res["update"]["n"] == 1 and res["no_update"]["n"] == 1
    assert res["no_update"]["ours"] == 1.0  # a question never supersedes
    assert set(res["update"]["by_form"]) == {"explicit"} and set(res["no_update"]["by_domain"]) == {"infrastructure"}


def test_split_halves_are_disjoint_and_complete():
    ids = [f"d{n:03d}-x-y" for n in range(50)]
    dev = {i for i in ids if in_split(i, "dev")}
    held = {i for i in ids if in_split(i, "held")}
    assert dev and held and not dev & held and dev | held == set(ids)
