"""``run_with_memory``: run an agent, infer how it went, and learn from it.

LlamaIndex agents have no end-of-run hook that knows the outcome, so this helper awaits the run,
watches its ``ToolCallResult`` events, decides the outcome and ends the memory's episode (which
stores it as an experience and reflects on it).

How the outcome is decided, first match wins:

1. ``judge(run)`` when given: ``True``/``False``, an outcome label, ``(label, feedback)``, or
   ``None`` to fall through to the rules below;
2. the run raised (e.g. "Max iterations ... reached"): ``failure``;
3. the evidence of the trace, by the core's rules (:mod:`hindsight_core.outcomes`): a tool error
   never recovered is a ``failure``, the failing tool working afterwards a ``success``, another
   tool working afterwards ``partial``, tools that all worked ``success``, a user correction a
   ``failure``; an answer without any tool call is ``unknown``: stored, never a recipe;
4. the agent was stopped at ``max_iterations`` and forced to answer: at best ``partial``.

Example:
    >>> import asyncio
    >>> from llama_index.core.agent.workflow import FunctionAgent
    >>> from llama_index.core.llms import ChatMessage
    >>> from llama_index.core.llms.mock import MockFunctionCallingLLM
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> from hindsight_llamaindex import HindsightMemory, run_with_memory
    >>> llm = MockFunctionCallingLLM(response_generator=lambda messages, **kw: ChatMessage(
    ...     role="assistant", content="Paris."))
    >>> agent = FunctionAgent(tools=[], llm=llm)
    >>> memory = HindsightMemory.from_engine(MemoryEngine.ephemeral(embedder=HashEmbedder()), bank_id="u1")
    >>> run = asyncio.run(run_with_memory(agent, "What is the capital of France?", memory))
    >>> run.outcome, run.response, run.episode.experience.kind.value, run.episode.lesson
    ('unknown', 'Paris.', 'experience', None)
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Union

from llama_index.core.agent.workflow import ReActAgent
from llama_index.core.agent.workflow.workflow_events import AgentOutput, ToolCallResult

from hindsight_core import InvalidInputError
from hindsight_core.episodes import StepKind, TraceStep
from hindsight_core.models import Outcome
from hindsight_core.outcomes import OutcomeVerdict, as_verdict
from hindsight_core.outcomes import infer_outcome as core_infer

from hindsight_llamaindex._agents import react_without_prompt
from hindsight_llamaindex._messages import message_text
from hindsight_llamaindex.memory import HindsightMemory

if TYPE_CHECKING:
    from hindsight_core.episodes import Episode, EpisodeResult

__all__ = ["AgentRun", "Verdict", "infer_outcome", "run_with_memory"]

Verdict = Union[bool, str, Outcome, tuple, None]
"""What a judge returns: True/False, an outcome label, (label, feedback), or None (use the rules)."""


@dataclass
class AgentRun:
    """One agent run through :func:`run_with_memory`: what happened and what was learned."""

    output: AgentOutput | None = None
    error: BaseException | None = None
    tool_results: list[ToolCallResult] = field(default_factory=list)
    stopped_early: bool = False
    outcome: str | None = None
    feedback: str | None = None
    episode: "EpisodeResult | None" = None
    trace: "Episode | None" = None
    """The episode as stored: goal and the reduced steps (user, tool calls, errors, answers)."""

    @property
    def response(self) -> str:
        """The agent's final answer text (``""`` when the run raised)."""
        return message_text(self.output.response) if self.output is not None else ""

    @property
    def tool_errors(self) -> list[ToolCallResult]:
        return [r for r in self.tool_results if r.tool_output.is_error]


