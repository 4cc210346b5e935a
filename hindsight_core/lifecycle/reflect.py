"""Reflection: turn an ended episode into a lesson. The rule-based reflector needs no LLM.

Both reflectors follow :class:`Reflector`; :class:`~hindsight_core.lifecycle.llm_reflect.LLMReflector`
plugs any LangChain chat model in.

Example:
    >>> from hindsight_core.episodes import Episode, TraceStep
    >>> ep = Episode.from_steps([
    ...     TraceStep(kind="user", text="Restart the queue worker"),
    ...     TraceStep(kind="tool_call", text="restart(worker='q1')", tool="restart"),
    ...     TraceStep(kind="tool_error", text="ConnectionError: broker unreachable", tool="restart"),
    ... ])
    >>> r = RuleReflector().reflect(ep, "failure")
    >>> r.outcome.value, r.lesson.startswith("When")
    ('failure', True)
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable

from hindsight_core.episodes import Episode, Reflection, StepKind
from hindsight_core.models import Outcome

__all__ = ["Reflector", "RuleReflector", "experience_text", "lesson_text", "ungrounded_terms"]


@runtime_checkable
class Reflector(Protocol):
    """Writes a :class:`Reflection` for an episode whose outcome is known."""

    def reflect(self, episode: Episode, outcome: Outcome | str, feedback: str | None = None) -> Reflection: ...


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class RuleReflector:
    """Reflection from the trace alone: errors, retries, corrections and the final step."""

    def reflect(self, episode: Episode, outcome: Outcome | str, feedback: str | None = None) -> Reflection:
        outcome = Outcome(outcome)
        goal = _short(episode.goal, 200)
        task = goal[0].lower() + goal[1:] if goal[:2].istitle() else goal  # "When asked to deploy..."
        errors = [s for s in episode.steps if s.kind is StepKind.TOOL_ERROR]
        corrections = [s for s in episode.steps if s.kind is StepKind.CORRECTION]
        calls = [s for s in episode.steps if s.kind is StepKind.TOOL_CALL]
        retries = episode.retries()
        final = next((s for s in reversed(episode.steps) if s.kind is StepKind.ASSISTANT), None)
        helped: list[str] = []
        hurt: list[str] = [f"{s.tool or 'tool'} failed: {_short(s.text, 100)}" for s in errors]
        hurt += [f"corrected by the user: {_short(s.text, 100)}" for s in corrections]
        hurt += [f"called {tool} {n + 1} times" for tool, n in retries.items()]

        if outcome is Outcome.SUCCESS:
            helped = [_short(s.render(), 100) for s in calls] or ([_short(final.text, 100)] if final else [])
            path = " then ".join(dict.fromkeys(s.tool or "answer" for s in calls)) or "answering directly"
            cause = f"Succeeded by {path}" + (f" after recovering from {len(errors)} error(s)" if errors else "") + "."
            lesson = f"When asked to {task}, {path} worked" + (f"; avoid what failed first ({hurt[0]})" if hurt else "") + "."
            confidence = 0.65
        else:
            if errors:
                first = errors[0]
                cause = f"{first.tool or 'A tool'} failed with: {_short(first.text, 160)}"
                lesson = (f"When asked to {task}, check what {first.tool or 'the tool'} needs before calling it; "
                          f"last time it failed with: {_short(first.text, 120)}")
                confidence = 0.7
            elif corrections:
                cause = f"The user corrected the agent: {_short(corrections[0].text, 160)}"
                lesson = f"When asked to {task}, account for this first: {_short(corrections[0].text, 160)}"
                confidence = 0.7
            elif feedback:
                cause = f"Feedback: {_short(feedback, 160)}"
                lesson = f"When asked to {task}, follow the feedback first: {_short(feedback, 160)}"
                confidence = 0.65
            else:
                said = f" '{_short(final.text, 80)}'" if final else ""
                cause = f"The final answer{said} was judged {outcome.value}."
                lesson = (f"When asked to {task}, do not repeat the answer{said}; gather more evidence "
                          "and verify before answering.")
                confidence = 0.5
            if outcome is Outcome.PARTIAL:
                lesson = lesson.replace("When asked to", "To fully", 1)
            if feedback and not lesson.endswith(feedback):
                cause += f" Feedback: {_short(feedback, 160)}"
        return Reflection(goal=goal, outcome=outcome, helped=helped, hurt=hurt, cause=cause,
                          lesson=lesson, trigger=goal, confidence=confidence)


def experience_text(episode: Episode, outcome: Outcome, feedback: str | None) -> str:
    """The episode as one recallable text: goal, the steps that mattered, outcome."""
    lines = [f"Episode ({outcome.value}): {_short(episode.goal, 300)}"]
    lines += [f"- {s.render()}" for s in episode.key_steps()]
    if feedback:
        lines.append(f"Feedback: {_short(feedback, 300)}")
    return "\n".join(lines)


def lesson_text(reflection: Reflection) -> str:
    """The lesson as recalled before the next plan. Failure lessons say so, in words."""
    goal = _short(reflection.goal, 300)
    if reflection.outcome is Outcome.SUCCESS:
        return f"What worked for: {goal}\nWhy: {reflection.cause}\nReuse: {reflection.lesson}"
    head = "Lesson from a failed attempt at" if reflection.outcome is Outcome.FAILURE else "Lesson from a partly failed attempt at"
    return f"{head}: {goal}\nWhat went wrong: {reflection.cause}\nNext time: {reflection.lesson}"


_PROPER = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)*)")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_ALLOWED = frozenset({"When", "Next", "If", "Before", "After", "Check", "Use", "Do", "Don't", "Always", "Never",
                      "Verify", "Search", "Avoid", "First", "Then", "The", "This", "That", "I", "A", "An"})


def ungrounded_terms(text: str, evidence: str) -> list[str]:
    """Proper nouns and numbers in ``text`` that ``evidence`` never mentions (a model inventing facts)."""
    lowered = evidence.lower()
    out = [n for n in _NUMBER.findall(text) if n not in evidence]
    for sentence in re.split(r"(?<=[.!?:;])\s+|\n", text):
        for m in _PROPER.finditer(sentence):
            words = [w for w in m.group(1).split() if w not in _ALLOWED]
            if m.start() == 0 and words and words[0] == m.group(1).split()[0]:
                words = words[1:]  # the capital that opens a sentence names nothing
            out += [w for w in words if w.lower() not in lowered]
    return list(dict.fromkeys(out))
