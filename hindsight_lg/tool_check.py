"""``tool_check_node``: a second look before your graph's tools run, for planners in your own StateGraph.

The node goes after your planner, in place of ``tools_condition``. When the planner's last message
calls a tool that failed in an earlier run, and the lessons of those failures are not yet in
``memory_context``, it adds them there, removes the proposed call and sends the graph back to the
planner, which reads ``memory_context`` as it does after :func:`~hindsight_lg.recall_node`. Otherwise
it goes on to the tools, or to ``done`` when nothing is called. With it, give
``recall_node(engine, lesson_match="precise")`` the stricter bars: this node brings the lessons they
leave out, as in ``HindsightMiddleware``. Lessons are found by the tool's name
(:func:`hindsight_core.tool_lessons.tool_lessons`), so they arrive even when the request's words
missed them. ``HindsightMiddleware`` does the same for ``create_agent`` agents.

Example:
    >>> import uuid
    >>> from langchain_core.messages import AIMessage, ToolMessage
    >>> from langgraph.graph import END, START, MessagesState, StateGraph
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.episodes import Episode, TraceStep
    >>> from hindsight_core.testing import HashEmbedder
    >>> from hindsight_lg import MemoryState, recall_node, tool_check_node
    >>> class State(MessagesState, MemoryState):
    ...     pass
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> _ = engine.bank("ops").end_episode(Episode.from_steps([
    ...     TraceStep(kind="user", text="Deploy billing to production"),
    ...     TraceStep(kind="tool_error", text="deploys need a change ticket", tool="deploy")]), "failure")
    >>> def planner(state):  # follows a lesson when memory_context holds one
    ...     if isinstance(state["messages"][-1], ToolMessage):
    ...         return {"messages": [AIMessage("Done.")]}
    ...     ticket = "CHG-7" if "change ticket" in state.get("memory_context", "") else ""
    ...     call = {"name": "deploy", "args": {"ticket": ticket}, "id": uuid.uuid4().hex}
    ...     return {"messages": [AIMessage("", tool_calls=[call])]}
    >>> def tools(state):
    ...     call = state["messages"][-1].tool_calls[0]
    ...     return {"messages": [ToolMessage(f"deployed with {call['args']['ticket']!r}", tool_call_id=call["id"])]}
    >>> graph = (StateGraph(State)
    ...     .add_node("recall", recall_node(engine, lesson_match="precise")).add_node("agent", planner)
    ...     .add_node("check", tool_check_node(engine), destinations=("agent", "tools", END))
    ...     .add_node("tools", tools)
    ...     .add_edge(START, "recall").add_edge("recall", "agent").add_edge("agent", "check")
    ...     .add_edge("tools", "agent").compile())
    >>> out = graph.invoke({"messages": [("user", "Ship it")]}, context={"bank_id": "ops"})
    >>> [m.tool_calls[0]["args"] for m in out["messages"] if getattr(m, "tool_calls", None)]  # the first is gone
    [{'ticket': 'CHG-7'}]
    >>> out["messages"][-1].content, "change ticket" in out["memory_context"]
    ('Done.', True)
"""

from typing import Any, Mapping

from langchain_core.messages import AIMessage, RemoveMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph.graph import END
from langgraph.types import Command

from hindsight_core import InvalidInputError, MemoryEngine
from hindsight_lg._resolve import BankResolver, BankSpec
from hindsight_lg._trace import called_tools, last_user_text

__all__ = ["tool_check_node"]


class _ToolCheck:
    def __init__(self, spec: BankSpec, *, agent: str, tools: str, done: str, k: int, messages_key: str) -> None:
        self.spec, self.agent, self.tools, self.done, self.k = spec, agent, tools, done, k
        self.messages_key = messages_key

    def _proposal(self, state: Any) -> tuple[AIMessage | None, list[str]]:
        messages = state.get(self.messages_key) or []
        last = messages[-1] if messages else None
        if not isinstance(last, AIMessage) or not last.tool_calls:
            return None, []
        return last, called_tools([last])

    def _goal(self, state: Any) -> str:
        return last_user_text(state.get(self.messages_key) or [])

    def _route(self, state: Any, proposal: AIMessage, notes: Any) -> Command:
        if not notes:
            return Command(goto=self.tools)
        context = state.get("memory_context") or ""
        update = {"memory_context": f"{context}\n\n{notes.text}" if context else notes.text,
                  self.messages_key: [RemoveMessage(id=proposal.id)]}
        return Command(goto=self.agent, update=update)

    def run(self, state: Any, config: RunnableConfig) -> Command:
        proposal, tools = self._proposal(state)
        if proposal is None:
            return Command(goto=self.done)
        bank = self.spec.bank(state, config)
        notes = bank.tool_lessons(tools, k=self.k, shown=state.get("memory_context") or "", query=self._goal(state))
        return self._route(state, proposal, notes)

    async def arun(self, state: Any, config: RunnableConfig) -> Command:
        proposal, tools = self._proposal(state)
        if proposal is None:
            return Command(goto=self.done)
        bank = self.spec.bank(state, config)
        notes = await bank.atool_lessons(tools, k=self.k, shown=state.get("memory_context") or "",
                                         query=self._goal(state))
        return self._route(state, proposal, notes)


def tool_check_node(
    engine: MemoryEngine,
    *,
    agent: str = "agent",
    tools: str = "tools",
    done: str = END,
    k: int = 3,
    default_bank: str | None = None,
    bank_key: str = "bank_id",
    bank_resolver: BankResolver | None = None,
    bank_options: Mapping[str, Any] | None = None,
    messages_key: str = "messages",
    name: str = "check_tool_calls",
) -> RunnableLambda:
    """A node that gives your planner a second look before a call of a tool that failed before.

    It routes with ``Command``: declare ``destinations=(agent, tools, done)`` when you add it.

    Args:
        engine: The memory engine.
        agent: The planner node to send the graph back to (it must read ``memory_context``).
        tools: The node that runs the tool calls.
        done: Where to go when the planner called no tool (default ``END``).
        k: Lessons at most per second look.
        default_bank, bank_key, bank_resolver, bank_options: How the bank is found (as for
            :func:`~hindsight_lg.recall_node`).
        messages_key: The state key holding the conversation.
        name: The runnable's name.
    """
    for value, label in ((agent, "agent"), (tools, "tools"), (done, "done")):
        if not isinstance(value, str) or not value:
            raise InvalidInputError(f"{label} must be a node name, not {value!r}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInputError(f"k must be an int >= 1, not {k!r}")
    spec = BankSpec(engine, default_bank, bank_key, bank_resolver, dict(bank_options or {}))
    body = _ToolCheck(spec, agent=agent, tools=tools, done=done, k=k, messages_key=messages_key)
    return RunnableLambda(body.run, afunc=body.arun, name=name)
