"""The outcome-judge prompt: an ended episode in, a :class:`JudgeDraft` (JSON) out.

Override it with ``LLMJudge(model, prompt=my_build_messages)``; the function takes the episode and
returns ``[(role, content), ...]`` with roles ``"system"`` / ``"human"``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from hindsight_core.episodes import Episode

__all__ = ["SYSTEM", "EXAMPLE", "SHAPE", "JudgeDraft", "build_messages"]

SYSTEM = """You judge whether one finished run of an AI agent achieved the user's goal.
Rules:
- Judge only from the trace: tool results, tool errors, the user's reactions, the final answer.
- "success": the goal was achieved; "failure": it was not; "partial": part of it was;
  "unknown": the trace cannot tell (e.g. the agent only talked and nobody confirmed).
- Answer with one JSON object and nothing else, with the keys outcome and reason (one sentence)."""

EXAMPLE = {"outcome": "failure", "reason": "The deploy tool failed with a permission error and was not retried."}
#: The JSON shape shown to the model. Shown :data:`EXAMPLE`, a real small model (Qwen2.5 1.5B) returned
#: its reason word for word for another run's failure.
SHAPE = '{"outcome": "success" or "failure" or "partial" or "unknown", "reason": "<the evidence in this trace, in one sentence>"}'


class JudgeDraft(BaseModel):
    """What the judge answers."""

    model_config = ConfigDict(extra="ignore")

    outcome: Literal["success", "failure", "partial", "unknown"]
    reason: str = Field("", description="The evidence in one sentence.")


def build_messages(episode: Episode) -> list[tuple[str, str]]:
    """The messages for one judgement (pure)."""
    trace = "\n".join(f"{n}. {s.render()}" for n, s in enumerate(episode.steps[-20:], 1)) or "(no steps)"
    human = f"Goal: {episode.goal}\nTrace:\n{trace}\n\nAnswer in this JSON shape:\n{SHAPE}"
    return [("system", SYSTEM), ("human", human)]
