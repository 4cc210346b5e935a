"""A tool-calling agent wrapped with_memory: it stops repeating its mistakes.

Real compiled LangGraph graphs (sync and async, with and without a checkpointer, an interrupt, a
node that raises), real Chroma and the real embedding model, a scripted tool-calling chat model.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import ToolException, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, interrupt

from hindsight_lg import MemoryState, with_memory
from hindsight_lg.testing import ScriptedChatModel

GOAL = "Deploy the billing service to production"


class State(MessagesState, MemoryState):
    pass


@tool
def deploy(service: str, env: str, ticket: str = "") -> str:
    """Deploy a service to an environment."""
    if env == "prod" and not ticket:
        raise ToolException("PermissionError: a change ticket is required for prod deploys")
    return f"{service} deployed to {env} under {ticket}"


@tool
def deploy_with_approval(service: str, env: str, ticket: str = "") -> str:
    """Deploy after a human approves (interrupts the run)."""
    answer = interrupt({"approve": f"{service} to {env}?"})
    if answer != "yes":
        raise ToolException("Rejected by the operator")
    return deploy.invoke({"service": service, "env": env, "ticket": ticket})


def planner_script(messages: list[BaseMessage]) -> AIMessage:
    """Plans a deploy; uses a change ticket only when memory told it to."""
    last = messages[-1]
    if isinstance(last, ToolMessage):
        ok = last.status != "error"
        return AIMessage("Deployed billing." if ok else "I could not deploy billing.")
    if "thank" in str(last.content).lower():
        return AIMessage("You're welcome.")
    remembered = any("change ticket" in str(m.content) for m in messages if isinstance(m, SystemMessage))
    args = {"service": "billing", "env": "prod", **({"ticket": "CHG-1"} if remembered else {})}
    return AIMessage("", tool_calls=[{"name": "deploy", "args": args, "id": f"call-{len(messages)}"}])


class Agent:
    """The user's own graph: planner <-> tools, then a judge that labels the outcome."""

    def __init__(self, tools=(deploy,), raises: Exception | None = None):
        self.model = ScriptedChatModel(responses=[planner_script], cycle=True)
        self.outcomes_seen: list[object] = []
        self.raises = raises
        self.tools = list(tools)

    def planner(self, state: State) -> dict:
        if self.raises is not None:
            raise self.raises
        if isinstance(state["messages"][-1], HumanMessage):
            self.outcomes_seen.append(state.get("outcome"))
        prompt = [SystemMessage(state.get("memory_context") or "No memories.")] + state["messages"]
        return {"messages": [self.model.bind_tools(self.tools).invoke(prompt)]}

    @staticmethod
    def judge(state: State) -> dict:
        """Labels the turn from its tool results: an error is a failure; no tool used, no label."""
        turn = []
        for m in reversed(state["messages"]):
            if isinstance(m, HumanMessage):
                break
            turn.append(m)
        results = [m for m in turn if isinstance(m, ToolMessage)]
        if not results:
            return {}
        return {"outcome": "failure" if any(m.status == "error" for m in results) else "success"}

    def builder(self) -> StateGraph:
        b = StateGraph(State)
        b.add_node("planner", self.planner)
        b.add_node("tools", ToolNode(self.tools, handle_tool_errors=True))
        b.add_node("judge", self.judge)
        b.add_edge(START, "planner")
        b.add_conditional_edges("planner", tools_condition, {"tools": "tools", END: "judge"})
        b.add_edge("tools", "planner")
        b.add_edge("judge", END)
        return b

    def planner_inputs(self, since: int = 0) -> list[str]:
        return self.model.prompts()[since:]


def counts(bank) -> tuple[int, int]:
    """(episodes, lessons) stored in the bank. Captured messages are experiences without an outcome;
    a repeat of an identical lesson is merged into it, so stores are counted as mentions."""
    episodes = [u for u in bank.units(kind="experience") if u.outcome is not None]
    return sum(u.mention_count for u in episodes), sum(u.mention_count for u in bank.units(kind="observation"))


def ask(text: str) -> dict:
    return {"messages": [HumanMessage(text)]}


def test_failure_lesson_is_recalled_before_the_next_plan_on_another_thread(engine):
    agent = Agent()
    graph = with_memory(agent.builder(), engine, checkpointer=InMemorySaver())
    ops = {"bank_id": "ops"}

    first = graph.invoke(ask(GOAL), {"configurable": {"thread_id": "t1"}}, context=ops)
    assert first["messages"][-1].content == "I could not deploy billing."
    assert first["outcome"] is None and first["last_episode"]["outcome"] == "failure"
    assert counts(engine.bank("ops")) == (1, 1)
    lesson = engine.bank("ops").get(first["last_episode"]["lesson_id"]).text
    assert "change ticket" in lesson

    n = len(agent.model.calls)
    second = graph.invoke(ask(GOAL), {"configurable": {"thread_id": "t2"}}, context=ops)
    assert "change ticket" in agent.planner_inputs(n)[0] and "FAILED attempt" in agent.planner_inputs(n)[0]
    assert second["messages"][-1].content == "Deployed billing."  # the mistake is not repeated
    assert second["last_episode"]["outcome"] == "success"
    assert counts(engine.bank("ops")) == (2, 2)

    n = len(agent.model.calls)
    other = graph.invoke(ask(GOAL), {"configurable": {"thread_id": "t3"}}, context={"bank_id": "dev"})
    assert "change ticket" not in agent.planner_inputs(n)[0]  # another bank learned nothing
    assert other["messages"][-1].content == "I could not deploy billing."
    assert agent.outcomes_seen == [None, None, None]


