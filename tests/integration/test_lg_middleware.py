"""HindsightMiddleware inside real ``langchain.agents.create_agent`` graphs.

A scripted tool-calling chat model records exactly what each model call receives; every recorded
input is run through LangChain's Anthropic and OpenAI message formatters (offline), so a message
order a provider would reject fails here. Real Chroma and the real embedding model.
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain.agents", reason="pip install 'hindsight-memory[langgraph]' (needs langchain)")

from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import HumanInTheLoopMiddleware, SummarizationMiddleware  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage  # noqa: E402
from langchain_core.tools import ToolException, tool  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.types import Command  # noqa: E402

from hindsight_lg import HindsightMiddleware  # noqa: E402
from hindsight_lg.testing import ScriptedChatModel  # noqa: E402

TICKET_ERROR = "a change ticket is required for prod deploys"


@tool
def deploy(service: str, env: str, ticket: str = "") -> str:
    """Deploy a service to an environment."""
    if env == "prod" and not ticket:
        raise PermissionError(TICKET_ERROR)
    return f"{service} deployed to {env} under {ticket}"


@tool
def deploy_soft(service: str, env: str, ticket: str = "") -> str:
    """Deploy, reporting failures as text (no exception, no error status)."""
    if env == "prod" and not ticket:
        return f"Error: {TICKET_ERROR}"
    return f"{service} deployed to {env} under {ticket}"


@tool
def deploy_handled(service: str, env: str, ticket: str = "") -> str:
    """Deploy; failures come back to the model as an error ToolMessage."""
    if env == "prod" and not ticket:
        raise ToolException(TICKET_ERROR)
    return f"{service} deployed to {env} under {ticket}"


deploy_handled.handle_tool_error = True


def _call(name: str, call_id: str, **args: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {"service": "billing", "env": "prod", **args},
                                      "id": call_id}])


def _provider_safe(messages: list[BaseMessage]) -> None:
    """At most one system message, and first; both providers' formatters accept the list."""
    from langchain_anthropic.chat_models import _format_messages
    from langchain_openai.chat_models.base import _convert_message_to_dict

    kinds = [m.type for m in messages]
    assert "system" not in kinds[1:], kinds
    system, formatted = _format_messages(messages, model="claude-sonnet-4-5")
    assert (system is not None) == (kinds[0] == "system") and formatted[0]["role"] == "user"
    roles = [_convert_message_to_dict(m)["role"] for m in messages]
    assert "system" not in roles[1:]


def _lesson_in_first_call(model: ScriptedChatModel, call: int) -> str:
    first = model.calls[call][0]
    assert isinstance(first, SystemMessage)
    return first.text


def test_unlabelled_text_failure_becomes_lesson_next_thread_sees_first(mem_engine):
    model = ScriptedChatModel(responses=[_call("deploy_soft", "c1"), "I could not deploy billing.",
                                         AIMessage("Deploying with a ticket.")])
    agent = create_agent(model, tools=[deploy_soft], system_prompt="You are the ops agent.",
                         middleware=[HindsightMiddleware(mem_engine)])
    out = agent.invoke({"messages": [("user", "Deploy billing to prod")]}, context={"bank_id": "ops"})
    assert out["last_episode"]["outcome"] == "failure" and out["last_episode"]["lesson_id"]
    agent.invoke({"messages": [("user", "Please ship the billing service to production")]},
                 {"configurable": {"thread_id": "other"}}, context={"bank_id": "ops"})
    text = _lesson_in_first_call(model, 2)
    assert text.startswith("You are the ops agent.") and TICKET_ERROR in text and "FAILED" in text
    for call in model.calls:
        _provider_safe(call)


def test_tool_exception_propagates_unchanged_and_is_learned(mem_engine):
    model = ScriptedChatModel(responses=[_call("deploy", "c1"), "Asking for a ticket first."])
    agent = create_agent(model, tools=[deploy], middleware=[HindsightMiddleware(mem_engine)])
    with pytest.raises(PermissionError, match=TICKET_ERROR):
        agent.invoke({"messages": [("user", "Deploy billing to prod")]}, context={"bank_id": "ops"})
    agent.invoke({"messages": [("user", "Deploy billing to production again")]}, context={"bank_id": "ops"})
    assert TICKET_ERROR in _lesson_in_first_call(model, 1)  # no system_prompt: memory is the only system message
    lessons = mem_engine.bank("ops").recall_lessons("deploy billing to prod", k=3)
    assert [h.unit.outcome.value for h in lessons.hits][:1] == ["failure"]
    for call in model.calls:
        _provider_safe(call)


