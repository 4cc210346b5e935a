"""Many banks in one process: a shared background pool, a bounded bank cache, index snapshots.

All on the deterministic HashEmbedder: these tests are about threads, memory and storage, not
about embedding quality. No test asserts a duration.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from hindsight_core import CacheConfig, MemoryEngine
from hindsight_core.episodes import Episode, TraceStep
from hindsight_core.lifecycle.background import WorkerPool
from hindsight_core.storage.live_index import LiveIndex
from hindsight_core.testing import HashEmbedder


def _episode(n: int) -> Episode:
    return Episode.from_steps([
        TraceStep(kind="user", text=f"Deploy service {n} to production"),
        TraceStep(kind="tool_call", text=f"deploy(service='svc{n}')", tool="deploy"),
        TraceStep(kind="tool_error", text=f"PermissionError: change ticket required for svc{n}", tool="deploy"),
    ], session_id=f"s{n}")


# ---- no thread per bank ------------------------------------------------------------------------
def test_200_banks_ending_episodes_use_a_bounded_pool():
    before = threading.active_count()
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(), cache=CacheConfig(workers=3))
    banks = [engine.bank(f"user-{n}") for n in range(200)]
    peak = 0
    for n, bank in enumerate(banks):
        assert bank.end_episode(_episode(n), "failure", background=True).pending
        peak = max(peak, threading.active_count() - before)
    assert engine.drain(120)
    assert peak <= 3, f"{peak} extra threads for 200 banks; the pool allows 3"
    assert engine.background_failures() == []
    for n in (0, 99, 199):  # each bank got its own lesson, in its own bank
        lessons = banks[n].recall_lessons(f"deploy service {n}").hits
        assert lessons and all(h.unit.bank == f"user-{n}" for h in lessons)
    engine.close()
    deadline = time.monotonic() + 10
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before  # close() joined the workers


def test_pool_keeps_each_banks_order_and_never_overlaps_one_bank():
    pool = WorkerPool(workers=4)
    log: dict[str, list[int]] = {f"b{n}": [] for n in range(6)}
    inside: dict[str, int] = dict.fromkeys(log, 0)
    overlaps = []
    guard = threading.Lock()

    def job(bank: str, n: int) -> None:
        with guard:
            inside[bank] += 1
            if inside[bank] > 1:
                overlaps.append(bank)
        time.sleep(random.random() / 500)
        with guard:
            log[bank].append(n)
            inside[bank] -= 1

    for n in range(20):
        for bank in log:
            pool.queue(bank).submit(f"job-{n}", lambda bank=bank, n=n: job(bank, n))
    pool.queue("b0").debounce_s = 0.0
    assert pool.drain(60)
    assert overlaps == []
    assert all(seq == list(range(20)) for seq in log.values()), log
    assert pool.threads() <= 4
    assert pool.close()
    assert pool.threads() == 0


def test_pool_keeps_failures_after_retries_and_drains():
    pool = WorkerPool(workers=2)
    queue = pool.queue("ops")
    queue.backoff_s = 0.0
    calls = []

    def broken() -> None:
        calls.append(1)
        raise RuntimeError("model offline")

    queue.submit("reflect", broken)
    pool.queue("other").submit("fine", lambda: calls.append(0))
    assert pool.drain(30)
    failures = pool.failures()
    assert len(failures) == 1 and failures[0].key == "reflect" and failures[0].attempts == 3
    assert calls.count(1) == 3 and calls.count(0) == 1
    assert pool.busy("ops") is False
    pool.close()


def test_a_job_failing_while_the_interpreter_exits_is_dropped_quietly(caplog):
    """At exit a store may be closed under a running job: no retry, no warning on the way out."""
    pool = WorkerPool(workers=1)
    started, calls = threading.Event(), []

    def closed_under_it() -> None:
        calls.append(1)
        started.set()
        time.sleep(0.2)  # the exit hook runs meanwhile
        raise RuntimeError("Chroma failed to read memory units")

    pool.queue("u").submit("activity", closed_under_it)
    assert started.wait(10)
    with caplog.at_level("DEBUG", logger="hindsight.background"):
        pool._stop_at_exit()  # what the atexit hook does for every pool
    assert calls == [1] and pool.failures() == []
    assert [r.levelname for r in caplog.records] == ["DEBUG"]


_READ_AT_EXIT = """
import time
from hindsight_core import MemoryEngine
from hindsight_core.testing import HashEmbedder
engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64))  # never closed: closed at exit
engine.bank("u").capture("Alice owns Project Falcon.")
def read_late():
    time.sleep(1.0)  # still running when the script ends
    print("collections", len(engine.store.client.list_collections()), flush=True)
