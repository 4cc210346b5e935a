"""The node factories in a user's own graph: bank resolution, sync/async, post-hoc labels."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from hindsight_core import InvalidInputError
from hindsight_lg import (
    MemoryState,
    areflect_thread,
    capture_node,
    recall_node,
    reflect_node,
    reflect_thread,
    with_memory,
)

GOAL = "Restart the queue worker q1"


class State(MessagesState, MemoryState):
    pass


def lessons_stored(bank) -> int:
    """Lessons stored, counting repeats an identical lesson absorbed (the core merges duplicates)."""
    return sum(u.mention_count for u in bank.units(kind="observation"))


@dataclass
class Ctx:
    bank_id: str | None = None
    tenant: str | None = None


def tool_turn(state: State) -> dict:
    """The user's agent: one failing tool call, then gives up (no LLM needed here)."""
    return {"messages": [
        AIMessage("", tool_calls=[{"name": "restart", "args": {"worker": "q1"}, "id": "c1"}]),
        ToolMessage("ConnectionError: broker unreachable", tool_call_id="c1", name="restart", status="error"),
        AIMessage("The worker could not be restarted."),
    ]}


def talk_turn(state: State) -> dict:
    """The user's agent answers without using any tool: nothing shows whether it worked."""
    return {"messages": [AIMessage("The worker q1 should be restarted now.")]}


def memory_graph(engine, *, checkpointer=None, context_schema=None, seen=None, label=None, **bank):
    """recall -> agent -> capture -> reflect, built from the three factories."""
    def agent(state: State) -> dict:
        if seen is not None:
            seen.append({"context": state.get("memory_context"), "outcome": state.get("outcome"),
                         "system": [m.content for m in state["messages"] if isinstance(m, SystemMessage)]})
        update = tool_turn(state)
        if label:
            update["outcome"] = label
        return update

    b = StateGraph(State, context_schema=context_schema)
    b.add_node("recall", recall_node(engine, system_message=True, **bank))
    b.add_node("agent", agent)
    b.add_node("capture", capture_node(engine, **bank))
    b.add_node("reflect", reflect_node(engine, **bank))
    b.add_edge(START, "recall")
    b.add_edge("recall", "agent")
    b.add_edge("agent", "capture")
    b.add_edge("capture", "reflect")
    b.add_edge("reflect", END)
    return b.compile(checkpointer=checkpointer)


def test_bank_resolution_order(mem_engine):
    def capture_only(**bank):
        b = StateGraph(State, context_schema=Ctx)
        b.add_node("capture", capture_node(mem_engine, **bank))
        b.add_edge(START, "capture")
        b.add_edge("capture", END)
        return b.compile()

    graph = capture_only(default_bank="dflt")
    every = {"configurable": {"bank_id": "cfg"}}

    def where(graph, text, state_bank=None, **kw) -> list[str]:
        state = {"messages": [HumanMessage(text)], **({"bank_id": state_bank} if state_bank else {})}
        graph.invoke(state, **kw)
        return [b for b in mem_engine.banks() if any(text == u.text for u in mem_engine.bank(b).units())]

    assert where(graph, "Fact one: the broker runs on host mq-7.", "st", config=every, context=Ctx("ctx")) == ["ctx"]
    assert where(graph, "Fact two: the broker port is 5672.", "st", config=every, context=Ctx()) == ["cfg"]
    assert where(graph, "Fact three: the broker user is svc-mq.", "st") == ["st"]
    assert where(graph, "Fact four: the broker vhost is /prod.") == ["dflt"]

    def by_tenant(state, config, runtime):
        return f"tenant-{runtime.context.tenant}" if runtime.context and runtime.context.tenant else None

    custom = capture_only(default_bank="dflt", bank_resolver=by_tenant)
    assert where(custom, "Fact five: the cache is redis-3.", "st", config=every, context=Ctx("ctx", "acme")) == \
        ["tenant-acme"]
    assert where(custom, "Fact six: the cache port is 6379.", "st", config=every, context=Ctx("ctx")) == ["ctx"]

    keyed = capture_only(bank_key="user")
    assert where(keyed, "Fact seven: Ann prefers tea.", config={"configurable": {"user": "ann"}}) == ["ann"]
    with pytest.raises(InvalidInputError, match="no memory bank"):
        capture_only().invoke({"messages": [HumanMessage("Fact eight: nobody owns this.")]})


