"""The columnar snapshot form of the derived indexes: round trips, edits after a load, refusals."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from hindsight_core.retrieval.types import IndexedUnit
from hindsight_core.storage import snapshot
from hindsight_core.storage.graph import GraphIndex
from hindsight_core.storage.keyword import KeywordIndex

TEXTS = [f"{who} deployed the {what} service to region {n % 3} on port {9000 + n}."
         for n, (who, what) in enumerate((w, s) for w in ("Alice", "Bob", "Chen") for s in ("billing", "search api"))]


def _keyword() -> KeywordIndex:
    idx = KeywordIndex()
    for n, text in enumerate(TEXTS):
        idx.add(f"d{n}", text)
    idx.remove("d2")  # a free slot, reused by the next add
    idx.add("d9", "Dana rolled back the billing service")
    return idx


def _state(idx: KeywordIndex) -> tuple:
    queries = ["billing service port", "search api region", "dana rolled back", "alice 9001"]
    return (sorted(idx.ids()), [idx.search(q, 20) for q in queries], {d: idx.doc_terms(d) for d in idx.ids()},
            {t: idx.idf(t) for t in ("bille", "servic", "search_api", "nothing")},
            {t: idx.document_frequency(t) for t in ("bille", "servic", "search_api", "nothing")})


def test_keyword_index_round_trips_and_stays_editable():
    idx = _keyword()
    loaded = KeywordIndex.from_columns(*idx.export_columns())
    assert _state(loaded) == _state(idx)
    for edit in (lambda i: i.remove("d0"), lambda i: i.add("d10", "Bob fixed the billing port"),
                 lambda i: i.add("d1", "Alice now deploys search api")):
        edit(idx)  # the same edits on the original and on the loaded index (rows read in place)
        edit(loaded)
        assert _state(loaded) == _state(idx)
    again = KeywordIndex.from_columns(*loaded.export_columns())  # saved again, partly still unread
    assert _state(again) == _state(idx)


def test_keyword_columns_in_a_given_order_equal_an_index_built_in_that_order():
    idx = _keyword()
    idx.add("d3", "Chen moved the search api to region 1")  # rewritten: it moves to the end of the live order
    order = sorted(idx.ids(), reverse=True)
    built = KeywordIndex()
    texts = dict(zip([f"d{n}" for n in range(len(TEXTS))], TEXTS), d9="Dana rolled back the billing service",
                 d3="Chen moved the search api to region 1")
    for doc in order:
        built.add(doc, texts[doc])
    meta, arrays = idx.export_columns(order)
    want_meta, want = built.export_columns()
    assert meta == want_meta
    assert arrays.keys() == want.keys() and all(np.array_equal(arrays[k], want[k]) for k in want)
    assert _state(KeywordIndex.from_columns(meta, arrays)) == _state(built)


def test_keyword_columns_that_do_not_fit_are_refused():
    meta, arrays = _keyword().export_columns()
    arrays = dict(arrays, doc_term=arrays["doc_term"] + 10_000)  # terms past the vocabulary
    with pytest.raises(ValueError):
        KeywordIndex.from_columns(meta, arrays)


def _unit(uid: str, seq: int, ents: tuple[str, ...], session: str | None, speaker: str | None,
          when: float) -> IndexedUnit:
    return IndexedUnit(uid, seq, f"text {uid}", "world", "active", "user", session, None, when + 5.0, when, ents,
                       0.5, 1.0, 0.0, speaker=speaker)


def _graph_state(g: GraphIndex) -> tuple:
    ids = sorted(g._nodes)
    return (sorted(g.graph.edges(keys=True, data="weight")), sorted(g.graph.nodes(data="seq")),
            [(i, g.prev_next(i), g.neighbours(i, None), g.links(i), g.unit_entities(i, ("mentions", "spoken_by")))
             for i in ids],
            {k: g.entity_units(k) for k in ("sweden", "oslo", "anna", "caroline")},
            g.in_window(0.0, 1e9), g.match_entities("anna went to oslo with caroline"), len(g))


def test_graph_index_round_trips_with_links_and_edits():
    rng = random.Random(5)
    g = GraphIndex()
    units = [_unit(f"u{n}", n, tuple(rng.sample(("sweden", "oslo", "anna", "new york city"), 2)),
                   rng.choice(("s1", "s2", None)), rng.choice(("Caroline", None)), 100.0 * n) for n in range(30)]
    for u in units:
        g.add(u)
    g.link("u5", "u1", "evidence")
    g.link("u9", "u1", "caused_by", weight=0.5)
    g.remove("u3")
    code = {u.id: n for n, u in enumerate(units)}
    loaded = GraphIndex.from_columns(*g.export_columns(code), [u.id for u in units])
    assert _graph_state(loaded) == _graph_state(g)
    for edit in (lambda x: x.remove("u1"), lambda x: x.add(_unit("u40", 40, ("oslo",), "s1", None, 9.0)),
                 lambda x: x.link("u40", "u7", "evidence"), lambda x: x.unlink("u9", "u1", "caused_by")):
        edit(g)
        edit(loaded)
        assert _graph_state(loaded) == _graph_state(g)


def test_snapshot_payload_holds_plain_numbers_only():
    meta = {"units": {"id": ["a"]}}
    arrays = {"x": np.arange(3, dtype=np.int64), "v": np.ones((2, 4), dtype=np.float32)}
    back_meta, back = snapshot._unpack(snapshot._pack(meta, arrays))
    assert back_meta == meta and all(np.array_equal(back[k], arrays[k]) for k in arrays)
    with pytest.raises(ValueError):  # objects (which would need pickle) are never written
        snapshot._pack(meta, {"o": np.array([object()], dtype=object)})
    payload = snapshot._pack(meta, arrays)
    size = int.from_bytes(payload[:4], "big")
    table = json.loads(payload[4:4 + size])
    table["arrays"][0][1] = "|O"  # a planted table naming an object dtype
    raw = json.dumps(table).encode()
    with pytest.raises(ValueError):
        snapshot._unpack(len(raw).to_bytes(4, "big") + raw + payload[4 + size:])
    with pytest.raises(ValueError):  # bytes after the last array: not what _pack wrote
        snapshot._unpack(payload + b"\x00" * 8)
