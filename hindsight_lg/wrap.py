"""Wrap a graph you already have so it recalls before each run and learns when the run ends.

:func:`with_memory` builds an outer graph ``recall -> episode -> [capture ->] reflect -> END``
where ``episode`` is your graph, run as a subgraph. Reflection therefore runs once after every way
your graph can end: END edges, ``Command(goto=END)``, conditional routes, an error (labelled
``failure`` by an error handler), and an interrupt once it is resumed. Callbacks are not used:
they fire on interrupts too and cannot write state.

The outcome comes from the ``outcome`` key (set by any node or tool of your graph, whose state
inherits :class:`~hindsight_lg.MemoryState`), or after the run from :func:`reflect_thread`.
Without a label, and without ``default_outcome``, nothing is learned and the episode stays open.

Example:
    >>> from langchain_core.messages import AIMessage
    >>> from langgraph.checkpoint.memory import InMemorySaver
    >>> from langgraph.graph import END, START, MessagesState, StateGraph
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> from hindsight_lg import MemoryState, reflect_thread, with_memory
    >>> class State(MessagesState, MemoryState):
    ...     pass
    >>> def agent(state):
    ...     return {"messages": [AIMessage("Deployed, I think.")]}
    >>> builder = StateGraph(State).add_node("agent", agent).add_edge(START, "agent").add_edge("agent", END)
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> graph = with_memory(builder, engine, default_bank="ops", checkpointer=InMemorySaver())
    >>> config = {"configurable": {"thread_id": "t1"}}
    >>> _ = graph.invoke({"messages": [("user", "Deploy billing to prod")]}, config)
    >>> reflect_thread(graph, config, outcome="failure", feedback="it was not deployed")["last_episode"]["outcome"]
    'failure'
    >>> graph.get_state(config).values["outcome"] is None
    True
"""

import typing
from typing import Any, Mapping

from langchain_core.runnables import RunnableConfig
from langgraph.errors import NodeError
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command
from typing_extensions import TypedDict

from hindsight_core import InvalidInputError, MemoryEngine
from hindsight_core.lifecycle.reflect import Reflector
from hindsight_core.outcomes import Judge
from hindsight_lg._resolve import BankResolver
from hindsight_lg._trace import episode_messages, to_steps
from hindsight_lg.nodes import capture_node, recall_node, reflect_node
from hindsight_lg.state import MEMORY_KEYS, MemoryState

__all__ = ["with_memory", "reflect_thread", "areflect_thread"]

RECALL, EPISODE, CAPTURE, REFLECT = "recall", "episode", "capture", "reflect"


def _outer_schema(schema: Any) -> Any:
    """The user's state schema when it already has the memory keys, else it plus them."""
    try:
        hints = typing.get_type_hints(schema, include_extras=True)
    except Exception as exc:  # noqa: BLE001
        raise InvalidInputError(f"cannot read the state schema {schema!r}: {exc}; pass state_schema=...") from exc
    if MEMORY_KEYS <= set(hints):
        return schema
    if not typing.is_typeddict(schema) and not hasattr(schema, "__required_keys__"):
        raise InvalidInputError(
            f"{getattr(schema, '__name__', schema)} lacks the memory keys; inherit hindsight_lg.MemoryState "
            "in your state (class State(MessagesState, MemoryState)) or pass a TypedDict state_schema=...")
    fields = dict(hints)
    fields.update((k, v) for k, v in typing.get_type_hints(MemoryState, include_extras=True).items() if k not in hints)
    return TypedDict(f"{getattr(schema, '__name__', 'State')}WithMemory", fields, total=False)  # type: ignore[operator]