def test_every_node_works_under_sync_invoke_and_learns_once(mem_engine):
    seen: list[dict] = []
    graph = memory_graph(mem_engine, checkpointer=InMemorySaver(), seen=seen, label="failure")
    t1 = {"configurable": {"thread_id": "t1", "bank_id": "ops"}}
    first = graph.invoke({"messages": [HumanMessage(GOAL)]}, t1)
    assert first["outcome"] is None and first["last_episode"]["outcome"] == "failure"
    assert seen[0]["context"] == "" and seen[0]["system"] == []
    bank = mem_engine.bank("ops")
    lessons = list(bank.units(kind="observation"))
    assert lessons_stored(bank) == 1 and "broker unreachable" in lessons[0].text
    captured = {u.metadata.get("role") for u in bank.units() if u.metadata.get("role")}
    assert {"user", "tool_call", "tool_error", "assistant"} <= captured

    graph.invoke({"messages": [HumanMessage(GOAL)]}, {"configurable": {"thread_id": "t2", "bank_id": "ops"}})
    assert "broker unreachable" in seen[1]["context"] and seen[1]["outcome"] is None
    assert len(seen[1]["system"]) == 1 and "broker unreachable" in seen[1]["system"][0]

    graph.invoke({"messages": [HumanMessage(GOAL)]}, t1)  # second turn, same thread
    assert len(seen[2]["system"]) == 1  # the previous memory message was replaced, not piled up
    assert seen[2]["outcome"] is None
    assert lessons_stored(bank) == 3


async def test_every_node_works_under_ainvoke(mem_engine):
    seen: list[dict] = []
    graph = memory_graph(mem_engine, seen=seen, label="partial", default_bank="ops")
    out = await graph.ainvoke({"messages": [HumanMessage(GOAL)]})
    assert out["last_episode"]["outcome"] == "partial" and out["outcome"] is None
    await graph.ainvoke({"messages": [HumanMessage(GOAL)]}, context={"bank_id": "ops"})
    assert "broker unreachable" in seen[1]["context"]
    await graph.ainvoke({"messages": [HumanMessage(GOAL)]}, context={"bank_id": "elsewhere"})
    assert seen[2]["context"] == ""  # another bank has nothing


