"""HindsightMemory driven by real LlamaIndex agents (FunctionAgent, ReActAgent, AgentWorkflow).

The LLMs are scripted (``hindsight_llamaindex.testing.ScriptedLLM``, a ``MockFunctionCallingLLM``
whose ``response_generator`` returns the next reply of a script and records every input), so the
tests read what the agent's LLM saw.
"""

from __future__ import annotations

import pytest
from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent, ReActAgent
from llama_index.core.tools import FunctionTool

from hindsight_llamaindex import HindsightMemory, run_with_memory
from hindsight_llamaindex.testing import ScriptedLLM


def deploy(service: str, env: str) -> str:
    """Deploy a service to an environment."""
    raise PermissionError("a change ticket is required for prod deploys")


def shows(unit, text: str) -> bool:
    """Whether a recalled unit is in prompt text (rendering may indent its continuation lines)."""
    return all(line.strip() in text for line in unit.text.splitlines())


def memory(engine, bank="alice", session="s1", **kw) -> HindsightMemory:
    return HindsightMemory.from_engine(engine, bank_id=bank, session_id=session, **kw)


# ---- FunctionAgent --------------------------------------------------------------------------------
async def test_function_agent_recalls_a_fact_from_another_session_and_not_from_another_bank(engine):
    script = ScriptedLLM(["Noted.", "Staging is db-staging-2.", "I don't know."])
    agent = FunctionAgent(tools=[], llm=script, system_prompt="You are an ops assistant.")

    monday = memory(engine, session="monday")
    await agent.run(user_msg="Remember: the staging database is db-staging-2.", memory=monday)
    assert "db-staging-2" not in script.system(0)  # nothing to recall yet

    tuesday = memory(engine, session="tuesday")
    await agent.run(user_msg="Which database is staging?", memory=tuesday)
    assert "db-staging-2" in script.system(1)  # recalled into a system message the LLM reads
    assert [m.content for m in await tuesday.aget_all()] == ["Which database is staging?", "Staging is db-staging-2."]

    bob = memory(engine, bank="bob", session="tuesday")
    await agent.run(user_msg="Which database is staging?", memory=bob)
    assert "db-staging-2" not in script.seen(2)


async def test_function_agent_tool_failure_becomes_a_lesson_recalled_before_the_next_run(engine):
    tools = [FunctionTool.from_defaults(deploy)]
    first = ScriptedLLM([("deploy", {"service": "billing", "env": "prod"}), "I could not deploy billing."])
    run = await run_with_memory(FunctionAgent(tools=tools, llm=first), "Deploy the billing service to prod",
                                memory(engine, bank="ops", session="monday"))
    assert run.outcome == "failure" and "deploy failed" in run.feedback
    assert [s.kind.value for s in run.trace.steps] == ["user", "tool_call", "tool_error", "assistant"]
    lesson = run.episode.lesson
    assert lesson is not None and "change ticket" in lesson.text

    second = ScriptedLLM(["I will open a change ticket first."])
    await FunctionAgent(tools=tools, llm=second).run(user_msg="Please deploy billing to production",
                                                          memory=memory(engine, bank="ops", session="tuesday"))
    assert shows(lesson, second.system(0))  # on the very first LLM call of the next run


async def test_recovered_tool_error_is_a_success_and_a_judge_overrides(engine):
    calls = []

    def lookup(city: str) -> str:
        """Weather lookup."""
        calls.append(city)
        if len(calls) == 1:
            raise ValueError("unknown city code")
        return "21C"

    tools = [FunctionTool.from_defaults(lookup)]
    script = ScriptedLLM([("lookup", {"city": "PAR"}), ("lookup", {"city": "Paris"}), "It is 21C in Paris."])
    run = await run_with_memory(FunctionAgent(tools=tools, llm=script), "Weather in Paris?", memory(engine))
    assert run.outcome == "success" and len(run.tool_errors) == 1 and run.response == "It is 21C in Paris."

    calls.clear()
    script = ScriptedLLM([("lookup", {"city": "Paris"}), "It is 21C in Paris."])

    def judge(run):  # None: no opinion, use the rules
        return None if "°F" in run.response else ("failure", "The user asked for Fahrenheit.")

    run = await run_with_memory(FunctionAgent(tools=tools, llm=script), "Weather in Paris in Fahrenheit?",
                                memory(engine, session="s2"), judge=judge)
    assert run.outcome == "failure" and "Fahrenheit" in run.episode.lesson.text


