"""Consolidation: clusters of related memories become evidence-backed observations.

A run reads at most ``consolidate_max_units`` units not yet consolidated (oldest first), groups
units whose every pair has cosine >= ``cluster_threshold`` (and the same outcome, so failures stay failures), and:

* a cluster close to an existing observation supports it (evidence added, confidence up);
* a cluster of ``min_cluster`` units or more becomes a new observation whose ``evidence_ids`` are
  its members. Without an LLM the text is extractive (the cluster's most central member); with
  one (``llm=`` or ``MemoryEngine(llm=...)``) clusters are compressed in batched calls, and a
  compression that names a proper noun or number absent from its sources, or has a sentence that
  does not trace to them, is discarded, reported, and replaced by the extractive text;
* near-duplicate observations merge into the older one.

Runs are triggered after ``consolidate_every`` new units or ``consolidate_after_s`` seconds, in the
bank's background queue (never blocking capture), or on demand with ``bank.consolidate()``.

Example:
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> bank = engine.bank("ops", lifecycle={"consolidate_every": 0, "cluster_threshold": 0.7})
    >>> _ = bank.capture_many(["The nightly backup job failed with a disk full error on db-1.",
    ...                        "Monday: the nightly backup job failed with a disk full error on db-1.",
    ...                        "Tuesday: the nightly backup job failed again, disk full error on db-1."])
    >>> report = bank.consolidate()
    >>> len(report.created), len(bank.get(report.created[0]).evidence_ids)
    (1, 3)
"""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hindsight_core.errors import LLMError
from hindsight_core.models import Flag, MemoryKind, MemoryStatus, MemoryUnit

if TYPE_CHECKING:
    from hindsight_core.config import BankConfig
    from hindsight_core.storage.unit_store import UnitStore

__all__ = ["ConsolidationReport", "consolidate", "grounding_problems"]

log = logging.getLogger("hindsight.consolidate")

_SKIP_FLAGS = frozenset({Flag.LOG_ONLY, Flag.DIGEST, Flag.INSTRUCTION_LIKE, Flag.CONSOLIDATED})
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")


class ConsolidationReport(BaseModel):
    """What one consolidation run did."""

    model_config = ConfigDict(frozen=True)

    processed: int = Field(0, description="Units read by this run.")
    remaining: int = Field(0, description="Units still waiting for a later run.")
    clusters: int = 0
    created: tuple[str, ...] = Field((), description="New observations.")
    supported: tuple[str, ...] = Field((), description="Existing observations that gained evidence.")
    merged: tuple[str, ...] = Field((), description="Near-duplicate observations merged away (deleted).")
    discarded: tuple[dict[str, Any], ...] = Field((), description="LLM compressions rejected, with why.")
    llm_calls: int = 0
    took_ms: float = 0.0


def grounding_problems(text: str, sources: Sequence[str]) -> list[str]:
    """Why ``text`` is not a pure compression of ``sources`` (empty: it is)."""
    from hindsight_core.lifecycle.beliefs import _tokens
    from hindsight_core.lifecycle.reflect import ungrounded_terms

    evidence = "\n".join(sources)
    problems = []
    invented = ungrounded_terms(text, evidence)
    if invented:
        problems.append(f"names or numbers absent from the sources: {invented}")
    known = {t for s in sources for t in _tokens(s)[0]}
    for sentence in _SENTENCE.split(text):
        words = _tokens(sentence)[0]
        if words and sum(w in known for w in words) / len(words) < 0.6:
            problems.append(f"sentence does not trace to the sources: {sentence.strip()!r}")
    return problems


def _clusters(ids: list[str], vecs: np.ndarray, outcomes: list[Any], threshold: float) -> list[list[int]]:
    """Complete-linkage groups: every two members of a group are within ``threshold`` of each other.

    Single linkage chained a conversation's greetings, thanks and replies into one group of 80 turns
    (each close to the next, the ends unrelated); a group here is a thing said again, not a drift.
    The closest two groups merge first; each row keeps its best partner, recomputed only when that
    partner merges (a merge only lowers links), so a run costs about O(n^2), not O(n^3).
    """
    n = len(ids)
    if n < 2:
        return [[i] for i in range(n)]
    kinds = np.empty(n, dtype=object)
    kinds[:] = outcomes
    link = np.where(kinds[:, None] == kinds[None, :], vecs @ vecs.T, -np.inf)  # failures stay failures
    np.fill_diagonal(link, -np.inf)
    groups: dict[int, list[int]] = {i: [i] for i in range(n)}
    partner = link.argmax(axis=1)
    best = link[np.arange(n), partner]
    while True:
        a = int(best.argmax())
        if not best[a] >= threshold:
            break
        b = int(partner[a])
        groups[a].extend(groups.pop(b))
        merged = np.minimum(link[a], link[b])  # complete linkage: the farthest pair
        link[a], link[:, a] = merged, merged
        link[a, a] = -np.inf
        link[b], link[:, b] = -np.inf, -np.inf
        best[b] = -np.inf
        for row in np.flatnonzero((partner == a) | (partner == b)).tolist():  # a's partner was b: a is here
            if row != b:
                partner[row] = link[row].argmax()
                best[row] = link[row, partner[row]]
    return list(groups.values())


