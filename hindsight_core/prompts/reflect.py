"""The reflection prompt: an ended episode in, a :class:`ReflectionDraft` (JSON) out.

Override it by passing ``prompt=my_build_messages`` to ``LLMReflector``; the function takes the
same arguments and returns ``[(role, content), ...]`` with roles ``"system"`` / ``"human"``.
"""

from __future__ import annotations

from hindsight_core.episodes import Episode, ReflectionDraft
from hindsight_core.models import Outcome

__all__ = ["SYSTEM", "EXAMPLE", "SHAPE", "build_messages", "RESPONSE_MODEL"]

RESPONSE_MODEL = ReflectionDraft

SYSTEM = """You review one finished run of an AI agent and write what it should learn.
Rules:
- Only restate what the trace shows. Never name a person, product, place or number that is not in the trace.
- The lesson is a reusable action for next time, shaped "When <situation>, <do this> first."
- For a failure, say what caused it; for a success, say why it worked.
- Answer with one JSON object and nothing else, with the keys:
  helped (list of strings), hurt (list of strings), cause (string), lesson (string),
  trigger (string: the situation that should bring the lesson back), confidence (0..1)."""

EXAMPLE = {
    "helped": ["search(Kent Baer) found the team"],
    "hurt": ["answered without confirming the stadium"],
    "cause": "The agent assumed the stadium instead of searching for it.",
    "lesson": "When a question chains two facts, search for the second fact before answering.",
    "trigger": "multi-step questions about where a team plays",
    "confidence": 0.7,
}
#: The JSON shape shown to the model: what each key holds, not a finished answer. Shown
#: :data:`EXAMPLE`, a real small model (Qwen2.5 1.5B) returned its lesson word for word for a
#: restaurant booking and for a failed deploy alike.
SHAPE = ('{"helped": ["<a step of this trace that helped>"], "hurt": ["<a step of this trace that hurt>"], '
         '"cause": "<what in this trace caused the outcome>", '
         '"lesson": "When <the situation of this goal>, <what to do> first.", '
         '"trigger": "<the kind of request that should bring the lesson back>", "confidence": 0.7}')


def build_messages(episode: Episode, outcome: Outcome, feedback: str | None = None) -> list[tuple[str, str]]:
    """The messages for one reflection (pure: same input, same output)."""
    trace = "\n".join(f"{n}. {s.render()}" for n, s in enumerate(episode.key_steps(limit=12), 1)) or "(no steps)"
    human = (
        f"Goal: {episode.goal}\nOutcome: {outcome.value}\n"
        + (f"Feedback: {feedback}\n" if feedback else "")
        + f"Trace (the steps that mattered):\n{trace}\n\n"
        + f"Answer in this JSON shape, with every <...> replaced by what this trace shows:\n{SHAPE}"
    )
    return [("system", SYSTEM), ("human", human)]
