"""``HindsightMiddleware``: memory for agents built with ``langchain.agents.create_agent``.

One middleware gives a prebuilt agent the whole loop:

* ``before_agent`` recalls once per invocation (lessons first, then memories) for the latest user
  turn and marks where the episode starts;
* ``wrap_model_call`` puts the recalled text into the system prompt the model receives (appended to
  your ``system_prompt``, or as the only system message): one leading system message, whatever the
  provider; the conversation in state is never touched;
* ``wrap_model_call`` also gives the model a second look before a call of a tool that failed before
  (``check_tool_calls``, on by default): when its answer calls a tool whose lessons from failed calls
  the prompt did not show, the model is asked once more with them added, and that answer stands.
  One more model call, only then; later model calls of the run keep those lessons in the prompt;
* ``wrap_tool_call`` watches tool calls; an exception is recorded and re-raised unchanged (the run
  ends with it, so the failure is learned at once);
* ``after_agent`` ends the episode with the outcome inferred from what happened
  (:mod:`hindsight_core.outcomes`): a label in ``state["outcome"]`` wins, then ``judge``, then
  the evidence (tool errors and recoveries, user corrections). A run that attempted nothing ends
  ``unknown``: stored, but never a "worked before" recipe.

The bank is resolved per call: ``bank_resolver``, then the runtime context (``context={"bank_id":
...}``), then ``configurable``, then state, then ``default_bank``.

Put it first in ``middleware=[...]``: it then sees every tool error that leaves the tool (retries by
inner middleware stay invisible to it), and its system-prompt addition lands after any prompt
rewriting done by middleware inside it. An exception that leaves a tool ends the episode as a
failure at once (the run is ending with it); if an outer middleware swallows it, the rest of that
run is not learned a second time.

Example:
    >>> from langchain.agents import create_agent
    >>> from langchain_core.messages import AIMessage
    >>> from langchain_core.tools import tool
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> from hindsight_lg import HindsightMiddleware
    >>> from hindsight_lg.testing import ScriptedChatModel
    >>> @tool
    ... def deploy(service: str) -> str:
    ...     '''Deploy a service.'''
    ...     raise PermissionError("deploys need a change ticket")
    >>> model = ScriptedChatModel(responses=[
    ...     AIMessage("", tool_calls=[{"name": "deploy", "args": {"service": "billing"}, "id": "c1"}]),
    ...     "I will ask for a ticket first."])
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> agent = create_agent(model, tools=[deploy], middleware=[HindsightMiddleware(engine)])
    >>> try:
    ...     agent.invoke({"messages": [("user", "Deploy billing")]}, context={"bank_id": "ops"})
    ... except PermissionError:
    ...     pass
    >>> _ = agent.invoke({"messages": [("user", "Deploy billing now")]}, context={"bank_id": "ops"})
    >>> model.calls[1][0].type, "change ticket" in model.calls[1][0].text
    ('system', True)
"""

import threading
import uuid
from collections import OrderedDict
from typing import Annotated, Any, Awaitable, Callable, Iterable, Mapping

from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain.agents.middleware.types import OmitFromInput, PrivateStateAttr
from langchain_core.messages import SystemMessage
from langgraph.config import get_config
from langgraph.errors import GraphBubbleUp
from typing_extensions import NotRequired

from hindsight_core import InvalidInputError, MemoryEngine
from hindsight_core.context import check_lesson_match
from hindsight_core.episodes import Episode, StepKind, TraceStep, is_correction
from hindsight_core.lifecycle.reflect import Reflector
from hindsight_core.models import Outcome
from hindsight_core.outcomes import Judge, OutcomeVerdict, adecide_outcome, decide_outcome
from hindsight_core.signatures import LessonMatch
from hindsight_lg._resolve import BankResolver, BankSpec
from hindsight_lg._trace import called_tools, episode_messages, last_user_text, pin_start, proposed_tools, to_steps

__all__ = ["HindsightMiddleware", "HindsightAgentState", "merge_system_message"]

_CLOSED_KEPT = 1_000  # episodes closed by a tool exception, remembered so after_agent never learns them twice


