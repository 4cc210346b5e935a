"""Episodes: one run of an agent, its denoised action trace, its outcome and what was learned.

Models only (no storage). :meth:`MemoryBank.end_episode` stores an :class:`Episode` as an
experience and its :class:`Reflection` as a lesson.

Example:
    >>> ep = Episode.from_steps([
    ...     TraceStep(kind="user", text="Deploy the billing service"),
    ...     TraceStep(kind="tool_call", text="deploy(env='prod')", tool="deploy"),
    ...     TraceStep(kind="tool_error", text="PermissionError: approval required", tool="deploy"),
    ... ])
    >>> ep.goal
    'Deploy the billing service'
    >>> [s.kind.value for s in ep.key_steps()]
    ['tool_call', 'tool_error']
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any, Iterable

from pydantic import BaseModel, ConfigDict, Field

from hindsight_core.models import MemoryUnit, Outcome

__all__ = ["is_correction", "StepKind", "TraceStep", "Episode", "ReflectionDraft", "Reflection", "EpisodeResult"]

_STEP_CHARS = 400  # a step longer than this is cut: the trace keeps what mattered, not every token
_CORRECTION = re.compile(
    r"^\s*(no\b|nope|wrong|that(?:'?s| is) (?:not|wrong|incorrect)|actually|instead|not quite|incorrect"
    r"|this is (?:not|wrong)|you (?:got it wrong|made a mistake))", re.I)


def is_correction(text: str) -> bool:
    """Whether a user turn corrects the agent ("no, that's wrong", "actually, ...")."""
    return bool(_CORRECTION.match(text or ""))



class StepKind(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    TOOL_ERROR = "tool_error"
    CORRECTION = "correction"
    NOTE = "note"


class TraceStep(BaseModel):
    """One step of an agent run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: StepKind
    text: str
    tool: str | None = None
    at: datetime | None = None

    @property
    def is_error(self) -> bool:
        return self.kind is StepKind.TOOL_ERROR

    def render(self) -> str:
        text = self.text if len(self.text) <= _STEP_CHARS else self.text[: _STEP_CHARS - 1] + "…"
        kind = self.kind.value.replace("_", " ")  # "tool call", so trace labels are not read as identifiers
        who = f"{kind} ({self.tool})" if self.tool else kind
        return f"{who}: {text}"


class Episode(BaseModel):
    """A run of the agent: goal, trace and identity. The outcome is given when it ends."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    goal: str
    steps: tuple[TraceStep, ...] = ()
    session_id: str | None = None
    started_at: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def from_steps(cls, steps: Iterable[TraceStep], *, goal: str | None = None, **fields: Any) -> "Episode":
        """Build an episode; the goal defaults to the first user request in the trace."""
        steps = tuple(steps)
        marked = []
        seen_user = False
        for step in steps:  # a later user turn that contradicts the agent is a correction
            if step.kind is StepKind.USER and seen_user and is_correction(step.text):
                step = step.model_copy(update={"kind": StepKind.CORRECTION})
            seen_user = seen_user or step.kind is StepKind.USER
            marked.append(step)
        if goal is None:
            goal = next((s.text for s in marked if s.kind is StepKind.USER), "")
        return cls(goal=goal.strip() or "(no goal stated)", steps=tuple(marked), **fields)

    def key_steps(self, limit: int = 6) -> tuple[TraceStep, ...]:
        """The few steps that mattered: tool calls, errors, corrections and the final answer.

        Errors and corrections are always kept; tool calls fill the rest, most recent first.
        """
        important = {StepKind.TOOL_ERROR, StepKind.CORRECTION}
        keep: list[int] = [i for i, s in enumerate(self.steps) if s.kind in important]
        final = next((i for i in range(len(self.steps) - 1, -1, -1)
                      if self.steps[i].kind is StepKind.ASSISTANT), None)
        calls = [i for i, s in enumerate(self.steps) if s.kind is StepKind.TOOL_CALL]
        budget = max(limit - len(keep) - (final is not None), 0)
        keep += calls[-budget:] if budget else []
        if final is not None:
            keep.append(final)
        return tuple(self.steps[i] for i in sorted(set(keep))[-max(limit, len(important)) :])

    def retries(self) -> dict[str, int]:
        """How often each tool was called more than once (a sign of flailing)."""
        counts: dict[str, int] = {}
        for s in self.steps:
            if s.kind is StepKind.TOOL_CALL and s.tool:
                counts[s.tool] = counts.get(s.tool, 0) + 1
        return {tool: n - 1 for tool, n in counts.items() if n > 1}


class ReflectionDraft(BaseModel):
    """What a reflector writes about an ended episode (the structured output an LLM fills in)."""

    model_config = ConfigDict(extra="ignore")

    helped: list[str] = Field(default_factory=list, description="Actions from the trace that helped.")
    hurt: list[str] = Field(default_factory=list, description="Actions from the trace that hurt.")
    cause: str = Field(description="Why it failed, or why it worked, in one sentence.")
    lesson: str = Field(description="A reusable action for next time, shaped 'When X, do Y first.'")
    trigger: str = Field(description="The situation that should bring this lesson back.")
    confidence: float = Field(0.6, ge=0.0, le=1.0)


class Reflection(ReflectionDraft):
    """A reflection with the episode's goal and outcome attached."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    goal: str
    outcome: Outcome


class EpisodeResult(BaseModel):
    """What :meth:`MemoryBank.end_episode` stored."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    outcome: Outcome
    experience: MemoryUnit = Field(description="The episode itself, recallable at once.")
    lesson: MemoryUnit | None = Field(None, description="The reflection's lesson (None while pending).")
    reflection: Reflection | None = None
    pending: bool = Field(False, description="True when reflection was queued to run in the background.")
