"""Recalls first: a write's heavy steps wait for recalls in flight, never deadlock, never lose a write,
and a thread's next recall sees what its capture returned.

Order is asserted through events and counters (``ReadPriority.deferred``); no wall-clock duration is
asserted. Every wait has a hang guard whose *result* is asserted.
"""

from __future__ import annotations

import threading

from hindsight_core import MemoryEngine
from hindsight_core.read_priority import ReadPriority
from hindsight_core.storage.rwlock import BankLock, holds_a_bank_lock
from hindsight_core.testing import HashEmbedder

JOIN_S = 60  # only a deadlock reaches it


def _wait_for(predicate, what: str) -> None:
    done = threading.Event()
    for _ in range(JOIN_S * 100):
        if predicate():
            return
        done.wait(0.01)
    raise AssertionError(f"never happened: {what}")


def test_a_write_step_waits_until_the_recall_in_flight_is_done():
    reads = ReadPriority(max_defer_s=JOIN_S)
    order: list[str] = []
    in_recall, finish = threading.Event(), threading.Event()

    def recall() -> None:
        with reads.reading():
            in_recall.set()
            assert finish.wait(JOIN_S)
            order.append("recall done")

    def write() -> None:
        order.append("write waited" if reads.yield_to_reads() else "write did not wait")
        order.append("write step")

    reader = threading.Thread(target=recall)
    reader.start()
    assert in_recall.wait(JOIN_S)
    writer = threading.Thread(target=write)
    writer.start()
    _wait_for(lambda: reads.deferred == 1, "the write step started waiting")
    assert order == []  # still waiting while the recall runs
    finish.set()
    for t in (reader, writer):
        t.join(JOIN_S)
        assert not t.is_alive()
    assert order == ["recall done", "write waited", "write step"]
    assert reads.in_flight == 0 and reads.overdue == 0


def test_no_recall_in_flight_means_no_wait_and_a_recall_never_waits_for_itself():
    reads = ReadPriority()
    assert reads.yield_to_reads() is False and reads.deferred == 0
    with reads.reading():
        with reads.reading():  # re-entrant: still one recall in flight
            assert reads.in_flight == 1
            assert reads.yield_to_reads() is False  # a recall that writes does not wait for itself
    assert reads.in_flight == 0 and reads.deferred == 0


def test_a_steady_stream_of_recalls_cannot_starve_a_write(held_by_another_thread):
    reads = ReadPriority(max_defer_s=0.0)  # gives up at once: what a starved write does after max_defer_s
    with held_by_another_thread(reads.reading):
        assert reads.yield_to_reads() is True  # it did find a recall, and went on anyway
        assert reads.deferred == 1 and reads.overdue == 1


def test_bank_lock_holds_are_counted_per_thread():
    lock = BankLock()
    assert not holds_a_bank_lock()
    with lock:
        with lock.read():
            assert holds_a_bank_lock()
        assert holds_a_bank_lock()
    assert not holds_a_bank_lock()
    with lock.read():
        seen: dict = {}
        other = threading.Thread(target=lambda: seen.__setitem__("other", holds_a_bank_lock()))
        other.start()
        other.join(JOIN_S)
        assert seen == {"other": False} and holds_a_bank_lock()
    assert lock.acquire(blocking=False)
    assert holds_a_bank_lock()
    lock.release()
    assert not holds_a_bank_lock()


def test_a_store_never_waits_for_recalls_or_its_turn_while_it_holds_a_bank_lock(held_by_another_thread):
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=32))
    try:
        bank = engine.bank("held")
        bank.capture("Alice moved to Lisbon in March.")
        store = bank._store
        store.reads._max_defer_s = JOIN_S  # only a wait that should not happen would reach it
        # the turn is taken first: taken during a recall, it would wait for the recall
        with held_by_another_thread(store.reads.write_turn), held_by_another_thread(store.reads.reading):
            # a recall or the turn's holder may be waiting for this lock: waiting here would deadlock
            with store.write():
                assert store.yield_to_reads() is False
                with store.write_turn():
                    pass
            assert store.reads.deferred == 0 and store.reads.late_turns == 0
    finally:
        engine.close()


