"""Pure helpers that read LlamaIndex ``ChatMessage`` objects: text, identity, and trace steps.

A FunctionAgent writes tool calls as ``ToolCallBlock`` blocks (or, for some integrations,
``additional_kwargs["tool_calls"]``) and tool results as ``role="tool"`` messages carrying a
``tool_call_id``. A ReActAgent writes one assistant message holding the whole reasoning
(``Thought:`` / ``Action:`` / ``Action Input:`` / ``Observation:`` / ``Answer:``); it is reduced to
the tool calls, their observations and the final answer (thoughts are dropped).

Example:
    >>> from llama_index.core.llms import ChatMessage
    >>> react = ChatMessage(role="assistant", content=(
    ...     "Thought: I need the port.\\nAction: lookup\\nAction Input: {'service': 'billing'}\\n"
    ...     "Observation: 9090\\nThought: I know it.\\nAnswer: Billing uses port 9090."))
    >>> [(s.kind, s.text) for s in message_steps(react)]
    [('tool_call', "lookup({'service': 'billing'})"), ('tool_result', '9090'), ('assistant', 'Billing uses port 9090.')]
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from llama_index.core.base.llms.types import ChatMessage, TextBlock, ToolCallBlock

__all__ = ["Step", "message_text", "fingerprint", "message_steps", "last_user_text", "final_answer"]

_REACT_LINE = re.compile(r"^(Thought|Action Input|Action|Observation|Answer(?: \(Starts With\))?):\s?", re.M)


@dataclass(slots=True)
class Step:
    """One trace step before it becomes a core ``TraceStep`` (errors may be learned later)."""

    kind: str  # user | assistant | tool_call | tool_result | tool_error | note
    text: str
    tool: str | None = None
    call_id: str | None = None


def _role(message: ChatMessage) -> str:
    role = message.role
    return getattr(role, "value", str(role))


def message_text(message: ChatMessage) -> str:
    """The text blocks of a message, joined (images, tool-call blocks and the like are skipped)."""
    parts = [b.text for b in message.blocks if isinstance(b, TextBlock) and b.text]
    return "\n".join(parts).strip()


def _tool_calls(message: ChatMessage) -> list[tuple[str, Any, str | None]]:
    """``(name, kwargs, call_id)`` of each tool call a message asks for."""
    calls = [(b.tool_name, b.tool_kwargs, b.tool_call_id) for b in message.blocks if isinstance(b, ToolCallBlock)]
    for raw in message.additional_kwargs.get("tool_calls") or ():  # OpenAI-style integrations
        fn = _get(raw, "function")
        name = _get(fn, "name") if fn is not None else _get(raw, "tool_name")
        args = _get(fn, "arguments") if fn is not None else _get(raw, "tool_kwargs")
        call_id = _get(raw, "id") or _get(raw, "tool_id") or _get(raw, "tool_call_id")
        if name:
            calls.append((str(name), args, call_id))
    return calls


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _args(kwargs: Any) -> str:
    if isinstance(kwargs, str):
        return kwargs
    try:
        return json.dumps(kwargs, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(kwargs)


def fingerprint(message: ChatMessage) -> str:
    """A stable id for a message: role, text and tool calls (so a re-put copy is recognised)."""
    calls = [(n, _args(k), i) for n, k, i in _tool_calls(message)]
    key = json.dumps([_role(message), message_text(message), calls,
                      message.additional_kwargs.get("tool_call_id")], default=str)
    return hashlib.blake2b(key.encode(), digest_size=16).hexdigest()


def _react_sections(text: str) -> list[tuple[str, str]]:
    marks = list(_REACT_LINE.finditer(text))
    return [(m.group(1), text[m.end():marks[i + 1].start() if i + 1 < len(marks) else len(text)].strip())
            for i, m in enumerate(marks)]


def _is_react(text: str) -> bool:
    return bool(re.search(r"^(Action|Answer|Observation):", text, re.M)) and text.lstrip().startswith(
        ("Thought:", "Action:", "Answer:", "Observation:"))


def final_answer(message: ChatMessage) -> str:
    """What an assistant message tells the user: the ``Answer:`` of a ReAct trace, else its text."""
    text = message_text(message)
    if _is_react(text):
        answers = [body for label, body in _react_sections(text) if label.startswith("Answer")]
        return answers[-1] if answers else ""
    return "" if _tool_calls(message) else text


def message_steps(message: ChatMessage, tool_names: dict[str, str] | None = None) -> list[Step]:
    """The trace steps a message contributes.

    Args:
        message: A message an agent put into memory.
        tool_names: ``call_id -> tool name`` of earlier tool calls (filled in as calls are seen), so a
            tool result can name its tool.
    """
    names = tool_names if tool_names is not None else {}
    role = _role(message)
    text = message_text(message)
    if role == "user":
        return [Step("user", text)] if text else []
    if role == "tool":
        call_id = message.additional_kwargs.get("tool_call_id")
        name = names.get(call_id) if call_id else None
        name = name or message.additional_kwargs.get("name") or message.additional_kwargs.get("tool_name")
        return [Step("tool_result", text or "(empty result)", tool=name, call_id=call_id)]
    if role not in ("assistant", "chatbot", "model"):
        return []  # system and developer messages are instructions, not the trace
    steps: list[Step] = []
    for name, kwargs, call_id in _tool_calls(message):
        if call_id:
            names[call_id] = name
        steps.append(Step("tool_call", f"{name}({_args(kwargs)})", tool=name, call_id=call_id))
    if steps:
        return steps  # text beside tool calls is the model thinking aloud, not an answer
    if _is_react(text):
        return _react_steps(text)
    return [Step("assistant", text)] if text else []


def _react_steps(text: str) -> list[Step]:
    steps: list[Step] = []
    action: str | None = None
    for label, body in _react_sections(text):
        if label == "Action":
            action = body.splitlines()[0].strip() if body else None
        elif label == "Action Input" and action:
            steps.append(Step("tool_call", f"{action}({body})", tool=action))
        elif label == "Observation":
            steps.append(Step("tool_result", body or "(empty result)", tool=action))
        elif label.startswith("Answer"):
            steps.append(Step("assistant", body))
    return steps


def last_user_text(messages: Sequence[ChatMessage]) -> str:
    """The text of the latest user message, or ``""``."""
    for message in reversed(messages):
        if _role(message) == "user":
            text = message_text(message)
            if text:
                return text
    return ""

