"""Ending an episode (store the experience, reflect, store the lesson) and recalling lessons.

Services over a bank's store and config, used by :meth:`MemoryBank.end_episode` and
:meth:`MemoryBank.recall_lessons`.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from hindsight_core._capture import prepare
from hindsight_core._validate import check_enum, check_episode, check_k, check_time
from hindsight_core.episodes import Episode, EpisodeResult, Reflection
from hindsight_core.errors import InvalidInputError, LLMError
from hindsight_core.lifecycle.reflect import Reflector, experience_text, lesson_text
from hindsight_core.models import MemoryKind, MemoryUnit, Outcome, RecallResult, Source

if TYPE_CHECKING:
    from hindsight_core.config import BankConfig
    from hindsight_core.storage.unit_store import UnitStore

__all__ = ["end_episode", "store_lesson", "recall_lessons"]

_IMPORTANCE = {Outcome.FAILURE: 0.85, Outcome.PARTIAL: 0.8, Outcome.SUCCESS: 0.7, Outcome.UNKNOWN: 0.5}


def _store(store: "UnitStore", config: "BankConfig", confidence: float | None = None,
           fields: dict[str, Any] | None = None, **kwargs: Any) -> MemoryUnit:
    """Capture one derived unit; ``fields`` sets its typed library fields (``episode``, ``lesson``)."""
    from hindsight_core._write import store_batch

    prepared = prepare(store.id, config, keep_raw=True, **kwargs)
    update = dict(fields or {}) | ({} if confidence is None else {"confidence": confidence})
    if update:
        prepared.unit = prepared.unit.model_copy(update=update)
    result = store_batch(store, config, [prepared])[0]
    assert result.unit is not None  # keep_raw=True always stores
    return result.unit


def end_episode(
    store: "UnitStore",
    config: "BankConfig",
    episode: Episode | dict[str, Any],
    outcome: Outcome | str,
    *,
    feedback: str | None = None,
    reflection: Reflection | None = None,
    reflector: Reflector | None = None,
    background: bool = False,
    ended_at: datetime | str | None = None,
) -> EpisodeResult:
    if isinstance(episode, dict):
        episode = Episode.model_validate(episode)
    if not isinstance(episode, Episode):
        raise InvalidInputError(f"episode must be an Episode (or a dict of its fields), not {type(episode).__name__}")
    outcome = check_enum(outcome, Outcome, "outcome")
    if feedback is not None and not isinstance(feedback, str):
        raise InvalidInputError("feedback must be a str or None")
    check_episode(episode, feedback)  # a 1 MB goal is "the goal is too long", not a metadata error
    if reflection is not None and not isinstance(reflection, Reflection):
        raise InvalidInputError("reflection must be a hindsight_core.episodes.Reflection")
    when = check_time(ended_at, "ended_at")
    if config.pii.enabled:  # redact before reflection shortens the trace: no half secrets survive a cut
        from hindsight_core.lifecycle.pii import redact, redact_episode

        episode = redact_episode(episode, config.pii.kinds)
        feedback = None if feedback is None else redact(feedback, config.pii.kinds).text
    reflector = reflector or store.reflector
    if not isinstance(reflector, Reflector):
        raise InvalidInputError("reflector must have a reflect(episode, outcome, feedback) method")

    experience = _store(
        store, config,
        text=experience_text(episode, outcome, feedback),
        kind=MemoryKind.EXPERIENCE,
        source=Source.AGENT,
        session_id=episode.session_id,
        episode_id=episode.id,
        outcome=outcome,
        importance=_IMPORTANCE[outcome],
        mentioned_at=when,
        metadata=episode.metadata,  # the caller's own, as given
        fields={"episode": {"goal": episode.goal, "steps": len(episode.steps), "feedback": feedback}},
    )
    if outcome is Outcome.UNKNOWN:  # no evidence either way: keep the experience, learn no recipe from it
        return EpisodeResult(episode_id=episode.id, outcome=outcome, experience=experience)
    if reflection is None and background:
        def job() -> None:
            store_lesson(store, config, episode, reflector.reflect(episode, outcome, feedback), experience, when)

        store.submit(f"{episode.session_id or ''}:{episode.id}", job)
        return EpisodeResult(episode_id=episode.id, outcome=outcome, experience=experience, pending=True)
    if reflection is None:
        try:
            reflection = reflector.reflect(episode, outcome, feedback)
        except LLMError as exc:
            raise LLMError(f"{exc} (the episode itself was stored as experience {experience.id})") from exc
    lesson = store_lesson(store, config, episode, reflection, experience, when)
    return EpisodeResult(episode_id=episode.id, outcome=outcome, experience=experience, lesson=lesson,
                         reflection=reflection)


def store_lesson(store: "UnitStore", config: "BankConfig", episode: Episode, reflection: Reflection,
                 experience: MemoryUnit, when: datetime | None) -> MemoryUnit:
    lesson = _store(
        store, config,
        text=lesson_text(reflection),
        kind=MemoryKind.OBSERVATION,
        source=Source.AGENT,
        session_id=episode.session_id,
        episode_id=episode.id,
        outcome=reflection.outcome,
        importance=_IMPORTANCE[reflection.outcome],
        confidence=reflection.confidence,
        evidence_ids=(experience.id,),
        mentioned_at=when,
        fields={"lesson": reflection.model_dump(mode="json")},
    )
    from hindsight_core.lifecycle.skills import after_lesson

    after_lesson(store, config, lesson)  # three successes make a skill; a failure demotes one
    return lesson


def _trigger(unit: MemoryUnit) -> str:
    lesson = unit.lesson
    trigger = lesson.get("goal") or lesson.get("trigger") if isinstance(lesson, dict) else None
    return " ".join(str(trigger or unit.id).lower().split())


def recall_lessons(recall: Callable[..., RecallResult], config: "BankConfig", task: str, *, k: int = 5,
                   as_of: datetime | str | None = None, max_tokens: int | None = None) -> RecallResult:
    """Lessons and skills for ``task`` (``recall`` is the bank's recall): groups of the same task
    ordered by their best match; within a group, failure lessons first, then the newest."""
    k = check_k(k)
    result = recall(task, k=min(max(k * 4, 20), 1000), as_of=as_of, kinds=["observation", "skill"])
    groups: dict[str, list[int]] = {}
    for pos, hit in enumerate(result.hits):
        groups.setdefault(_trigger(hit.unit), []).append(pos)
    order: list[int] = []
    for positions in groups.values():  # dict order = order of each group's best hit
        order += sorted(positions, key=lambda p: (
            result.hits[p].unit.kind != MemoryKind.SKILL,
            result.hits[p].unit.outcome is not Outcome.FAILURE,
            -result.hits[p].unit.mentioned_at.timestamp(),
        ))
    from hindsight_core.lifecycle.skills import skills_first

    hits = skills_first([result.hits[p] for p in order], config.lifecycle)[:k]  # a matching skill leads
    if max_tokens is not None:
        from hindsight_core._render import estimate_tokens

        kept, used = [], 0
        for hit in hits:
            used += estimate_tokens(hit.unit.text) + 4
            if used > max_tokens:
                break
            kept.append(hit)
        hits = kept
    return result.model_copy(update={"hits": tuple(hits)})
