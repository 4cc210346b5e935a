"""Incremental BM25 keyword index."""

from __future__ import annotations

import random

from hindsight_core.storage.keyword import KeywordIndex, tokenize

DOCS = {
    "a": "The deploy failed with HTTP 503 on the api gateway",
    "b": "Lunch was great, we had pizza",
    "c": "Deploying again after fixing the gateway timeout",
    "d": "Caroline researched adoption agencies",
    "e": "Melanie signed up for a pottery class",
    "f": "Adoption is a big decision for Caroline",
}


def _same(x, y):
    assert [d for d, _ in x] == [d for d, _ in y]
    for (_, s1), (_, s2) in zip(x, y):
        assert abs(s1 - s2) < 1e-9


def test_tokenize_stems_and_drops_stopwords() -> None:
    assert tokenize("What did Caroline research about agencies?") == ["carolin", "research", "agenc"]


def test_search_ranks_matching_documents_first() -> None:
    idx = KeywordIndex()
    for d, t in DOCS.items():
        idx.add(d, t)
    hits = idx.search("why did the deploys fail?", 3)
    assert hits[0][0] == "a"
    assert all(s > 0 for _, s in hits)
    assert len(idx) == 6 and "a" in idx and "z" not in idx
    assert idx.search("nothing matches zzz", 5) == []


def test_incremental_add_remove_equals_rebuild() -> None:
    rng = random.Random(0)
    inc = KeywordIndex()
    for d, t in DOCS.items():
        inc.add(d, t, group=d in "abc" and "s1" or "s2")
    inc.remove("c")
    inc.remove("e")
    inc.add("c", DOCS["c"], group="s1")
    inc.add("a", "replaced text about pottery")  # re-adding replaces
    fresh = KeywordIndex()
    items = [("b", DOCS["b"], "s1"), ("d", DOCS["d"], "s2"), ("f", DOCS["f"], "s2"), ("c", DOCS["c"], "s1"),
             ("a", "replaced text about pottery", None)]
    rng.shuffle(items)
    for d, t, g in items:
        fresh.add(d, t, group=g)
    for q in ("pottery", "adoption caroline", "gateway deploy", "pizza lunch"):
        _same(inc.search(q, 10), fresh.search(q, 10))
        _same(inc.search_groups(q, 10), fresh.search_groups(q, 10))
    assert len(inc) == len(fresh) == 5
    inc.remove("missing")  # no error


def test_group_search_scores_whole_groups() -> None:
    idx = KeywordIndex()
    idx.add("1", "we went camping", group="s1")
    idx.add("2", "the tent was wet", group="s1")
    idx.add("3", "pottery class today", group="s2")
    assert idx.search_groups("camping tent", 5)[0][0] == "s1"
    assert sorted(idx.group_members("s1")) == ["1", "2"]


def test_removing_everything_empties_postings() -> None:
    idx = KeywordIndex()
    for d, t in DOCS.items():
        idx.add(d, t, group="g")
    for d in DOCS:
        idx.remove(d)
    assert len(idx) == 0 and idx._postings == {} and idx._groups == {}
    assert idx.search("deploy", 5) == []


def test_group_search_falls_back_to_a_group_function() -> None:
    grouped, plain = KeywordIndex(), KeywordIndex()
    groups = {d: ("s1" if d in "abc" else "s2") for d in DOCS}
    for d, t in DOCS.items():
        grouped.add(d, t, group=groups[d])
        plain.add(d, t)
    assert plain.search_groups("adoption caroline", 5) == []
    _same(grouped.search_groups("adoption caroline", 5), plain.search_groups("adoption caroline", 5, groups.get))
    plain.remove("d")  # the cached group table follows changes
    grouped.remove("d")
    _same(grouped.search_groups("adoption caroline", 5), plain.search_groups("adoption caroline", 5, groups.get))
