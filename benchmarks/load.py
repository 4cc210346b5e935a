"""Sustained load: several worker threads capture and recall against one engine.

Reports throughput, p50/p95/p99 latency per operation, errors (zero expected) and memory growth
(RSS) as the bank grows to ``--units`` units.

Full size (documented figures; a few hours on 2 CPU cores with the bundled model)::

    python -m benchmarks.load --units 100000 --workers 4 --out benchmarks/results/load.json

Smoke size (what the test suite runs)::

    python -m benchmarks.load --units 300 --workers 3 --embedder hash --backend memory

Each worker loops: capture a batch of ``--batch`` texts (a short realistic fact each, with
entities, numbers and sessions), then ``--recalls-per-batch`` recalls of earlier facts, until the
bank holds ``--units`` units. Recall latency therefore covers banks from empty to full size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["run_load", "LoadReport"]

PEOPLE = ["Alice", "Bob", "Carol", "Dana", "Erik", "Farah", "Goran", "Hana", "Ivan", "Jun"]
SERVICES = ["billing", "search", "auth", "payments", "ingest", "reports", "gateway", "mailer"]
VERBS = ["moved {svc} to port {n}", "approved the {svc} rollout for week {n}", "raised the {svc} budget to {n}k",
         "found {n} errors in {svc}", "owns the {svc} on-call for sprint {n}"]


def _text(rng: random.Random, n: int) -> str:
    verb = rng.choice(VERBS).format(svc=rng.choice(SERVICES), n=rng.randint(1, 9999))
    return f"{rng.choice(PEOPLE)} {verb} (ticket T-{n})."


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:  # not Linux: the peak is the best we have
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


@dataclass
class LoadReport:
    units: int
    workers: int
    seconds: float
    captures: int
    recalls: int
    errors: list[str] = field(default_factory=list)
    capture_ms: dict[str, float] = field(default_factory=dict)
    recall_ms: dict[str, float] = field(default_factory=dict)
    captures_per_s: float = 0.0
    recalls_per_s: float = 0.0
    rss_mb: list[tuple[int, float]] = field(default_factory=list)  # (units stored, RSS MiB)
    stored: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def summary(self) -> str:
        grow = self.rss_mb[-1][1] - self.rss_mb[0][1] if self.rss_mb else 0.0
        return (f"{self.units} units, {self.workers} workers, {self.seconds:.1f}s: "
                f"capture {self.captures_per_s:.1f}/s p50={self.capture_ms['p50']:.1f} p95={self.capture_ms['p95']:.1f} "
                f"p99={self.capture_ms['p99']:.1f} ms; recall {self.recalls_per_s:.1f}/s "
                f"p50={self.recall_ms['p50']:.1f} p95={self.recall_ms['p95']:.1f} p99={self.recall_ms['p99']:.1f} ms; "
                f"errors={len(self.errors)}; RSS {self.rss_mb[0][1]:.0f} -> {self.rss_mb[-1][1]:.0f} MiB "
                f"(+{grow:.0f}); stored={self.stored}")


def run_load(engine: Any, *, units: int = 1000, workers: int = 4, batch: int = 8, recalls_per_batch: int = 2,
             bank_id: str = "load", seed: int = 0, samples: int = 10) -> LoadReport:
    """Drive ``engine`` until bank ``bank_id`` holds ``units`` captured texts; returns the report."""
    bank = engine.bank(bank_id, dedup=True)
    engine.embedder.embed(["warm up"])  # the model's own memory is not growth of the bank
    lock = threading.Lock()
    issued = [0]
    capture_lat: list[float] = []
    recall_lat: list[float] = []
    errors: list[str] = []
    rss: list[tuple[int, float]] = [(0, _rss_mb())]
    step = max(units // samples, 1)

    def worker(w: int) -> None:
        rng = random.Random(seed * 1000 + w)
        mine: list[str] = []
        while True:
            with lock:
                start = issued[0]
                if start >= units:
                    return
                n = min(batch, units - start)
                issued[0] += n
            texts = [_text(rng, start + i) for i in range(n)]
            t0 = time.perf_counter()
            try:
                bank.capture_many([{"text": t, "session_id": f"w{w}"} for t in texts], batch_size=batch)
                with lock:
                    capture_lat.append((time.perf_counter() - t0) * 1000 / n)
            except Exception as exc:  # noqa: BLE001 - counted, the run goes on
                with lock:
                    errors.append(f"capture: {type(exc).__name__}: {exc}")
            mine += texts
            for _ in range(recalls_per_batch):
                query = rng.choice(mine)
                t0 = time.perf_counter()
                try:
                    bank.recall(query, k=5)
                    with lock:
                        recall_lat.append((time.perf_counter() - t0) * 1000)
                except Exception as exc:  # noqa: BLE001
                    with lock:
                        errors.append(f"recall: {type(exc).__name__}: {exc}")
            with lock:
                if issued[0] // step > rss[-1][0] // step:
                    rss.append((issued[0], _rss_mb()))

    started = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(w,), name=f"load-{w}") for w in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - started
    rss.append((units, _rss_mb()))
    pcts = lambda xs: {"p50": _pct(xs, 0.50), "p95": _pct(xs, 0.95), "p99": _pct(xs, 0.99),  # noqa: E731
                       "mean": sum(xs) / len(xs) if xs else 0.0}
    return LoadReport(
        units=units, workers=workers, seconds=seconds, captures=units, recalls=len(recall_lat), errors=errors,
        capture_ms=pcts(capture_lat), recall_ms=pcts(recall_lat), captures_per_s=units / seconds,
        recalls_per_s=len(recall_lat) / seconds, rss_mb=rss, stored=bank.count(),
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--units", type=int, default=100_000)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--recalls-per-batch", type=int, default=2)
    p.add_argument("--embedder", choices=["model", "hash"], default="model",
                   help="the bundled model (default) or the fast deterministic HashEmbedder")
    p.add_argument("--backend", choices=["persistent", "memory"], default="persistent")
    p.add_argument("--path", default=None, help="store folder (default: a temporary one)")
    p.add_argument("--out", default=None, help="write the report as JSON here")
    args = p.parse_args(argv)

    from hindsight_core import MemoryEngine
    from hindsight_core.testing import HashEmbedder

    embedder = HashEmbedder() if args.embedder == "hash" else None
    with tempfile.TemporaryDirectory() as tmp:
        engine = (MemoryEngine.ephemeral(embedder=embedder) if args.backend == "memory"
                  else MemoryEngine(args.path or os.path.join(tmp, "store"), embedder=embedder))
        report = run_load(engine, units=args.units, workers=args.workers, batch=args.batch,
                          recalls_per_batch=args.recalls_per_batch)
        engine.close()
    print(report.summary())
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report.as_dict() | {"args": vars(args)}, f, indent=2)
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main())
