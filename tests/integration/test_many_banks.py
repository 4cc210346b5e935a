"""Many banks in one process: cheap bank creation, deferred activity write-back, eviction under load.

On the deterministic HashEmbedder; no test asserts a duration. What each test pins down:

* an engine alone on its folder keeps no change log (a log collection and a second Chroma write
  per write saved), yet an engine that opens the folder later, even while writes are landing,
  sees every write;
* recall hits' activity counters are written back once per bank per interval, and never lost:
  ``drain()``, ``close()`` and evicting the bank write them first;
* banks evicted and reopened while threads capture into and recall from them lose no write, no
  hit count, and serve no stale record.
"""

from __future__ import annotations

import random
import threading

import pytest

from hindsight_core import CacheConfig, MemoryEngine
from hindsight_core import _bank_state, _lifecycle_ops
from hindsight_core.lifecycle.background import WorkerPool
from hindsight_core.storage import chroma_store
from hindsight_core.testing import HashEmbedder

_WORDS = [a + b for a in ("amber", "basil", "cobalt", "dune", "ember", "fjord", "garnet", "harbor")
          for b in ("fox", "kiln", "loom", "mast", "nook", "orchid", "pylon", "quill")]


def _log_collections(engine: MemoryEngine) -> list[str]:
    return [c.name for c in engine.store.client.list_collections() if c.name.startswith(chroma_store._LOG_PREFIX)]


def _stored(engine: MemoryEngine, bank_id: str) -> dict[str, dict]:
    """Every record of the bank as Chroma holds it: id -> the unit's fields."""
    return {u.id: u for u in engine.bank(bank_id).units()}


@pytest.fixture
def write_back_later(monkeypatch):
    """Activity is written back only when something asks for it (drain, close, eviction, forgetting)."""
    monkeypatch.setattr(_lifecycle_ops, "ACTIVITY_WRITE_BACK_S", 3600.0)
    monkeypatch.setattr(_bank_state, "ACTIVITY_WRITE_BACK_S", 3600.0)


# ---- the change log only when someone may read it ---------------------------------------------------
def test_an_engine_alone_on_its_folder_writes_no_change_log_and_a_later_engine_sees_everything(tmp_path):
    path = tmp_path / "store"
    alone = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    first = alone.bank("u").capture("Alice owns Project Falcon.").unit_id
    gone = alone.bank("u").capture("The Zanzibar drawer holds the spare keys.").unit_id
    alone.bank("v").capture_many(["Bob likes tea.", "Carol runs the Orion launch."])
    assert _log_collections(alone) == []  # no one else can read this folder: nothing to tell

    other = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    assert set(_stored(other, "u")) == {first, gone}  # opens the folder and loads the bank from Chroma
    added = alone.bank("u").capture("Falcon hired two engineers.").unit_id
    alone.bank("u").delete(gone)
    assert _log_collections(alone)  # now another engine shares the folder: writes are recorded
    seen = [h.id for h in other.bank("u").recall("Falcon engineers; Zanzibar drawer keys", k=5).hits]
    assert added in seen and gone not in seen and other.bank("u").count() == 2
    mine = other.bank("v").capture("Dave fixed the billing bug.").unit_id  # and the other way round
    assert mine in [h.id for h in alone.bank("v").recall("who fixed the billing bug?", k=2).hits]
    other.close()
    alone.close()


def test_writes_landing_while_another_engine_opens_the_folder_are_all_seen(tmp_path):
    """The log is skipped only for writes that land before another engine opened the folder (checked
    after each write), so an engine opening in the middle of a stream of writes misses none."""
    path = tmp_path / "store"
    writer = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    writer.bank("w").capture("The stream starts here.")
    written: list[str] = []
    stop = threading.Event()

    def write() -> None:
        n = 0
        while not stop.is_set() and n < 400:
            written.append(writer.bank("w").capture(f"Stream entry {n}: {_WORDS[n % len(_WORDS)]}.").unit_id)
            n += 1

    thread = threading.Thread(target=write)
    thread.start()
    while len(written) < 3:
        stop.wait(0.01)
    reader = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    loaded = reader._live_index("w")  # opens the folder and loads the bank while writes land
    while len(written) < 10 and thread.is_alive():
        stop.wait(0.01)
    stop.set()
    thread.join()
    assert reader.bank("w").count() == len(written) + 1  # count() catches the index up first
    assert set(loaded.units) == set(writer._live_index("w").units) == set(reader.store.ids(loaded.collection))
    reader.close()
    writer.close()


