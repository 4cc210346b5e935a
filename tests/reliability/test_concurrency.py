"""Threads on one engine: no deadlock, no engine-wide stall, recalls that do not queue.

Every wait is a ``join(timeout)`` or ``Event.wait(timeout)`` whose *result* is asserted (a hang
fails the test instead of freezing the run); no wall-clock duration is asserted.
"""

from __future__ import annotations

import threading

import pytest

from hindsight_core import MemoryEngine, StorageError
from hindsight_core.read_priority import MAX_DEFER_S
from hindsight_core.storage.live_index import LiveIndex
from hindsight_core.storage.rwlock import BankLock
from hindsight_core.testing import HashEmbedder

JOIN_S = 60  # generous: a pass takes well under a second; only a deadlock reaches it


class GatedEmbedder(HashEmbedder):
    """Blocks ``embed`` of texts containing ``GATE`` until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed(self, texts):
        if any("GATE" in t for t in texts):
            self.entered.set()
            assert self.release.wait(JOIN_S), "test never released the gated embedder"
        return super().embed(texts)


def _run(target, *args) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def body() -> None:
        try:
            target(*args)
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            errors.append(exc)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread, errors


def _finishes_while_parked(release: threading.Event, call) -> tuple[bool, list[BaseException]]:
    """Run ``call`` in a thread while another thread is parked until ``release``; whether it
    finished before the release. Releases the parked thread either way."""
    thread, errors = _run(call)
    thread.join(JOIN_S)
    finished = not thread.is_alive() and not release.is_set()
    release.set()
    return finished, errors


@pytest.mark.parametrize("store", ["folder", "memory"])
def test_delete_bank_while_threads_capture_returns_and_the_id_is_usable_again(tmp_path, store):
    engine = (MemoryEngine(tmp_path / "s", embedder=HashEmbedder(dim=64)) if store == "folder"
              else MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64)))
    engine.bank("x").capture("Seed unit so the bank exists before the race.")
    stop = threading.Event()
    outcomes: list[str] = []

    def writer(n: int) -> None:
        i = 0
        while not stop.is_set() and i < 200:
            try:
                engine.bank("x").capture_many([f"worker {n} wrote fact number {i} about host-{n}-{i}"] * 1
                                              + [f"worker {n} also noted port {9000 + i}"])
                outcomes.append("ok")
            except StorageError as exc:  # allowed: a clear error for a write racing the delete
                outcomes.append(f"error: {exc}")
            i += 1

    threads = [_run(writer, n) for n in range(3)]
    deleter, delete_errors = _run(engine.delete_bank, "x")
    deleter.join(JOIN_S)
    assert not deleter.is_alive(), "delete_bank deadlocked against captures"
    assert not delete_errors
    stop.set()
    for thread, errors in threads:
        thread.join(JOIN_S)
        assert not thread.is_alive(), "a capture thread deadlocked"
        assert not errors, errors  # only StorageError is tolerated, and it is caught above
    # the id works again: a fresh bank takes new writes and recalls them
    fresh = engine.bank("x").capture("After the delete, Alice moved to Lisbon.")
    assert fresh.stored
    hits = engine.bank("x").recall("where did Alice move?", k=3).hits
    assert fresh.unit_id in {h.id for h in hits}
    # every unit the bank now holds is readable (the index matches Chroma)
    ids = [u.id for u in engine.bank("x").units()]
    assert len(ids) == engine.bank("x").count() == len(set(ids))
    engine.close()


def test_loading_one_bank_does_not_stall_another(tmp_path, monkeypatch):
    engine = MemoryEngine(tmp_path / "s", embedder=HashEmbedder(dim=64))
    engine.bank("big").capture("Big bank fact about the Orion launch.")
    engine.bank("small").capture("Small bank fact: the cafe opens at nine.")
    engine._indexes.pop("big")  # as if the engine had just started: "big" loads on next use
    loading, release = threading.Event(), threading.Event()
    real_load = LiveIndex.load

    def slow_load(self, *args, **kwargs):
        loading.set()
        assert release.wait(JOIN_S)
        return real_load(self, *args, **kwargs)

    monkeypatch.setattr(LiveIndex, "load", slow_load)
    loader, load_errors = _run(lambda: engine.bank("big").recall("Orion launch"))
    assert loading.wait(JOIN_S)
    reader, read_errors = _run(lambda: engine.bank("small").recall("when does the cafe open?"))
    reader.join(JOIN_S)
    finished_while_loading = not reader.is_alive() and not release.is_set()
    release.set()
    loader.join(JOIN_S)
    assert finished_while_loading, "a recall on a loaded bank waited for another bank's load"
    assert not loader.is_alive() and not load_errors and not read_errors
    engine.close()


def test_recall_does_not_wait_for_a_capture_that_embeds():
    emb = GatedEmbedder()
    engine = MemoryEngine.ephemeral(embedder=emb)
    bank = engine.bank("b")
    bank.capture("The billing service runs on port 9090.")
    writer, write_errors = _run(lambda: bank.capture("GATE the deploy window is Friday."))
    assert emb.entered.wait(JOIN_S)
    done_during_embed, read_errors = _finishes_while_parked(emb.release, lambda: bank.recall("billing port", k=1))
    writer.join(JOIN_S)
    assert done_during_embed, "recall waited for a capture's embedding"
    assert not write_errors and not read_errors and bank.count() == 2
    engine.close()


def test_recalls_share_the_bank_lock(monkeypatch):
    """A recall parked inside the pipeline does not stop another recall of the same bank."""
    import hindsight_core._recall as bank_mod  # the recall service runs the pipeline

    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64))
    bank = engine.bank("b")
    bank.capture("Alice's manager is Oskar.")
    inside, release = threading.Event(), threading.Event()
    real = bank_mod.retrieve

    def parked(request, index, cfg):
        if request.query.startswith("park"):
            inside.set()
            assert release.wait(JOIN_S)
        return real(request, index, cfg)

    monkeypatch.setattr(bank_mod, "retrieve", parked)
    first, first_errors = _run(lambda: bank.recall("park: who manages Alice?"))
    assert inside.wait(JOIN_S)
    shared, second_errors = _finishes_while_parked(release, lambda: bank.recall("who manages Alice?"))
    first.join(JOIN_S)
    assert shared, "two recalls of one bank queued behind each other"
    assert not first_errors and not second_errors
    engine.close()


def test_bank_lock_order_rules():
    lock = BankLock()
    with lock:
        with lock.read():  # a writer may read
            with lock:  # and re-enter
                pass
    with lock.read():
        with pytest.raises(RuntimeError, match="upgraded"):
            lock.acquire_write()
    # a waiting writer is not starved by a stream of new readers
    lock.acquire_read()
    got_write = threading.Event()
    writer, _ = _run(lambda: (lock.acquire_write(), got_write.set(), lock.release_write()))
    while not lock._writers_waiting:  # noqa: SLF001 - wait until the writer queues
        threading.Event().wait(0.001)
    late_reader_in = threading.Event()
    reader, _ = _run(lambda: (lock.acquire_read(), late_reader_in.set(), lock.release_read()))
    lock.release_read()
    assert got_write.wait(JOIN_S)
    reader.join(JOIN_S)
    writer.join(JOIN_S)
    assert late_reader_in.is_set() and not reader.is_alive() and not writer.is_alive()


def test_a_writer_admits_readers_but_not_writers():
    lock = BankLock()
    with pytest.raises(RuntimeError, match="write lock"):  # only the writer can admit readers
        with lock.admit_readers(MAX_DEFER_S):
            pass
    lock.acquire_write()
    reader_in, reader_go, other_in, leaving = (threading.Event() for _ in range(4))

    def admitted_reader() -> None:
        lock.acquire_read()
        reader_in.set()
        reader_go.wait(JOIN_S)
        threading.Event().wait(0.2)  # still reading a while after the writer's block wants to end
        leaving.set()
        lock.release_read()

    with lock.admit_readers(MAX_DEFER_S), lock.admit_readers(MAX_DEFER_S):  # nested: the outer block closes the door
        reader, _ = _run(admitted_reader)
        assert reader_in.wait(JOIN_S), "a reader waited for a writer that admits readers"
        other, _ = _run(lambda: (lock.acquire_write(), other_in.set(), lock.release_write()))
        assert not other_in.wait(0.2), "a second writer got in while the first admitted readers"
        reader_go.set()
    assert leaving.is_set(), "the block ended while an admitted reader still held the read side"
    late_reader = threading.Event()
    late, _ = _run(lambda: (lock.acquire_read(), late_reader.set(), lock.release_read()))
    assert not late_reader.wait(0.2), "a reader got in after the writer stopped admitting"
    lock.release_write()
    assert other_in.wait(JOIN_S) and late_reader.wait(JOIN_S)
    for thread in (reader, other, late):
        thread.join(JOIN_S)


def test_recall_reads_the_bank_while_a_capture_writes_to_chroma(monkeypatch):
    """A capture's Chroma upsert holds the GIL (chroma-core/chroma#3873) and, on a busy machine,
    tens of milliseconds: recalls read the index meanwhile, without the unit not yet stored."""
    from hindsight_core.storage.chroma_store import ChromaStore
    from hindsight_core.storage.codec import record_text

    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64))
    bank = engine.bank("b")
    bank.capture("The billing service runs on port 9090.")
    inside, release = threading.Event(), threading.Event()
    real = ChromaStore.upsert

    def gated(self, col, ids, documents, metadatas, *args, **kwargs):
        if any("GATE" in record_text(None, m) for m in metadatas):
            inside.set()
            assert release.wait(JOIN_S)
        return real(self, col, ids, documents, metadatas, *args, **kwargs)

    monkeypatch.setattr(ChromaStore, "upsert", gated)
    writer, write_errors = _run(lambda: bank.capture("GATE the billing deploy window is Friday."))
    assert inside.wait(JOIN_S)
    seen: list[list[str]] = []
    read_during_write, read_errors = _finishes_while_parked(
        release, lambda: seen.append([h.unit.text for h in bank.recall("billing", k=5).hits]))
    writer.join(JOIN_S)
    assert read_during_write, "recall waited for a capture's Chroma write"
    assert not write_errors and not read_errors
    assert seen == [["The billing service runs on port 9090."]]  # not the unit still being written
    assert any("GATE" in h.unit.text for h in bank.recall("billing deploy window", k=5).hits)
    engine.close()


def test_capture_many_from_threads_loses_nothing():
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64))
    bank = engine.bank("b")

    def writer(n: int) -> None:
        for i in range(10):
            bank.capture_many([f"thread {n} item {i} records serial SN-{n:02d}-{i:03d}-1",
                               f"thread {n} item {i} records serial SN-{n:02d}-{i:03d}-2"])
            bank.recall(f"serial SN-{n:02d}", k=3)

    runs = [_run(writer, n) for n in range(6)]
    for thread, errors in runs:
        thread.join(JOIN_S)
        assert not thread.is_alive() and not errors
    assert bank.count() == 6 * 10 * 2
    engine.close()
