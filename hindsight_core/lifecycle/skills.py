"""Skills: a reusable action that worked ``skill_after`` times (default 3) becomes procedural memory.

After each success lesson, the success lessons that state the same action (cosine >=
``skill_match``; a repeated lesson counts every time it was absorbed) are counted; at the threshold
a unit of kind ``skill`` is written with them as evidence. ``recall_lessons`` puts a skill first
when its trigger matches the task. A failure at a task a skill covers demotes it: it becomes an
ordinary observation again with lower confidence, and the lessons behind it lose confidence too.
Lessons from instruction-like text are never promoted.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Sequence

from hindsight_core.models import Flag, MemoryKind, MemoryStatus, MemoryUnit, Outcome, RecallHit

if TYPE_CHECKING:
    from hindsight_core.config import BankConfig, LifecycleConfig
    from hindsight_core.storage.unit_store import UnitStore

__all__ = ["after_lesson", "skills_first", "skill_text"]


def skill_text(reflection: dict[str, Any]) -> str:
    lesson = str(reflection.get("lesson") or "").strip()
    trigger = str(reflection.get("trigger") or reflection.get("goal") or "").strip()
    return f"Skill: {lesson}" + (f"\nUse when: {trigger}" if trigger and trigger.lower() not in lesson.lower() else "")


def after_lesson(store: "UnitStore", config: "BankConfig", lesson: MemoryUnit) -> MemoryUnit | None:
    """Promote (after a success) or demote (after a failure); returns the skill written or changed."""
    reflection = lesson.lesson  # the reflection it was learnt from (None: not a lesson)
    if not isinstance(reflection, dict) or lesson.id not in store.index.units:
        return None
    if lesson.outcome is Outcome.SUCCESS:
        return _promote(store, config, lesson, reflection)
    return _demote(store, config, reflection)


def _skills(store: "UnitStore") -> list[MemoryUnit]:
    ids = [u.id for u in store.index.units.values() if u.kind == MemoryKind.SKILL.value or Flag.SKILL in u.flags]
    return store.get_many(ids)


def _promote(store: "UnitStore", config: "BankConfig", lesson: MemoryUnit,
             reflection: dict[str, Any]) -> MemoryUnit | None:
    from hindsight_core._capture import prepare
    from hindsight_core._write import store_batch

    cfg = config.lifecycle
    with store.write() as index:
        vec = index.vectors([lesson.id])[0]
        near = [i for i, s in index.dense_search(vec, 20) if s >= cfg.skill_match]
        ids = [i for i in dict.fromkeys([lesson.id] + near)
               if index.units[i].kind == MemoryKind.OBSERVATION.value and index.units[i].outcome == Outcome.SUCCESS.value
               and index.units[i].status == MemoryStatus.ACTIVE.value]
        members = [m for m in store.get_many(ids) if m.lesson is not None]
        if any(Flag.INSTRUCTION_LIKE in m.flags for m in members):
            return None
        successes = sum(m.mention_count for m in members)
        member_ids = {m.id for m in members}
        confidence = round(min(0.95, 0.6 + 0.05 * successes), 3)
        for skill in _skills(store):
            meta = dict(skill.skill or {})
            if not member_ids & set(meta.get("lesson_ids", ())):
                continue
            meta["lesson_ids"] = sorted(member_ids | set(meta.get("lesson_ids", ())))
            demoted = skill.kind is not MemoryKind.SKILL
            since = successes - int(meta.get("successes_at_demotion", 0))
            meta["successes"] = successes
            update: dict[str, Any] = {"skill": meta,
                                      "evidence_ids": tuple(dict.fromkeys(skill.evidence_ids + tuple(member_ids)))}
            if demoted and since >= cfg.skill_after:  # earned its place back
                update |= {"kind": MemoryKind.SKILL, "confidence": confidence,
                           "flags": tuple(f for f in skill.flags if f != Flag.SKILL_DEMOTED)}
            elif not demoted:
                update["confidence"] = max(skill.confidence, confidence)
            changed = skill.model_copy(update=update)
            store.update(changed)
            return changed
        if successes < cfg.skill_after:
            return None
        prepared = prepare(
            store.id, config, text=skill_text(reflection), kind=MemoryKind.SKILL, source="system",
            session_id=lesson.session_id, importance=0.85, keep_raw=True, evidence_ids=tuple(member_ids),
            outcome=Outcome.SUCCESS,
        )
        prepared.unit = prepared.unit.model_copy(update={
            "confidence": confidence, "flags": prepared.unit.flags + (Flag.SKILL,),
            "skill": {"trigger": reflection.get("trigger") or reflection.get("goal"), "action": reflection.get("lesson"),
                      "successes": successes, "failures": 0, "lesson_ids": sorted(member_ids)}})
        return store_batch(store, config, [prepared])[0].unit


def _demote(store: "UnitStore", config: "BankConfig", reflection: dict[str, Any]) -> MemoryUnit | None:
    cfg = config.lifecycle
    goal = str(reflection.get("goal") or reflection.get("trigger") or "")
    with store.write() as index:
        active = [u.id for u in index.units.values()
                  if u.kind == MemoryKind.SKILL.value and u.status == MemoryStatus.ACTIVE.value]
        if not active or not goal:
            return None
        qvec = store.embedder.embed([goal])[0]
        sims = index.vectors(active) @ qvec
        best = int(sims.argmax())
        if float(sims[best]) < max(cfg.skill_trigger_match, 0.6):
            return None
        skill = store.get(active[best])
        meta = dict(skill.skill or {})
        meta["failures"] = int(meta.get("failures", 0)) + 1
        meta["successes_at_demotion"] = int(meta.get("successes", 0))
        meta["demoted_at"] = datetime.now(timezone.utc).isoformat()
        demoted = skill.model_copy(update={
            "kind": MemoryKind.OBSERVATION, "confidence": round(max(0.0, skill.confidence - 0.3), 3),
            "flags": tuple(dict.fromkeys(skill.flags + (Flag.SKILL_DEMOTED,))),
            "skill": meta})
        store.update(demoted)
        for src in store.get_many(meta.get("lesson_ids", ())):  # the counter-example weighs on them too
            store.update(src.model_copy(update={"confidence": round(max(0.0, src.confidence - 0.1), 3)}))
        return demoted


def _dense(hit: RecallHit) -> float:
    return next((c.score for c in hit.channels if c.channel == "dense"), 0.0)


def skills_first(hits: Sequence[RecallHit], cfg: "LifecycleConfig") -> list[RecallHit]:
    """Skills whose trigger matches the query (dense cosine >= ``skill_trigger_match``) come first."""
    first = [h for h in hits if h.unit.kind is MemoryKind.SKILL and _dense(h) >= cfg.skill_trigger_match]
    return first + [h for h in hits if h not in first]
