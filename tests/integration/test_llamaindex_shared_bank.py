"""One bank, two frameworks: what a LangGraph graph captures, a LlamaIndex agent recalls, and back."""

from __future__ import annotations

from langgraph.graph import END, START, MessagesState, StateGraph
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.tools import FunctionTool

from hindsight_lg import MemoryState, capture_node, recall_node
from hindsight_llamaindex import HindsightMemory, run_with_memory
from hindsight_llamaindex.testing import ScriptedLLM


class State(MessagesState, MemoryState):
    pass


def deploy(service: str, env: str) -> str:
    """Deploy a service to an environment."""
    raise PermissionError("a change ticket is required for prod deploys")


def shows(unit, text: str) -> bool:
    return all(line.strip() in text for line in unit.text.splitlines())


def langgraph_capture(engine):
    builder = StateGraph(State).add_node("capture", capture_node(engine))
    return builder.add_edge(START, "capture").add_edge("capture", END).compile()


def langgraph_recall(engine):
    builder = StateGraph(State).add_node("recall", recall_node(engine))
    return builder.add_edge(START, "recall").add_edge("recall", END).compile()


async def test_langgraph_capture_is_recalled_by_llamaindex_on_the_same_bank_only(engine):
    graph = langgraph_capture(engine)
    await graph.ainvoke({"messages": [("user", "The on-call rotation hands over every Tuesday at 10:00.")]},
                        {"configurable": {"thread_id": "lg-1"}}, context={"bank_id": "team"})
    assert [u.source.value for u in engine.bank("team").units()] == ["user"]

    script = ScriptedLLM(["Tuesday at 10:00.", "I don't know."])
    agent = FunctionAgent(tools=[], llm=script)
    await agent.run(user_msg="When does the on-call rotation hand over?",
                    memory=HindsightMemory.from_engine(engine, bank_id="team", session_id="li-1"))
    assert "Tuesday at 10:00" in script.system(0)
    await agent.run(user_msg="When does the on-call rotation hand over?",
                    memory=HindsightMemory.from_engine(engine, bank_id="other", session_id="li-2"))
    assert "Tuesday at 10:00" not in script.seen(1)


async def test_a_llamaindex_lesson_reaches_a_langgraph_recall(engine):
    script = ScriptedLLM([("deploy", {"service": "billing", "env": "prod"}), "I could not deploy billing."])
    run = await run_with_memory(FunctionAgent(tools=[FunctionTool.from_defaults(deploy)], llm=script),
                                "Deploy the billing service to prod",
                                HindsightMemory.from_engine(engine, bank_id="team", session_id="li-1"))
    out = await langgraph_recall(engine).ainvoke({"messages": [("user", "Deploy billing to production")]},
                                                 {"configurable": {"thread_id": "lg-2"}}, context={"bank_id": "team"})
    assert shows(run.episode.lesson, out["memory_context"])
