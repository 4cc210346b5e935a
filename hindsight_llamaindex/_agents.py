"""Which LlamaIndex agent is asking the memory, for the one case where it changes the prompt.

A ``ReActAgent`` without a ``system_prompt`` drops the first system message of its input (it
expects that message to be its own prompt, already in its formatter). The memory cannot be told
which agent it serves (``agent.run(memory=...)`` passes no agent), so it looks at the caller: the
agent step that awaits ``memory.aget()`` is a few frames up the stack.
"""

from __future__ import annotations

import inspect
from typing import Any

from llama_index.core.agent.workflow import AgentWorkflow, BaseWorkflowAgent, ReActAgent

__all__ = ["drops_leading_system_message", "react_without_prompt"]

_FRAMES = 12  # aget -> the agent step awaiting it is within a few frames; stop well before the event loop


def react_without_prompt(agent: Any) -> bool:
    """Whether ``agent`` (or a member of an ``AgentWorkflow``) is a ReActAgent with no system prompt."""
    members = getattr(agent, "agents", None)  # AgentWorkflow: name -> agent
    agents = list(members.values()) if isinstance(members, dict) else [agent]
    return any(isinstance(a, ReActAgent) and not a.system_prompt for a in agents)


def drops_leading_system_message() -> bool:
    """Whether the agent step calling the memory right now would drop a leading system message."""
    frame = inspect.currentframe()
    try:
        for _ in range(_FRAMES):
            frame = frame.f_back if frame is not None else None
            if frame is None:
                return False
            caller = frame.f_locals.get("self")
            if isinstance(caller, (BaseWorkflowAgent, AgentWorkflow)):
                return react_without_prompt(caller)
        return False
    finally:
        del frame