def _llm_texts(llm: Any, prompt: Callable[..., list[tuple[str, str]]], clusters: list[list[str]],
               batch: int) -> tuple[dict[int, tuple[str, float]], int, list[dict[str, Any]]]:
    from hindsight_core.lifecycle._llm import ask_json
    from hindsight_core.prompts.consolidate import ConsolidationDraft

    out: dict[int, tuple[str, float]] = {}
    calls, failures = 0, []
    for start in range(0, len(clusters), batch):
        part = clusters[start:start + batch]
        calls += 1
        try:
            draft = ConsolidationDraft.model_validate(ask_json(llm, prompt(part)))
        except (LLMError, ValueError, ValidationError) as exc:
            failures.append({"clusters": list(range(start, start + len(part))), "reason": f"llm failed: {exc}"})
            continue
        for obs in draft.observations:
            if 1 <= obs.cluster <= len(part):
                out[start + obs.cluster - 1] = (obs.text.strip(), obs.confidence)
    return out, calls, failures


def consolidate(store: "UnitStore", config: "BankConfig", *, llm: Any = None, max_units: int | None = None,
                prompt: Callable[..., list[tuple[str, str]]] | None = None, full: bool = False) -> ConsolidationReport:
    """One consolidation run over the bank's newest unconsolidated units (see the module docstring)."""
    from hindsight_core._bank_state import state
    from hindsight_core._capture import prepare
    from hindsight_core._write import store_batch
    from hindsight_core.lifecycle._llm import not_written
    from hindsight_core.prompts import consolidate as consolidate_prompt

    started = time.perf_counter()
    cfg = config.lifecycle
    limit = cfg.consolidate_max_units if max_units is None else max_units
    llm = llm if llm is not None else store.llm
    prompt = prompt or consolidate_prompt.build_messages
    st = state(store)
    with st.lock:
        st.new_since, st.last_run = 0, time.monotonic()
        if full:
            st.watermark = -1
    with store.write() as index:
        observations = [u for u in index.units.values() if Flag.CONSOLIDATED in u.flags
                        and u.status == MemoryStatus.ACTIVE.value and u.kind == MemoryKind.OBSERVATION.value]
        cited = {e for u in observations for e in u.evidence_ids}
        eligible = sorted((u for u in index.units.values()
                           if u.status == MemoryStatus.ACTIVE.value and u.kind in cfg.consolidate_kinds
                           and u.seq > st.watermark and u.id not in cited and not _SKIP_FLAGS & set(u.flags)),
                          key=lambda u: u.seq)
        batch, remaining = eligible[:limit], max(0, len(eligible) - limit)
        if not batch:
            return ConsolidationReport(took_ms=round((time.perf_counter() - started) * 1000, 2))
        st.watermark = max(st.watermark, batch[-1].seq)
        ids = [u.id for u in batch]
        vecs = index.vectors(ids)
        obs_vecs = index.vectors([u.id for u in observations])
    groups = _clusters(ids, vecs, [u.outcome for u in batch], cfg.cluster_threshold)

    supported: dict[str, list[str]] = {}
    new_groups: list[list[int]] = []
    for group in groups:
        if len(observations):
            sims = (vecs[group] @ obs_vecs.T).mean(axis=0)
            best = int(sims.argmax())
            if float(sims[best]) >= cfg.cluster_threshold and observations[best].outcome == batch[group[0]].outcome:
                supported.setdefault(observations[best].id, []).extend(ids[i] for i in group)
                continue
        if len(group) >= cfg.min_cluster:
            new_groups.append(group)

    members = store.get_many([ids[i] for g in new_groups for i in g])
    by_id = {u.id: u for u in members}
    texts: list[str] = []
    for group in new_groups:
        sub = vecs[group]
        texts.append(batch[group[int((sub @ sub.T).sum(axis=1).argmax())]].text)  # the medoid
    discarded: list[dict[str, Any]] = []
    llm_calls = 0
    modes = ["extractive"] * len(new_groups)
    confidences = [round(min(0.9, 0.5 + 0.1 * (len(g) - 1)), 3) for g in new_groups]
    if llm is not None and new_groups:
        sources = [[batch[i].text for i in g] for g in new_groups]
        drafts, llm_calls, failures = _llm_texts(llm, prompt, sources, cfg.llm_batch)
        discarded.extend(failures)
        for n, (text, conf) in drafts.items():
            problems = grounding_problems(text, sources[n]) if text else ["empty text"]
            if text and not_written(text, consolidate_prompt.EXAMPLE["observations"][0]["text"]):
                problems = ["the prompt's example or an unfilled shape, not a merge of this cluster"]
            if problems:
                discarded.append({"cluster": [ids[i] for i in new_groups[n]], "text": text, "reason": "; ".join(problems)})
                log.warning("consolidation discarded an ungrounded merge: %s", "; ".join(problems))
                continue
            texts[n], modes[n], confidences[n] = text, "llm", round(min(conf, confidences[n] + 0.1), 3)

    prepared = []
    for group, text, mode, conf in zip(new_groups, texts, modes, confidences):
        units = [by_id[ids[i]] for i in group if ids[i] in by_id]
        if not units:
            continue
        outcomes = {u.outcome for u in units}
        p = prepare(store.id, config, text=text, kind=MemoryKind.OBSERVATION, source="agent", keep_raw=True,
                    importance=max(u.importance for u in units), evidence_ids=tuple(u.id for u in units),
                    outcome=outcomes.pop() if len(outcomes) == 1 else None, status="active",
                    session_id=units[0].session_id if len({u.session_id for u in units}) == 1 else None,
                    mentioned_at=max(u.mentioned_at for u in units), occurred_at=max(u.when for u in units))
        p.unit = p.unit.model_copy(update={"confidence": conf, "flags": p.unit.flags + (Flag.CONSOLIDATED, Flag(mode)),
                                           "consolidated": {"mode": mode, "size": len(units)},
                                           "entities": tuple(dict.fromkeys(e for u in units for e in u.entities))})
        prepared.append(p)
    created: list[str] = []
    with store.write():
        for result, p in zip(store_batch(store, config, prepared) if prepared else [], prepared):
            if result.unit_id is None:
                continue
            if result.merged:  # the same observation exists: it gains this cluster's evidence
                supported.setdefault(result.unit_id, []).extend(p.unit.evidence_ids)
            else:
                created.append(result.unit_id)
        for obs_id, extra in supported.items():
            obs = store.get(obs_id)
            evidence = tuple(dict.fromkeys(obs.evidence_ids + tuple(extra)))
            store.update(obs.model_copy(update={
                "evidence_ids": evidence,
                "confidence": round(min(0.95, obs.confidence + 0.05 * (len(evidence) - len(obs.evidence_ids))), 3)}))
        merged = _merge_duplicates(store, config, created)
    created = [c for c in created if c not in merged]
    return ConsolidationReport(
        processed=len(batch), remaining=remaining, clusters=len(new_groups), created=tuple(created),
        supported=tuple(supported), merged=tuple(merged), discarded=tuple(discarded), llm_calls=llm_calls,
        took_ms=round((time.perf_counter() - started) * 1000, 2))


