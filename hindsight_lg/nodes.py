"""Node factories: recall before planning, capture what happened, reflect when an episode ends.

Each factory returns a ``RunnableLambda`` with a sync and an async body, so the node works under
``graph.invoke`` and ``graph.ainvoke`` alike. The bank is resolved on every call (runtime context,
then ``configurable``, then state, then ``default_bank``; ``bank_resolver`` overrides), never frozen
in a closure. Your state must declare the keys of :class:`~hindsight_lg.MemoryState`.

Example:
    >>> from langchain_core.messages import AIMessage
    >>> from langgraph.graph import END, START, MessagesState, StateGraph
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> from hindsight_lg import MemoryState, recall_node, reflect_node
    >>> class State(MessagesState, MemoryState):
    ...     pass
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> def agent(state):  # your planner reads state["memory_context"]
    ...     return {"messages": [AIMessage("I could not deploy.")], "outcome": "failure"}
    >>> graph = (StateGraph(State)
    ...     .add_node("recall", recall_node(engine)).add_node("agent", agent)
    ...     .add_node("reflect", reflect_node(engine))
    ...     .add_edge(START, "recall").add_edge("recall", "agent").add_edge("agent", "reflect")
    ...     .add_edge("reflect", END).compile())
    >>> out = graph.invoke({"messages": [("user", "Deploy billing to prod")]}, context={"bank_id": "ops"})
    >>> out["outcome"], out["last_episode"]["outcome"]
    (None, 'failure')
    >>> "Deploy billing" in graph.invoke({"messages": [("user", "Deploy billing again")]},
    ...                                  context={"bank_id": "ops"})["memory_context"]
    True
"""

import uuid
from typing import Any, Callable, Iterable, Mapping

from langchain_core.messages import RemoveMessage, SystemMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from hindsight_core import InvalidInputError, MemoryEngine, Outcome
from hindsight_core.context import check_lesson_match
from hindsight_core.lifecycle.reflect import Reflector
from hindsight_core.outcomes import Judge, OutcomeVerdict, adecide_outcome, as_verdict, decide_outcome
from hindsight_lg._resolve import BankResolver, BankSpec, thread_id_of
from hindsight_lg._trace import (
    MEMORY_MESSAGE_PREFIX,
    build_episode,
    capture_items,
    episode_messages,
    last_user_text,
    messages_after,
    pin_start,
)
from hindsight_lg.state import AFTER

__all__ = ["recall_node", "capture_node", "reflect_node"]

_OUTCOMES = tuple(o.value for o in Outcome)


def _spec(engine: MemoryEngine, default_bank: str | None, bank_key: str, bank_resolver: BankResolver | None,
          bank_options: Mapping[str, Any] | None) -> BankSpec:
    return BankSpec(engine, default_bank, bank_key, bank_resolver, dict(bank_options or {}))


def _node(body: Any, name: str) -> RunnableLambda:
    return RunnableLambda(body.run, afunc=body.arun, name=name)