def test_conversation_intact_after_handled_tool_error(mem_engine):
    model = ScriptedChatModel(responses=[_call("deploy_handled", "c1"), _call("deploy_handled", "c2", ticket="T-1"),
                                         "Deployed under T-1.", "You asked me to deploy billing."])
    agent = create_agent(model, tools=[deploy_handled], system_prompt="Ops agent.",
                         middleware=[HindsightMiddleware(mem_engine)], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    out = agent.invoke({"messages": [("user", "Deploy billing to prod")]}, config, context={"bank_id": "ops"})
    assert out["messages"][-1].text == "Deployed under T-1."
    assert out["last_episode"]["outcome"] == "success"  # the failing tool worked after its error
    errors = [m for m in out["messages"] if isinstance(m, ToolMessage) and m.status == "error"]
    assert len(errors) == 1
    agent.invoke({"messages": [("user", "What did I ask?")]}, config, context={"bank_id": "ops"})
    last = model.calls[-1]
    assert [m.type for m in last] == ["system", "human", "ai", "tool", "ai", "tool", "ai", "human"]
    assert last[0].text.startswith("Ops agent.")
    for call in model.calls:
        _provider_safe(call)


def test_no_recipe_from_a_run_that_did_nothing(mem_engine):
    model = ScriptedChatModel(responses=["Done."], cycle=True)
    agent = create_agent(model, tools=[deploy], middleware=[HindsightMiddleware(mem_engine)])
    out = agent.invoke({"messages": [("user", "Rotate the billing database credentials")]},
                       context={"bank_id": "ops"})
    assert out["last_episode"]["outcome"] == "unknown" and out["last_episode"]["lesson_id"] is None
    bank = mem_engine.bank("ops")
    assert not [u for u in bank.units() if u.kind.value in ("observation", "skill")]
    agent.invoke({"messages": [("user", "Rotate the billing database credentials")]}, context={"bank_id": "ops"})
    assert "[worked before]" not in model.calls[-1][0].text if model.calls[-1][0].type == "system" else True
    assert "worked" not in bank.recall_context("Rotate the billing database credentials").text


def test_banks_are_isolated(mem_engine):
    model = ScriptedChatModel(responses=[_call("deploy_soft", "c1"), "Failed.", "Hello.", "Hello."])
    agent = create_agent(model, tools=[deploy_soft], middleware=[HindsightMiddleware(mem_engine)])
    agent.invoke({"messages": [("user", "Deploy billing to prod")]}, context={"bank_id": "alice"})
    agent.invoke({"messages": [("user", "Deploy billing to prod")]}, {"configurable": {"bank_id": "bob"}})
    assert all(m.type != "system" for m in model.calls[2])  # bob's bank holds nothing
    agent.invoke({"messages": [("user", "Deploy billing to prod")]}, {"configurable": {"bank_id": "alice"}})
    assert TICKET_ERROR in _lesson_in_first_call(model, 3)


def test_composes_with_hitl_summarization_checkpointer_and_resume(mem_engine):
    model = ScriptedChatModel(responses=[_call("deploy", "c1", ticket="T-9"), "Deployed under T-9."])
    summarizer = ScriptedChatModel(responses=["summary"], cycle=True)
    middleware = [HindsightMiddleware(mem_engine), HumanInTheLoopMiddleware(interrupt_on={"deploy": True}),
                  SummarizationMiddleware(model=summarizer, trigger=("messages", 50))]
    agent = create_agent(model, tools=[deploy], middleware=middleware, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "h1", "bank_id": "ops"}}
    first = agent.invoke({"messages": [("user", "Deploy billing to prod with ticket T-9")]}, config)
    assert "__interrupt__" in first and mem_engine.bank("ops").count() == 0  # nothing learned mid-run
    out = agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    assert out["messages"][-1].text == "Deployed under T-9."
    assert out["last_episode"]["outcome"] == "success"
    episodes = [u for u in mem_engine.bank("ops").units(kind="experience")]
    assert len(episodes) == 1  # reflected once, after the resume
    for call in model.calls:
        assert [m.type for m in call].count("system") <= 1


def test_ainvoke_and_stream(mem_engine):
    model = ScriptedChatModel(responses=[_call("deploy_soft", "c1"), "Failed.", "With a ticket now."])
    agent = create_agent(model, tools=[deploy_soft], middleware=[HindsightMiddleware(mem_engine)])
    out = asyncio.run(agent.ainvoke({"messages": [("user", "Deploy billing to prod")]}, context={"bank_id": "a"}))
    assert out["last_episode"]["outcome"] == "failure"
    chunks = list(agent.stream({"messages": [("user", "Deploy billing to prod")]}, context={"bank_id": "a"},
                               stream_mode="values"))
    assert chunks and TICKET_ERROR in _lesson_in_first_call(model, 2)