# ---- activity write-back -------------------------------------------------------------------------
def test_a_deferred_job_keeps_its_time_and_drain_brings_it_forward():
    pool = WorkerPool(workers=2)
    queue = pool.queue("bank")
    ran: list[int] = []
    for n in range(5):  # a stream of triggers: one job, the last one, at the first one's time
        queue.submit("flush", lambda n=n: ran.append(n), delay_s=3600.0)
    assert ran == [] and pool.busy("bank")
    assert pool.drain(30)
    assert ran == [4]
    queue.submit("flush", lambda: ran.append(5), delay_s=3600.0)
    done = threading.Event()
    queue.submit("reflect", lambda: (ran.append(6), done.set()))  # queued later, runs first: no wait
    assert done.wait(30) and ran == [4, 6]
    assert pool.busy("bank", hurry=True)  # what the bank cache asks before evicting: brings it forward
    assert pool.drain(30) and ran == [4, 6, 5]
    assert pool.close()


def test_a_due_deferred_job_yields_to_new_submissions_but_not_past_its_latest_time():
    from hindsight_core.lifecycle import background

    pool = WorkerPool(workers=1)
    queue = pool.queue("bank")
    with pool._cond:  # looked at under the pool's lock, as the workers do; nothing runs meanwhile
        queue.submit("flush", lambda: None, delay_s=10.0)
        due, _, latest = queue._pending["flush"]
        assert latest == pytest.approx(due + 10.0 * (background.DEFERRED_LATEST_FACTOR - 1), abs=0.01)
        pool._last_submit = due + 5.0  # a foreground call queued work after it fell due
        assert queue._due() == pytest.approx(due + 5.0 + background.QUIET_S)
        pool._last_submit = latest  # never quiet: it runs at its latest time all the same
        assert queue._due() == pytest.approx(latest)
        queue._pending.clear()
    pool.close()


def test_a_deferred_write_back_does_not_wake_idle_workers_but_a_due_job_does():
    """Every recall queues its bank's write-back (due in 30 s): with hundreds of banks holding unwritten
    hits, waking every idle worker on each of them made the workers rescan every ready queue on every
    recall. Counted, not timed: waking the idle workers (``pool.wakeups``) and their rescans (``_due``)."""
    import time

    from hindsight_core.lifecycle import background

    pool = WorkerPool(workers=4)
    for n in range(200):  # 200 banks with hits not yet written back
        pool.queue(f"bank-{n}").submit("flush", lambda: None, delay_s=3600.0)
    deadline = time.monotonic() + 30
    while len(pool._sleeping) < pool.threads() or pool.threads() < pool.workers:  # every worker waits
        assert time.monotonic() < deadline
        time.sleep(0.01)
    scans = [0]
    due = background.BackgroundQueue._due

    def counted(queue):
        scans[0] += 1
        return due(queue)

    background.BackgroundQueue._due = counted
    try:
        woken = pool.wakeups
        for n in range(100):  # recalls of the hot banks: each queues its write-back again
            pool.queue(f"bank-{n % 10}").submit("flush", lambda: None, delay_s=3600.0)
        assert pool.wakeups == woken  # nobody woken early: the workers already wake before these are due
        assert scans[0] <= 100  # each submit looks at its own queue once; nobody rescans the 200
        done = threading.Event()
        pool.queue("bank-3").submit("reflect", done.set)  # due in debounce_s: before the workers wake
        assert done.wait(30) and pool.wakeups == woken + 1
    finally:
        background.BackgroundQueue._due = due
    assert pool.drain(30) and pool.close()


def test_recall_hits_are_written_back_in_one_write_at_drain(tmp_path, write_back_later, monkeypatch):
    engine = MemoryEngine(tmp_path / "store", embedder=HashEmbedder(dim=64))
    bank = engine.bank("u", lifecycle={"consolidate_every": 0})
    ids = [r.unit_id for r in bank.capture_many([f"Rack R{i} holds server node-{i} in room {_WORDS[i]}."
                                                 for i in range(6)])]
    writes: list[int] = []
    real = chroma_store.ChromaStore.update_metadata
    monkeypatch.setattr(chroma_store.ChromaStore, "update_metadata",
                        lambda self, col, i, m: (writes.append(len(i)), real(self, col, i, m))[1])
    hits = [h.id for _ in range(4) for h in bank.recall("which rack holds server node-2?", k=1).hits]
    assert hits == [ids[2]] * 4
    assert _stored(engine, "u")[ids[2]].hit_count == 0 and writes == []  # in memory only, for now
    assert engine.drain(30)
    assert len(writes) == 1  # four recalls, one write
    unit = _stored(engine, "u")[ids[2]]
    assert unit.hit_count == 4 and unit.activity == pytest.approx(engine._live_index("u").units[ids[2]].activity)
    engine.close()