class _Recall:
    def __init__(self, spec: BankSpec, *, k: int, lessons_k: int, max_tokens: int | None,
                 kinds: Iterable[str] | None, query: Callable[[Any], str] | None, system_message: bool,
                 messages_key: str, lesson_match: Any = "bank") -> None:
        self.spec, self.k, self.lessons_k, self.max_tokens = spec, k, lessons_k, max_tokens
        self.lesson_match = lesson_match
        self.kinds = None if kinds is None else tuple(kinds)
        self.query, self.system_message, self.messages_key = query, system_message, messages_key

    def _options(self) -> dict[str, Any]:
        return dict(k=self.k, lessons_k=self.lessons_k, max_tokens=self.max_tokens, kinds=self.kinds,
                    lesson_match=self.lesson_match)

    def _query(self, state: Any) -> str:
        text = self.query(state) if self.query is not None else last_user_text(state.get(self.messages_key) or [])
        return (text or "").strip()

    def _update(self, state: Any, text: str) -> dict[str, Any]:
        messages = state.get(self.messages_key) or []
        update: dict[str, Any] = {"memory_context": text}
        start = state.get("episode_start")
        pinned = pin_start(messages, start)
        if pinned != start:  # a new episode begins with this turn
            update.update(episode_start=pinned, episode_error=None)
        if not state.get("episode_id"):
            update["episode_id"] = uuid.uuid4().hex
        if self.system_message:  # memory leads, so providers see one leading block of system text
            old = [m for m in messages if (m.id or "").startswith(MEMORY_MESSAGE_PREFIX)]
            if text or old:
                rest = [m for m in messages if not (m.id or "").startswith(MEMORY_MESSAGE_PREFIX)]
                ours = [SystemMessage(text, id=f"{MEMORY_MESSAGE_PREFIX}{uuid.uuid4().hex}")] if text else []
                update[self.messages_key] = [RemoveMessage(id=REMOVE_ALL_MESSAGES), *ours, *rest]
        return update

    def run(self, state: Any, config: RunnableConfig) -> dict[str, Any]:
        query = self._query(state)
        if not query:
            return self._update(state, "")
        context = self.spec.bank(state, config).recall_context(query, **self._options())
        return self._update(state, context.text)

    async def arun(self, state: Any, config: RunnableConfig) -> dict[str, Any]:
        query = self._query(state)
        if not query:
            return self._update(state, "")
        context = await self.spec.bank(state, config).arecall_context(query, **self._options())
        return self._update(state, context.text)


def recall_node(
    engine: MemoryEngine,
    *,
    default_bank: str | None = None,
    bank_key: str = "bank_id",
    bank_resolver: BankResolver | None = None,
    bank_options: Mapping[str, Any] | None = None,
    k: int = 5,
    lessons_k: int = 3,
    max_tokens: int | None = 1200,
    kinds: Iterable[str] | None = None,
    query: Callable[[Any], str] | None = None,
    system_message: bool = False,
    messages_key: str = "messages",
    name: str = "recall_memory",
    lesson_match: Any = "bank",
) -> RunnableLambda:
    """A node that recalls lessons and memories for the latest user turn, before your planner runs.

    It writes the rendered text to ``memory_context`` ("" when nothing is relevant) and, when an
    episode begins, marks where it starts (``episode_start``) and gives it an ``episode_id``.

    Args:
        engine: The memory engine.
        default_bank: Bank used when neither context, ``configurable`` nor state name one.
        bank_key: Name of the bank id in context, ``configurable`` and state.
        bank_resolver: ``(state, config, runtime) -> bank id | None``, asked first.
        bank_options: Options for ``engine.bank(bank_id, **bank_options)``.
        k: Memories of any kind to recall (0: lessons only).
        lessons_k: Lessons from past episodes to put first (0: none).
        max_tokens: Budget of the rendered text.
        kinds: Restrict the memories (not the lessons) to these kinds.
        query: ``state -> str``; default: the text of the last user message.
        system_message: Also put the text as the first message of ``messages``, a ``SystemMessage``
            (the previous one is removed; nothing else is), for planners and prebuilt agents that only
            read messages. Providers merge it with a leading system prompt. For
            ``langchain.agents.create_agent`` prefer :class:`~hindsight_lg.HindsightMiddleware`.
        messages_key: The state key holding the conversation.
        name: The runnable's name.
        lesson_match: How lessons are matched to the request (as for ``recall_context``): ``"bank"``,
            the bank's own matching; ``"precise"`` when a :func:`~hindsight_lg.tool_check_node` follows
            your planner (it brings the lessons the stricter bars leave out); a ``LessonMatch``; None.
    """
    check_lesson_match(lesson_match)
    for value, label in ((k, "k"), (lessons_k, "lessons_k")):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InvalidInputError(f"{label} must be an int >= 0, not {value!r}")
    body = _Recall(_spec(engine, default_bank, bank_key, bank_resolver, bank_options), k=k, lessons_k=lessons_k,
                   max_tokens=max_tokens, kinds=kinds, query=query, system_message=system_message,
                   messages_key=messages_key, lesson_match=lesson_match)
    return _node(body, name)


