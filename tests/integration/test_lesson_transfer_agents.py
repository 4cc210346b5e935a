"""A create_agent agent gets the lesson of a failed tool call when the task comes back in other words."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain.agents", reason="pip install 'hindsight-memory[langgraph]' (needs langchain)")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

from hindsight_core import MemoryEngine  # noqa: E402
from hindsight_core.testing import HashEmbedder  # noqa: E402
from hindsight_lg import HindsightMiddleware  # noqa: E402
from hindsight_lg.testing import ScriptedChatModel  # noqa: E402


@tool
def deploy_service(service: str) -> str:
    """Deploy a service to production."""
    raise PermissionError("deploy_service requires a change ticket (ticket=CHG-1042)")


def test_a_paraphrase_that_shares_no_word_gets_the_lesson_before_its_first_model_call():
    """Without the second look, the plan's context carries the lesson (matched by task signature)."""
    model = ScriptedChatModel(responses=[
        AIMessage("", tool_calls=[{"name": "deploy_service", "args": {"service": "api"}, "id": "c1"}]),
        "I will ask for a change ticket first.", "Here is my answer."])
    with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
        agent = create_agent(model, tools=[deploy_service],
                             middleware=[HindsightMiddleware(engine, check_tool_calls=False)])
        with pytest.raises(PermissionError):
            agent.invoke({"messages": [("user", "Deploy the api service to production")]}, context={"bank_id": "ops"})
        agent.invoke({"messages": [("user", "Push the hotfix live")]}, context={"bank_id": "ops"})
        first_call = model.calls[1]
        assert first_call[0].type == "system" and "CHG-1042" in first_call[0].text
        agent.invoke({"messages": [("user", "What is the capital of Peru?")]}, context={"bank_id": "ops"})
        assert "CHG-1042" not in (model.calls[2][0].text if model.calls[2][0].type == "system" else "")


def test_with_the_second_look_the_lesson_arrives_when_the_tool_is_proposed():
    """By default the plan's context is precise (the paraphrase is too far for it); the lesson comes with
    the proposed call of the tool that failed, and the model answers again with it."""
    call = AIMessage("", tool_calls=[{"name": "deploy_service", "args": {"service": "api"}, "id": "c1"}])
    model = ScriptedChatModel(responses=[call, call, "I will ask for a change ticket first.", "Lima."])
    with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
        agent = create_agent(model, tools=[deploy_service], middleware=[HindsightMiddleware(engine)])
        with pytest.raises(PermissionError):
            agent.invoke({"messages": [("user", "Deploy the api service to production")]}, context={"bank_id": "ops"})
        agent.invoke({"messages": [("user", "Push the hotfix live")]}, context={"bank_id": "ops"})
        plan, second_look = model.calls[1], model.calls[2]
        assert "CHG-1042" not in (plan[0].text if plan[0].type == "system" else "")
        assert second_look[0].type == "system" and "CHG-1042" in second_look[0].text
        agent.invoke({"messages": [("user", "What is the capital of Peru?")]}, context={"bank_id": "ops"})
        assert len(model.calls) == 4 and "CHG-1042" not in (model.calls[3][0].text if model.calls[3][0].type == "system" else "")
