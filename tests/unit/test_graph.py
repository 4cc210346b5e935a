"""Graph index: units, entities, session chains and links."""

from __future__ import annotations

import random

import networkx as nx

from hindsight_core.retrieval.types import IndexedUnit
from hindsight_core.storage.graph import GraphIndex


def unit(uid: str, seq: int, ents: tuple[str, ...], session: str | None = "s1", speaker: str | None = None,
         when: float = 0.0, kind: str = "world") -> IndexedUnit:
    return IndexedUnit(uid, seq, f"text {uid}", kind, "active", "user", session, None, None, when, ents,
                       0.5, 1.0, 0.0, speaker=speaker)


UNITS = [
    unit("a", 1, ("sweden", "anna"), speaker="Caroline"),
    unit("b", 2, ("sweden",), speaker="Melanie"),
    unit("c", 3, ("oslo",), speaker="Caroline"),
    unit("d", 4, ("anna", "oslo"), session="s2", speaker="Melanie"),
    unit("e", 5, ("paris",), session="s2"),
    unit("f", 6, (), session=None, when=0.0),
    unit("g", 7, ("paris",), session=None, when=600.0),
    unit("h", 8, (), session=None, when=600.0 + 3 * 3600.0),
]


def _edges(g: GraphIndex):
    return sorted((u, v, k, d.get("weight")) for u, v, k, d in g.graph.edges(keys=True, data=True))


def _build(units, links=()):
    g = GraphIndex()
    for u in units:
        g.add(u)
    for src, dst, kind in links:
        g.link(src, dst, kind)
    return g


def test_nodes_and_edges() -> None:
    g = _build(UNITS)
    assert isinstance(g.graph, nx.MultiDiGraph)
    assert g.graph.has_edge("u:a", "e:sweden", key="mentions")
    assert g.graph.has_edge("u:a", "e:caroline", key="spoken_by")
    assert g.graph.has_edge("u:a", "u:b", key="next") and g.graph.has_edge("u:b", "u:c", key="next")
    assert not g.graph.has_edge("u:c", "u:d", key="next")  # different sessions
    assert g.graph.has_edge("u:f", "u:g", key="next")  # session-less, 10 minutes apart: one sitting
    assert not g.graph.has_edge("u:g", "u:h", key="next")  # session-less, 3 hours apart: unrelated
    assert sorted(g.entity_units("sweden")) == ["a", "b"]
    assert sorted(g.entity_units("caroline")) == ["a", "c"]
    assert g.prev_next("b") == ("a", "c")
    assert len(g) == 8 and "a" in g


def test_order_independent_and_rebuild_equals_incremental() -> None:
    links = [("b", "a", "caused_by"), ("d", "c", "evidence")]
    ref = _build(UNITS, links)
    shuffled = list(UNITS)
    random.Random(3).shuffle(shuffled)
    assert _edges(_build(shuffled, links)) == _edges(ref)
    assert sorted(ref.graph.nodes) == sorted(_build(shuffled, links).graph.nodes)


def test_remove_leaves_no_trace_and_equals_rebuild() -> None:
    links = [("b", "a", "caused_by"), ("d", "c", "evidence"), ("c", "b", "supersedes")]
    g = _build(UNITS, links)
    g.remove("b")
    g.remove("e")
    assert "u:b" not in g.graph and "u:e" not in g.graph
    assert not any("b" in (g.prev_next(x)) for x in "acd")
    assert "e:paris" in g.graph  # still mentioned by g
    rest = [u for u in UNITS if u.id not in ("b", "e")]
    rebuilt = _build(rest, [(s, d, k) for s, d, k in links if "b" not in (s, d)])
    assert _edges(g) == _edges(rebuilt)
    assert sorted(g.graph.nodes) == sorted(rebuilt.graph.nodes)
    assert g.graph.has_edge("u:a", "u:c", key="next")  # the chain closes over the gap


def test_orphan_entities_are_dropped() -> None:
    g = _build(UNITS[:2])
    g.remove("a")
    assert "e:anna" not in g.graph and "e:caroline" not in g.graph
    assert not g.has_entity("anna") and g.entity_units("anna") == []
    g.remove("b")
    assert g.graph.number_of_nodes() == 0 and g.graph.number_of_edges() == 0


def test_links_and_neighbours() -> None:
    g = _build(UNITS, [("d", "a", "evidence")])
    assert g.link("a", "zzz", "evidence") is False
    assert ("a", "evidence", 1.0) in g.links("d")
    assert sorted(g.neighbours("d", None)) == ["a", "e"]
    assert g.session_units("s1") == ["a", "b", "c"]


def test_derived_units_are_no_ones_next_turn() -> None:
    # an observation consolidated from session s1 (seq after its turns) and a session-less skill
    # within the sitting: neither joins a chain, so the turns stay each other's neighbours
    derived = [unit("o", 4, ("sweden",), kind="observation"), unit("k", 9, (), session=None, when=300.0, kind="skill"),
               unit("x", 10, (), session="s1", kind="experience")]
    for order in (UNITS + derived, derived + UNITS):
        g = _build(order)
        assert g.prev_next("o") == (None, None) and g.prev_next("k") == (None, None)
        assert g.prev_next("c") == ("b", "x")  # the agent's own step is a turn
        assert g.prev_next("g") == ("f", None)
        assert g.session_units("s1") == ["a", "b", "c", "x"]
        assert sorted(g.entity_units("sweden")) == ["a", "b", "o"]  # still found by its entities
    g.remove("o")
    assert g.prev_next("c") == ("b", "x")


def test_match_entities_finds_lowercase_mentions() -> None:
    g = _build([unit("x", 1, ("lgbtq", "new york"))])
    assert g.match_entities("what about lgbtq events in new york?") == ["lgbtq", "new york"]


def test_time_window_lookup_follows_removals() -> None:
    g = _build([unit("a", 1, (), when=100.0), unit("b", 2, (), when=200.0), unit("c", 3, (), when=300.0)])
    assert g.in_window(150.0, 400.0) == ["c", "b"]
    g.remove("c")
    assert g.in_window(150.0, 400.0) == ["b"]
    assert g._times == sorted(g._times) and len(g._times) == 2