class HindsightAgentState(AgentState):
    """The agent state plus what the middleware keeps per thread (checkpointed with it)."""

    memory_context: NotRequired[Annotated[str, PrivateStateAttr]]
    memory_episode_start: NotRequired[Annotated[str | None, PrivateStateAttr]]
    memory_episode_id: NotRequired[Annotated[str | None, PrivateStateAttr]]
    memory_goal: NotRequired[Annotated[str | None, PrivateStateAttr]]
    outcome: NotRequired[str | None]
    """Set it from a tool (``Command(update={"outcome": "failure"})``) to label the run yourself."""
    feedback: NotRequired[str | None]
    last_episode: NotRequired[Annotated[dict[str, Any] | None, OmitFromInput]]
    """What the last reflection stored: episode id, outcome, reason, experience and lesson ids."""


def merge_system_message(system: SystemMessage | None, text: str) -> SystemMessage | None:
    """``system`` with ``text`` appended (a new message; None and "" are handled)."""
    if not text:
        return system
    if system is None:
        return SystemMessage(text)
    content = system.content
    if isinstance(content, str):
        merged: Any = f"{content}\n\n{text}" if content else text
    else:
        merged = [*content, {"type": "text", "text": f"\n\n{text}"}]
    return system.model_copy(update={"content": merged})


