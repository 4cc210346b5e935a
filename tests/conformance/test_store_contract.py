"""The storage contract of issue 11 on every backend (embedded folder, in memory, Chroma server):
threads racing a bank deletion, all-or-nothing batches, and counters that move only on success."""

from __future__ import annotations

import threading

import pytest

from hindsight_core import StorageError
from hindsight_core.storage.chroma_store import ChromaStore

JOIN_S = 120


def test_delete_bank_racing_captures_returns(backend, bank_ids):
    engine = backend()
    name = bank_ids("race")
    engine.bank(name).capture("Seed fact so the bank exists.")
    stop = threading.Event()
    failures: list[BaseException] = []

    def writer(n: int) -> None:
        for i in range(30):
            if stop.is_set():
                return
            try:
                engine.bank(name).capture(f"writer {n} stored fact {i} on host-{n}-{i}")
            except StorageError:
                pass  # a clear error for a write racing the delete is allowed
            except BaseException as exc:  # noqa: BLE001
                failures.append(exc)

    threads = [threading.Thread(target=writer, args=(n,), daemon=True) for n in range(3)]
    for t in threads:
        t.start()
    deleter = threading.Thread(target=engine.delete_bank, args=(name,), daemon=True)
    deleter.start()
    deleter.join(JOIN_S)
    stop.set()
    for t in threads:
        t.join(JOIN_S)
    assert not deleter.is_alive() and not any(t.is_alive() for t in threads), "deadlock"
    assert not failures, failures
    unit = engine.bank(name).capture("The id works again after the race.").unit_id
    assert unit in {h.id for h in engine.bank(name).recall("id works again", k=5).hits}
    assert engine.bank(name).count() == len(list(engine.bank(name).units()))


def test_a_failed_batch_leaves_nothing_and_counts_nothing(backend, bank_ids, monkeypatch):
    engine = backend()
    bank = engine.bank(bank_ids("atomic"))
    twin = bank.capture("Rack R001 holds node 7 in room 1.").unit_id
    real = ChromaStore.upsert
    calls = {"n": 0}

    def failing(self, col, ids, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise StorageError("Chroma failed to write memory units: injected")
        return real(self, col, ids, *args, **kwargs)

    monkeypatch.setattr(ChromaStore, "upsert", failing)
    with pytest.raises(StorageError, match="injected"):
        bank.capture_many(["Rack R001 holds node 7 in room 1."] + [f"Rack R{i:03d} holds node {i * 7} in room {i % 9}."
                                                                   for i in range(2, 12)], batch_size=4)
    monkeypatch.setattr(ChromaStore, "upsert", real)
    assert bank.count() == 1 and bank.get(twin).mention_count == 1
    assert [u.id for u in bank.units()] == [twin]


def test_caller_metadata_round_trips(backend, bank_ids):
    bank = backend().bank(bank_ids("meta"))
    metadata = {"ticket": "T-1", "tags": ["a", "b"], "nested": {"score": 0.5, "ok": True}, "n": 3}
    unit = bank.capture("Ticket T-1 was closed by the on-call engineer.", metadata=metadata).unit_id
    assert bank.get(unit).metadata == metadata
    assert bank.recall("ticket closed", k=1).hits[0].unit.metadata == metadata
