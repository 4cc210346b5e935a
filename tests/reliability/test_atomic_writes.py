"""All-or-nothing captures, and a full disk said in words (failures are injected into the store).

A ``capture_many`` that fails at any point leaves no unit and no mention count behind; a write the
store refuses because the disk is full raises a :class:`StorageError` that says so and what to do;
and when even the undo fails, the bank's index is reloaded so it shows exactly what Chroma holds.
"""

from __future__ import annotations

import errno

import pytest

from hindsight_core import InvalidInputError, MemoryEngine, StorageError
from hindsight_core.storage.chroma_store import ChromaStore, disk_full
from hindsight_core.testing import HashEmbedder


@pytest.fixture(params=["folder", "memory"])
def engine(request, tmp_path):
    eng = (MemoryEngine(tmp_path / "s", embedder=HashEmbedder(dim=64)) if request.param == "folder"
           else MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64)))
    yield eng
    eng.close()


def _items(n: int) -> list[str]:
    return [f"Server rack R{i:03d} holds node {i * 7} in room {i % 9}." for i in range(n)]


def _snapshot(bank):
    return sorted((u.id, u.mention_count, u.text) for u in bank.units())


def test_a_bad_item_in_the_middle_writes_nothing(engine):
    bank = engine.bank("b")
    bank.capture("Server rack R001 holds node 7 in room 1.")  # will be a duplicate in the batch
    before = _snapshot(bank)
    items: list = _items(100)
    items[70] = {"text": "fine text", "importance": 7}  # invalid: importance above 1
    with pytest.raises(InvalidInputError, match="importance"):
        bank.capture_many(items, batch_size=8)
    assert _snapshot(bank) == before  # no unit, and the duplicate's mention count did not move


def test_a_storage_failure_in_a_later_batch_undoes_the_earlier_ones(engine, monkeypatch):
    bank = engine.bank("b")
    dup = bank.capture("Server rack R001 holds node 7 in room 1.")
    before = _snapshot(bank)
    calls = {"n": 0}
    real = ChromaStore.upsert

    def failing(self, col, ids, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:  # the third batch's write
            raise StorageError("Chroma failed to write memory units: injected failure")
        return real(self, col, ids, *args, **kwargs)

    monkeypatch.setattr(ChromaStore, "upsert", failing)
    with pytest.raises(StorageError, match="injected"):
        bank.capture_many(_items(40), batch_size=8)
    assert calls["n"] == 4  # three batches, then the undo puts the merged duplicate back
    assert _snapshot(bank) == before  # batches 1-2 deleted again, the merged duplicate restored
    assert bank.get(dup.unit_id).mention_count == 1
    assert bank.count() == 1 and len(bank._index.units) == 1  # the running index agrees with Chroma
    monkeypatch.setattr(ChromaStore, "upsert", real)
    results = bank.capture_many(_items(40), batch_size=8)  # a retry counts the duplicate once
    assert bank.get(dup.unit_id).mention_count == 2 and bank.count() == 40
    assert sum(r.merged for r in results) == 1


def test_a_failed_rewrite_restores_what_the_call_changed(engine, monkeypatch):
    bank = engine.bank("b")
    a = bank.capture("Server rack R001 holds node 7 in room 1.")
    b = bank.capture("Server rack R002 holds node 14 in room 2.")
    real = ChromaStore.update_metadata
    calls = {"n": 0}

    def failing(self, col, ids, metas):
        calls["n"] += 1
        if calls["n"] == 2:  # the second duplicate's mention-count update
            raise StorageError("Chroma failed to update memory units: injected failure")
        return real(self, col, ids, metas)

    monkeypatch.setattr(ChromaStore, "update_metadata", failing)
    with pytest.raises(StorageError, match="injected"):
        bank.capture_many(["Server rack R001 holds node 7 in room 1.", "A new fact about room 5 and node 99.",
                           "Server rack R002 holds node 14 in room 2."])
    monkeypatch.setattr(ChromaStore, "update_metadata", real)
    assert bank.get(a.unit_id).mention_count == 1 and bank.get(b.unit_id).mention_count == 1
    assert bank.count() == 2


def test_disk_full_is_said_in_words(engine, monkeypatch):
    bank = engine.bank("b")
    bank.capture("Seed fact about room 3.")

    def full(self, col, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    real_upsert = ChromaStore.upsert

    def wrapped(self, col, *args, **kwargs):  # through the real wrapper, so its error mapping is used
        col_upsert = col.upsert
        try:
            col.upsert = lambda **kw: full(self, col)
            return real_upsert(self, col, *args, **kwargs)
        finally:
            col.upsert = col_upsert

    monkeypatch.setattr(ChromaStore, "upsert", wrapped)
    with pytest.raises(StorageError) as info:
        bank.capture("A fact that does not fit on the disk, about room 4.")
    message = str(info.value)
    assert "is full" in message and "Free disk space" in message
    assert bank.count() == 1


def test_when_the_undo_fails_too_the_index_shows_what_chroma_holds(engine, monkeypatch):
    bank = engine.bank("b")
    bank.capture("Seed fact about room 3.")
    real_upsert, real_delete = ChromaStore.upsert, ChromaStore.delete

    def applied_then_full(self, col, *args, **kwargs):  # like Chroma's log: written, then compaction fails
        real_upsert(self, col, *args, **kwargs)
        raise StorageError("Chroma failed to write memory units: the disk is full (database or disk is full).")

    def full(self, col, ids):
        raise StorageError("Chroma failed to delete memory units: database or disk is full")

    monkeypatch.setattr(ChromaStore, "upsert", applied_then_full)
    monkeypatch.setattr(ChromaStore, "delete", full)
    with pytest.raises(StorageError) as info:
        bank.capture_many(_items(5))
    assert "undo failed too" in str(info.value) and "part of this call may be stored" in str(info.value)
    monkeypatch.setattr(ChromaStore, "upsert", real_upsert)
    monkeypatch.setattr(ChromaStore, "delete", real_delete)
    stored = sorted(u.id for u in bank.units())
    index = engine._live_index("b")
    assert sorted(index.units) == stored and len(stored) == 6  # nothing applied is invisible
    hits = bank.recall("rack R003 node 21", k=3).hits
    assert hits and "R003" in hits[0].unit.text


@pytest.mark.parametrize("exc, path, full", [
    (OSError(errno.ENOSPC, "No space left on device"), None, True),
    (RuntimeError("sqlite3.OperationalError: database or disk is full"), None, True),
    (RuntimeError("Error in compaction: io error"), None, False),  # no folder to look at
    (RuntimeError("Collection does not exist"), None, False),
])
def test_disk_full_detection(exc, path, full):
    assert disk_full(exc, path) is full


def test_a_compaction_error_on_a_nearly_full_disk_is_a_full_disk(tmp_path, monkeypatch):
    import shutil

    from hindsight_core.storage import chroma_store

    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**9, 10**9 - 1024, 1024))
    assert chroma_store.disk_full(RuntimeError("Error in compaction: failed to apply logs"), str(tmp_path))
    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**12, 10**9, 10**11))
    assert not chroma_store.disk_full(RuntimeError("Error in compaction: failed to apply logs"), str(tmp_path))