async def test_max_iterations_is_a_failure_with_the_calls_kept(engine):
    script = ScriptedLLM([("deploy", {"service": "billing", "env": "prod"})] * 5)
    mem = memory(engine, bank="ops")
    run = await run_with_memory(FunctionAgent(tools=[FunctionTool.from_defaults(deploy)], llm=script),
                                "Deploy billing", mem, raise_on_error=False, max_iterations=3)
    assert run.outcome == "failure" and "iteration limit (3)" in run.feedback
    assert "tool error (deploy)" in run.episode.experience.text  # the scratchpad was never flushed
    with pytest.raises(Exception, match="Max iterations"):
        await run_with_memory(FunctionAgent(tools=[FunctionTool.from_defaults(deploy)], llm=ScriptedLLM(
            [("deploy", {"service": "b", "env": "prod"})] * 5)), "Deploy b", mem, max_iterations=2)
    assert mem.current_episode() is None  # ended before re-raising


async def test_agent_workflow_shares_the_memory(engine):
    script = ScriptedLLM(["Noted.", "Your deploy window is Tuesday 10:00."])
    ops = FunctionAgent(name="ops", description="Operations helper.", tools=[], llm=script)
    await AgentWorkflow(agents=[ops]).run(user_msg="Our deploy window is Tuesday at 10:00.",
                                          memory=memory(engine, session="a"))
    await AgentWorkflow(agents=[ops]).run(user_msg="When is the deploy window?", memory=memory(engine, session="b"))
    assert "Tuesday at 10:00" in script.system(1)


# ---- ReActAgent -----------------------------------------------------------------------------------
async def test_react_agent_recalls_across_sessions(engine):
    script = ScriptedLLM(["Thought: The user told me a fact.\nAnswer: Noted, Bluebird.",
                          "Thought: I recall it.\nAnswer: Bluebird.",
                          "Thought: I recall it.\nAnswer: Bluebird."])
    agent = ReActAgent(tools=[], llm=script, system_prompt="You are a helpful assistant.")
    first = memory(engine, session="r1")
    await agent.run(user_msg="My project codename is Bluebird.", memory=first)
    # the reasoning trace is reduced: the answer is captured, the thoughts are not
    texts = [u.text for u in engine.bank("alice").units()]
    assert "Noted, Bluebird." in texts and not any("Thought:" in t for t in texts)

    await agent.run(user_msg="What is my project codename?", memory=memory(engine, session="r2"))
    assert "Bluebird" in script.seen(1)

    # A ReActAgent without a system prompt drops a leading system message; run_with_memory
    # puts the recalled context into the user message for it instead.
    bare = ReActAgent(tools=[], llm=script)
    await run_with_memory(bare, "What is my project codename?", memory(engine, session="r3"))
    assert "Bluebird" in script.seen(2)


