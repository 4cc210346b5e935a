"""Forgetting: an activity score, an active budget per bank, monthly digests, and scrubbing on delete.

Activity starts at the unit's importance, is multiplied by 1.2 on each recall hit and by 0.95 when
a unit was scanned but not returned (see ``_lifecycle_ops.record_recall``), and decays with a
half-life once a unit went unhit for 180 days. When a bank holds more active units than its
budget, the least active are archived until it is 10% under budget; each month's archived units
are summarised, extractively, in one digest unit that stays recallable. Archived units leave
default recall but stay retrievable by id and with ``recall(include_archived=True)``.

Example:
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> bank = engine.bank("b", lifecycle={"active_budget": 0})
    >>> _ = bank.capture_many([f"Ticket {i} was about the printer on floor {i}." for i in range(12)])
    >>> report = enforce_budget(bank.store, bank.config, budget=10)
    >>> report.archived_count, count_active(bank.store)
    (3, 9)
"""

from __future__ import annotations

import math
import uuid
from collections import Counter
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Iterable

from pydantic import BaseModel, ConfigDict, Field

from hindsight_core.models import Flag, MemoryKind, MemoryStatus, MemoryUnit, Source

if TYPE_CHECKING:
    from hindsight_core.config import BankConfig
    from hindsight_core.storage.unit_store import UnitStore
    from hindsight_core.retrieval.types import IndexedUnit

__all__ = ["ForgetReport", "enforce_budget", "count_active", "effective_activity", "scrub", "delete_unit"]

_DAY = 86_400.0
_EXEMPT_KINDS = frozenset({MemoryKind.DIRECTIVE.value, MemoryKind.SKILL.value})
_DIGEST_CHARS = 1_500


class ForgetReport(BaseModel):
    """What one budget sweep did."""

    model_config = ConfigDict(frozen=True)

    active_before: int
    active_after: int
    budget: int
    archived: tuple[str, ...] = ()
    digests: tuple[str, ...] = Field((), description="Digest units written or updated.")

    @property
    def archived_count(self) -> int:
        return len(self.archived)


def _archivable(u: "IndexedUnit") -> bool:
    return u.status == MemoryStatus.ACTIVE.value and u.kind not in _EXEMPT_KINDS and Flag.DIGEST not in u.flags


def count_active(store: "UnitStore") -> int:
    """Active units that count against the budget (directives, skills and digests do not)."""
    with store.write() as index:
        return sum(1 for u in index.units.values() if _archivable(u))


def effective_activity(activity: float, last_seen: float, now: float, unhit_days: float, half_life_days: float) -> float:
    """``activity``, halved every ``half_life_days`` once ``unhit_days`` passed without a hit."""
    idle = (now - last_seen) / _DAY - unhit_days
    return activity if idle <= 0 else activity * math.pow(0.5, idle / half_life_days)


