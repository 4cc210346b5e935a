"""The per-bank store interface (``storage/unit_store.py``) on every backend: embedded folder, in
memory and a Chroma server (see ``conftest.py``). Each operation must leave Chroma, the in-memory
indexes (dense, keyword, graph) and the revision in step, and another engine must see it."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import numpy as np
import pytest

from hindsight_core import NotFoundError, StorageError
from hindsight_core.models import MemoryKind, MemoryStatus, MemoryUnit
from hindsight_core.storage.unit_store import UnitStore


def _unit(bank: str, text: str, **fields) -> MemoryUnit:
    now = datetime.now(timezone.utc)
    return MemoryUnit(id=fields.pop("id", None) or uuid.uuid4().hex, bank=bank, text=text,
                      mentioned_at=now, created_at=now, **fields)


def _put(store: UnitStore, *units: MemoryUnit) -> None:
    vectors = store.embedder.embed([u.text for u in units])
    store.put([(u, np.asarray(v)) for u, v in zip(units, vectors)], create=True)


def _dense_ids(store: UnitStore, text: str, n: int = 5) -> list[str]:
    with store.read() as index:
        return [i for i, _ in index.dense_search(store.embedder.embed([text])[0], n)]


def test_put_get_many_and_every_index(backend, bank_ids):
    engine = backend()
    store = engine.bank(bank_ids("put")).store
    a = _unit(store.id, "Billing service listens on port 9090.", entities=("billing",))
    b = _unit(store.id, "The staging database is db-staging-2.", evidence_ids=(a.id,))
    revision = store.revision
    _put(store, a, b)
    assert store.revision != revision
    assert [u.text for u in store.get_many([b.id, "missing", a.id])] == [b.text, a.text]
    assert store.get(a.id) == a
    with store.read() as index:
        assert set(index.units) == {a.id, b.id}
        assert a.id in {i for i, _ in index.keyword_search("billing port", 5)}
        assert index.graph.graph.has_edge("u:" + b.id, "u:" + a.id)  # evidence link
    assert _dense_ids(store, a.text)[0] == a.id
    assert store.ids() == [a.id, b.id] and store.count() == 2
    with pytest.raises(NotFoundError):
        store.get("no-such-unit")


def test_update_archive_delete_keep_chroma_and_indexes_in_step(backend, bank_ids):
    engine = backend()
    store = engine.bank(bank_ids("life")).store
    keep = _unit(store.id, "Alice prefers green tea in the morning.")
    old = _unit(store.id, "The deploy window is Friday at noon.", valid_to=datetime.now(timezone.utc))
    gone = _unit(store.id, "Room 4 holds the spare printer.")
    _put(store, keep, old, gone)

    store.update(keep.model_copy(update={"confidence": 0.9, "status": MemoryStatus.SUPERSEDED}))
    store.update(old.model_copy(update={"valid_to": None}))  # a field that became None leaves the record
    assert store.get(keep.id).confidence == 0.9 and store.get(old.id).valid_to is None
    with store.read() as index:
        assert index.units[keep.id].status == "superseded" and index.units[keep.id].confidence == 0.9

    store.archive([old.id])
    assert store.get(old.id).status is MemoryStatus.ARCHIVED
    assert old.id not in _dense_ids(store, old.text)  # out of the hot tier
    with store.read() as index:
        assert old.id in {i for i, _ in index.dense_search(store.embedder.embed([old.text])[0], 5, archived=True)}

    store.delete([gone.id])
    assert store.get_many([gone.id]) == []
    with store.read() as index:
        assert gone.id not in index.units and not index.keyword_search("spare printer room", 5)
    with pytest.raises(NotFoundError):
        store.update(gone)


def test_a_failed_transaction_is_undone(backend, bank_ids):
    engine = backend()
    store = engine.bank(bank_ids("tx")).store
    kept = _unit(store.id, "The VPN gateway is vpn-2.", kind=MemoryKind.WORLD)
    _put(store, kept)
    with pytest.raises(RuntimeError, match="injected"):
        with store.transaction():
            _put(store, _unit(store.id, "A unit the failed call wrote."))
            store.update(kept.model_copy(update={"confidence": 0.99}))
            raise RuntimeError("injected")
    assert store.ids() == [kept.id] and store.get(kept.id).confidence == kept.confidence
    with store.read() as index:
        assert list(index.units) == [kept.id] and index.units[kept.id].confidence == kept.confidence


def test_another_engine_sees_every_store_write(backend, bank_ids):
    if backend.kind.startswith("memory"):
        pytest.skip("an in-memory store belongs to one engine: there is no other engine to see changes")
    name = bank_ids("seen")
    writer, reader = backend().bank(name).store, backend().bank(name).store  # two engines, one store
    a, b = _unit(name, "Priya leads the platform team."), _unit(name, "Oskar runs the on-call rota.")
    _put(writer, a)
    assert reader.ids() == [a.id]  # the reader's index is loaded now: what follows is caught up
    _put(writer, b)
    writer.update(a.model_copy(update={"status": MemoryStatus.INVALIDATED}))
    assert set(reader.ids()) == {a.id, b.id}
    writer.delete([b.id])
    with reader.read() as index:
        assert index.units[a.id].status == "invalidated" and b.id not in index.units


def test_writes_to_a_read_only_store_raise(tmp_path, embedder):
    from hindsight_core import MemoryEngine

    MemoryEngine(tmp_path / "ro", embedder=embedder).bank("b").capture("Seed fact for a read-only open.")
    engine = MemoryEngine(tmp_path / "ro", embedder=embedder, read_only=True)
    store = engine.bank("b").store
    assert store.read_only and len(store.ids()) == 1
    with pytest.raises(StorageError):
        _put(store, _unit("b", "A write the read-only store refuses."))
    engine.close()


def test_writes_take_turns_unless_a_server_has_no_recall_to_protect(backend, bank_ids, held_by_another_thread):
    """Embedded, a Chroma write holds the GIL, so the engine's writes apply in turn; a server's writes
    wait on the network, so they overlap while no recall is in flight and take turns while one is."""
    engine = backend()
    bank = engine.bank(bank_ids("turns"))
    bank.capture("Alice moved to Lisbon in March.")
    reads = bank._store.reads
    reads._max_defer_s = 0.0  # a write denied its turn goes on at once, counted in late_turns
    server = backend.kind == "server"
    with held_by_another_thread(reads.write_turn):
        bank.capture("Bob adopted a cat named Rex.")
        assert reads.late_turns == (0 if server else 1)
        with held_by_another_thread(reads.reading):  # a recall in flight
            bank.capture("Carol started a pottery class on Tuesdays.")
        assert reads.late_turns == (1 if server else 2)
    assert bank.count() == 3


def test_an_undo_removes_fields_the_failed_call_set(backend, bank_ids):
    # Chroma merges metadata: a field the failed call set, absent (None) before, must be removed again
    engine = backend()
    store = engine.bank(bank_ids("tx-none")).store
    kept = _unit(store.id, "The VPN gateway is vpn-2.")
    _put(store, kept)
    when = datetime(2025, 1, 2, tzinfo=timezone.utc)
    with pytest.raises(RuntimeError, match="injected"):
        with store.transaction():
            store.update(kept.model_copy(update={"status": MemoryStatus.SUPERSEDED, "superseded_by": "other",
                                                 "valid_to": when}))
            raise RuntimeError("injected")
    again = store.get(kept.id)
    assert (again.status, again.superseded_by, again.valid_to) == (MemoryStatus.ACTIVE, None, None)
    if not backend.kind.startswith("memory"):  # another engine reads what Chroma holds
        reread = backend().bank(store.id).store.get(kept.id)
        assert (reread.status, reread.superseded_by, reread.valid_to) == (MemoryStatus.ACTIVE, None, None)


def test_an_undone_rewrite_keeps_the_old_text(backend, bank_ids):
    engine = backend()
    store = engine.bank(bank_ids("tx-text")).store
    kept = _unit(store.id, "The VPN gateway is vpn-2.")
    _put(store, kept)
    with pytest.raises(RuntimeError, match="injected"):
        with store.transaction():
            _put(store, kept.model_copy(update={"text": "The VPN gateway is vpn-9."}))
            raise RuntimeError("injected")
    assert store.get(kept.id).text == "The VPN gateway is vpn-2."
    with store.read() as index:
        assert index.units[kept.id].text == "The VPN gateway is vpn-2."


def test_an_update_keeps_the_context_window(backend, bank_ids):
    from hindsight_core.retrieval.context import CONTEXT_KEY

    store = backend().bank(bank_ids("ctx")).store
    unit = _unit(store.id, "Bob runs the on-call rota.", occurred_at=datetime(2025, 1, 2, tzinfo=timezone.utc))
    vector = store.embedder.embed([unit.text])[0]
    store.put([(unit, vector)], contexts={unit.id: vector}, create=True)
    store.update(unit.model_copy(update={"confidence": 0.9, "occurred_at": None}))
    fields = store.fields([unit.id])[unit.id]
    assert CONTEXT_KEY in fields and "occurred_at" not in fields and fields["confidence"] == 0.9
