"""Lifecycle hooks of capture and recall, over a bank's store and config.

:func:`after_capture` is the engine's ``StoreHost.after_write`` (it runs after every capture
write); the bank facade calls :func:`filter_candidates` and :func:`record_recall` on recall.
The per-bank state (units since the last consolidation, pending activity updates) is in
:mod:`hindsight_core._bank_state`, on the bank's live index; everything durable is in Chroma.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from hindsight_core._expansion_ops import schedule_learning
from hindsight_core._bank_state import ACTIVITY_WRITE_BACK_S, BankState, flush_activity, schedule, state
from hindsight_core.models import MemoryKind, MemoryStatus

if TYPE_CHECKING:
    from hindsight_core.config import BankConfig
    from hindsight_core.retrieval.types import Candidate
    from hindsight_core.storage.live_index import LiveIndex
    from hindsight_core.storage.unit_store import UnitStore

__all__ = ["BankState", "state", "after_capture", "filter_candidates", "record_recall", "flush_activity",
           "schedule", "OVER_FETCH"]

#: Extra candidates recall asks for, so that hiding low-confidence beliefs still leaves ``k`` hits.
OVER_FETCH = 5
_WEAK_KINDS = frozenset({MemoryKind.OBSERVATION.value, MemoryKind.SKILL.value})
_ACTIVE = MemoryStatus.ACTIVE.value


def after_capture(store: "UnitStore", config: "BankConfig", new: int) -> None:
    """Count new units; queue consolidation or budget enforcement when their trigger is reached, and
    the learning of their words when recall expands keywords (``_expansion_ops``)."""
    if not new:
        return
    if config.recall.expansion_weight:
        schedule_learning(store)
    cfg = config.lifecycle
    st = state(store)
    with st.lock:
        st.new_since += new
        due = bool(cfg.consolidate_every and st.new_since >= cfg.consolidate_every) or bool(
            cfg.consolidate_after_s and time.monotonic() - st.last_run >= cfg.consolidate_after_s)
        if st.active is not None:
            st.active += new
    if due:
        from hindsight_core.lifecycle.consolidate import consolidate

        schedule(store, "consolidate", lambda: consolidate(store, config))
    if cfg.active_budget:
        if st.active is None:
            from hindsight_core.lifecycle.forgetting import count_active

            st.active = count_active(store)
        if st.active > cfg.active_budget:
            from hindsight_core.lifecycle.forgetting import enforce_budget

            st.active = 0  # until the sweep recounts: one sweep per overflow
            schedule(store, "forget", lambda: enforce_budget(store, config))


def filter_candidates(index: "LiveIndex", config: "BankConfig", candidates: list["Candidate"], k: int,
                      trace: dict[str, Any]) -> list["Candidate"]:
    """Drop beliefs and skills whose confidence fell below the threshold (not on a cold start);
    ``index`` is the view recall searched (read lock held)."""
    cfg = config.lifecycle
    units = index.units
    cold = len(units) < cfg.cold_start_below
    trace["cold_start"] = cold
    if not cold and cfg.min_confidence > 0:
        candidates = [c for c in candidates if c.id not in units or units[c.id].kind not in _WEAK_KINDS
                      or units[c.id].confidence >= cfg.min_confidence]
    return candidates[:k]


def record_recall(store: "UnitStore", config: "BankConfig", hit_ids: list[str], trace: dict[str, Any]) -> None:
    """Hits gain activity, scanned misses lose a little; written to Chroma later, in one batch per bank
    at most every :data:`~hindsight_core._bank_state.ACTIVITY_WRITE_BACK_S` (sooner on eviction,
    ``drain()`` and ``close()``)."""
    cfg = config.lifecycle
    if not cfg.track_activity or not hit_ids or store.read_only:
        return
    index = store.index
    st = state(store)
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
    schedule(store, "activity", lambda: flush_activity(store), delay_s=ACTIVITY_WRITE_BACK_S)


def now_utc() -> datetime:
    return datetime.now(timezone.utc)