def test_outcome_never_leaks_into_the_next_run_on_the_same_thread(engine):
    agent = Agent()
    graph = with_memory(agent.builder(), engine, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1", "bank_id": "ops"}}
    graph.invoke(ask(GOAL), config)
    assert graph.get_state(config).values["outcome"] is None
    episode_1 = graph.get_state(config).values["last_episode"]["episode_id"]

    out = graph.invoke(ask("Thanks!"), config)  # no tool used: the judge sets no label
    assert agent.outcomes_seen == [None, None]
    assert out["outcome"] is None and out["last_episode"]["episode_id"] == episode_1
    assert counts(engine.bank("ops")) == (1, 1)  # no second reflection

    graph.invoke(ask(GOAL), config)  # a new labelled episode on the same thread
    assert agent.outcomes_seen == [None, None, None]
    assert counts(engine.bank("ops")) == (2, 2)
    last = graph.get_state(config).values["last_episode"]
    assert last["episode_id"] != episode_1 and last["outcome"] == "success"


async def test_async_agent_learns_without_a_checkpointer(engine):
    agent = Agent()
    graph = with_memory(agent.builder(), engine, default_bank="ops")
    first = await graph.ainvoke(ask(GOAL))
    assert first["last_episode"]["outcome"] == "failure" and first["outcome"] is None
    n = len(agent.model.calls)
    second = await graph.ainvoke(ask(GOAL))
    assert "change ticket" in agent.planner_inputs(n)[0]
    assert second["last_episode"]["outcome"] == "success"
    assert counts(engine.bank("ops")) == (2, 2)


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_reflection_runs_once_after_an_interrupt_is_resumed(engine, mode):
    agent = Agent(tools=[deploy_with_approval])
    agent.model = ScriptedChatModel(responses=[
        AIMessage("", tool_calls=[{"name": "deploy_with_approval", "id": "c1",
                                   "args": {"service": "billing", "env": "prod"}}]),
        AIMessage("I could not deploy billing."),
    ])
    graph = with_memory(agent.builder(), engine, checkpointer=InMemorySaver(), capture=True)
    config = {"configurable": {"thread_id": f"t-{mode}", "bank_id": "ops"}}
    run = graph.invoke if mode == "sync" else None

    async def call(arg):
        return run(arg, config) if run else await graph.ainvoke(arg, config)

    paused = await call(ask(GOAL))
    assert paused["__interrupt__"][0].value == {"approve": "billing to prod?"}
    assert counts(engine.bank("ops")) == (0, 0)  # nothing learned while the run is paused

    done = await call(Command(resume="yes"))
    assert done["last_episode"]["outcome"] == "failure" and "change ticket" in done["last_episode"]["lesson"]
    assert counts(engine.bank("ops")) == (1, 1)
    state = graph.get_state(config)
    assert state.next == () and state.values["outcome"] is None

    # captured messages carry the thread as session and the episode's id
    captured = [u for u in engine.bank("ops").units() if u.metadata.get("role") == "user"]
    assert captured and {u.session_id for u in captured} == {f"t-{mode}"}
    assert {u.kind.value for u in captured} == {"experience"}  # a request is what was asked, not a fact
    assert {u.episode_id for u in captured} == {done["last_episode"]["episode_id"]}
    assert counts(engine.bank("ops")) == (1, 1)  # the capture step did not add an episode


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_node_that_raises_is_learned_and_re_raised(engine, mode):
    # Changed on purpose (issue 13): an error is no longer swallowed by default; it is learned from
    # and re-raised unchanged. label_errors=True opts into returning normally.
    agent = Agent(raises=RuntimeError("model endpoint overloaded"))
    graph = with_memory(agent.builder(), engine, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    args = (ask(GOAL), config)
    with pytest.raises(RuntimeError, match="overloaded"):
        graph.invoke(*args, context={"bank_id": "ops"}) if mode == "sync" else \
            await graph.ainvoke(*args, context={"bank_id": "ops"})
    assert counts(engine.bank("ops")) == (1, 1)
    lessons = engine.bank("ops").recall_lessons(GOAL, k=1)
    assert "RuntimeError: model endpoint overloaded" in lessons.hits[0].unit.text

    labelled = with_memory(agent.builder(), engine, default_bank="ops", label_errors=True)
    out = labelled.invoke(ask(GOAL))
    assert out["last_episode"]["outcome"] == "failure"
    assert "RuntimeError: model endpoint overloaded" in out["last_episode"]["lesson"]
    assert out["outcome"] is None and out["episode_error"] is None
    assert [m.text for m in out["messages"] if isinstance(m, HumanMessage)] == [GOAL]
    assert counts(engine.bank("ops")) == (2, 2)