def test_a_correction_undoes_a_success_recipe(mem_engine):
    model = ScriptedChatModel(responses=[_call("deploy", "c1", env="staging"), "Deployed to staging.",
                                         "Sorry, I will use prod."])
    agent = create_agent(model, tools=[deploy], middleware=[HindsightMiddleware(mem_engine)],
                         checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "c", "bank_id": "ops"}}
    first = agent.invoke({"messages": [("user", "Deploy billing")]}, config)
    assert first["last_episode"]["outcome"] == "success"
    second = agent.invoke({"messages": [("user", "No, that's wrong: billing goes to prod")]}, config)
    assert second["last_episode"]["outcome"] == "failure"
    assert mem_engine.bank("ops").get(first["last_episode"]["lesson_id"]).status.value == "invalidated"
    assert "billing goes to prod" in second["last_episode"]["lesson"]


def test_a_judge_and_a_tool_label_decide_before_the_rules(mem_engine):
    model = ScriptedChatModel(responses=["Done."], cycle=True)
    agent = create_agent(model, tools=[deploy], middleware=[HindsightMiddleware(
        mem_engine, judge=lambda episode: ("failure", "the user had to redo it"))])
    out = agent.invoke({"messages": [("user", "Rotate credentials")]}, context={"bank_id": "j"})
    assert out["last_episode"]["outcome"] == "failure" and out["last_episode"]["decided_by"] == "judge"


def test_with_memory_on_a_prebuilt_agent_is_provider_safe_and_keeps_history(mem_engine):
    from hindsight_lg import with_memory

    def leading_systems_only(messages: list[BaseMessage]) -> None:
        from langchain_anthropic.chat_models import _format_messages
        from langchain_openai.chat_models.base import _convert_message_to_dict

        kinds = [m.type for m in messages]
        n = len(kinds) - len([k for k in kinds if k != "system"])
        assert all(k == "system" for k in kinds[:n]) and "system" not in kinds[n:], kinds
        _format_messages(messages, model="claude-sonnet-4-5")  # raises on non-consecutive system messages
        [_convert_message_to_dict(m) for m in messages]

    model = ScriptedChatModel(responses=[_call("deploy_handled", "c1"), "I could not deploy.", "You asked to deploy."])
    inner = create_agent(model, tools=[deploy_handled], system_prompt="Ops agent.")
    graph = with_memory(inner, mem_engine, default_bank="ops", checkpointer=InMemorySaver())  # system_message: auto
    config = {"configurable": {"thread_id": "w1"}}
    out = graph.invoke({"messages": [("user", "Deploy billing to prod")]}, config)
    assert out["last_episode"]["outcome"] == "failure"  # inferred from the error ToolMessage, no label
    graph.invoke({"messages": [("user", "Deploy billing to prod, what went wrong?")]}, config)
    last = model.calls[-1]
    assert [m.type for m in last] == ["system", "system", "human", "ai", "tool", "ai", "human"]
    assert TICKET_ERROR in last[1].text
    for call in model.calls:
        leading_systems_only(call)


def test_summarization_that_fires_keeps_one_system_message_and_still_learns(mem_engine):
    model = ScriptedChatModel(responses=[_call("deploy_soft", "c1"), _call("deploy_soft", "c2"),
                                         "I could not deploy billing."])
    summarizer = ScriptedChatModel(responses=["The user wants billing deployed."], cycle=True)
    middleware = [HindsightMiddleware(mem_engine),
                  SummarizationMiddleware(model=summarizer, trigger=("messages", 4), keep=("messages", 2))]
    agent = create_agent(model, tools=[deploy_soft], system_prompt="Ops agent.", middleware=middleware,
                         checkpointer=InMemorySaver())
    out = agent.invoke({"messages": [("user", "Deploy billing to prod")]},
                       {"configurable": {"thread_id": "s1", "bank_id": "ops"}})
    assert summarizer.calls, "the summarizer ran"
    assert out["last_episode"]["outcome"] == "failure"
    for call in model.calls:
        _provider_safe(call)


async def test_async_tool_exception_propagates_and_is_learned(mem_engine):
    model = ScriptedChatModel(responses=[_call("deploy", "c1"), "Asking for a ticket first."])
    agent = create_agent(model, tools=[deploy], middleware=[HindsightMiddleware(mem_engine)])
    with pytest.raises(PermissionError, match=TICKET_ERROR):
        await agent.ainvoke({"messages": [("user", "Deploy billing to prod")]}, context={"bank_id": "ops"})
    await agent.ainvoke({"messages": [("user", "Deploy billing to production again")]}, context={"bank_id": "ops"})
    assert TICKET_ERROR in _lesson_in_first_call(model, 1)
