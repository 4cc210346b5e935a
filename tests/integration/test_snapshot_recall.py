"""A bank opened from its index snapshot answers exactly as the same bank rebuilt from Chroma.

The store is copied after the engine that wrote it closed (and saved its snapshot); one copy is
opened with snapshots (no rebuild), the other with them off (today's rebuild). Both then get the
same recalls and the same changes (invalidate, delete, archive, a new evidence link), and every
answer is compared: ids, scores and channels. HashEmbedder throughout; no test asserts a duration.
"""

from __future__ import annotations

import shutil
from datetime import datetime, timezone

import numpy as np

from hindsight_core import CacheConfig, MemoryEngine
from hindsight_core._expansion_ops import learn_vocabulary
from hindsight_core.storage.live_index import LiveIndex
from hindsight_core.testing import HashEmbedder

AS_OF = datetime(2031, 1, 1, tzinfo=timezone.utc)
PEOPLE = ("Alice", "Bob", "Chen Wei", "Dana")
QUERIES = (
    "which port did the billing service use?",
    "what did Alice deploy to region 2?",
    "Chen Wei and the inventory api",
    "when did Dana roll back the search service?",
    "port 9031",
)


def _write_bank(engine: MemoryEngine) -> None:
    bank = engine.bank("big")
    services = ("billing", "search", "inventory api", "auth", "mail")
    bank.capture_many([
        {"text": f"{PEOPLE[i % 4]} deployed the {services[i % 5]} service to region {i % 3} on port {9000 + i}.",
         "session_id": f"s{i % 6}", "metadata": {"speaker": PEOPLE[(i + 1) % 4]}}
        for i in range(90)
    ] + [{"text": f"Dana rolled back the search service after error {n}."} for n in range(5)]
      + [{"text": "Dana ha movido el servicio de búsqueda a la región 2 esta semana."}])  # kept with a gloss vector
    ids = list(engine._live_index("big").units)
    bank.capture("Lesson: check the port before deploying billing.", kind="observation", evidence_ids=ids[:3])
    bank.set_directive("Always answer with the service's port.")
    bank.enforce_budget(70)  # the least active units move to the archived tier


def _answers(engine: MemoryEngine) -> list[tuple]:
    bank = engine.bank("big")
    out = []
    for query in QUERIES:
        for archived in (False, True):
            result = bank.recall(query, k=8, as_of=AS_OF, include_archived=archived)
            out.append(tuple((h.unit.id, round(h.score, 12), tuple((c.channel, c.rank) for c in h.channels))
                             for h in result.hits))
    return out


def _structure(index: LiveIndex) -> tuple:
    units = {i: (u.seq, u.text, u.kind, u.status, u.session_id, u.speaker, u.entities, u.evidence_ids, u.flags,
                 u.occurred_at, u.mentioned_at, u.importance, u.confidence, u.activity)
             for i, u in index.units.items()}
    contexts = {i: (None if u.context is None else u.context.tolist(), None if u.gloss is None else u.gloss.tolist())
                for i, u in index.units.items()}
    graph = index.graph
    edges = sorted(graph.graph.edges(keys=True, data="weight"))
    chains = {i: (graph.prev_next(i), sorted(graph.neighbours(i, None)), sorted(graph.links(i)))
              for i in index.units}
    words = {i: (index.keyword.doc_terms(i), index.cold_keyword.doc_terms(i)) for i in index.units}
    vectors = index.vectors(sorted(index.units))
    return (units, contexts, edges, chains, words, vectors.tobytes(), sorted(index.drafts), sorted(index.directives),
            index.next_seq, index.speakers())


def _change(engine: MemoryEngine) -> None:
    """The same changes in both copies (ids exist in both: the copies hold the same records)."""
    assert engine.drain(60)  # recalls' activity is flushed in the background: done before a rewrite reads it
    bank = engine.bank("big")
    index = engine._live_index("big")
    ordered = sorted(index.units.values(), key=lambda u: u.seq)
    active = [u.id for u in ordered if u.status == "active" and u.kind == "world"]
    bank.invalidate(active[0], reason="wrong port")
    bank.delete(active[1])
    bank.enforce_budget(50)