class _Capture:
    def __init__(self, spec: BankSpec, messages_key: str) -> None:
        self.spec, self.messages_key = spec, messages_key

    def _plan(self, state: Any, config: RunnableConfig) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        messages = state.get(self.messages_key) or []
        new = messages_after(messages, state.get("memory_captured_upto"))
        if new is None:
            new = episode_messages(messages, state.get("episode_start"))
        episode_id = state.get("episode_id") or uuid.uuid4().hex
        items = capture_items(new, session_id=thread_id_of(config), episode_id=episode_id)
        update: dict[str, Any] = {}
        if messages:
            update["memory_captured_upto"] = messages[-1].id
        if not state.get("episode_id"):
            update["episode_id"] = episode_id
        return items, update

    def run(self, state: Any, config: RunnableConfig) -> dict[str, Any]:
        items, update = self._plan(state, config)
        if items:
            self.spec.bank(state, config).capture_many(items)
        return update

    async def arun(self, state: Any, config: RunnableConfig) -> dict[str, Any]:
        items, update = self._plan(state, config)
        if items:
            await self.spec.bank(state, config).acapture_many(items)
        return update


def capture_node(
    engine: MemoryEngine,
    *,
    default_bank: str | None = None,
    bank_key: str = "bank_id",
    bank_resolver: BankResolver | None = None,
    bank_options: Mapping[str, Any] | None = None,
    messages_key: str = "messages",
    name: str = "capture_memory",
) -> RunnableLambda:
    """A node that records the messages added since it last ran into the bank.

    User turns are captured as ``source="user"``, assistant text and tool calls as the agent's
    experience, tool results as ``source="tool"``, and tool errors (``ToolMessage(status="error")``)
    as experiences; each with ``session_id`` = the thread id and ``episode_id`` = the current
    episode. The bank's write gate drops small talk. Place it after your agent or tool nodes (it
    only records what is new, so running it often is cheap).
    """
    return _node(_Capture(_spec(engine, default_bank, bank_key, bank_resolver, bank_options), messages_key), name)