class _GatedQueries(HashEmbedder):
    """Blocks the embedding of a query containing ``SLOW`` until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.entered, self.release = threading.Event(), threading.Event()

    def embed(self, texts):
        if any("SLOW" in t for t in texts):
            self.entered.set()
            assert self.release.wait(JOIN_S), "test never released the gated embedder"
        return super().embed(texts)


def test_a_capture_during_a_recall_is_applied_after_it_and_then_seen():
    emb = _GatedQueries()
    engine = MemoryEngine.ephemeral(embedder=emb)
    try:
        bank = engine.bank("order")
        bank.capture("Alice moved to Lisbon in March.")
        reads = bank._store.reads
        out: dict = {}
        reader = threading.Thread(target=lambda: out.__setitem__("recall", bank.recall("SLOW where is Alice?")))
        reader.start()
        assert emb.entered.wait(JOIN_S)  # the recall is in flight, embedding its query
        writer = threading.Thread(target=lambda: out.__setitem__("capture", bank.capture("Bob adopted a cat named Rex.")))
        writer.start()
        _wait_for(lambda: reads.deferred >= 1, "the capture yielded to the recall")
        assert "capture" not in out
        emb.release.set()
        for t in (reader, writer):
            t.join(JOIN_S)
            assert not t.is_alive()
        assert out["capture"].stored and out["recall"].hits
        assert reads.in_flight == 0
        # the capture returned: it is durable and the next recall finds it
        assert out["capture"].unit_id in {h.unit.id for h in bank.recall("Who adopted a cat named Rex?", k=5).hits}
    finally:
        engine.close()


def test_each_thread_reads_its_own_writes_under_mixed_load(run_threads):
    """Read-your-writes: 6 threads loop capture-then-recall on one bank; every recall right after a
    capture returns that thread's new unit (its unique ticket is the query), and nothing is lost."""
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64))
    try:
        bank = engine.bank("ryw")
        bank.capture("The on-call rota changes every Monday.")
        missing: list[str] = []
        errors: list[BaseException] = []
        written: list[str] = []
        guard = threading.Lock()

        def worker(n: int) -> None:
            try:
                for i in range(12):
                    ticket = f"ZX{n}Q{i}W"
                    result = bank.capture(f"Worker {n} filed ticket {ticket} for host h{n}.")
                    assert result.stored and result.unit_id
                    hits = bank.recall(f"ticket {ticket}", k=5).hits
                    if result.unit_id not in {h.unit.id for h in hits}:
                        missing.append(ticket)
                    with guard:
                        written.append(result.unit_id)
            except BaseException as exc:  # noqa: BLE001 - asserted below
                errors.append(exc)

        run_threads(worker, 6, join_s=JOIN_S)
        assert not errors and not missing
        assert len(bank.get_many(written)) == 72 and bank.count() == 73
    finally:
        engine.close()


def _write_in_its_turn(reads: ReadPriority) -> tuple[threading.Thread, threading.Event]:
    """A thread started to enter the write turn once, and the event it sets inside."""
    entered = threading.Event()

    def write() -> None:
        with reads.write_turn():
            entered.set()

    writer = threading.Thread(target=write)
    writer.start()
    return writer, entered


def test_writes_apply_one_at_a_time(held_by_another_thread):
    reads = ReadPriority(max_defer_s=JOIN_S)
    with held_by_another_thread(reads.write_turn):
        writer, entered = _write_in_its_turn(reads)
        assert not entered.wait(0.2)  # the first write still applies: the second waits its turn
    writer.join(JOIN_S)
    assert entered.is_set() and not writer.is_alive()
    assert reads.late_turns == 0


def test_the_write_whose_turn_it_is_waits_for_the_recalls_in_flight(held_by_another_thread):
    reads = ReadPriority(max_defer_s=JOIN_S)
    with held_by_another_thread(reads.reading):
        writer, entered = _write_in_its_turn(reads)
        _wait_for(lambda: reads.deferred == 1, "the write in its turn started waiting for the recall")
        assert not entered.is_set()
    writer.join(JOIN_S)
    assert entered.is_set() and reads.overdue == 0


def test_a_write_denied_its_turn_for_max_defer_s_goes_on_and_turns_nest(held_by_another_thread):
    reads = ReadPriority(max_defer_s=0.0)  # gives up at once: what a write does after max_defer_s
    with held_by_another_thread(reads.write_turn):
        with reads.write_turn():
            with reads.write_turn():  # nested: no second wait, no second count
                pass
        assert reads.late_turns == 1
    patient = ReadPriority(max_defer_s=JOIN_S)
    with held_by_another_thread(patient.write_turn), patient.reading():
        with patient.write_turn():  # a recall that writes never waits, for its turn either
            assert patient.late_turns == 0 and patient.deferred == 0


def test_a_capture_applies_in_its_turn(held_by_another_thread):
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=32))
    try:
        bank = engine.bank("turns")
        bank.capture("Alice moved to Lisbon in March.")
        reads = bank._store.reads
        reads._max_defer_s = JOIN_S
        out: dict = {}
        with held_by_another_thread(reads.write_turn):  # another bank's write applying, say
            writer = threading.Thread(target=lambda: out.__setitem__("capture", bank.capture("Bob adopted a cat named Rex.")))
            writer.start()
            writer.join(0.2)
            assert "capture" not in out  # embedded, waiting for its turn to apply
        writer.join(JOIN_S)
        assert out["capture"].stored and reads.late_turns == 0
        assert bank.count() == 2
    finally:
        engine.close()
