"""LangGraph adapter of hindsight-memory: recall before planning, learn when an episode ends.

For agents built with ``langchain.agents.create_agent``, one middleware does it all::

    create_agent(model, tools, middleware=[HindsightMiddleware(engine)])
        recall once per run into the system prompt the model receives, watch tool calls,
        learn when the run ends with the outcome inferred from what happened
    create_agent(..., store=HindsightStore(engine))
        LangGraph's BaseStore (and LangMem's memory tools) on the same banks

For graphs you build yourself: three nodes, a state mixin, a wrapper, and memory tools::

    capture_node(engine)   records user/assistant/tool messages and tool errors of the episode
    recall_node(engine)    writes lessons and memories for the user's request to ``memory_context``
    reflect_node(engine)   learns from the episode with its ``outcome`` label, then starts a new one
    tool_check_node(engine)   after your planner: a second look before a call of a tool that failed before
    with_memory(graph, engine)      recall -> your graph -> reflect, once per run, however it ends
    reflect_thread(graph, config, outcome=...)   label a finished run afterwards
    recall_tool(engine), remember_tool(engine)   memory as tools for tool-calling agents

Every node and tool resolves its bank per call: runtime context, then ``configurable``, then
state, then ``default_bank`` (``bank_resolver`` overrides). Everything works under ``invoke``
and ``ainvoke``.

Example:
    >>> from langchain_core.messages import AIMessage
    >>> from langgraph.graph import END, START, MessagesState, StateGraph
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> from hindsight_lg import MemoryState, with_memory
    >>> class State(MessagesState, MemoryState):
    ...     pass
    >>> seen = []
    >>> def planner(state):
    ...     seen.append(state.get("memory_context", ""))
    ...     return {"messages": [AIMessage("Deploying without a ticket.")], "outcome": "failure"}
    >>> builder = StateGraph(State).add_node("planner", planner)
    >>> builder = builder.add_edge(START, "planner").add_edge("planner", END)
    >>> graph = with_memory(builder, MemoryEngine.ephemeral(embedder=HashEmbedder()))
    >>> _ = graph.invoke({"messages": [("user", "Deploy billing to prod")]}, context={"bank_id": "ops"})
    >>> _ = graph.invoke({"messages": [("user", "Deploy billing to prod")]}, context={"bank_id": "ops"})
    >>> "FAILED attempt" in seen[1]
    True
"""

try:
    import langgraph  # noqa: F401
    from langchain_core.messages import BaseMessage  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    from hindsight_core.errors import OptionalDependencyError

    raise OptionalDependencyError(
        "hindsight_lg needs langgraph and langchain-core: pip install 'hindsight-memory[langgraph]'"
    ) from exc

from hindsight_lg.nodes import capture_node, recall_node, reflect_node
from hindsight_lg.state import MEMORY_KEYS, MemoryState
from hindsight_lg.tool_check import tool_check_node
from hindsight_lg.tools import recall_tool, remember_tool
from hindsight_lg.wrap import areflect_thread, reflect_thread, with_memory


def __getattr__(name: str):  # langchain (for create_agent) is needed only by the middleware
    if name == "HindsightMiddleware":
        try:
            from hindsight_lg.middleware import HindsightMiddleware
        except ImportError as exc:
            from hindsight_core.errors import OptionalDependencyError

            raise OptionalDependencyError(
                "HindsightMiddleware needs langchain (create_agent): pip install 'hindsight-memory[langgraph]'"
            ) from exc
        return HindsightMiddleware
    if name == "HindsightStore":
        from hindsight_lg.store import HindsightStore

        return HindsightStore
    raise AttributeError(f"module 'hindsight_lg' has no attribute {name!r}")

__all__ = [
    "HindsightMiddleware",
    "HindsightStore",
    "MemoryState",
    "MEMORY_KEYS",
    "recall_node",
    "capture_node",
    "reflect_node",
    "tool_check_node",
    "with_memory",
    "reflect_thread",
    "areflect_thread",
    "recall_tool",
    "remember_tool",
]