def test_a_rewrite_keeps_the_activity_recall_has_not_written_back(tmp_path, write_back_later):
    """A fact recalled (its activity not written back yet) and then superseded: the rewrite carries
    recall's activity, so Chroma and the loaded view agree once the counters are written."""
    from datetime import datetime, timedelta, timezone

    engine = MemoryEngine(tmp_path / "store", embedder=HashEmbedder(dim=64))
    bank = engine.bank("u", lifecycle={"consolidate_every": 0, "update_model": False})
    t0 = datetime(2024, 5, 1, tzinfo=timezone.utc)
    old = bank.capture("The billing service listens on port 8080.", mentioned_at=t0).unit_id
    for _ in range(3):
        assert bank.recall("which port does the billing service listen on?", k=1).ids == [old]
    assert bank.capture("billing moved to port 9090", mentioned_at=t0 + timedelta(days=3)).supersedes == (old,)
    assert engine.drain(30)
    unit = _stored(engine, "u")[old]
    assert unit.status.value == "superseded" and unit.hit_count == 3
    assert unit.activity == pytest.approx(engine._live_index("u").units[old].activity)
    assert unit.activity > 0.5  # three hits' worth, not the value read before them
    engine.close()


def test_pending_hits_are_written_at_close_and_before_eviction(tmp_path, write_back_later):
    path = tmp_path / "store"
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=64), cache=CacheConfig(max_banks=2))
    target = engine.bank("a").capture("The amber fox sleeps in the kiln.").unit_id
    assert engine.bank("a").recall("where does the amber fox sleep?", k=1).ids == [target]
    for name in ("b", "c", "d", "e"):  # push "a" out of the cache: its counters are written first
        engine.bank(name).capture(f"Bank {name} holds the {name} fact.")
    for name in ("b", "c", "d", "e"):  # every use retries the eviction that waited for a's write
        engine.bank(name).count()
    assert "a" not in engine._indexes
    assert _stored(engine, "a")[target].hit_count == 1
    assert engine.bank("a").recall("amber fox", k=1).ids == [target]  # reopened: counts on from 1
    engine.close()  # no drain: close() writes what is pending
    again = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    assert _stored(again, "a")[target].hit_count == 2
    again.close()


# ---- eviction under concurrent use ---------------------------------------------------------------
@pytest.mark.parametrize("persistent", [False, True], ids=["memory", "folder"])
def test_evicted_banks_lose_no_write_or_hit_and_serve_nothing_stale(tmp_path, persistent, write_back_later,
                                                                    run_threads):
    cache = CacheConfig(max_banks=3, snapshot_min_units=1)
    engine = (MemoryEngine(tmp_path / "store", embedder=HashEmbedder(dim=64), cache=cache) if persistent
              else MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64), cache=cache))
    bank_ids = [f"user-{n}" for n in range(8)]
    written: dict[str, list[str]] = {b: [] for b in bank_ids}
    hits: dict[str, int] = dict.fromkeys(bank_ids, 0)
    errors: list[BaseException] = []
    guard = threading.Lock()

    def worker(seed: int) -> None:
        rnd = random.Random(seed)
        try:
            for step in range(20):
                bank_id = rnd.choice(bank_ids)
                bank = engine.bank(bank_id, lifecycle={"consolidate_every": 0})
                if step % 2 == 0:
                    text = f"Worker {seed} noted {' '.join(rnd.choice(_WORDS) for _ in range(3))} (step {step})."
                    result = bank.capture(text)
                    assert result.stored and not result.merged, text
                    with guard:
                        written[bank_id].append(text)
                else:
                    found = bank.recall(rnd.choice(_WORDS), k=2)
                    with guard:
                        hits[bank_id] += len(found.hits)
                    # never stale: every unit recalled is one Chroma holds with the same text
                    stored = {u.id: u.text for u in bank.units()}
                    assert all(stored.get(h.id) == h.unit.text for h in found.hits)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    run_threads(worker, 5)
    assert not errors, errors[0]
    assert engine.drain(60) and engine.background_failures() == []
    assert engine._indexes.evictions > 0
    for bank_id in bank_ids:
        stored = _stored(engine, bank_id)
        assert sorted(u.text for u in stored.values()) == sorted(written[bank_id])  # no write lost
        assert sum(u.hit_count for u in stored.values()) == hits[bank_id]  # no hit lost
        index = engine._live_index(bank_id)  # the loaded view agrees with Chroma, counters included
        assert set(index.units) == set(stored)
        assert all(index.units[i].activity == pytest.approx(u.activity) for i, u in stored.items())
    engine.close()
