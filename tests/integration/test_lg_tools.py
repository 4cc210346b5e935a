"""Memory tools in a tool-calling agent (bank resolved per call), the scripted model, the surface."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

import hindsight_lg
from hindsight_lg import MemoryState, recall_tool, remember_tool
from hindsight_lg.testing import ScriptedChatModel


class State(MessagesState, MemoryState):
    pass


def script(messages):
    """Remember what the user says, then recall it, then answer with what the recall returned."""
    last = messages[-1]
    if isinstance(last, HumanMessage):
        return AIMessage("", tool_calls=[{"name": "remember", "args": {"text": last.content}, "id": "r1"}])
    if isinstance(last, ToolMessage) and last.name == "remember":
        return AIMessage("", tool_calls=[{"name": "recall_memory", "args": {"query": "staging database"}, "id": "q1"}])
    return AIMessage(f"Memory says: {last.content}")


def agent_graph(engine, model):
    tools = [remember_tool(engine), recall_tool(engine)]

    def agent(state: State) -> dict:
        return {"messages": [model.bind_tools(tools).invoke(state["messages"])]}

    b = StateGraph(State)
    b.add_node("agent", agent)
    b.add_node("tools", ToolNode(tools))
    b.add_edge(START, "agent")
    b.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: END})
    b.add_edge("tools", "agent")
    return b.compile()


@pytest.mark.filterwarnings("error::UserWarning")  # a dict context must not upset ToolRuntime's schema
@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_memory_tools_resolve_the_bank_per_call(mem_engine, mode):
    graph = agent_graph(mem_engine, ScriptedChatModel(responses=[script], cycle=True))

    async def run(text, **kw):
        arg = {"messages": [HumanMessage(text)]}
        out = graph.invoke(arg, **kw) if mode == "sync" else await graph.ainvoke(arg, **kw)
        return out["messages"][-1].content

    alice = await run("Alice's staging database is db-staging-2.", context={"bank_id": "alice"})
    bob = await run("Bob's staging database is pg-bob-9.", config={"configurable": {"bank_id": "bob"}})
    assert "db-staging-2" in alice and "pg-bob-9" not in alice
    assert "pg-bob-9" in bob and "db-staging-2" not in bob
    assert [u.text for u in mem_engine.bank("alice").units()] == ["Alice's staging database is db-staging-2."]
    carol = await run("Carol's staging database is ms-carol-1.", context={"bank_id": "carol"},
                      config={"configurable": {"bank_id": "ignored"}})  # context wins
    assert "ms-carol-1" in carol and "ignored" not in mem_engine.banks()


def test_tools_outside_a_graph_and_with_state_bank(mem_engine):
    remember, recall = remember_tool(mem_engine, default_bank="shared"), recall_tool(mem_engine)
    assert remember.invoke({"text": "The VPN gateway is vpn-3."}).startswith("Remembered")
    assert remember.invoke({"text": "The VPN gateway is vpn-3."}).startswith("Already known")
    assert "vpn-3" in recall.invoke({"query": "vpn gateway"}, {"configurable": {"bank_id": "shared"}})
    assert recall.invoke({"query": "vpn gateway"}, {"configurable": {"bank_id": "empty"}}) == "No relevant memories."
    with pytest.raises(Exception, match="no memory bank"):
        recall.invoke({"query": "vpn gateway"})
    assert set(recall.args) == {"query"} and set(remember.args) == {"text"}  # the model never picks a bank

    # inside a ToolNode the bank may also come from state
    node = ToolNode([recall])
    b = StateGraph(State).add_node("tools", node).add_edge(START, "tools").add_edge("tools", END).compile()
    call = AIMessage("", tool_calls=[{"name": "recall_memory", "args": {"query": "vpn gateway"}, "id": "c1"}])
    out = b.invoke({"messages": [call], "bank_id": "shared"})
    assert "vpn-3" in out["messages"][-1].content


def test_scripted_chat_model():
    model = ScriptedChatModel(responses=["one", AIMessage("two")])
    assert model.bind_tools([remember_tool]) is model
    assert [model.invoke("a").content, model.invoke("b").content] == ["one", "two"]
    assert model.prompts() == ["a", "b"]
    with pytest.raises(IndexError, match="ran out"):
        model.invoke("c")


def test_public_surface_is_pinned():
    assert sorted(hindsight_lg.__all__) == sorted([
        "HindsightMiddleware", "HindsightStore",
        "MemoryState", "MEMORY_KEYS", "recall_node", "capture_node", "reflect_node", "tool_check_node",
        "with_memory", "reflect_thread", "areflect_thread", "recall_tool", "remember_tool",
    ])
    for name in hindsight_lg.__all__:
        assert getattr(hindsight_lg, name).__doc__, name


def test_docstring_examples_run():
    import doctest
    import importlib

    for mod in ["hindsight_lg", "hindsight_lg.nodes", "hindsight_lg.state", "hindsight_lg.tools",
                "hindsight_lg.wrap", "hindsight_lg.testing", "hindsight_lg.middleware", "hindsight_lg.store"]:
        result = doctest.testmod(importlib.import_module(mod), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, mod


def test_scripted_model_drives_an_llm_reflector_in_with_memory(mem_engine):
    from hindsight_core.lifecycle.llm_reflect import LLMReflector

    judge = ScriptedChatModel(responses=[
        '{"cause": "the staging database was not checked", '
        '"lesson": "When asked about staging, check the database name first.", "trigger": "staging questions"}'])
    b = StateGraph(State).add_node("agent", lambda s: {"messages": [AIMessage("db-1, I guess.")]})
    b = b.add_edge(START, "agent").add_edge("agent", END)
    graph = hindsight_lg.with_memory(b, mem_engine, default_bank="qa", default_outcome="failure",
                                     reflector=LLMReflector(judge))
    out = graph.invoke({"messages": [HumanMessage("Which staging database do we use?")]})
    assert "check the database name first" in out["last_episode"]["lesson"]
    assert "Which staging database" in judge.prompts()[0]