def infer_outcome(run: AgentRun) -> tuple[str, str | None]:
    """The outcome and feedback rules 2-4 of the module docstring give for ``run``."""
    if run.error is not None:
        text = " ".join(str(run.error).split())[:300]
        limit = re.search(r"max iterations of (\d+)", text, re.I)
        if limit or "max iterations" in text.lower():
            of = f" ({limit.group(1)})" if limit else ""
            return "failure", f"The agent hit its iteration limit{of} without reaching an answer."
        return "failure", f"The run raised {type(run.error).__name__}: {text}"
    steps = run.trace.steps if run.trace is not None else [
        TraceStep(kind=StepKind.TOOL_ERROR if r.tool_output.is_error else StepKind.TOOL_RESULT,
                  text=str(r.tool_output.content or "(empty result)"), tool=r.tool_name) for r in run.tool_results]
    verdict = core_infer(steps) or OutcomeVerdict(outcome=Outcome.UNKNOWN, reason="Nothing was recorded.")
    if run.stopped_early and verdict.outcome in (Outcome.SUCCESS, Outcome.UNKNOWN):
        return "partial", "The agent hit its iteration limit and was made to answer with what it had."
    return verdict.outcome.value, verdict.reason


def _verdict(value: Verdict) -> tuple[str, str | None] | None:
    verdict = as_verdict(value)
    return None if verdict is None else (verdict.outcome.value, verdict.reason)


async def run_with_memory(
    agent: Any,
    user_msg: Any,
    memory: HindsightMemory,
    *,
    judge: Callable[[AgentRun], Verdict | Awaitable[Verdict]] | None = None,
    background: bool = False,
    raise_on_error: bool = True,
    on_event: Callable[[Any], Any] | None = None,
    **run_kwargs: Any,
) -> AgentRun:
    """Run ``agent`` on ``user_msg`` with ``memory``, then end the episode with the inferred outcome.

    Args:
        agent: A ``FunctionAgent``, ``ReActAgent`` or ``AgentWorkflow``.
        user_msg: The user's message (str or ``ChatMessage``).
        memory: The :class:`HindsightMemory` of this conversation.
        judge: Decides the outcome from the :class:`AgentRun` (sync or async); see the module docstring.
        background: Reflect in the background (the lesson is stored a little later).
        raise_on_error: Re-raise the run's exception after the episode is stored (default).
        on_event: Called with every streamed event (this helper consumes the event stream).
        **run_kwargs: Passed to ``agent.run`` (``max_iterations``, ``early_stopping_method``, ``ctx``...).

    Returns:
        The :class:`AgentRun`, with ``outcome``, ``feedback`` and the stored ``episode``.
    """
    if not isinstance(memory, HindsightMemory):
        raise InvalidInputError(f"memory must be a HindsightMemory, not {type(memory).__name__}")
    ctx = run_kwargs.get("ctx")
    if ctx is not None:
        held = await ctx.store.get("memory", default=None)
        if held is not None and held is not memory:
            raise InvalidInputError(
                "this Context already holds another memory, and LlamaIndex ignores memory= for it; "
                "pass a fresh Context (or none) to run with this HindsightMemory"
            )
    insert_method = memory.insert_method
    if insert_method == "system" and react_without_prompt(agent):
        memory.insert_method = "user"  # ReActAgent drops a leading system message when it has no prompt
    run = AgentRun()
    try:
        handler = agent.run(user_msg=user_msg, memory=memory, **run_kwargs)
        try:
            async for event in handler.stream_events():
                if isinstance(event, ToolCallResult):
                    run.tool_results.append(event)
                if on_event is not None and inspect.isawaitable(result := on_event(event)):
                    await result
            run.output = await handler
        except Exception as exc:  # noqa: BLE001 - it becomes the episode's outcome, then is re-raised
            run.error = exc
        if run.error is None and handler.ctx is not None:
            done = await handler.ctx.store.get("num_iterations", default=0)
            limit = await handler.ctx.store.get("max_iterations", default=None)
            run.stopped_early = bool(limit) and done >= limit
    finally:
        memory.insert_method = insert_method
    memory.record_tool_results(run.tool_results)
    run.trace = memory.current_episode()
    decided = None
    if judge is not None:
        verdict = judge(run)
        decided = _verdict(await verdict if inspect.isawaitable(verdict) else verdict)
    run.outcome, run.feedback = decided or infer_outcome(run)
    if run.trace is not None:  # a run that failed before anything was put has none
        run.episode = await memory.aend_episode(run.outcome, run.feedback, background=background)
    if run.error is not None and raise_on_error:
        raise run.error
    return run