engine._pool.queue("u").submit("late", read_late)
time.sleep(0.3)
"""


def test_a_job_running_at_exit_finishes_before_an_unclosed_in_memory_store_closes():
    done = subprocess.run([sys.executable, "-c", _READ_AT_EXIT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "collections 1" in done.stdout, done.stderr[-2000:]


# ---- bounded bank cache ----------------------------------------------------------------------
def test_idle_banks_are_evicted_and_reopen_transparently():
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(), cache=CacheConfig(max_banks=3))
    for n in range(10):
        engine.bank(f"u{n}").capture(f"User {n} lives in city number {n}.")
    # a capture queues the learning of its words: a bank is in use until that job is done (it ran
    # over the bound once in a full run of the suite), and the next access after it shrinks the cache
    assert engine.drain(30)
    assert engine.bank("u9").count() == 1
    assert len(engine._indexes) <= 3 and engine._indexes.evictions >= 7
    for n in range(10):  # every evicted bank reopens with what it held
        bank = engine.bank(f"u{n}")
        assert bank.count() == 1
        assert bank.recall(f"where does user {n} live?", k=1).units[0].text == f"User {n} lives in city number {n}."
    # each recall queued an activity flush: a bank with background work waiting is in use, so the
    # cache may run over until that work is done; the next access shrinks it again
    assert engine.drain(30)
    assert engine.bank("u9").count() == 1 and len(engine._indexes) <= 3
    engine.close()


def test_the_unit_budget_bounds_the_cache_too():
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(), cache=CacheConfig(max_units=25))
    for n in range(6):
        engine.bank(f"u{n}").capture_many([f"user {n} fact {i} about topic {i}" for i in range(10)])
    assert engine._indexes.units() <= 25 + 10  # the bank just loaded may exceed the budget alone
    assert [engine.bank(f"u{n}").count() for n in range(6)] == [10] * 6
    engine.close()


def test_a_bank_in_use_is_never_evicted():
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(), cache=CacheConfig(max_banks=2))
    engine.bank("held").capture("The held bank keeps this fact.")
    held = engine._live_index("held")  # a caller in the middle of an operation holds it
    for n in range(5):
        engine.bank(f"u{n}").capture(f"fact {n}")
    assert engine._live_index("held") is held
    lock, inside, leave = held.lock, threading.Event(), threading.Event()

    def in_lock() -> None:  # another thread inside the bank's lock, holding no reference to it
        with lock:
            inside.set()
            leave.wait(30)

    thread = threading.Thread(target=in_lock)
    thread.start()
    inside.wait(30)
    # dropped only now: between the drop and the lock the bank is idle, and a background job's
    # cache look-up could evict it there (about one run in six did)
    del held
    for n in range(5, 10):
        engine.bank(f"u{n}").capture(f"fact {n}")
    assert "held" in engine._indexes
    leave.set()
    thread.join()
    for n in range(10, 13):
        engine.bank(f"u{n}").capture(f"fact {n}")
    assert "held" not in engine._indexes  # idle again: now it may go
    assert engine.bank("held").count() == 1
    engine.close()


_WORDS = [a + b for a in ("amber", "basil", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "indigo", "jasper")
          for b in ("fox", "kiln", "loom", "mast", "nook", "orchid", "pylon", "quill", "reef", "sprocket")]


@pytest.mark.parametrize("persistent,chroma_indexes", [(False, None), (True, None), (True, 4)],
                         ids=["memory", "folder", "folder-chroma-bound-4"])
def test_concurrent_use_of_more_banks_than_the_cache_holds_loses_nothing(tmp_path, persistent, chroma_indexes,
                                                                        run_threads):
    cache = CacheConfig(max_banks=3, snapshot_min_units=1, chroma_indexes=chroma_indexes)
    engine = (MemoryEngine(tmp_path / "store", embedder=HashEmbedder(), cache=cache) if persistent
              else MemoryEngine.ephemeral(embedder=HashEmbedder(), cache=cache))
    bank_ids = [f"user-{n}" for n in range(10)]
    written: dict[str, list[str]] = {b: [] for b in bank_ids}
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker(seed: int) -> None:
        rnd = random.Random(seed)
        try:
            for step in range(25):
                bank_id = rnd.choice(bank_ids)
                bank = engine.bank(bank_id)
                words = " ".join(rnd.choice(_WORDS) for _ in range(4))
                text = f"Worker {seed} noted {words} (step {step})."
                result = bank.capture(text)
                assert result.stored and not result.merged, text
                with lock:
                    written[bank_id].append(text)
                # read your own write, whatever was evicted or reopened meanwhile
                assert result.unit_id in engine._live_index(bank_id).units, (bank_id, text)
                assert text in [u.text for u in bank.recall(text, k=5, include_history=True).units], (bank_id, text)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    run_threads(worker, 6)
    assert not errors, errors[0]
    assert engine.drain(60) and engine.background_failures() == []
    assert engine._indexes.evictions > 0
    for bank_id in bank_ids:  # nothing lost, nothing stale: the index agrees with Chroma
        bank = engine.bank(bank_id)
        assert sorted(u.text for u in bank.units()) == sorted(written[bank_id])
        index = engine._live_index(bank_id)
        assert set(index.units) == set(engine.store.ids(index.collection))
    engine.close()
    if persistent:  # and after a restart
        again = MemoryEngine(tmp_path / "store", embedder=HashEmbedder(), cache=cache)
        assert {b: again.bank(b).count() for b in bank_ids} == {b: len(t) for b, t in written.items()}
        again.close()


# ---- Chroma's own cache --------------------------------------------------------------------------
def _chroma_bound(engine: MemoryEngine) -> int:
    return engine.store.client._server.hnsw_cache_size


def test_banks_reopen_whole_after_chromas_bounded_cache_evicted_them(tmp_path):
    """chromadb 1.5.9 loses an evicted HNSW index written below its sync threshold (storage/_chroma_cache.py):
    with every collection persisting on each write, 24 banks through a bound of 4 read, query and write."""
    cache = CacheConfig(max_banks=2, chroma_indexes=4, snapshots=False)  # every reopen reads Chroma's vectors
    engine = MemoryEngine(tmp_path / "store", embedder=HashEmbedder(), cache=cache)
    assert _chroma_bound(engine) == 4
    facts = {f"u{n}": [f"user {n} keeps the {w} in drawer {i}" for i, w in enumerate(_WORDS[n::25][:3])]
             for n in range(24)}
    for bank_id, texts in facts.items():
        engine.bank(bank_id).capture_many(texts)
    for rnd in range(3):  # each round reopens every bank: Chroma evicted its index meanwhile
        for bank_id, texts in facts.items():
            bank = engine.bank(bank_id)
            if rnd:
                index = engine._live_index(bank_id)
                stored = {i: v for i, _doc, _meta, v in engine.store.scan(index.collection, embeddings=True)}
                assert set(stored) == set(index.units)  # Chroma's vectors survived its eviction...
                assert all(np.allclose(stored[i], index.vectors([i])[0]) for i in stored)  # ...unchanged
            hits = bank.recall(texts[-1], k=len(texts) + 2, include_history=True).units
            assert sorted(u.text for u in hits) == sorted(texts), (rnd, bank_id)
            text = f"{bank_id} round {rnd}: {_WORDS[rnd]} {_WORDS[-rnd - 1]}"
            assert bank.capture(text).stored
            texts.append(text)
            if rnd == 2:  # a delete after the eviction lands too
                gone = next(u for u in bank.units() if u.text == texts[0])
                bank.delete(gone.id)
                texts.pop(0)
    engine.close()
    again = MemoryEngine(tmp_path / "store", embedder=HashEmbedder(), cache=cache)
    for bank_id, texts in facts.items():
        assert sorted(u.text for u in again.bank(bank_id).units()) == sorted(texts)
    again.close()


def test_a_store_with_older_collections_keeps_chromas_own_bound(tmp_path):
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=str(tmp_path / "store"), settings=Settings(anonymized_telemetry=False))
    client.create_collection("written-by-an-older-release", configuration={"hnsw": {"space": "cosine"}})
    default = client._server.hnsw_cache_size
    client.close()
    engine = MemoryEngine(tmp_path / "store", embedder=HashEmbedder(), cache=CacheConfig(chroma_indexes=4))
    assert _chroma_bound(engine) == default != 4  # its index is lost if evicted, so Chroma's bound stays
    engine.close()


# ---- snapshots ----------------------------------------------------------------------------------
def _fill(engine: MemoryEngine, bank_id: str = "big", n: int = 60) -> None:
    bank = engine.bank(bank_id)
    bank.capture_many([{"text": f"Alice deployed service {i % 7} to region {i % 3} on port {9000 + i}.",
                        "session_id": f"s{i % 4}"} for i in range(n)])
    first = next(iter(engine._live_index(bank_id).units))
    bank.capture("Lesson: check the port before deploying.", kind="observation", evidence_ids=[first])


def _signature(index: LiveIndex) -> tuple:
    units = {i: (u.seq, u.text, u.status, u.entities, u.evidence_ids) for i, u in index.units.items()}
    edges = sorted(index.graph.graph.edges(keys=True))
    words = index.keyword.search("deployed service port region alice", 50)
    dense = index.dense_search(index.vectors([next(iter(index.units))])[0], 10)
    return units, edges, words, dense


def _rebuilt(engine: MemoryEngine, bank_id: str) -> LiveIndex:
    index = engine._live_index(bank_id)
    return LiveIndex(engine.store, index.collection, engine.embedder.dim).rebuild()


def test_snapshot_is_used_when_fresh_and_equals_a_rebuild(tmp_path, monkeypatch):
    path = tmp_path / "store"
    cache = CacheConfig(snapshot_min_units=10)
    engine = MemoryEngine(path, embedder=HashEmbedder(), cache=cache)
    _fill(engine)
    engine.close()
    snap = engine._snapshots.path_for("big")
    assert snap.exists()

    engine = MemoryEngine(path, embedder=HashEmbedder(), cache=cache)
    rebuilds = []
    real = LiveIndex.rebuild
    monkeypatch.setattr(LiveIndex, "rebuild", lambda self: rebuilds.append(1) or real(self))
    loaded = engine._live_index("big")
    assert rebuilds == [] and not snap.exists()  # used, and consumed
    assert _signature(loaded) == _signature(_rebuilt(engine, "big"))
    hits = engine.bank("big").recall("which port did service 3 use?", k=5)
    assert len(hits.units) == 5
    before = engine.bank("big").count()
    engine.bank("big").capture("A new fact after the reopen.")  # the snapshot is live state: writes work
    assert engine.bank("big").count() == before + 1 == engine.store.count(loaded.collection)
    engine.close()


@pytest.mark.parametrize("spoil", ["stale_count", "stale_update", "corrupt", "version", "foreign"])
def test_a_bad_snapshot_is_ignored_and_the_bank_rebuilt(tmp_path, monkeypatch, spoil):
    from hindsight_core.storage import snapshot

    path = tmp_path / "store"
    cache = CacheConfig(snapshot_min_units=10)
    engine = MemoryEngine(path, embedder=HashEmbedder(), cache=cache)
    _fill(engine)
    engine.close()
    snap = engine._snapshots.path_for("big")
    saved = snap.read_bytes()

    if spoil in ("stale_count", "stale_update"):  # another writer that does not keep snapshots
        other = MemoryEngine(path, embedder=HashEmbedder(), cache=CacheConfig(snapshots=False))
        other._snapshots = None  # e.g. an older release: it neither reads nor consumes snapshots
        bank = other.bank("big")
        if spoil == "stale_count":
            bank.capture("Bob moved the billing service to port 7070.")
        else:  # same unit count, changed metadata
            bank.invalidate(next(iter(other._live_index("big").units)), reason="wrong")
        other.close()
        assert snap.read_bytes() == saved
    elif spoil == "corrupt":
        snap.write_bytes(saved[:-40] + b"\x00" * 40)
    elif spoil == "version":
        monkeypatch.setattr(snapshot, "SNAPSHOT_VERSION", snapshot.SNAPSHOT_VERSION + 1)
    else:  # a payload naming a class an index never holds
        import pickle

        evil = pickle.dumps({"units": {}, "x": print})
        header = saved[len(snapshot.MAGIC) + 4:]
        head_len = int.from_bytes(saved[len(snapshot.MAGIC):len(snapshot.MAGIC) + 4], "big")
        import json
        import zlib

        head = json.loads(header[:head_len])
        head["crc32"] = zlib.crc32(evil)  # a valid checksum: the loader itself must refuse it
        raw = json.dumps(head).encode()
        snap.write_bytes(snapshot.MAGIC + len(raw).to_bytes(4, "big") + raw + evil)

    engine = MemoryEngine(path, embedder=HashEmbedder(), cache=cache)
    rebuilds = []
    real = LiveIndex.rebuild
    monkeypatch.setattr(LiveIndex, "rebuild", lambda self: rebuilds.append(1) or real(self))
    loaded = engine._live_index("big")
    assert rebuilds == [1] and not snap.exists()
    assert _signature(loaded) == _signature(_rebuilt(engine, "big"))
    engine.close()


def test_small_banks_and_deleted_banks_leave_no_snapshot(tmp_path):
    engine = MemoryEngine(tmp_path / "store", embedder=HashEmbedder(), cache=CacheConfig(snapshot_min_units=10))
    engine.bank("small").capture("one fact")
    _fill(engine, "big")
    engine.close()
    assert not engine._snapshots.path_for("small").exists()
    assert engine._snapshots.path_for("big").exists()
    engine.delete_bank("big")
    assert not engine._snapshots.path_for("big").exists()
    engine.close()

