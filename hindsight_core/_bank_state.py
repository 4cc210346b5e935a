"""Per-bank lifecycle state (kept in memory on the bank's index) and its background writes.

Below both the bank's hooks (``_lifecycle_ops``) and the lifecycle services (consolidation,
forgetting), so neither imports the other through it. ``BankState.lock`` is a leaf lock: nothing
else is acquired while it is held.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from hindsight_core.errors import HindsightError

if TYPE_CHECKING:
    from hindsight_core.storage.unit_store import UnitStore

__all__ = ["BankState", "state", "schedule", "flush_activity", "ACTIVITY_WRITE_BACK_S"]

log = logging.getLogger("hindsight.lifecycle")


@dataclass
class BankState:
    new_since: int = 0  # units captured since the last consolidation run
    last_run: float = field(default_factory=time.monotonic)
    watermark: int = -1  # highest seq a consolidation run has read
    active: int | None = None  # archivable active units (estimate between sweeps)
    pending: dict[str, list[Any]] = field(default_factory=dict)  # id -> [activity, hits, last_hit_ts]
    last_hit: dict[str, float] = field(default_factory=dict)  # id -> epoch of its last hit (this process)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def live_activity(self, unit_id: str) -> float | None:
        """The unit's activity as recall left it, where Chroma does not hold it yet (else None)."""
        with self.lock:
            slot = self.pending.get(unit_id)
            return None if slot is None else float(slot[0])


_STATES_LOCK = threading.Lock()

#: Recall hits' activity counters are written back to Chroma at most this long after the first
#: unwritten one (one write per bank per interval, however many recalls it served). Written per
#: recall burst instead, they put a Chroma write next to almost every recall of a busy process, and
#: an embedded Chroma write holds the GIL for its whole call (measured 30-80 ms on 2 loaded cores:
#: a pure-Python loop ran at 0.17 CPU/wall beside a thread of upserts), stalling every thread.
#: Forgetting, eviction of the bank, ``drain()`` and ``close()`` write them first, so only a
#: process that dies without ``close()`` loses them (at most this many seconds of hits).
ACTIVITY_WRITE_BACK_S = 30.0


def state(store: "UnitStore") -> BankState:
    """The bank's lifecycle state; it lives on the bank's index and goes with it."""
    index = store.index
    with _STATES_LOCK:
        if index.lifecycle_state is None:
            index.lifecycle_state = BankState()
        return index.lifecycle_state


def schedule(store: "UnitStore", key: str, job: Callable[[], object], *, delay_s: float | None = None) -> bool:
    """Run ``job`` in the bank's background queue (``delay_s``: deferred write-back, see
    :meth:`~hindsight_core.lifecycle.background.BackgroundQueue.submit`); never blocks or fails the caller."""
    try:
        store.submit(f"lifecycle:{key}", job, block_s=0.0, **({} if delay_s is None else {"delay_s": delay_s}))
        return True
    except HindsightError as exc:  # full or closing: the next trigger tries again
        log.warning("lifecycle job %s for bank %s not queued: %s", key, store.id, exc)
        return False


def flush_activity(store: "UnitStore") -> int:
    """Write pending activity updates in one Chroma call; returns how many units were updated."""
    st = state(store)
    with store.write() as index:
        with st.lock:
            pending, st.pending = st.pending, {}
        ids = [i for i in pending if i in index.units]
        if not ids:
            return 0
        found = store.fields(ids)
        ids = [i for i in ids if i in found]
        metas = []
        for uid in ids:
            activity, hits, last = pending[uid]
            meta: dict[str, Any] = {"activity": float(activity)}
            if hits:
                meta["hit_count"] = int(found[uid].get("hit_count", 0)) + int(hits)
                meta["last_hit_at"] = float(last)
            metas.append(meta)
        store.patch(ids, metas)
    return len(ids)
