"""``checked_tools``: a second look before a LlamaIndex agent calls a tool that failed before.

A LlamaIndex memory is read before the LLM is called, never between its answer and the tool, so
the check sits in the tools themselves. The first call of a tool in an episode, when the bank holds
lessons from failed calls of it that the recalled context did not show, does not run: it answers
with those lessons and asks for the call again, changed if one applies. The next call runs. Lessons
are found by the tool's name (:func:`hindsight_core.tool_lessons.tool_lessons`), so they arrive even
when the request's words missed them; ``HindsightMiddleware`` does the same for LangChain agents.

Example:
    >>> import asyncio
    >>> from llama_index.core.agent.workflow import FunctionAgent
    >>> from llama_index.core.tools import FunctionTool
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.episodes import Episode, TraceStep
    >>> from hindsight_core.testing import HashEmbedder
    >>> from hindsight_llamaindex import HindsightMemory, checked_tools
    >>> from hindsight_llamaindex.testing import ScriptedLLM
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> _ = engine.bank("ops").end_episode(Episode.from_steps([
    ...     TraceStep(kind="user", text="Deploy billing to production"),
    ...     TraceStep(kind="tool_error", text="deploys need a change ticket", tool="deploy")]), "failure")
    >>> def deploy(ticket: str = "") -> str:
    ...     '''Deploy to production.'''
    ...     return f"deployed under {ticket!r}"
    >>> memory = HindsightMemory.from_engine(engine, bank_id="ops", session_id="s1")
    >>> llm = ScriptedLLM([("deploy", {}), ("deploy", {"ticket": "CHG-7"}), "Done."])
    >>> agent = FunctionAgent(tools=checked_tools([FunctionTool.from_defaults(deploy)], memory), llm=llm)
    >>> async def ship():
    ...     return await agent.run(user_msg="Ship it", memory=memory)
    >>> _ = asyncio.run(ship())
    >>> "change ticket" in llm.seen(1), llm.seen(2).splitlines()[-1]
    (True, "deployed under 'CHG-7'")
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Iterable, Union

from llama_index.core.tools import BaseTool, FunctionTool, ToolMetadata, ToolOutput
from llama_index.core.tools.types import AsyncBaseTool, adapt_to_async_tool

from hindsight_core import InvalidInputError

if TYPE_CHECKING:
    from hindsight_llamaindex.memory import HindsightMemory

__all__ = ["checked_tools", "CheckedTool"]

_KEPT = 1_000  # (episode, tool) pairs remembered as checked


class _Checker:
    """What one memory's tools have checked in its open episode."""

    def __init__(self, memory: "HindsightMemory", k: int) -> None:
        self.memory, self.k = memory, k
        self._checked: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._lock = threading.Lock()

    def _first(self, tool: str) -> bool:
        """True the first time ``tool`` is called in the open episode (and marks it)."""
        key = (self.memory.episode_id, tool)
        with self._lock:
            if key in self._checked:
                return False
            self._checked[key] = None
            while len(self._checked) > _KEPT:
                self._checked.popitem(last=False)
            return True

    @staticmethod
    def _held(tool: str, kwargs: dict[str, Any], notes: Any) -> ToolOutput | None:
        if not notes:
            return None
        text = f"{notes.text}\n\n{tool} was not run yet: call it again, changed if one of these lessons applies."
        return ToolOutput(tool_name=tool, content=text, raw_input=dict(kwargs), raw_output=text)

    def hold(self, tool: str, kwargs: dict[str, Any]) -> ToolOutput | None:
        if not self._first(tool):
            return None
        notes = self.memory.bank.tool_lessons([tool], k=self.k, shown=self.memory.recalled_text,
                                              query=self.memory.recalled_for or None)
        return self._held(tool, kwargs, notes)

    async def ahold(self, tool: str, kwargs: dict[str, Any]) -> ToolOutput | None:
        if not self._first(tool):
            return None
        notes = await self.memory.bank.atool_lessons([tool], k=self.k, shown=self.memory.recalled_text,
                                                     query=self.memory.recalled_for or None)
        return self._held(tool, kwargs, notes)


class CheckedTool(AsyncBaseTool):
    """A tool whose first call in an episode may answer with lessons instead of running (see the module)."""

    def __init__(self, tool: BaseTool, checker: _Checker) -> None:
        self.tool = adapt_to_async_tool(tool)
        self._checker = checker

    @property
    def metadata(self) -> ToolMetadata:
        return self.tool.metadata

    def call(self, *args: Any, **kwargs: Any) -> ToolOutput:
        held = self._checker.hold(self.metadata.name or "", kwargs)
        return held if held is not None else self.tool.call(*args, **kwargs)

    async def acall(self, *args: Any, **kwargs: Any) -> ToolOutput:
        held = await self._checker.ahold(self.metadata.name or "", kwargs)
        return held if held is not None else await self.tool.acall(*args, **kwargs)


def checked_tools(tools: Iterable[Union[BaseTool, Callable[..., Any]]], memory: "HindsightMemory", *,
                  k: int = 3) -> list[CheckedTool]:
    """``tools`` (LlamaIndex tools, or plain functions made into ``FunctionTool``) with a second look
    before the first call of each in an episode of ``memory`` (see the module docstring). The memory's
    recall then matches lessons with the stricter bars of ``LessonMatch.precise()``
    (``memory.lesson_match = "precise"``), as ``HindsightMiddleware`` does: the check brings the rest.

    Args:
        tools: The agent's tools.
        memory: The :class:`~hindsight_llamaindex.HindsightMemory` the agent runs with.
        k: Lessons at most per second look.
    """
    from hindsight_llamaindex.memory import HindsightMemory

    if not isinstance(memory, HindsightMemory):
        raise InvalidInputError(f"memory must be a HindsightMemory, not {type(memory).__name__}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInputError(f"k must be an int >= 1, not {k!r}")
    memory.lesson_match = "precise"  # the recalled context needs only close lessons: this check brings the rest
    checker = _Checker(memory, k)
    out: list[CheckedTool] = []
    for tool in tools:
        if not isinstance(tool, BaseTool):
            if not callable(tool):
                raise InvalidInputError(f"tools must be LlamaIndex tools or functions, not {type(tool).__name__}")
            tool = FunctionTool.from_defaults(tool)
        out.append(CheckedTool(tool, checker))
    return out