def _merge_duplicates(store: "UnitStore", config: "BankConfig", fresh: list[str]) -> list[str]:
    """Merge each new observation into an older near-duplicate one (same outcome); returns the merged-away ids."""
    from hindsight_core.lifecycle.forgetting import delete_unit

    cfg = config.lifecycle
    index = store.index
    merged: list[str] = []
    for obs_id in fresh:
        light = index.units.get(obs_id)
        if light is None:
            continue
        others = [u for u in index.units.values() if Flag.CONSOLIDATED in u.flags and u.id != obs_id and u.id not in merged
                  and u.status == MemoryStatus.ACTIVE.value and u.outcome == light.outcome and u.seq < light.seq]
        if not others:
            continue
        sims = index.vectors([u.id for u in others]) @ index.vectors([obs_id])[0]
        best = int(sims.argmax())
        if float(sims[best]) < cfg.observation_merge_threshold:
            continue
        keeper: MemoryUnit = store.get(others[best].id)
        dup = store.get(obs_id)
        evidence = tuple(dict.fromkeys(keeper.evidence_ids + dup.evidence_ids))
        store.update(keeper.model_copy(update={"evidence_ids": evidence,
                                                "confidence": round(min(0.95, max(keeper.confidence, dup.confidence) + 0.05), 3),
                                                "mention_count": keeper.mention_count + dup.mention_count}))
        delete_unit(store, obs_id)
        merged.append(obs_id)
    return merged