class HindsightMiddleware(AgentMiddleware):
    """Recall before the agent plans, learn when it ends (see the module docstring).

    Args:
        engine: The memory engine.
        default_bank, bank_key, bank_resolver, bank_options: How each run finds its bank.
        k: Memories recalled besides lessons (0: lessons only).
        lessons_k: Lessons put first (0: none).
        max_tokens: Budget of the recalled text in the system prompt.
        judge: Decides outcomes before the evidence rules (``episode -> verdict``; see
            :class:`hindsight_core.outcomes.LLMJudge`). Returning None falls back to the rules.
        reflector: Overrides the engine's reflector (e.g. ``LLMReflector(chat_model)``).
        background: Reflect in the bank's background queue (the experience is stored at once).
        learn: False to recall only (no episodes are stored).
        goal_tools: Tools whose success means the task was done (default: those that failed).
        check_tool_calls: Show the model lessons of failed calls of a tool it is about to call
            (see the module docstring). False: the recalled context only.
        lesson_match: How the plan's context matches lessons to the request. ``"auto"`` (the
            default): ``"precise"`` with ``check_tool_calls``, else ``"bank"``. ``"precise"``
            (``LessonMatch.precise()``) shows a lesson only for a near repeat of its task, so
            unrelated requests rarely get one, and nearly every call of a tool that failed before
            takes a second look (one more model call). ``"bank"`` (the bank's own matching) shows
            more lessons up front: fewer second looks, more lessons on unrelated requests. Or a
            ``LessonMatch`` of your own, or None (the request's words only).
    """

    state_schema = HindsightAgentState

    def __init__(
        self,
        engine: MemoryEngine,
        *,
        default_bank: str | None = None,
        bank_key: str = "bank_id",
        bank_resolver: BankResolver | None = None,
        bank_options: Mapping[str, Any] | None = None,
        k: int = 5,
        lessons_k: int = 3,
        max_tokens: int | None = 1200,
        judge: Judge | None = None,
        reflector: Reflector | None = None,
        background: bool = False,
        learn: bool = True,
        goal_tools: Iterable[str] | None = None,
        check_tool_calls: bool = True,
        lesson_match: LessonMatch | str | None = "auto",
    ) -> None:
        super().__init__()
        self.spec = BankSpec(engine, default_bank, bank_key, bank_resolver, dict(bank_options or {}))
        for value, label in ((k, "k"), (lessons_k, "lessons_k")):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidInputError(f"{label} must be an int >= 0, not {value!r}")
        if judge is not None and not callable(judge):
            raise InvalidInputError("judge must be a function episode -> verdict (or an LLMJudge)")
        self.k, self.lessons_k, self.max_tokens = k, lessons_k, max_tokens
        self.judge, self.reflector, self.background, self.learn = judge, reflector, background, learn
        self.goal_tools = None if goal_tools is None else tuple(goal_tools)
        if not isinstance(check_tool_calls, bool):
            raise InvalidInputError(f"check_tool_calls must be True or False, not {check_tool_calls!r}")
        self.check_tool_calls = check_tool_calls
        check_lesson_match(lesson_match, "auto")
        self.lesson_match = ("precise" if check_tool_calls else "bank") if lesson_match == "auto" else lesson_match
        self.tools = []
        self._closed: OrderedDict[str, str] = OrderedDict()  # episode id -> why it was closed early
        self._lock = threading.Lock()

    # ---- plumbing -------------------------------------------------------------------------------
    def _bank(self, state: Any, runtime: Any) -> Any:
        try:
            config = get_config()
        except RuntimeError:
            config = {}
        return self.spec.bank(state, config, runtime)

    def _thread(self) -> str | None:
        try:
            value = (get_config().get("configurable") or {}).get("thread_id")
        except RuntimeError:
            return None
        return None if value is None else str(value)

    def _begin(self, state: Mapping[str, Any]) -> tuple[str, dict[str, Any], Any]:
        """(query, state update, the last episode to invalidate when this turn corrects it)."""
        messages = state.get("messages") or []
        query = last_user_text(messages)
        start = pin_start(messages, None)
        correcting = None
        last = state.get("last_episode") or {}
        corrects = bool(query and is_correction(query) and state.get("memory_episode_start"))
        if corrects:  # the corrected turn and the correction are one episode, with the corrected goal
            start = state["memory_episode_start"]
            correcting = last if last.get("outcome") in (Outcome.SUCCESS.value, Outcome.UNKNOWN.value) else None
        goal = None if corrects else query
        update = {"memory_episode_start": start, "memory_episode_id": uuid.uuid4().hex, "memory_goal": goal or None,
                  "outcome": None, "feedback": None}
        return query, update, correcting

    def _recall_kwargs(self) -> dict[str, Any]:
        return dict(k=self.k, lessons_k=self.lessons_k, max_tokens=self.max_tokens, lesson_match=self.lesson_match)

    def _episode(self, state: Mapping[str, Any], extra: list[TraceStep] = ()) -> Episode | None:
        messages = state.get("messages") or []
        steps = to_steps(episode_messages(messages, state.get("memory_episode_start"))) + list(extra)
        if not steps:
            return None
        fields: dict[str, Any] = {"session_id": self._thread()}
        if state.get("memory_episode_id"):
            fields["id"] = state["memory_episode_id"]
        # the goal is the request this run started from, even when summarisation removed it
        return Episode.from_steps(steps, goal=state.get("memory_goal"), **fields)

    def _was_closed(self, episode_id: str | None) -> bool:
        with self._lock:
            return episode_id is not None and self._closed.pop(episode_id, None) is not None

    def _close(self, episode_id: str | None, why: str) -> bool:
        """Mark an episode closed by an exception; False when it already was (parallel tool calls)."""
        key = episode_id or uuid.uuid4().hex
        with self._lock:
            if key in self._closed:
                return False
            self._closed[key] = why
            while len(self._closed) > _CLOSED_KEPT:
                self._closed.popitem(last=False)
            return True

    @staticmethod
    def _summary(verdict: OutcomeVerdict, result: Any) -> dict[str, Any]:
        return {"episode_id": result.episode_id, "goal": (result.experience.episode or {}).get("goal"),
                "outcome": verdict.outcome.value, "reason": verdict.reason,
                "decided_by": verdict.decided_by, "experience_id": result.experience.id,
                "lesson_id": result.lesson.id if result.lesson else None,
                "lesson": result.lesson.text if result.lesson else None, "pending": result.pending}

    def _end_kwargs(self, verdict: OutcomeVerdict) -> dict[str, Any]:
        return dict(feedback=verdict.reason, reflector=self.reflector, background=self.background)

    @staticmethod
    def _error_step(request: Any, exc: BaseException) -> list[TraceStep]:
        call = request.tool_call or {}
        name = call.get("name")
        return [TraceStep(kind=StepKind.TOOL_ERROR, text=f"{type(exc).__name__}: {exc}", tool=name)]

    # ---- recall ---------------------------------------------------------------------------------
    def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        query, update, correcting = self._begin(state)
        bank = self._bank(state, runtime)
        if correcting and correcting.get("lesson_id"):
            bank.invalidate(correcting["lesson_id"], reason=f"the user corrected it: {query}")
        update["memory_context"] = bank.recall_context(query, **self._recall_kwargs()).text if query else ""
        return update

    async def abefore_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        query, update, correcting = self._begin(state)
        bank = self._bank(state, runtime)
        if correcting and correcting.get("lesson_id"):
            await bank.ainvalidate(correcting["lesson_id"], reason=f"the user corrected it: {query}")
        update["memory_context"] = (await bank.arecall_context(query, **self._recall_kwargs())).text if query else ""
        return update

    def _with_memory(self, request: Any) -> Any:
        text = (request.state or {}).get("memory_context") or ""
        return request.override(system_message=merge_system_message(request.system_message, text)) if text else request

    def _tool_check(self, request: Any) -> tuple[Any, list[str], str] | None:
        """(the bank, the tools this run has called, its request) when tool calls are checked, else None."""
        if not self.check_tool_calls:
            return None
        state = request.state if isinstance(request.state, Mapping) else {}
        messages = episode_messages(request.messages or [], state.get("memory_episode_start"))
        goal = state.get("memory_goal") or last_user_text(request.messages or [])
        return self._bank(state, getattr(request, "runtime", None)), called_tools(messages), goal

    @staticmethod
    def _with_notes(request: Any, notes: Any) -> Any:
        return request.override(system_message=merge_system_message(request.system_message, notes.text))

    @staticmethod
    def _shown(request: Any) -> str:
        return request.system_message.text if request.system_message is not None else ""

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        request = self._with_memory(request)
        check = self._tool_check(request)
        if check is None:
            return handler(request)
        bank, called, goal = check
        if called:  # lessons of tools this run already called stay in view: no second look for them again
            request = self._with_notes(request, bank.tool_lessons(called, shown=self._shown(request), query=goal))
        response = handler(request)
        notes = bank.tool_lessons(proposed_tools(response), shown=self._shown(request), query=goal)
        return handler(self._with_notes(request, notes)) if notes else response

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        request = self._with_memory(request)
        check = self._tool_check(request)
        if check is None:
            return await handler(request)
        bank, called, goal = check
        if called:
            request = self._with_notes(request, await bank.atool_lessons(called, shown=self._shown(request),
                                                                          query=goal))
        response = await handler(request)
        notes = await bank.atool_lessons(proposed_tools(response), shown=self._shown(request), query=goal)
        return await handler(self._with_notes(request, notes)) if notes else response

    # ---- observe --------------------------------------------------------------------------------
    def _failed_run(self, request: Any, exc: BaseException) -> tuple[Episode | None, OutcomeVerdict | None, Any]:
        state = request.state if isinstance(request.state, Mapping) else {}
        if not self.learn or not self._close(state.get("memory_episode_id"), str(exc)):
            return None, None, None
        episode = self._episode(state, self._error_step(request, exc))
        if episode is None:
            return None, None, None
        verdict = OutcomeVerdict(outcome=Outcome.FAILURE, reason=f"The run stopped: {type(exc).__name__}: {exc}"[:300])
        return episode, verdict, self._bank(state, getattr(request, "runtime", None))

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        try:
            return handler(request)
        except GraphBubbleUp:
            raise  # interrupts and other control flow are not errors
        except Exception as exc:
            episode, verdict, bank = self._failed_run(request, exc)
            if episode is not None:
                bank.end_episode(episode, verdict.outcome, **self._end_kwargs(verdict))
            raise

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        try:
            return await handler(request)
        except GraphBubbleUp:
            raise
        except Exception as exc:
            episode, verdict, bank = self._failed_run(request, exc)
            if episode is not None:
                await bank.aend_episode(episode, verdict.outcome, **self._end_kwargs(verdict))
            raise

    # ---- learn ----------------------------------------------------------------------------------
    def _finish(self, state: Mapping[str, Any]) -> tuple[Episode | None, dict[str, Any]]:
        clear: dict[str, Any] = {"outcome": None, "feedback": None}
        if not self.learn or self._was_closed(state.get("memory_episode_id")):
            return None, clear
        return self._episode(state), clear

    def _decide_kwargs(self, state: Mapping[str, Any]) -> dict[str, Any]:
        return dict(label=state.get("outcome"), judge=self.judge, feedback=state.get("feedback"),
                    goal_tools=self.goal_tools)

    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        episode, clear = self._finish(state)
        if episode is None:
            return clear
        verdict = decide_outcome(episode, **self._decide_kwargs(state))
        if verdict is None:
            return clear
        result = self._bank(state, runtime).end_episode(episode, verdict.outcome, **self._end_kwargs(verdict))
        return {**clear, "last_episode": self._summary(verdict, result)}

    async def aafter_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        episode, clear = self._finish(state)
        if episode is None:
            return clear
        verdict = await adecide_outcome(episode, **self._decide_kwargs(state))
        if verdict is None:
            return clear
        result = await self._bank(state, runtime).aend_episode(episode, verdict.outcome, **self._end_kwargs(verdict))
        return {**clear, "last_episode": self._summary(verdict, result)}

