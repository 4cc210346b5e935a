"""The write step of capture, over a bank's :class:`~hindsight_core.storage.unit_store.UnitStore`.

``_capture.prepare`` validates and scores items (no store); this module embeds them (no lock held)
and applies them under the bank's write lock, all or nothing: dedup against stored and same-batch
units, corroboration of model drafts (``_trust``), belief supersession (``lifecycle.beliefs``) and
the write itself. Consolidation, skills and episodes store what they derive through
:func:`store_batch` too, so every unit reaches Chroma and the indexes the same way.

A service over ``(store, config)``: it never sees the bank facade.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import numpy as np

from hindsight_core._capture import Prepared, embed_batch, prepare, same_facts
from hindsight_core._trust import check_evidence, corroborate
from hindsight_core.config import BankConfig
from hindsight_core.lifecycle.beliefs import supersede_on_capture
from hindsight_core.models import CaptureResult, MemoryStatus, MemoryUnit
from hindsight_core.storage.live_index import LiveIndex
from hindsight_core.storage.unit_store import UnitStore

__all__ = ["Embedded", "prepare_all", "embed", "apply", "store_batch", "absorb"]

_MAX_MENTIONS = 20  # absorbed repeats kept in ``mentions``, newest last
_NEIGHBOURS = 8  # stored neighbours searched per captured item: dedup looks at 3, belief updates at 8
_DEDUP_NEIGHBOURS = 3  # of those, the nearest this many are checked for a duplicate
_REPEAT_BONUS = 0.05  # what one absorbed repeat adds to importance and confidence
_REPEAT_ACTIVITY = 1.2  # a repeat counts as use: activity grows by this factor

#: One embedded batch: the items, their vectors (row n: the n-th stored item; None when none is) and
#: context-window vectors by unit id (empty unless recall uses them), and gloss vectors by unit id
#: (messages in another language, :func:`~hindsight_core._capture.embed_batch`).
Embedded = tuple[list[Prepared], "np.ndarray | None", dict[str, "np.ndarray"], dict[str, "np.ndarray"]]

def prepare_all(store: UnitStore, config: BankConfig, kwargs_list: list[dict[str, Any]]) -> list[Prepared]:
    """Validate and score every item first; evidence ids from another bank (or none) are refused."""
    now = datetime.now(timezone.utc)
    prepared = [prepare(store.id, config, now=now, **kw) for kw in kwargs_list]
    check_evidence(store, prepared)
    return prepared


def embed(store: UnitStore, config: BankConfig, prepared: list[Prepared]) -> Embedded:
    """One embedding call (no lock held): row n of the matrix is the n-th stored item's vector
    (None when none is), plus context-window vectors by unit id when recall uses them, and the gloss
    vectors of items in another language."""
    to_store = [p for p in prepared if p.stored]
    with_context = bool(config.recall.context_weight or config.recall.context_next_weight)

    def last_in_session(session_id: str) -> str | None:
        index = store.index
        with index.lock.read():
            ids = index.graph.session_units(session_id)
            return index.units[ids[-1]].text if ids else None

    if to_store:
        store.yield_to_reads()  # recalls in flight go first (read_priority); same vectors either way
    matrix, contexts, glosses = embed_batch(store.embedder, to_store, last_in_session, with_context)
    return prepared, matrix, contexts, glosses


def store_batch(store: UnitStore, config: BankConfig, prepared: list[Prepared]) -> list[CaptureResult]:
    """Embed and apply one batch (what services use to store derived units)."""
    return apply(store, config, [embed(store, config, prepared)])


def apply(store: UnitStore, config: BankConfig, batches: list[Embedded]) -> list[CaptureResult]:
    """Store embedded batches under the bank's write lock, all or nothing.

    Every write is journalled (``UnitStore.transaction``); when one fails, what the call already
    wrote is undone before the error is raised, so a failed call leaves no unit and no mention
    count behind.
    """
    create = any(m is not None for _, m, _, _ in batches)  # a write creates the bank
    results: list[CaptureResult] = []
    added = 0
    # one write applies at a time, after the recalls in flight (they would wait for this write lock)
    with store.write_turn(), store.transaction(create=create) as index:
        for prepared, matrix, contexts, glosses in batches:
            batch_results, new = _apply_batch(store, config, index, prepared, matrix, contexts, glosses)
            results += batch_results
            added += new
    store.written(config, added)  # lifecycle triggers: may queue consolidation or the budget sweep
    return results


def _apply_batch(store: UnitStore, config: BankConfig, index: LiveIndex, prepared: list[Prepared],
                 matrix: np.ndarray | None, contexts: dict[str, np.ndarray],
                 glosses: dict[str, np.ndarray]) -> tuple[list[CaptureResult], int]:
    to_store = [p for p in prepared if p.stored]
    row_of = {id(p): n for n, p in enumerate(to_store)}  # row n of ``matrix`` is to_store[n]'s vector
    results: list[CaptureResult] = []
    new_units: list[tuple[MemoryUnit, Any]] = []
    # one search for the whole batch, shared by dedup and the belief check
    near_rows = index.dense_search_many(matrix, _NEIGHBOURS) if matrix is not None else []
    pending_rows: list[int] = []  # row of ``matrix`` for each entry of new_units
    near: dict[str, list[tuple[str, float]]] = {}  # unit id -> stored neighbours, for supersession
    for p in prepared:
        if not p.stored:
            results.append(_result(p, unit=None, stored=False))
            continue
        row = row_of[id(p)]
        vec = matrix[row]
        twin, pending_at = (None, None)
        if config.dedup:  # pending items are earlier rows: a view, no copy of the batch
            twin, pending_at = _find_duplicate(store, index, config.dedup_threshold, p.unit, near_rows[row],
                                               new_units, (matrix[:row] @ vec)[pending_rows])
        if twin is not None:
            merged = absorb(twin, p.unit)
            if pending_at is None:
                store.update(merged)
            else:  # its twin is earlier in this very batch, not written yet
                new_units[pending_at] = (merged, new_units[pending_at][1])
            results.append(_result(p, unit=merged, stored=True, merged=True))
            continue
        promoted, absorbed = corroborate(store, config, p.unit, vec)  # a user/tool confirms a model draft
        if absorbed:
            results.append(_result(p, unit=promoted, stored=True, merged=True))
            continue
        new_units.append((p.unit, vec))
        pending_rows.append(row)
        near[p.unit.id] = near_rows[row]
        results.append(_result(p, unit=p.unit, stored=True))
    new_units, results, older = supersede_on_capture(store, config, new_units, results, near)  # beliefs keep history
    store.put(new_units, contexts=contexts, glosses=glosses)
    for unit in older:
        store.update(unit)
    return results, len(new_units)


def _result(p: Prepared, *, unit: MemoryUnit | None, stored: bool, merged: bool = False) -> CaptureResult:
    return CaptureResult(
        unit_id=unit.id if unit is not None else None,
        stored=stored,
        merged=merged,
        importance=p.unit.importance,
        reasons=p.unit.gate_reasons,
        entities=p.unit.entities,
        redactions=p.redactions,
        occurred_at=p.unit.occurred_at,
        unit=unit,
    )


def _find_duplicate(
    store: UnitStore,
    index: LiveIndex,
    threshold: float,
    unit: MemoryUnit,
    stored_near: list[tuple[str, float]],
    pending: list[tuple[MemoryUnit, Any]],
    pending_sims: np.ndarray,
) -> tuple[MemoryUnit | None, int | None]:
    """An active unit of the same kind whose text says the same thing (same numbers too),
    and its position in ``pending`` when it is not written yet. ``stored_near`` are the
    unit's nearest stored neighbours, best first; ``pending_sims`` its similarity to each
    item of ``pending`` (earlier items of this batch, not in Chroma yet)."""
    for at in np.flatnonzero(pending_sims >= threshold)[::-1]:  # the latest twin first
        other = pending[at][0]
        if other.kind == unit.kind and same_facts(other.text, unit.text):
            return other, int(at)
    for unit_id, sim in stored_near[:_DEDUP_NEIGHBOURS]:
        if sim < threshold:
            break
        light = index.units.get(unit_id)
        if light is None or light.kind != unit.kind.value or light.status != MemoryStatus.ACTIVE.value:
            continue
        if same_facts(light.text, unit.text):
            return store.get(unit_id), None
    return None, None


def absorb(existing: MemoryUnit, new: MemoryUnit) -> MemoryUnit:
    """A repeat strengthens what is there, and the repeat's own context is kept in ``mentions``."""
    mention = {
        "mentioned_at": new.mentioned_at.isoformat(),
        "session_id": new.session_id,
        "episode_id": new.episode_id,
        "metadata": new.metadata,
    }
    return existing.model_copy(update={
        "mention_count": existing.mention_count + 1,
        "mentions": (existing.mentions + (mention,))[-_MAX_MENTIONS:],
        "importance": round(min(1.0, max(existing.importance, new.importance) + _REPEAT_BONUS), 3),
        "confidence": round(min(1.0, max(existing.confidence, new.confidence) + _REPEAT_BONUS), 3),
        "activity": round(existing.activity * _REPEAT_ACTIVITY, 4),
    })