def _open_pair(tmp_path, monkeypatch) -> tuple[MemoryEngine, MemoryEngine]:
    src = tmp_path / "src"
    cache = CacheConfig(snapshot_min_units=10)
    engine = MemoryEngine(src, embedder=HashEmbedder(), cache=cache)
    _write_bank(engine)
    engine.close()
    assert engine._snapshots.path_for("big").exists()
    shutil.copytree(src, tmp_path / "snap")
    shutil.copytree(src, tmp_path / "rebuilt")

    rebuilds: list[str] = []
    real = LiveIndex.rebuild
    monkeypatch.setattr(LiveIndex, "rebuild", lambda self: rebuilds.append("x") or real(self))
    from_snapshot = MemoryEngine(tmp_path / "snap", embedder=HashEmbedder(), cache=cache)
    from_snapshot._live_index("big")
    assert rebuilds == []  # opened from the snapshot
    rebuilt = MemoryEngine(tmp_path / "rebuilt", embedder=HashEmbedder(), cache=CacheConfig(snapshots=False))
    rebuilt._snapshots = None
    rebuilt._live_index("big")
    assert rebuilds == ["x"]
    for engine in (from_snapshot, rebuilt):  # keyword expansion's vocabulary: kept in the snapshot, learnt after a rebuild
        learn_vocabulary(engine.bank("big").store)
    return from_snapshot, rebuilt


def test_recall_after_a_snapshot_open_equals_recall_after_a_rebuild(tmp_path, monkeypatch):
    from_snapshot, rebuilt = _open_pair(tmp_path, monkeypatch)
    assert _structure(from_snapshot._live_index("big")) == _structure(rebuilt._live_index("big"))
    first = _answers(from_snapshot)
    assert first == _answers(rebuilt)
    assert sum(map(len, first)) > 0 and any(first)

    _change(from_snapshot)  # writes into an index loaded from a snapshot edit its loaded arrays
    _change(rebuilt)
    assert _structure(from_snapshot._live_index("big")) == _structure(rebuilt._live_index("big"))
    assert _answers(from_snapshot) == _answers(rebuilt)

    for engine in (from_snapshot, rebuilt):  # a new unit lands in both the same way
        engine.bank("big").capture("Bob moved the billing service to port 7070.", session_id="s1")
        assert engine.drain(60)  # its words are learnt in the background before the recalls
    after = [_answers(e) for e in (from_snapshot, rebuilt)]
    strip = [[tuple((s, c) for _, s, c in hits) for hits in answers] for answers in after]  # new ids differ
    assert strip[0] == strip[1]
    from_snapshot.close()
    rebuilt.close()


def test_a_snapshot_of_a_snapshot_opened_bank_equals_a_rebuild(tmp_path, monkeypatch):
    """Saved again after a snapshot open and some changes (arrays still partly unread), then reopened."""
    from_snapshot, rebuilt = _open_pair(tmp_path, monkeypatch)
    _change(from_snapshot)
    _change(rebuilt)
    from_snapshot.close()  # saves a snapshot of the changed bank
    rebuilt.close()
    cache = CacheConfig(snapshot_min_units=10)
    again = MemoryEngine(tmp_path / "snap", embedder=HashEmbedder(), cache=cache)
    assert again._snapshots.path_for("big").exists()
    calls: list[str] = []
    real = LiveIndex.rebuild
    monkeypatch.setattr(LiveIndex, "rebuild", lambda self: calls.append("x") or real(self))
    reopened = again._live_index("big")
    assert calls == []  # served by the second snapshot
    fresh = LiveIndex(again.store, reopened.collection, again.embedder.dim).rebuild()
    assert _structure(reopened) == _structure(fresh)
    assert np.array_equal(reopened.vectors(sorted(reopened.units)), fresh.vectors(sorted(fresh.units)))
    again.close()
