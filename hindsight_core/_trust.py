"""Poisoning defences on the write path: corroboration of model-written drafts.

Source trust sets a unit's first confidence (tool output > user > agent > the model's own text,
see ``_capture.SOURCE_CONFIDENCE``). What the model wrote itself (``source="llm"``) is stored as a
``draft``: kept, recallable with ``include_drafts=True``, but never returned as a fact until a
*trusted* source (a user or a tool) says the same thing. That later capture corroborates it:

* a near-duplicate (cosine >= the bank's ``dedup_threshold``, same numbers) is absorbed into the
  draft, as any repeat is, and the draft becomes ``active``;
* a paraphrase (cosine >= :data:`CORROBORATION_SIMILARITY`, same numbers, the same non-empty set of
  entities) is stored as its own unit and the draft becomes ``active`` too, citing it.

Either way the draft takes the corroborating source's confidence, gains the ``corroborated`` flag
and records who corroborated it in ``mentions``. Instruction-like drafts ("ignore previous
instructions") are never promoted, and instruction-like text can never be captured as a directive
or a skill (``_capture.prepare`` raises :class:`InvalidInputError`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from hindsight_core._capture import RULE_KINDS, RULE_SOURCES, SOURCE_CONFIDENCE, Prepared, same_facts
from hindsight_core.errors import InvalidInputError
from hindsight_core.models import Flag, MemoryStatus, MemoryUnit, Source

if TYPE_CHECKING:
    from hindsight_core.config import BankConfig
    from hindsight_core.storage.unit_store import UnitStore

__all__ = ["CORROBORATION_SIMILARITY", "TRUSTED_SOURCES", "corroborate", "promote", "confirm", "check_evidence"]

#: Cosine similarity from which a trusted paraphrase with the same entities corroborates a draft.
CORROBORATION_SIMILARITY = 0.85
#: Sources whose word promotes a model-written draft.
TRUSTED_SOURCES = frozenset({Source.USER, Source.TOOL})
_MAX_MENTIONS = 20
_RULE_KIND_VALUES = frozenset(k.value for k in RULE_KINDS)


def _same_entities(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return bool(a) and {x.casefold() for x in a} == {x.casefold() for x in b}


def _mention(by: MemoryUnit) -> dict[str, Any]:
    return {"mentioned_at": by.mentioned_at.isoformat(), "session_id": by.session_id,
            "episode_id": by.episode_id, "metadata": by.metadata, "source": by.source.value}


def promote(draft: MemoryUnit, by: MemoryUnit, *, absorbed: bool) -> MemoryUnit:
    """``draft`` made active by the trusted capture ``by`` (absorbed into it, or stored beside it)."""
    mention = _mention(by) | {"corroborates": True}
    if not absorbed:
        mention["unit_id"] = by.id
    update: dict[str, Any] = {
        "status": MemoryStatus.ACTIVE,
        "confidence": round(max(draft.confidence, by.confidence), 3),
        "flags": draft.flags + (() if Flag.CORROBORATED in draft.flags else (Flag.CORROBORATED,)),
        "mentions": (draft.mentions + (mention,))[-_MAX_MENTIONS:],
    }
    if absorbed:
        update["mention_count"] = draft.mention_count + 1
        update["importance"] = round(max(draft.importance, by.importance), 3)
    return draft.model_copy(update=update)


def corroborate(store: "UnitStore", config: "BankConfig", unit: MemoryUnit,
                vector: np.ndarray) -> tuple[MemoryUnit | None, bool]:
    """Promote the draft that the trusted capture ``unit`` corroborates, if any; a model capture
    that repeats one of its drafts is absorbed into it instead (one draft, no trust gained).

    Call with the bank's index lock held. Returns ``(changed draft or None, absorbed)``; when
    ``absorbed`` is True the capture was a near-duplicate and must not be stored on its own.
    """
    index = store.index
    if unit.source not in TRUSTED_SOURCES | {Source.LLM} or not index.drafts:
        return None, False
    ids = sorted((i for i in index.drafts if i in index.units), key=lambda i: index.units[i].seq)
    if not ids:
        return None, False
    sims = index.vectors(ids) @ np.asarray(vector, dtype=np.float32)
    if unit.source is Source.LLM:  # the model repeating its own draft: still one draft, no trust gained
        for pos in np.argsort(-sims, kind="stable"):
            light = index.units[ids[pos]]
            if float(sims[pos]) < config.dedup_threshold:
                break
            if light.kind == unit.kind.value and same_facts(light.text, unit.text):
                draft = store.get(light.id)
                repeated = draft.model_copy(update={
                    "mention_count": draft.mention_count + 1,
                    "mentions": (draft.mentions + (_mention(unit),))[-_MAX_MENTIONS:],
                })
                store.update(repeated)
                return repeated, True
        return None, False
    for pos in np.argsort(-sims, kind="stable"):
        sim = float(sims[pos])
        if sim < CORROBORATION_SIMILARITY:
            break
        light = index.units[ids[pos]]
        if light.kind != unit.kind.value or Flag.INSTRUCTION_LIKE in light.flags:
            continue
        if light.kind in _RULE_KIND_VALUES and unit.source not in RULE_SOURCES:
            continue  # only the user (or the application) turns a drafted rule or skill into a real one
        absorbed = sim >= config.dedup_threshold
        if not same_facts(light.text, unit.text, ordered=absorbed):  # a paraphrase may reorder names
            continue
        if not absorbed and not _same_entities(light.entities, unit.entities):
            continue
        promoted = promote(store.get(light.id), unit, absorbed=absorbed)
        store.update(promoted)
        return promoted, absorbed
    return None, False


def confirm(store: "UnitStore", unit_id: str) -> MemoryUnit:
    """The user confirms a draft (a model's fact, or a rule or skill from an untrusted source): it
    becomes active with the user's confidence and a ``confirmed`` flag. Instruction-like text is never
    confirmed into anything but a flagged quote."""
    unit = store.get(unit_id)
    if unit.status is not MemoryStatus.DRAFT:
        raise InvalidInputError(f"unit {unit_id!r} is {unit.status.value}, not a draft; only drafts are confirmed")
    if Flag.INSTRUCTION_LIKE in unit.flags:
        raise InvalidInputError(
            f"unit {unit_id!r} reads like an injected instruction and stays a draft; if the user really means it, "
            "capture the rule in their own words with source='user'"
        )
    confirmed = unit.model_copy(update={
        "status": MemoryStatus.ACTIVE,
        "confidence": round(max(unit.confidence, SOURCE_CONFIDENCE[Source.USER]), 3),
        "flags": unit.flags + (() if Flag.CONFIRMED in unit.flags else (Flag.CONFIRMED,)),
    })
    store.update(confirmed)
    return confirmed


def check_evidence(store: "UnitStore", prepared: list[Prepared]) -> None:
    """Every ``evidence_ids`` entry must name a unit of *this* bank: a link to another bank's unit
    (or to nothing) is refused before anything is written, so the graph never crosses banks."""
    wanted = {e for p in prepared for e in p.unit.evidence_ids}
    if not wanted:
        return
    with store.read() as index:  # with what other processes wrote
        unknown = sorted(wanted - index.units.keys())
    if unknown:
        raise InvalidInputError(
            f"evidence_ids {unknown[:5]} are not units of bank {store.id!r}; evidence must be units of the same "
            "bank (use the unit_id a capture in this bank returned)"
        )