def _hints(schema: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(schema, include_extras=True)
    except Exception:  # noqa: BLE001 - unreadable schemas were rejected by _outer_schema already
        return {}


def _error_handler(next_node: str, label: bool, reflect: Any) -> Any:
    """On an error in the user's graph: label it and go on reflecting (``label_errors=True``), or
    learn from it at once and re-raise it unchanged (the default)."""

    def on_error(state: Any, error: NodeError, config: RunnableConfig) -> Command:
        exc = error.error
        failed = {"outcome": "failure", "episode_error": f"{type(exc).__name__}: {exc}"}
        if label:
            return Command(update=failed, goto=next_node)
        reflect.invoke({**state, **failed}, config)  # the run ends with this error: learn from it now
        raise exc

    return on_error


def with_memory(
    graph: Any,
    engine: MemoryEngine,
    *,
    default_bank: str | None = None,
    bank_key: str = "bank_id",
    bank_resolver: BankResolver | None = None,
    bank_options: Mapping[str, Any] | None = None,
    default_outcome: str | None = None,
    capture: bool = False,
    system_message: bool | None = None,
    k: int = 5,
    lessons_k: int = 3,
    max_tokens: int | None = 1200,
    background: bool = False,
    reflector: Reflector | None = None,
    judge: Judge | None = None,
    label_errors: bool = False,
    state_schema: Any = None,
    messages_key: str = "messages",
    checkpointer: Any = None,
    **compile_kwargs: Any,
) -> Any:
    """Your graph with recall before it and reflection once after it, as one compiled graph.

    Args:
        graph: Your ``StateGraph`` builder, or a graph compiled *without* its own checkpointer (the
            outer graph's checkpointer is used, so interrupts inside it resume normally).
        engine: The memory engine.
        default_bank, bank_key, bank_resolver, bank_options: How each run finds its bank (see
            :func:`~hindsight_lg.recall_node`).
        default_outcome: Label for runs whose evidence says nothing (no label, no tool used); the
            outcome is otherwise inferred from the run (tool errors, recoveries, corrections).
        capture: Also record the run's messages into the bank (a capture node after yours).
        system_message: Also hand the recalled text to your graph as the first message, a
            ``SystemMessage`` (for prebuilt agents that read only messages; providers merge it with
            a leading system prompt). None (default): only when your graph's state has no
            ``memory_context`` key to read it from, as in a prebuilt agent. For ``create_agent``
            prefer :class:`~hindsight_lg.HindsightMiddleware`.
        k, lessons_k, max_tokens: Recall sizes (see :func:`~hindsight_lg.recall_node`).
        background, reflector, judge: Reflection options (see :func:`~hindsight_lg.reflect_node`).
        label_errors: An exception in your graph is always learned from (a ``failure`` episode whose
            lesson names the error). By default it is then re-raised unchanged; True returns normally
            instead, with the error in ``episode_error`` (the graph's unfinished messages are lost, as
            LangGraph discards a failed subgraph's writes).
        state_schema: The outer state (default: your graph's state plus :class:`MemoryState`).
        messages_key: The state key holding the conversation.
        checkpointer: Passed to ``compile`` of the outer graph; ``**compile_kwargs`` too (``store``...).

    Returns:
        A compiled graph; invoke it as you invoked yours.
    """
    if isinstance(graph, StateGraph):
        builder, inner = graph, graph.compile()
    elif hasattr(graph, "invoke") and hasattr(graph, "ainvoke"):
        builder, inner = getattr(graph, "builder", None), graph
        if getattr(graph, "checkpointer", None) not in (None, False):
            raise InvalidInputError("the graph was compiled with its own checkpointer; pass its builder (or compile "
                                    "it without one) and give with_memory(..., checkpointer=...) instead")
    else:
        raise InvalidInputError(f"graph must be a StateGraph or a compiled graph, not {type(graph).__name__}")
    if state_schema is None:
        if builder is None:
            raise InvalidInputError("this compiled graph has no builder to read its state from; pass state_schema=...")
        state_schema = builder.state_schema
    schema = _outer_schema(state_schema)
    if system_message is None:  # a graph that cannot read memory_context gets the memory as a message
        system_message = "memory_context" not in _hints(state_schema)
    banks = dict(default_bank=default_bank, bank_key=bank_key, bank_resolver=bank_resolver, bank_options=bank_options)

    outer = StateGraph(schema, context_schema=getattr(builder, "context_schema", None))
    outer.add_node(RECALL, recall_node(engine, k=k, lessons_k=lessons_k, max_tokens=max_tokens,
                                       system_message=system_message, messages_key=messages_key, **banks))
    after = CAPTURE if capture else REFLECT
    reflect = reflect_node(engine, default_outcome=default_outcome, background=background, reflector=reflector,
                           messages_key=messages_key, judge=judge, **banks)
    outer.add_node(EPISODE, inner, error_handler=_error_handler(after, label_errors, reflect))
    if capture:
        outer.add_node(CAPTURE, capture_node(engine, messages_key=messages_key, **banks))
    outer.add_node(REFLECT, reflect)
    outer.add_edge(START, RECALL)
    outer.add_edge(RECALL, EPISODE)
    outer.add_edge(EPISODE, after)
    if capture:
        outer.add_edge(CAPTURE, REFLECT)
    outer.add_edge(REFLECT, END)
    return outer.compile(checkpointer=checkpointer, **compile_kwargs)


def _label(graph: Any, config: RunnableConfig, outcome: str, feedback: str | None, as_node: str | None,
           reflect_node_name: str, messages_key: str, values: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    if outcome not in ("success", "failure", "partial"):  # a label after the fact is never "unknown"
        raise InvalidInputError(f"outcome must be 'success', 'failure' or 'partial', not {outcome!r}")
    if not to_steps(episode_messages(values.get(messages_key) or [], values.get("episode_start"))):
        raise InvalidInputError("nothing to reflect on this thread: its last episode was already reflected "
                                "(or it has no messages yet); run the graph first")
    if as_node is None:
        edges = getattr(getattr(graph, "builder", None), "edges", set())
        before = sorted({src for src, dst in edges if dst == reflect_node_name})
        if len(before) != 1:
            raise InvalidInputError(f"cannot tell which node runs before {reflect_node_name!r} (found {before}); "
                                    "pass as_node=... (the node whose update should lead to reflection)")
        as_node = before[0]
    update: dict[str, Any] = {"outcome": outcome}
    if feedback is not None:
        update["feedback"] = feedback
    return update, as_node


def reflect_thread(graph: Any, config: RunnableConfig, *, outcome: str, feedback: str | None = None,
                   as_node: str | None = None, reflect_node_name: str = REFLECT,
                   messages_key: str = "messages", **invoke_kwargs: Any) -> dict[str, Any]:
    """Label a finished run after the fact and let the graph's reflect node learn from it.

    Writes ``outcome`` (and ``feedback``) as if ``as_node`` had returned it (default: the one node
    before ``reflect_node_name``), then resumes the thread so the reflect node runs, once. Needs a
    checkpointer. Pass the same ``context=`` as the run had when your bank comes from the context.

    Returns:
        The thread's state after reflection; ``["last_episode"]`` says what was stored.

    Raises:
        InvalidInputError: a bad label, or the thread has no episode left to reflect on.
    """
    if getattr(graph, "checkpointer", None) is None:
        raise InvalidInputError("reflect_thread needs a graph compiled with a checkpointer; without one, "
                                "label the run by setting state['outcome'] from a node, or use default_outcome")
    values = graph.get_state(config).values
    update, as_node = _label(graph, config, outcome, feedback, as_node, reflect_node_name, messages_key, values)
    graph.update_state(config, update, as_node=as_node)
    graph.invoke(None, config, **invoke_kwargs)
    return dict(graph.get_state(config).values)


async def areflect_thread(graph: Any, config: RunnableConfig, *, outcome: str, feedback: str | None = None,
                          as_node: str | None = None, reflect_node_name: str = REFLECT,
                          messages_key: str = "messages", **invoke_kwargs: Any) -> dict[str, Any]:
    """Async twin of :func:`reflect_thread`."""
    if getattr(graph, "checkpointer", None) is None:
        raise InvalidInputError("areflect_thread needs a graph compiled with a checkpointer")
    values = (await graph.aget_state(config)).values
    update, as_node = _label(graph, config, outcome, feedback, as_node, reflect_node_name, messages_key, values)
    await graph.aupdate_state(config, update, as_node=as_node)
    await graph.ainvoke(None, config, **invoke_kwargs)
    return dict((await graph.aget_state(config)).values)
