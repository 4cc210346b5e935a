"""Lifecycle hooks the bank calls on capture, recall and delete, and the per-bank lifecycle state.

Kept apart so ``bank.py`` stays readable: each hook is one call there. The state (units since the
last consolidation, pending activity updates) lives in memory beside the bank's live index and
goes with it; everything durable is in Chroma.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable

from hindsight_core.errors import HindsightError
from hindsight_core.models import MemoryKind, MemoryStatus

if TYPE_CHECKING:
    from hindsight_core.bank import MemoryBank
    from hindsight_core.retrieval.types import Candidate

__all__ = ["BankState", "state", "after_capture", "filter_candidates", "record_recall", "flush_activity",
           "schedule", "OVER_FETCH"]

log = logging.getLogger("hindsight.lifecycle")

#: Extra candidates recall asks for, so that hiding low-confidence beliefs still leaves ``k`` hits.
OVER_FETCH = 5
_WEAK_KINDS = frozenset({MemoryKind.OBSERVATION.value, MemoryKind.SKILL.value})
_ACTIVE = MemoryStatus.ACTIVE.value


@dataclass
class BankState:
    new_since: int = 0  # units captured since the last consolidation run
    last_run: float = field(default_factory=time.monotonic)
    watermark: int = -1  # highest seq a consolidation run has read
    active: int | None = None  # archivable active units (estimate between sweeps)
    pending: dict[str, list[Any]] = field(default_factory=dict)  # id -> [activity, hits, last_hit_ts]
    last_hit: dict[str, float] = field(default_factory=dict)  # id -> epoch of its last hit (this process)
    lock: threading.Lock = field(default_factory=threading.Lock)


_STATES: "weakref.WeakKeyDictionary[Any, BankState]" = weakref.WeakKeyDictionary()
_STATES_LOCK = threading.Lock()


def state(bank: "MemoryBank") -> BankState:
    index = bank._index
    with _STATES_LOCK:
        st = _STATES.get(index)
        if st is None:
            st = _STATES[index] = BankState()
        return st


def schedule(bank: "MemoryBank", key: str, job: Callable[[], object]) -> bool:
    """Run ``job`` in the bank's background queue; never blocks or fails the caller."""
    try:
        bank._engine._queue(bank.id).submit(f"lifecycle:{key}", job, block_s=0.0)
        return True
    except HindsightError as exc:  # full or closing: the next trigger tries again
        log.warning("lifecycle job %s for bank %s not queued: %s", key, bank.id, exc)
        return False


def after_capture(bank: "MemoryBank", new: int) -> None:
    """Count new units; queue consolidation or budget enforcement when their trigger is reached."""
    if not new:
        return
    cfg = bank.config.lifecycle
    st = state(bank)
    with st.lock:
        st.new_since += new
        due = bool(cfg.consolidate_every and st.new_since >= cfg.consolidate_every) or bool(
            cfg.consolidate_after_s and time.monotonic() - st.last_run >= cfg.consolidate_after_s)
        if st.active is not None:
            st.active += new
    if due:
        from hindsight_core.lifecycle.consolidate import consolidate

        schedule(bank, "consolidate", lambda: consolidate(bank))
    if cfg.active_budget:
        if st.active is None:
            from hindsight_core.lifecycle.forgetting import count_active

            st.active = count_active(bank)
        if st.active > cfg.active_budget:
            from hindsight_core.lifecycle.forgetting import enforce_budget

            st.active = 0  # until the sweep recounts: one sweep per overflow
            schedule(bank, "forget", lambda: enforce_budget(bank))


def filter_candidates(bank: "MemoryBank", candidates: list["Candidate"], k: int, trace: dict[str, Any]) -> list["Candidate"]:
    """Drop beliefs and skills whose confidence fell below the threshold (not on a cold start)."""
    cfg = bank.config.lifecycle
    units = bank._index.units
    cold = len(units) < cfg.cold_start_below
    trace["cold_start"] = cold
    if not cold and cfg.min_confidence > 0:
        candidates = [c for c in candidates if c.id not in units or units[c.id].kind not in _WEAK_KINDS
                      or units[c.id].confidence >= cfg.min_confidence]
    return candidates[:k]


def record_recall(bank: "MemoryBank", hit_ids: list[str], trace: dict[str, Any]) -> None:
    """Hits gain activity, scanned misses lose a little; written to Chroma later, in one batch."""
    cfg = bank.config.lifecycle
    if not cfg.track_activity or not hit_ids or bank._engine.store.read_only:
        return
    index = bank._index
    st = state(bank)
    now = time.time()
    hits = set(hit_ids)
    top = trace.get("top", {}) if isinstance(trace, dict) else {}
    scanned = {i for name in ("dense", "keyword") for i in top.get(name, ())[:10]} - hits
    # the state's own lock, not the bank's: recalls must not queue behind each other for a counter
    with st.lock:
        for uid in hit_ids:
            light = index.units.get(uid)
            if light is None:
                continue
            light.activity = round(min(light.activity * cfg.hit_boost, 1e6), 6)
            slot = st.pending.setdefault(uid, [light.activity, 0, None])
            slot[0], slot[1], slot[2] = light.activity, slot[1] + 1, now
            st.last_hit[uid] = now
        for uid in scanned:
            light = index.units.get(uid)
            if light is None or light.status != _ACTIVE:
                continue
            light.activity = round(light.activity * cfg.scan_decay, 6)
            st.pending.setdefault(uid, [light.activity, 0, None])[0] = light.activity
    schedule(bank, "activity", lambda: flush_activity(bank))


def flush_activity(bank: "MemoryBank") -> int:
    """Write pending activity updates in one Chroma call; returns how many units were updated."""
    index = bank._index
    st = state(bank)
    with index.lock:
        with st.lock:
            pending, st.pending = st.pending, {}
        ids = [i for i in pending if i in index.units]
        if not ids:
            return 0
        found = index.store.get(index.collection, ids)
        ids = [i for i in ids if i in found]
        metas = []
        for uid in ids:
            activity, hits, last = pending[uid]
            meta: dict[str, Any] = {"activity": float(activity)}
            if hits:
                meta["hit_count"] = int(found[uid][1].get("hit_count", 0)) + int(hits)
                meta["last_hit_at"] = float(last)
            metas.append(meta)
        if ids:
            index.store.update_metadata(index.collection, ids, metas)
    return len(ids)


def now_utc() -> datetime:
    return datetime.now(timezone.utc)
