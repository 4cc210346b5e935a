"""Fakes for testing LlamaIndex agents with memory: a scripted LLM that records what it read.

``ScriptedLLM`` is LlamaIndex's ``MockFunctionCallingLLM`` with a script: each call returns the next
reply, a ``str`` (an answer, or ReAct-formatted text for a ``ReActAgent``) or a ``(tool, kwargs)``
pair (a tool call, for a ``FunctionAgent``). Every input is kept, so a test can assert what the
agent's LLM saw.

Example:
    >>> import asyncio
    >>> from llama_index.core.agent.workflow import FunctionAgent
    >>> from llama_index.core.tools import FunctionTool
    >>> def add(a: int, b: int) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> llm = ScriptedLLM([("add", {"a": 2, "b": 3}), "It is 5."])
    >>> agent = FunctionAgent(tools=[FunctionTool.from_defaults(add)], llm=llm)
    >>> async def ask():
    ...     return await agent.run(user_msg="2 + 3?")
    >>> str(asyncio.run(ask()))
    'It is 5.'
    >>> llm.seen(-1).splitlines()[-1]
    '5'
"""

from __future__ import annotations

from typing import Any, Sequence

from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.llms.mock import MockFunctionCallingLLM

__all__ = ["ScriptedLLM"]


class ScriptedLLM(MockFunctionCallingLLM):
    """A function-calling LLM that answers from a script and records every input.

    Args:
        replies: In order: a ``str`` answer or a ``(tool_name, kwargs)`` tool call.
        default: The reply once the script is used up.
    """

    _replies: list[Any] = PrivateAttr(default_factory=list)
    _inputs: list[list[ChatMessage]] = PrivateAttr(default_factory=list)
    _default: str = PrivateAttr(default="Done.")

    def __init__(self, replies: Sequence[Any] = (), *, default: str = "Done.", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._replies = list(replies)
        self._default = default
        self.response_generator = self._reply

    @classmethod
    def class_name(cls) -> str:
        return "ScriptedLLM"

    def _reply(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        self._inputs.append([m.model_copy(deep=True) for m in messages])
        reply = self._replies.pop(0) if self._replies else self._default
        if isinstance(reply, tuple):
            tool, args = reply
            return ChatMessage(role="assistant", blocks=[
                ToolCallBlock(tool_call_id=f"call-{len(self._inputs)}", tool_name=tool, tool_kwargs=dict(args))])
        return ChatMessage(role="assistant", content=str(reply))

    @property
    def inputs(self) -> list[list[ChatMessage]]:
        """The messages of every call, in order."""
        return self._inputs

    def seen(self, call: int = -1) -> str:
        """All the text the LLM read on one call."""
        return "\n".join(m.content or "" for m in self._inputs[call])

    def system(self, call: int = -1) -> str:
        """The text of the system messages of one call."""
        return "\n".join(m.content or "" for m in self._inputs[call] if m.role.value == "system")