def test_label_after_the_run_with_reflect_thread(mem_engine):
    # A run with no evidence (no tool used, no label) leaves its episode open for a later label.
    def agent(state: State) -> dict:
        return talk_turn(state)

    b = StateGraph(State).add_node("agent", agent).add_edge(START, "agent").add_edge("agent", END)
    graph = with_memory(b, mem_engine, default_bank="ops", checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    out = graph.invoke({"messages": [HumanMessage(GOAL)]}, config)
    assert "last_episode" not in out or out["last_episode"] is None  # no label: nothing learned
    assert list(mem_engine.bank("ops").units(kind="observation")) == []

    after = reflect_thread(graph, config, outcome="failure", feedback="the broker was down for maintenance")
    assert after["outcome"] is None and after["feedback"] is None
    assert after["last_episode"]["outcome"] == "failure"
    assert lessons_stored(mem_engine.bank("ops")) == 1
    with pytest.raises(InvalidInputError, match="already reflected"):
        reflect_thread(graph, config, outcome="failure")  # exactly once per episode
    with pytest.raises(InvalidInputError, match="outcome must be"):
        reflect_thread(graph, config, outcome="meh")
    with pytest.raises(InvalidInputError, match="checkpointer"):
        reflect_thread(with_memory(b, mem_engine, default_bank="ops"), config, outcome="failure")

    nxt = graph.invoke({"messages": [HumanMessage(GOAL)]}, config)  # the next turn starts clean
    assert "maintenance" in nxt["memory_context"]
    assert lessons_stored(mem_engine.bank("ops")) == 1


async def test_areflect_thread_and_default_outcome(mem_engine):
    b = StateGraph(State).add_node("agent", talk_turn).add_edge(START, "agent").add_edge("agent", END)
    graph = with_memory(b, mem_engine, default_bank="ops", checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    await graph.ainvoke({"messages": [HumanMessage(GOAL)]}, config)
    after = await areflect_thread(graph, config, outcome="partial")
    assert after["last_episode"]["outcome"] == "partial" and after["outcome"] is None

    labelled = with_memory(b, mem_engine, default_bank="ops", default_outcome="success")
    out = await labelled.ainvoke({"messages": [HumanMessage(GOAL)]})
    assert out["last_episode"]["outcome"] == "success"  # no evidence: the default applies
    assert lessons_stored(mem_engine.bank("ops")) == 2
    failing = StateGraph(State).add_node("agent", tool_turn).add_edge(START, "agent").add_edge("agent", END)
    out = await with_memory(failing, mem_engine, default_bank="ops", default_outcome="success").ainvoke(
        {"messages": [HumanMessage(GOAL)]})
    assert out["last_episode"]["outcome"] == "failure"  # evidence beats a default label
    with pytest.raises(InvalidInputError, match="default_outcome"):
        reflect_node(mem_engine, default_outcome="won")


def test_with_memory_on_a_state_without_the_mixin_hands_memory_over_as_a_system_message(mem_engine):
    seen: list[list[str]] = []

    def agent(state: MessagesState) -> dict:  # the user's graph knows nothing of memory keys
        seen.append([m.content for m in state["messages"] if isinstance(m, SystemMessage)])
        return tool_turn(state)

    b = StateGraph(MessagesState).add_node("agent", agent).add_edge(START, "agent").add_edge("agent", END)
    graph = with_memory(b, mem_engine, default_bank="ops", default_outcome="failure", system_message=True,
                        checkpointer=InMemorySaver())
    graph.invoke({"messages": [HumanMessage(GOAL)]}, {"configurable": {"thread_id": "a"}})
    out = graph.invoke({"messages": [HumanMessage(GOAL)]}, {"configurable": {"thread_id": "b"}})
    assert seen[0] == [] and len(seen[1]) == 1 and "broker unreachable" in seen[1][0]
    assert "broker unreachable" in out["memory_context"] and out["outcome"] is None
    assert lessons_stored(mem_engine.bank("ops")) == 2


def test_background_reflection_through_the_graph(mem_engine):
    b = StateGraph(State).add_node("agent", tool_turn).add_edge(START, "agent").add_edge("agent", END)
    graph = with_memory(b, mem_engine, default_bank="ops", default_outcome="failure", background=True)
    out = graph.invoke({"messages": [HumanMessage(GOAL)]})
    assert out["last_episode"]["pending"] is True and out["last_episode"]["lesson_id"] is None
    assert mem_engine.drain(30)
    assert lessons_stored(mem_engine.bank("ops")) == 1


def test_reflection_follows_command_goto_end_and_compiled_graphs(mem_engine):
    from langgraph.types import Command

    def agent(state: State) -> Command:
        return Command(goto=END, update={**tool_turn(state), "outcome": "failure"})

    def never(state: State) -> dict:
        raise AssertionError("Command(goto=END) skips this node")

    b = StateGraph(State).add_node("agent", agent, destinations=(END, "never")).add_node("never", never)
    b = b.add_edge(START, "agent").add_edge("never", END)
    graph = with_memory(b.compile(), mem_engine, default_bank="ops")  # a compiled graph works too
    out = graph.invoke({"messages": [HumanMessage(GOAL)]})
    assert out["last_episode"]["outcome"] == "failure" and lessons_stored(mem_engine.bank("ops")) == 1
    lesson = out["last_episode"]["lesson"]
    assert "broker unreachable" in lesson and "AssertionError" not in lesson
    with pytest.raises(InvalidInputError, match="own checkpointer"):
        with_memory(b.compile(checkpointer=InMemorySaver()), mem_engine, default_bank="ops")
