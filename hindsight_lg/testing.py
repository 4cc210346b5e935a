"""A scripted chat model for tests and notebooks: replays answers, tool calls included.

LangChain's fake chat models have no ``bind_tools``, so agents built on them cannot call tools.
:class:`ScriptedChatModel` replays ``AIMessage``s (with ``tool_calls``), plain strings, or
functions of the input messages, records every input in ``calls``, and ``bind_tools`` returns
the model itself. ``with_structured_output(Model)`` parses the scripted answer (tool call args, or
the text as JSON), so ``LLMReflector(ScriptedChatModel(...))`` works in tests.

Example:
    >>> from langchain_core.messages import AIMessage
    >>> model = ScriptedChatModel(responses=[
    ...     AIMessage("", tool_calls=[{"name": "deploy", "args": {"env": "prod"}, "id": "c1"}]),
    ...     lambda messages: "ticket!" if "ticket" in str(messages[-1].content) else "done",
    ... ])
    >>> model.bind_tools([]).invoke("deploy billing").tool_calls[0]["name"]
    'deploy'
    >>> model.invoke("you need a ticket").content
    'ticket!'
    >>> len(model.calls)
    2
"""

import json
import re
import threading
from typing import Any, Callable, Sequence, Union

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import ConfigDict, Field, PrivateAttr

__all__ = ["ScriptedChatModel"]

Script = Union[AIMessage, str, Callable[[list[BaseMessage]], Union[AIMessage, str]]]


def _json_body(text: str) -> str:
    return re.sub(r"^```(?:json)?|```$", "", text.strip(), flags=re.M).strip()


class ScriptedChatModel(BaseChatModel):
    """Answers with ``responses`` in turn; ``cycle=True`` starts over when they run out."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    responses: list[Any] = Field(description="AIMessage, str, or fn(messages) -> AIMessage | str, in turn.")
    cycle: bool = False
    calls: list[list[BaseMessage]] = Field(default_factory=list, description="Every input, in order.")
    _next: int = PrivateAttr(0)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "ScriptedChatModel":  # type: ignore[override]
        """Tools are accepted and ignored: the script decides which tool calls are made."""
        return self

    def with_structured_output(  # type: ignore[override]
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable:
        """Parse each scripted answer as ``schema``: the first tool call's args, else the text as JSON."""

        def parse(message: AIMessage) -> Any:
            data = message.tool_calls[0]["args"] if message.tool_calls else json.loads(_json_body(message.text))
            parsed = schema.model_validate(data) if hasattr(schema, "model_validate") else data
            return {"raw": message, "parsed": parsed, "parsing_error": None} if include_raw else parsed

        return self | RunnableLambda(parse)

    def prompts(self) -> list[str]:
        """Each recorded input as one text (handy in assertions)."""
        return ["\n".join(str(m.content) for m in call) for call in self.calls]

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        with self._lock:
            self.calls.append(list(messages))
            if self._next >= len(self.responses):
                if not (self.cycle and self.responses):
                    raise IndexError(f"ScriptedChatModel ran out of its {len(self.responses)} responses; "
                                     "add more or pass cycle=True")
                self._next = 0
            script = self.responses[self._next]
            self._next += 1
        answer = script(list(messages)) if callable(script) else script
        message = AIMessage(answer) if isinstance(answer, str) else answer.model_copy()
        return ChatResult(generations=[ChatGeneration(message=message)])