class _Reflect:
    def __init__(self, spec: BankSpec, *, default_outcome: str | None, background: bool,
                 reflector: Reflector | None, messages_key: str, infer: bool, judge: Judge | None) -> None:
        self.spec, self.default_outcome, self.background = spec, default_outcome, background
        self.reflector, self.messages_key, self.infer, self.judge = reflector, messages_key, infer, judge

    def _episode(self, state: Any, config: RunnableConfig) -> Any:
        messages = state.get(self.messages_key) or []
        episode = build_episode(messages, state.get("episode_start"), episode_id=state.get("episode_id"),
                                session_id=thread_id_of(config), error=state.get("episode_error"))
        return episode if episode.steps else None

    def _kwargs(self, state: Any) -> dict[str, Any]:
        return dict(label=state.get("outcome"), judge=self.judge if self.infer else None, feedback=state.get("feedback"))

    def _settle(self, verdict: OutcomeVerdict | None) -> OutcomeVerdict | None:
        """No evidence either way: the default label if any, else None (the episode stays open)."""
        if verdict is not None and verdict.outcome is not Outcome.UNKNOWN and (self.infer or verdict.decided_by == "label"):
            return verdict
        return as_verdict(self.default_outcome, "label") if self.default_outcome else None

    def _clear(self, state: Any, episode: Any, verdict: OutcomeVerdict) -> dict[str, Any]:
        messages = state.get(self.messages_key) or []
        return {"outcome": None, "feedback": None, "episode_error": None, "episode_id": uuid.uuid4().hex,
                "episode_start": f"{AFTER}{messages[-1].id}" if messages else None,
                "last_episode": {"episode_id": episode.id, "outcome": verdict.outcome.value, "stored": False,
                                 "goal": episode.goal, "reason": verdict.reason, "decided_by": verdict.decided_by}}

    @staticmethod
    def _summary(clear: dict[str, Any], result: Any) -> dict[str, Any]:
        clear["last_episode"] = dict(clear["last_episode"], stored=True, experience_id=result.experience.id,
                                     lesson_id=result.lesson.id if result.lesson else None,
                                     lesson=result.lesson.text if result.lesson else None, pending=result.pending)
        return clear

    def run(self, state: Any, config: RunnableConfig) -> dict[str, Any]:
        episode = self._episode(state, config)
        verdict = self._settle(decide_outcome(episode, **self._kwargs(state))) if episode is not None else None
        if verdict is None:
            return {"outcome": None} if state.get("outcome") else {}
        clear = self._clear(state, episode, verdict)
        result = self.spec.bank(state, config).end_episode(
            episode, verdict.outcome, feedback=verdict.reason, reflector=self.reflector, background=self.background)
        return self._summary(clear, result)

    async def arun(self, state: Any, config: RunnableConfig) -> dict[str, Any]:
        episode = self._episode(state, config)
        verdict = self._settle(await adecide_outcome(episode, **self._kwargs(state))) if episode is not None else None
        if verdict is None:
            return {"outcome": None} if state.get("outcome") else {}
        clear = self._clear(state, episode, verdict)
        result = await self.spec.bank(state, config).aend_episode(
            episode, verdict.outcome, feedback=verdict.reason, reflector=self.reflector, background=self.background)
        return self._summary(clear, result)


def reflect_node(
    engine: MemoryEngine,
    *,
    default_outcome: str | None = None,
    background: bool = False,
    reflector: Reflector | None = None,
    default_bank: str | None = None,
    bank_key: str = "bank_id",
    bank_resolver: BankResolver | None = None,
    bank_options: Mapping[str, Any] | None = None,
    messages_key: str = "messages",
    infer: bool = True,
    judge: Judge | None = None,
    name: str = "reflect_episode",
) -> RunnableLambda:
    """A node that ends the episode with its outcome: stores it as an experience and the
    reflection's lesson, then clears ``outcome``/``feedback`` and starts a new ``episode_id``.

    The trace is built from the messages since the episode started (``episode_start``), plus the
    error that ended it, if any (``episode_error``); the core keeps the steps that mattered.

    The outcome is the ``outcome`` label in state when a node or tool set one, else ``judge``'s,
    else the evidence (:mod:`hindsight_core.outcomes`: tool errors and recoveries, user
    corrections). When nothing tells (no tool was used, no label) and there is no
    ``default_outcome``, nothing is learned and the episode stays open: the next turn continues it,
    and a later label (or :func:`~hindsight_lg.reflect_thread`) ends it. ``last_episode`` in state
    says what was stored.

    Args:
        default_outcome: Label for episodes whose evidence says nothing (never overrides evidence).
        infer: Infer the outcome from evidence when no label is set (False: labels only).
        judge: ``episode -> verdict`` asked before the evidence rules (e.g. ``LLMJudge(model)``).
        background: Reflect in the bank's background queue (the experience is stored at once).
        reflector: Overrides the engine's reflector (e.g. ``LLMReflector(chat_model)``).
    """
    if default_outcome is not None and default_outcome not in _OUTCOMES:
        raise InvalidInputError(f"default_outcome must be one of {_OUTCOMES} or None, not {default_outcome!r}")
    body = _Reflect(_spec(engine, default_bank, bank_key, bank_resolver, bank_options),
                    default_outcome=default_outcome, background=background, reflector=reflector,
                    messages_key=messages_key, infer=infer, judge=judge)
    return _node(body, name)
