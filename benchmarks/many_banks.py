"""Many banks in one process, and cold opens of large banks: memory, threads, recall latency.

Two parts, in one run, on the deterministic hash embedder (so the model does not count):

1. **Many banks.** ``--banks`` banks of ``--units`` units each (one ``capture_many`` per bank; every
   ``--episode-every``-th bank also ends an episode with background reflection) in one embedded engine with the
   default :class:`~hindsight_core.CacheConfig`. Reports peak RSS, peak and final thread count,
   banks loaded at the end, and recall latency p50/p95 for random banks *cold* (evicted: the recall
   reopens the bank) and *warm* (the same bank again), next to the warm recalls of a single bank in
   the same process: one after each random bank's warm recall (same moment, same machine load), and
   a run of them at the end.
2. **Cold opens.** A bank of each ``--open-sizes`` size is written, then opened in fresh engines
   (a restart each): once by today's full rebuild from Chroma, then ``--open-repeats`` times from the
   snapshot the previous engine wrote when it closed. Reports both times (wall clock, and the
   process's CPU time beside it), their ratio, and the first recalls after the snapshot open.
   With ``--server``, again over a Chroma server (``cold_open_server``).

Full size (issue 17; run with ``nice -n 10`` on a shared machine)::

    python -m benchmarks.many_banks --banks 10000 --units 20 --open-sizes 20000,100000 \\
        --out benchmarks/results/many_banks.json

Cold opens alone (issue 17's 1 s / 5 s bars), published in ``benchmarks/results/cold_open.json``::

    python -m benchmarks.many_banks --banks 0 --open-sizes 20000,100000 --out benchmarks/results/cold_open.json

With ``--server`` the cold opens are timed a second time over a Chroma server the benchmark starts on
loopback (``chroma run``), where the snapshot is stored in the server itself (``storage/chroma_snapshot.py``);
published in ``benchmarks/results/cold_open_server.json``::

    python -m benchmarks.many_banks --banks 0 --open-sizes 20000 --server --out benchmarks/results/cold_open_server.json

Smoke size (what the test suite runs)::

    python -m benchmarks.many_banks --banks 30 --units 5 --samples 10 --open-sizes 300
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from typing import Any

import numpy as np

from benchmarks.load import PEOPLE, SERVICES, _text  # the same synthetic facts as the load benchmark

__all__ = ["run", "main"]


def _query(rng: random.Random) -> str:
    return f"what did {rng.choice(PEOPLE)} do with {rng.choice(SERVICES)}?"


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:  # not Linux
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 2)


def _timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, (time.perf_counter() - start) * 1000


def _episode(n: int) -> Any:
    from hindsight_core.episodes import Episode, TraceStep

    return Episode.from_steps([
        TraceStep(kind="user", text=f"Deploy the {SERVICES[n % len(SERVICES)]} service"),
        TraceStep(kind="tool_error", text=f"PermissionError: ticket T-{n} required", tool="deploy"),
    ], session_id=f"ep-{n}")


# ---- part 1: many banks ------------------------------------------------------------------------
#: Every this many banks one ends an episode with background reflection during the fill: 1,000 of
#: 10,000 banks with reflection queued is plenty to show the shared pool's thread bound, and each
#: episode adds two Chroma writes (the episode, then the lesson) that a bank's fill does not need.
EPISODE_EVERY = 10


def many_banks(folder: str, banks: int, units: int, samples: int, seed: int, progress: bool,
               episode_every: int = EPISODE_EVERY) -> dict[str, Any]:
    from hindsight_core import CacheConfig, MemoryEngine
    from hindsight_core.testing import HashEmbedder

    rng = random.Random(seed)
    threads_before = threading.active_count()
    rss_before = _rss_mb()
    cache = CacheConfig()
    engine = MemoryEngine(os.path.join(folder, "many"), embedder=HashEmbedder(), cache=cache)
    peak_threads, rss_samples, fill_load = 0, [], []
    started = time.perf_counter()
    for b in range(banks):
        bank = engine.bank(f"user-{b:05d}")
        bank.capture_many([_text(rng, b * units + i) for i in range(units)])
        if episode_every and b % episode_every == 0:
            bank.end_episode(_episode(b), "failure", background=True)
        peak_threads = max(peak_threads, threading.active_count() - threads_before)
        if b % max(1, banks // 50) == 0:
            rss_samples.append((b, round(_rss_mb() - rss_before, 1)))
            fill_load.append(round(os.getloadavg()[0], 2))
            if progress:
                print(f"  {b}/{banks} banks, {time.perf_counter() - started:.0f}s, rss +{rss_samples[-1][1]} MB, "
                      f"threads +{peak_threads}, loaded {len(engine._indexes)}, load avg {os.getloadavg()[0]:.1f}",
                      file=sys.stderr, flush=True)
    fill_s = time.perf_counter() - started
    engine.drain(600)

    # a single bank used beside the random ones, one warm recall of it after each random bank's warm
    # recall: the single-bank figure under the same load as the many-bank one (the machine's load
    # drifts over a long run; the single-bank run at the end is kept as well)
    beside_solo = engine.bank("solo-beside")
    beside_solo.capture_many([_text(rng, 20_000_000 + i) for i in range(units)])
    beside_solo.recall(_query(rng), k=5)
    cold, warm, solo_warm, recalled, forced = [], [], [], 0, 0
    for _ in range(samples):
        bank_id = f"user-{rng.randrange(banks):05d}"
        if bank_id in engine._indexes:  # cold means: not loaded. Fewer banks than the cache holds:
            engine._indexes.pop(bank_id)  # drop it by hand (counted in the report)
            forced += 1
        bank = engine.bank(bank_id)
        result, ms = _timed(lambda: bank.recall(_query(rng), k=5))
        cold.append(ms)
        recalled += bool(result.hits)
        warm.append(_timed(lambda: bank.recall(_query(rng), k=5))[1])
        solo_warm.append(_timed(lambda: beside_solo.recall(_query(rng), k=5))[1])
        peak_threads = max(peak_threads, threading.active_count() - threads_before)
    sample_s = time.perf_counter() - started - fill_s
    if progress:
        print(f"  {samples} cold/warm samples in {sample_s:.0f}s: warm p95 {_pct(warm, 0.95)} ms, single bank beside "
              f"them {_pct(solo_warm, 0.95)} ms, load avg {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    pending_after_samples = sum(engine._pool.busy(f"user-{n:05d}") for n in range(banks))
    load_samples = [round(v, 2) for v in os.getloadavg()]
    # the recalls' activity write-backs (deferred, one Chroma write per bank) forced now, with warm
    # recalls of one bank running beside them: what a warm recall costs when a write-back does land
    # next to it (Chroma's embedded writes hold the GIL)
    hot_id = f"user-{rng.randrange(banks):05d}"
    writing = [b for b in (f"user-{n:05d}" for n in range(banks)) if b != hot_id and engine._pool.busy(b)]
    hot = engine.bank(hot_id)
    hot.recall(_query(rng), k=5)
    beside: list[float] = []
    engine._pool.hurry()
    while any(engine._pool.busy(b) for b in writing) and len(beside) < 2_000:
        beside.append(_timed(lambda: hot.recall(_query(rng), k=5))[1])
    # the same again, but with every bank's background work (activity flushes) finished before each
    # cold open: what warm recall costs when it does not share Chroma with other banks' writes
    idle_warm = []
    for _ in range(max(samples // 2, 10)):
        bank_id = f"user-{rng.randrange(banks):05d}"
        engine.drain(60)
        engine._indexes.pop(bank_id)
        bank = engine.bank(bank_id)
        bank.recall(_query(rng), k=5)
        idle_warm.append(_timed(lambda: bank.recall(_query(rng), k=5))[1])

    solo = engine.bank("solo-single-bank")  # the same engine, one bank used on its own
    solo.capture_many([_text(rng, 10_000_000 + i) for i in range(units)])
    solo.recall(_query(rng), k=5)
    single = [_timed(lambda: solo.recall(_query(rng), k=5))[1] for _ in range(max(samples, 20))]

    engine.drain(600)
    failures = len(engine.background_failures())
    loaded, loaded_units, evictions = len(engine._indexes), engine._indexes.units(), engine._indexes.evictions
    threads_end = threading.active_count() - threads_before
    rss_end = _rss_mb() - rss_before
    chroma_bound = getattr(getattr(engine.store.client, "_server", None), "hnsw_cache_size", None)
    engine.close()
    gc.collect()
    return {
        "banks": banks, "units_per_bank": units, "episode_every": episode_every, "cache": cache.model_dump(),
        "fill_s": round(fill_s, 1), "fill_ms_per_bank": round(fill_s * 1000 / max(banks, 1), 1),
        "peak_rss_mb": round(_peak_rss_mb(), 1), "rss_growth_mb_end": round(rss_end, 1),
        "rss_growth_mb_by_banks": rss_samples, "load_average_1m_during_fill": fill_load,
        "extra_threads_peak": peak_threads, "extra_threads_after_drain": threads_end,
        "threads_after_close": threading.active_count() - threads_before,
        "banks_loaded_at_end": loaded, "units_loaded_at_end": loaded_units, "evictions": evictions,
        "background_failures": failures, "chroma_hnsw_indexes_bound": chroma_bound,
        "recall_cold_ms": {"p50": _pct(cold, 0.5), "p95": _pct(cold, 0.95), "n": len(cold)},
        "recall_warm_ms": {"p50": _pct(warm, 0.5), "p95": _pct(warm, 0.95), "n": len(warm)},
        "sample_loop_s": round(sample_s, 1),
        "recall_warm_beside_write_backs_ms": {"p50": _pct(beside, 0.5), "p95": _pct(beside, 0.95), "n": len(beside),
                                              "banks_writing_back": len(writing)},
        "recall_warm_background_idle_ms": {"p50": _pct(idle_warm, 0.5), "p95": _pct(idle_warm, 0.95),
                                           "n": len(idle_warm)},
        "recall_single_bank_warm_ms": {"p50": _pct(single, 0.5), "p95": _pct(single, 0.95), "n": len(single)},
        "recall_single_bank_warm_interleaved_ms": {"p50": _pct(solo_warm, 0.5), "p95": _pct(solo_warm, 0.95),
                                                   "n": len(solo_warm)},
        "warm_p95_ratio_to_single_interleaved": round(_pct(warm, 0.95) / max(_pct(solo_warm, 0.95), 1e-6), 2),
        "warm_p95_ratio_to_single_at_end": round(_pct(warm, 0.95) / max(_pct(single, 0.95), 1e-6), 2),
        "pending_write_backs_at_end_of_samples": pending_after_samples,
        "load_average_during_samples": load_samples,
        "cold_recalls_with_hits": recalled, "cold_samples_evicted_by_hand": forced,
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
    }


# ---- part 2: cold opens ------------------------------------------------------------------------
def _fill_large(engine: Any, bank_id: str, n: int, seed: int) -> None:
    """Write ``n`` prepared units straight to the bank's collection in batches (capture's gate,
    PII and entity steps run; per-item dedup does not, so filling 100,000 units takes minutes, not hours)."""
    from hindsight_core._capture import prepare
    from hindsight_core.storage.codec import to_record

    rng = random.Random(seed)
    index = engine._live_index(bank_id, create=True)
    now = datetime.now(timezone.utc)
    for start in range(0, n, 2_000):
        prepared = [prepare(bank_id, engine.config, now=now, text=_text(rng, i), session_id=f"s{i // 50}")
                    for i in range(start, min(n, start + 2_000))]
        units = [p.unit for p in prepared]
        vectors = np.asarray(engine.embedder.embed([u.text for u in units]), dtype=np.float32)
        with index.lock:
            records = [to_record(u, index.take_seq()) for u in units]
        index.store.upsert(index.collection, [r[0] for r in records], [r[1] for r in records],
                           [r[2] for r in records], vectors)
    engine._indexes.pop(bank_id)  # written behind the index: the next open reads Chroma


def _open_timed(engine: Any, bank_id: str) -> tuple[Any, float, float]:
    """Open a bank (its first use after a restart): (index, wall ms, CPU ms of this process)."""
    gc.collect()  # the previous engine's garbage is not this open's cost
    cpu = time.process_time()
    index, wall_ms = _timed(lambda: engine._live_index(bank_id))
    return index, wall_ms, (time.process_time() - cpu) * 1000


def _open_figures(size: int, rebuild_ms: float | None, rebuild_cpu_ms: float | None, opens: list[float],
                  cpus: list[float], used: bool, snap_mb: float, save_ms: float, first_open_ms: float,
                  first_recall_ms: float, next_recall_ms: float) -> dict[str, Any]:
    """One cold-open row (embedded or server): medians of the snapshot opens beside the rebuild."""
    open_ms, cpu_ms = sorted(opens)[len(opens) // 2], sorted(cpus)[len(cpus) // 2]
    return {
        "units": size, "rebuild_ms": None if rebuild_ms is None else round(rebuild_ms, 1),
        "rebuild_cpu_ms": None if rebuild_cpu_ms is None else round(rebuild_cpu_ms, 1),
        "snapshot_open_ms": round(open_ms, 1), "snapshot_open_cpu_ms": round(cpu_ms, 1),
        "snapshot_open_ms_each": [round(v, 1) for v in opens], "snapshot_used": used,
        "speedup": None if rebuild_ms is None else round(rebuild_ms / max(open_ms, 1e-6), 1),
        "snapshot_mb": round(snap_mb, 1), "snapshot_save_ms": round(save_ms, 1),
        "first_open_with_rebuild_ms": round(first_open_ms, 1),
        "first_recall_after_snapshot_open_ms": round(first_recall_ms, 1),
        "second_recall_ms": round(next_recall_ms, 1),
        "loadavg_1m_after": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }


def _rebuild_timed(fresh: Any, bank_id: str) -> tuple[float, float, int]:
    """Today's path, for comparison: an engine with snapshots off rebuilds the bank from Chroma on first
    use (and writes no snapshot). Returns wall ms, CPU ms and the unit count it loaded."""
    engine = fresh(snapshots=False)
    rebuilt, wall_ms, cpu_ms = _open_timed(engine, bank_id)
    size = len(rebuilt.units)
    del rebuilt
    engine.close()
    return wall_ms, cpu_ms, size


def cold_open(folder: str, size: int, seed: int, *, repeats: int = 3, rebuild: bool = True) -> dict[str, Any]:
    """One bank of ``size`` units: today's rebuild from Chroma and ``repeats`` snapshot opens, each in
    a fresh engine (a restart), in the same run; times are wall clock, with this process's CPU time
    beside them (on a shared machine the wall time includes waiting for a core)."""
    from hindsight_core import CacheConfig, MemoryEngine
    from hindsight_core.testing import HashEmbedder

    path = os.path.join(folder, f"open-{size}")
    bank_id = f"big-{size}"
    cache = CacheConfig(snapshot_min_units=1)
    engine = MemoryEngine(path, embedder=HashEmbedder(), cache=cache)
    _, fill_ms = _timed(lambda: _fill_large(engine, bank_id, size, seed))
    engine.close()

    def fresh(snapshots: bool) -> Any:
        """A new engine with the store and the bank's collection open (not part of the timed open)."""
        new = MemoryEngine(path, embedder=HashEmbedder(), cache=cache if snapshots else CacheConfig(snapshots=False))
        if not snapshots:
            new._snapshots = None  # no snapshot read or consumed: the pre-snapshot engine
        else:  # record whether each open was served by the snapshot (False: it fell back to a rebuild)
            restore = new._snapshots.restore
            new._snapshots.restore = lambda *a: restored.append(restore(*a)) or restored[-1]
        new.store.open_bank(bank_id, embedder=new.embedder.name, dim=new.embedder.dim, create=False)
        return new

    restored: list[bool] = []
    row: dict[str, Any] = {"units": size, "fill_s": round(fill_ms / 1000, 1)}
    rebuild_ms = rebuild_cpu_ms = None
    if rebuild:
        rebuild_ms, rebuild_cpu_ms, size = _rebuild_timed(fresh, bank_id)
    # with snapshots: the first engine's open rebuilds and its close saves; every later open restores
    engine = fresh(snapshots=True)
    _, first_open_ms, _ = _open_timed(engine, bank_id)
    snap = engine._snapshots.path_for(bank_id)
    opens, cpus, saves, used = [], [], [], True
    for _ in range(max(1, repeats)):
        _, save_ms = _timed(engine.close)
        saves.append(save_ms)
        snap_mb = snap.stat().st_size / 2**20 if snap.exists() else 0.0
        engine = fresh(snapshots=True)
        index, open_ms, cpu_ms = _open_timed(engine, bank_id)
        used = used and restored[-1] and not snap.exists() and len(index.units) == size
        opens.append(open_ms)
        cpus.append(cpu_ms)
    rng = random.Random(seed)
    _, first_recall_ms = _timed(lambda: engine.bank(bank_id).recall(_query(rng), k=5))
    _, next_recall_ms = _timed(lambda: engine.bank(bank_id).recall(_query(rng), k=5))
    engine.close()
    row.update(_open_figures(size, rebuild_ms, rebuild_cpu_ms, opens, cpus, used, snap_mb,
                             sorted(saves)[len(saves) // 2], first_open_ms, first_recall_ms, next_recall_ms))
    return row


#: A Chroma server counts as idle (done compacting after a large write) below this share of one core.
SETTLED_CPU_SHARE = 0.1


def _settle(pid: int, quiet_s: float = 1.0, limit_s: float = 120.0) -> float:
    """Wait until the Chroma server ``pid`` has used under 10% of a core for ``quiet_s`` (it compacts and
    indexes after large writes), so a timed open does not pay for the previous step; returns seconds waited."""
    started = time.monotonic()

    def cpu() -> float:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return 0.0  # no /proc: nothing to wait for

    last = cpu()
    while time.monotonic() - started < limit_s:
        time.sleep(quiet_s)
        now = cpu()
        if now - last < SETTLED_CPU_SHARE * quiet_s:
            break
        last = now
    return round(time.monotonic() - started, 1)


def cold_open_server(folder: str, size: int, seed: int, *, repeats: int = 3, rebuild: bool = True) -> dict[str, Any]:
    """:func:`cold_open` over a Chroma server (``MemoryEngine.from_http``): the snapshot is stored in the
    server (``storage/chroma_snapshot.py``), so every process reaching it can open the bank from it.
    Each open is a fresh engine (a new process's first use of the bank): today's rebuild, then with
    snapshots the first engine rebuilds and its close uploads, and ``repeats`` engines open from it."""
    from hindsight_core import CacheConfig, MemoryEngine
    from hindsight_core.testing import HashEmbedder, LocalChromaServer

    bank_id = f"big-{size}"
    cache = CacheConfig(snapshot_min_units=1)
    server = LocalChromaServer(os.path.join(folder, "chroma-server"))
    with server as (host, port):
        def fresh(snapshots: bool) -> Any:
            _settle(server.process.pid)  # the previous step's writes are compacted: not this open's cost
            new = MemoryEngine.from_http(host, port, embedder=HashEmbedder(),
                                         cache=cache if snapshots else CacheConfig(snapshots=False))
            new.store.open_bank(bank_id, embedder=new.embedder.name, dim=new.embedder.dim, create=False)
            return new

        engine = MemoryEngine.from_http(host, port, embedder=HashEmbedder(), cache=cache)
        _, fill_ms = _timed(lambda: _fill_large(engine, bank_id, size, seed))
        engine.close()
        row: dict[str, Any] = {"units": size, "fill_s": round(fill_ms / 1000, 1), "store": "chroma server"}
        rebuild_ms = rebuild_cpu_ms = None
        if rebuild:
            rebuild_ms, rebuild_cpu_ms, size = _rebuild_timed(fresh, bank_id)
        engine = fresh(snapshots=True)
        _, first_open_ms, _ = _open_timed(engine, bank_id)
        _, save_ms = _timed(engine.close)  # uploads the snapshot
        opens, cpus, used = [], [], True
        for _ in range(max(1, repeats)):
            engine = fresh(snapshots=True)
            index, open_ms, cpu_ms = _open_timed(engine, bank_id)
            used = used and index.source == "snapshot" and len(index.units) == size
            opens.append(open_ms)
            cpus.append(cpu_ms)
            del index
            engine.close()  # nothing changed: the stored snapshot is kept, not uploaded again
        engine = fresh(snapshots=True)
        _open_timed(engine, bank_id)  # opened from the snapshot first: the recalls below time recall alone
        rng = random.Random(seed)
        _, first_recall_ms = _timed(lambda: engine.bank(bank_id).recall(_query(rng), k=5))
        _, next_recall_ms = _timed(lambda: engine.bank(bank_id).recall(_query(rng), k=5))
        used = used and engine._live_index(bank_id).source == "snapshot"
        from hindsight_core.storage.chroma_store import snapshot_name

        stored = engine.store.client.get_collection(snapshot_name(engine.store._name_of(bank_id)))
        snap_mb = sum(len(m["d"]) for m in stored.get(include=["metadatas"])["metadatas"] if "d" in m) * 3 / 4 / 2**20
        engine.close()
    row.update(_open_figures(size, rebuild_ms, rebuild_cpu_ms, opens, cpus, used, snap_mb, save_ms,
                             first_open_ms, first_recall_ms, next_recall_ms))
    return row


# ---- entry points -------------------------------------------------------------------------------
def run(*, banks: int, units: int, samples: int, open_sizes: list[int], seed: int = 7, folder: str | None = None,
        progress: bool = False, open_repeats: int = 3, rebuild_max: int | None = None,
        episode_every: int = EPISODE_EVERY, server: bool = False) -> dict[str, Any]:
    """Both parts; returns the report (JSON-serialisable). Cold opens of banks larger than
    ``rebuild_max`` skip the (slow) rebuild timing: for smoke runs, never for published figures."""
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        report: dict[str, Any] = {"embedder": "hash", "cpus": os.cpu_count()}
        if banks:
            report["many_banks"] = many_banks(tmp, banks, units, samples, seed, progress, episode_every)
        report["cold_open"] = [cold_open(tmp, size, seed, repeats=open_repeats,
                                         rebuild=rebuild_max is None or size <= rebuild_max) for size in open_sizes]
        if server:
            report["cold_open_server"] = [
                cold_open_server(tmp, size, seed, repeats=open_repeats, rebuild=rebuild_max is None or size <= rebuild_max)
                for size in open_sizes]
        return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.many_banks", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--banks", type=int, default=10_000, help="banks in the many-banks part (0: skip it)")
    parser.add_argument("--units", type=int, default=20, help="units per bank")
    parser.add_argument("--episode-every", type=int, default=EPISODE_EVERY,
                        help="every this many banks one ends an episode with background reflection (0: none)")
    parser.add_argument("--samples", type=int, default=200, help="random banks recalled cold, then warm")
    parser.add_argument("--open-sizes", default="20000,100000", help="comma-separated bank sizes for cold opens")
    parser.add_argument("--open-repeats", type=int, default=3, help="snapshot opens per size (the median is reported)")
    parser.add_argument("--rebuild-max", type=int, default=None,
                        help="skip timing the rebuild of banks larger than this (smoke runs; publish without it)")
    parser.add_argument("--server", action="store_true",
                        help="also time the cold opens over a Chroma server (started on loopback): snapshot stored in it")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tmp", default=None, help="folder for the temporary stores (default: the system's)")
    parser.add_argument("--out", default=None, help="write the JSON report here")
    parser.add_argument("--progress", action="store_true", help="progress lines on stderr")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.open_sizes.split(",") if s.strip()]
    report = run(banks=args.banks, units=args.units, samples=args.samples, open_sizes=sizes, seed=args.seed,
                 folder=args.tmp, progress=args.progress, open_repeats=args.open_repeats, rebuild_max=args.rebuild_max,
                 episode_every=args.episode_every, server=args.server)
    report["command"] = "python -m benchmarks.many_banks " + " ".join(argv if argv is not None else sys.argv[1:])
    text = json.dumps(report, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