def _month(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m")


def _digest_text(month: str, members: list["IndexedUnit"]) -> tuple[str, tuple[str, ...]]:
    counts = Counter(e for u in members for e in u.entities)
    topics = tuple(e for e, _ in counts.most_common(12))
    head = f"Digest of {len(members)} archived memories from {month}."
    if topics:
        head += " Topics: " + ", ".join(topics) + "."
    parts: list[str] = []
    used = len(head)
    for u in sorted(members, key=lambda u: (-u.importance, u.seq)):
        snippet = " ".join(u.text.split())[:80]
        if used + len(snippet) + 2 > _DIGEST_CHARS:
            break
        parts.append(snippet)
        used += len(snippet) + 2
    return head + (" Included: " + "; ".join(parts) if parts else ""), topics


def _digests_by_month(store: "UnitStore") -> dict[str, MemoryUnit]:
    index = store.index
    ids = [u.id for u in index.units.values() if Flag.DIGEST in u.flags]
    return {(u.digest or {}).get("month", ""): u for u in store.get_many(ids)}


def _write_digest(store: "UnitStore", month: str, member_ids: Iterable[str], existing: MemoryUnit | None) -> str | None:
    """Write (or rewrite, or remove when empty) the digest of ``month``; returns its id."""
    index = store.index
    members = [index.units[i] for i in dict.fromkeys(member_ids) if i in index.units]
    if not members:
        if existing is not None and existing.id in index.units:
            store.delete([existing.id])
        return None
    text, topics = _digest_text(month, members)
    now = datetime.now(timezone.utc)
    start = datetime.strptime(month + "-01", "%Y-%m-%d").replace(tzinfo=timezone.utc)
    unit = MemoryUnit(
        id=existing.id if existing is not None else uuid.uuid4().hex, bank=store.id, kind=MemoryKind.OBSERVATION,
        text=text, entities=topics, occurred_at=start, mentioned_at=now, importance=0.2, confidence=0.5,
        activity=0.2, evidence_ids=tuple(u.id for u in members), source=Source.AGENT, flags=(Flag.DIGEST,),
        digest={"month": month, "count": len(members)},
        created_at=existing.created_at if existing is not None else now,
    )
    store.put([(unit, store.embedder.embed([text])[0])])  # a rewritten digest keeps its seq
    return unit.id


def enforce_budget(store: "UnitStore", config: "BankConfig", budget: int | None = None, *,
                   now: datetime | None = None) -> ForgetReport:
    """Archive the least active units when the bank holds more active ones than ``budget``."""
    from hindsight_core._bank_state import flush_activity, state

    cfg = config.lifecycle
    budget = cfg.active_budget if budget is None else int(budget)
    now_ts = (now or datetime.now(timezone.utc)).timestamp()
    st = state(store)
    flush_activity(store)
    with store.write() as index:
        active = [u for u in index.units.values() if _archivable(u)]
        before = len(active)
        if not budget or before <= budget:
            st.active = before
            return ForgetReport(active_before=before, active_after=before, budget=budget)
        target = int(budget * (1.0 - cfg.archive_fraction))
        scored = sorted(active, key=lambda u: (
            effective_activity(u.activity, max(st.last_hit.get(u.id, 0.0), u.mentioned_at), now_ts,
                               cfg.unhit_days, cfg.decay_half_life_days), u.seq))
        victims = scored[: before - target]
        ids = [u.id for u in victims]
        store.archive(ids)  # out of the hot tier: default recall no longer searches them
        months: dict[str, list[str]] = {}
        for u in victims:
            months.setdefault(_month(u.when), []).append(u.id)
        existing = _digests_by_month(store)
        digests = []
        for month, member_ids in sorted(months.items()):
            old = existing.get(month)
            prior = list(old.evidence_ids) if old is not None else []
            digest_id = _write_digest(store, month, prior + member_ids, old)
            if digest_id:
                digests.append(digest_id)
        st.active = target
    return ForgetReport(active_before=before, active_after=target, budget=budget, archived=tuple(ids),
                        digests=tuple(digests))


def delete_unit(store: "UnitStore", unit_id: str) -> None:
    """Hard-delete one unit: :func:`scrub` what names it, then delete it from Chroma and the indexes.

    Raises:
        NotFoundError: no such unit in this bank.
    """
    store.get(unit_id)  # raises NotFoundError with a clear message
    with store.write():
        scrub(store, unit_id)
        store.delete([unit_id])


def scrub(store: "UnitStore", unit_id: str) -> None:
    """Before a hard delete: remove ``unit_id`` from digests and evidence lists that name it, and make
    a belief it had superseded current again (the newer statement is being taken back)."""
    from hindsight_core._bank_state import state

    with store.write() as index:
        doomed = store.get(unit_id)
        citing = [i for i, u in index.units.items() if unit_id in u.evidence_ids and i != unit_id]
        for unit in store.get_many(citing):
            remaining = tuple(e for e in unit.evidence_ids if e != unit_id)
            if Flag.DIGEST in unit.flags:
                month = (unit.digest or {}).get("month", _month(unit.when.timestamp()))
                _write_digest(store, month, remaining, unit)
            else:
                store.update(unit.model_copy(update={"evidence_ids": remaining}))
        for prev in store.get_many(doomed.evidence_ids):
            if prev.superseded_by == unit_id and prev.status is MemoryStatus.SUPERSEDED:
                restored = prev.model_copy(update={"status": MemoryStatus.ACTIVE, "superseded_by": None, "valid_to": None,
                                                   "flags": tuple(f for f in prev.flags if not f.startswith(Flag.SUPERSEDED))})
                store.update(restored)
        st = state(store)
        st.pending.pop(unit_id, None)
        st.last_hit.pop(unit_id, None)
