"""The open episode of a :class:`~hindsight_llamaindex.HindsightMemory`: steps as they are put.

Tool errors are often known only after the fact (a FunctionAgent's tool message does not say
that it holds an exception's text; the run's ``ToolCallResult`` events do), so steps stay mutable
until the episode is built.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any, Iterable

from hindsight_core.episodes import Episode, StepKind, TraceStep
from hindsight_core.outcomes import step_kind

from hindsight_llamaindex._messages import Step

__all__ = ["EpisodeRecorder"]

_MAX_STEPS = 400  # a runaway loop keeps its first and latest steps, not thousands


def _attr(obj: Any, name: str, default: Any = None) -> Any:
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


class EpisodeRecorder:
    """Collects trace steps; thread-safe (sync wrappers may run in worker threads)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.episode_id = uuid.uuid4().hex
        self.steps: list[Step] = []
        self.tool_names: dict[str, str] = {}
        self.fingerprints: set[str] = set()  # of the messages of this episode (to skip equal copies)

    def add(self, steps: Iterable[Step]) -> None:
        with self.lock:
            self.steps.extend(steps)
            if len(self.steps) > _MAX_STEPS:
                del self.steps[_MAX_STEPS // 4: len(self.steps) - (_MAX_STEPS * 3) // 4]

    def record_tool_results(self, results: Iterable[Any]) -> None:
        """Mark failed tool calls, and add calls the messages never showed (a run that crashed).

        ``results`` are LlamaIndex ``ToolCallResult`` events (or anything with ``tool_name``,
        ``tool_id``, ``tool_kwargs`` and ``tool_output.is_error`` / ``.content``).
        """
        with self.lock:
            for result in results:
                output = _attr(result, "tool_output")
                if output is None:
                    continue  # a ToolSelection (no result), e.g. from AgentOutput.tool_calls
                name = _attr(result, "tool_name")
                call_id = _attr(result, "tool_id")
                text = str(_attr(output, "content", "") or "").strip() or "(empty result)"
                is_error = bool(_attr(output, "is_error", False))
                step = self._find_result(call_id, name, text)
                if step is None:
                    kwargs = _attr(result, "tool_kwargs", {})
                    self.steps.append(Step("tool_call", f"{name}({kwargs})", tool=name, call_id=call_id))
                    step = Step("tool_result", text, tool=name, call_id=call_id)
                    self.steps.append(step)
                step.tool = step.tool or name
                step.call_id = step.call_id or call_id
                if is_error:
                    step.kind = "tool_error"

    def _find_result(self, call_id: str | None, name: str | None, text: str) -> Step | None:
        if call_id:
            for step in self.steps:
                if step.kind in ("tool_result", "tool_error") and step.call_id == call_id:
                    return step
        for step in self.steps:  # ReAct observations carry no call id: match tool and text
            if step.kind in ("tool_result", "tool_error") and step.call_id is None and step.tool == name \
                    and step.text.strip() == text:
                return step
        return None

    def build(self, *, session_id: str | None, goal: str | None = None) -> tuple[Episode, int] | None:
        """The episode so far and how many steps it used (``None`` when nothing was recorded)."""
        with self.lock:
            if not self.steps:
                return None
            trace = []
            for step in self.steps:
                kind = step.kind
                if kind in ("tool_result", "tool_error"):  # the core decides what a failed step is
                    kind = step_kind(kind == "tool_error", step.text)
                trace.append(TraceStep(kind=StepKind(kind), text=step.text, tool=step.tool))
            episode = Episode.from_steps(trace, goal=goal, session_id=session_id, id=self.episode_id)
            return episode, len(self.steps)

    def close(self, used: int) -> None:
        """Start the next episode; steps put while the last one was being stored are kept."""
        with self.lock:
            del self.steps[:used]
            self.episode_id = uuid.uuid4().hex
            self.fingerprints.clear()