async def test_memory_reaches_every_agent_type_with_or_without_a_prompt(engine):
    # Changed on purpose (issue 13): insert_method="auto" (the default) notices a ReActAgent without
    # a system prompt, which drops a leading system message, and hands it the memory in the user turn.
    engine.bank("alice").capture("My project codename is Bluebird.", source="user")
    react_reply = "Thought: ok.\nAnswer: Bluebird."
    cases = [("react, no prompt", lambda llm: ReActAgent(tools=[], llm=llm), react_reply),
             ("react, prompt", lambda llm: ReActAgent(tools=[], llm=llm, system_prompt="Be brief."), react_reply),
             ("function, no prompt", lambda llm: FunctionAgent(tools=[], llm=llm), "Bluebird."),
             ("function, prompt", lambda llm: FunctionAgent(tools=[], llm=llm, system_prompt="Be brief."), "Bluebird."),
             ("workflow of react", lambda llm: AgentWorkflow(agents=[ReActAgent(name="r", description="d", tools=[],
                                                                                    llm=llm)]), react_reply)]
    for n, (label, build, reply) in enumerate(cases):
        script = ScriptedLLM([reply])
        await build(script).run(user_msg="What is my project codename?", memory=memory(engine, session=f"s{n}"))
        assert "Bluebird" in script.seen(0), label
    trap = ScriptedLLM([react_reply])  # forcing a system message shows the trap auto avoids
    await ReActAgent(tools=[], llm=trap).run(user_msg="What is my project codename?",
                                            memory=memory(engine, session="x", insert_method="system"))
    assert "Bluebird" not in trap.seen(0)


async def test_react_tool_failure_becomes_a_lesson(engine):
    tools = [FunctionTool.from_defaults(deploy)]
    script = ScriptedLLM(["Thought: I will deploy.\nAction: deploy\n"
                          'Action Input: {"service": "billing", "env": "prod"}',
                          "Thought: It failed.\nAnswer: I could not deploy billing.",
                          "Thought: I must get a ticket first.\nAnswer: I will ask for a change ticket."])
    agent = ReActAgent(tools=tools, llm=script, system_prompt="You deploy services.")
    run = await run_with_memory(agent, "Deploy the billing service to prod", memory(engine, bank="ops"))
    assert run.outcome == "failure"
    assert [s.kind.value for s in run.trace.steps] == ["user", "tool_call", "tool_error", "assistant"]
    assert not any("Thought" in s.text for s in run.trace.steps)

    await agent.run(user_msg="Deploy billing to production", memory=memory(engine, bank="ops", session="s2"))
    assert shows(run.episode.lesson, script.seen(2))


async def test_forced_answer_at_the_iteration_limit_is_partial(engine):
    def ping() -> str:
        """Check the service."""
        return "pong"

    script = ScriptedLLM([("ping", {}), ("ping", {}), "The service answers; I could not finish the check."])
    run = await run_with_memory(FunctionAgent(tools=[FunctionTool.from_defaults(ping)], llm=script),
                                "Check the service thoroughly", memory(engine), max_iterations=2,
                                early_stopping_method="generate")
    assert run.outcome == "partial" and run.stopped_early and run.episode.lesson is not None


async def test_a_context_holding_another_memory_is_refused(engine):
    from llama_index.core.workflow import Context

    from hindsight_core import InvalidInputError

    agent = FunctionAgent(tools=[], llm=ScriptedLLM(["Hi."]))
    ctx = Context(agent)
    await agent.run(user_msg="Hello", memory=memory(engine, session="a"), ctx=ctx)
    with pytest.raises(InvalidInputError, match="fresh Context"):
        await run_with_memory(agent, "Hello again", memory(engine, session="b"), ctx=ctx)


async def test_a_react_run_that_only_answered_is_no_success_recipe(engine):
    script = ScriptedLLM(["Thought: I can answer.\nAnswer: done"])
    mem = memory(engine, bank="ops", session="r1")
    run = await run_with_memory(ReActAgent(tools=[FunctionTool.from_defaults(deploy)], llm=script),
                                "Deploy billing to prod", mem)
    assert run.outcome == "unknown" and run.episode.lesson is None
    bank = engine.bank("ops")
    assert not list(bank.units(kind="observation")) and not list(bank.units(kind="skill"))
    assert "worked" not in bank.recall_context("Deploy billing to prod").text
    asked = [u for u in bank.units() if u.text == "Deploy billing to prod"]
    assert [u.kind.value for u in asked] == ["experience"]  # the request is what was asked, not a fact
