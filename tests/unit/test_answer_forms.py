"""The form of answer a question asks for, and the head of a ranking where a fact changed (pure functions)."""

from __future__ import annotations

import pytest

from hindsight_core.retrieval.answer_forms import answer_first, asked_form, holds_answer


@pytest.mark.parametrize("query, form", [
    ("Who looks after the greenhouse keys?", "person"),
    ("who's running the Thursday quiz now?", "person"),
    ("What's the status of OPS-77?", "status"),
    ("where are we with the roof repair?", "status"),
    ("What's Dana Whitfield's role these days?", "role"),
    ("When is the bin collection?", "time"),
    ("What day does the choir practise?", "time"),
    ("How often do we back up the NAS?", "frequency"),
    ("Where do we keep the spare bike lock?", "place"),
    ("Which port does the cache listen on?", "port"),
    ("What is the new payments app called?", "name"),
    ("What's the codename for the search rewrite?", "name"),
    ("How much is the gym membership?", None),
])
def test_asked_form(query, form):
    assert asked_form(query) == form


@pytest.mark.parametrize("text, form, query, holds", [
    ("Greta handed the greenhouse keys to Tobias on Sunday.", "person", "Who has the greenhouse keys?", True),
    ("Mr. Adeyemi keeps them now.", "person", "Who has the greenhouse keys?", True),
    ("Tobias is keeping them until spring.", "person", "Who has the greenhouse keys?", True),  # a name opening a sentence
    ("The greenhouse keys hang by the door of Building B.", "person", "Who has the greenhouse keys?", False),
    ("The quiz moved to the back room on Mondays.", "person", "Who runs the quiz?", False),  # weekdays are no names
    ("Noted: Harbour Tiles is based in Reading.", "person", "Who is our contact at Harbour Tiles?", False),  # a place
    ("Greta looks after them.", "person", "Does Greta still have the keys?", False),  # the question names her
    ("OPS-77 moved In progress → Done at 10:02.", "status", "What's the status of OPS-77?", True),
    ("OPS-77 is assigned to Kemal.", "status", "What's the status of OPS-77?", False),
    ("Dana was promoted to Head of Partnerships.", "role", "What's Dana's role?", True),
    ("Dana works out of the Leeds office.", "role", "What's Dana's role?", False),
    ("Choir is on Thursday evenings now.", "time", "When is choir?", True),
    ("Choir warm-ups happen daily.", "time", "When is choir?", False),  # a frequency, not a time
    ("We back it up twice a week.", "frequency", "How often do we back up the NAS?", True),
    ("Moved the spare bike lock into the shed cupboard.", "place", "Where do we keep the spare bike lock?", True),
    ("The Stitch Club meets at Holloway Library now.", "place", "Where does Stitch Club meet?", True),
    ("The spare bike lock has a blue key on it.", "place", "Where do we keep the spare bike lock?", False),
    ("I walk the dog in the morning.", "place", "Where do I walk the dog?", False),  # a time said like a place
    ("The wiki now stores its pages in pg-12.", "place", "Where does the wiki store its pages?", True),  # an id
    ("The wiki is now owned by Dana.", "place", "Where does the wiki store its pages?", False),  # a person
])
def test_holds_answer(text, form, query, holds):
    assert holds_answer(text, form, query) is holds


TEXTS = {"place": "The greenhouse is behind the pavilion.", "new": "Tobias has the greenhouse keys now.",
         "note": "The greenhouse keys are on a red fob.", "other": "Mrs. Okafor waters the tomatoes."}


def test_answer_first_lets_the_current_fact_with_an_answer_lead():
    fused = [("place", 0.9), ("note", 0.8), ("new", 0.7), ("other", 0.1)]
    out = answer_first(fused, TEXTS.get, "Who has the greenhouse keys?", current={"new"})
    assert [uid for uid, _ in out] == ["new", "other", "place", "note"]  # each group keeps its order
    assert dict(out) == dict(fused)  # scores are kept; only the order changes


@pytest.mark.parametrize("query, current", [
    ("Who has the greenhouse keys?", set()),  # no fact here took over from another
    ("Who has the greenhouse keys?", {"place"}),  # the current fact holds no answer of the form
    ("Where is the greenhouse?", {"new"}),  # a question of no known form
])
def test_answer_first_leaves_the_ranking_alone(query, current):
    fused = [("place", 0.9), ("note", 0.8), ("new", 0.7), ("other", 0.1)]
    assert answer_first(fused, TEXTS.get, query, current=current) == fused


@pytest.mark.parametrize("text, form, query, holds", [
    ("cache-svc moved to 7001 this morning", "port", "Which port does cache-svc listen on?", True),
    ("cache-svc logs are kept 30 days in the archive bucket", "port", "Which port does cache-svc listen on?", False),
    ("cache-svc runs 3 replicas behind the gateway", "port", "Which port does cache-svc listen on?", False),
    ("Legal asked for a rename, so the app is called Kite now.", "name", "What is the new payments app called?", True),
    ("The new payments app targets an April beta.", "name", "What is the new payments app called?", False),
])
def test_holds_a_port_or_a_name(text, form, query, holds):
    assert holds_answer(text, form, query) is holds
