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
    model = ScriptedChatModel(responses=[
        AIMessage("", tool_calls=[{"name": "deploy_service", "args": {"service": "api"}, "id": "c1"}]),
        "I will ask for a change ticket first.", "Here is my answer."])
    with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
        agent = create_agent(model, tools=[deploy_service], middleware=[HindsightMiddleware(engine)])
        with pytest.raises(PermissionError):
            agent.invoke({"messages": [("user", "Deploy the api service to production")]}, context={"bank_id": "ops"})
        agent.invoke({"messages": [("user", "Push the hotfix live")]}, context={"bank_id": "ops"})
        first_call = model.calls[1]
        assert first_call[0].type == "system" and "CHG-1042" in first_call[0].text
        agent.invoke({"messages": [("user", "What is the capital of Peru?")]}, context={"bank_id": "ops"})
        assert "CHG-1042" not in (model.calls[2][0].text if model.calls[2][0].type == "system" else "")
