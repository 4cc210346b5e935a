"""From LangGraph messages to the core's episode trace and capture items (pure functions)."""

import json
from typing import Any, Iterable, Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from hindsight_core.episodes import Episode, StepKind, TraceStep
from hindsight_core.outcomes import is_request, step_kind
from hindsight_lg.state import AFTER

__all__ = ["MEMORY_MESSAGE_PREFIX", "episode_messages", "pin_start", "to_steps", "build_episode",
           "capture_items", "last_user_text", "messages_after", "called_tools", "proposed_tools"]

#: Id prefix of the system message the recall node injects (skipped by capture and reflect).
MEMORY_MESSAGE_PREFIX = "hindsight-memory-"
_MAX_TEXT = 20_000


def _text(message: BaseMessage) -> str:
    try:
        return (message.text or "").strip()
    except Exception:  # noqa: BLE001 - exotic content blocks: fall back to their repr
        return str(message.content).strip()


def _index(messages: Sequence[BaseMessage], message_id: str) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].id == message_id:
            return i
    return None


def _is_summary(message: BaseMessage) -> bool:
    """LangChain's SummarizationMiddleware writes its summary as a HumanMessage tagged like this."""
    return (message.additional_kwargs or {}).get("lc_source") == "summarization"


def _last_user(messages: Sequence[BaseMessage]) -> int | None:
    return next((i for i in range(len(messages) - 1, -1, -1)
                 if isinstance(messages[i], HumanMessage) and not _is_summary(messages[i])), None)


def episode_messages(messages: Sequence[BaseMessage], start: str | None) -> list[BaseMessage]:
    """The messages of the current episode. ``start`` is a message id or ``"after:<id>"``; None means
    the whole thread. A marker whose message was removed falls back to the last user turn, and to
    every message left when no user turn is left (a summarised thread)."""
    messages = list(messages or [])
    if not start:
        return messages
    after = start.startswith(AFTER)
    at = _index(messages, start[len(AFTER):] if after else start)
    if at is None:  # the marker was removed (e.g. summarised away): from the last user turn, else all
        at, after = _last_user(messages), False
        if at is None:
            return messages
    return messages[at + 1:] if after else messages[at:]


def messages_after(messages: Sequence[BaseMessage], message_id: str | None) -> list[BaseMessage] | None:
    """Messages after ``message_id``; None when the id is not there (anymore)."""
    if message_id is None:
        return None
    at = _index(list(messages or []), message_id)
    return None if at is None else list(messages[at + 1:])


def pin_start(messages: Sequence[BaseMessage], start: str | None) -> str | None:
    """Turn the marker into the id of the episode's first message (the recall node does this when
    an episode begins); the last user turn when no episode was marked yet."""
    if start and not start.startswith(AFTER) and _index(list(messages or []), start) is not None:
        return start
    if not start:
        at = _last_user(list(messages or []))
        return None if at is None else messages[at].id
    ours = [m for m in episode_messages(messages, start) if not _skipped(m)]
    return ours[0].id if ours else start


def _skipped(message: BaseMessage) -> bool:
    return (isinstance(message, SystemMessage) or (message.id or "").startswith(MEMORY_MESSAGE_PREFIX)
            or _is_summary(message))


def _call_text(call: dict[str, Any]) -> str:
    args = call.get("args") or {}
    try:
        rendered = ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in args.items())
    except AttributeError:
        rendered = str(args)
    return f"{call.get('name', 'tool')}({rendered})"


def to_steps(messages: Iterable[BaseMessage]) -> list[TraceStep]:
    """User turns, assistant answers, tool calls, tool results and tool errors, in order."""
    steps: list[TraceStep] = []
    for m in messages:
        if _skipped(m):
            continue
        text = _text(m)
        if isinstance(m, HumanMessage):
            if text:
                steps.append(TraceStep(kind="user", text=text))
        elif isinstance(m, AIMessage):
            if text:
                steps.append(TraceStep(kind="assistant", text=text))
            steps += [TraceStep(kind="tool_call", text=_call_text(c), tool=c.get("name")) for c in m.tool_calls]
        elif isinstance(m, ToolMessage):
            kind = step_kind(getattr(m, "status", None), text)
            steps.append(TraceStep(kind=kind, text=text or "(empty)", tool=m.name))
    return steps


def build_episode(messages: Sequence[BaseMessage], start: str | None, *, episode_id: str | None,
                  session_id: str | None, error: str | None = None) -> Episode:
    """The episode since ``start``; an error that ended the run becomes its last step."""
    steps = to_steps(episode_messages(messages, start))
    if error:
        steps.append(TraceStep(kind="tool_error", text=error))
    fields: dict[str, Any] = {"session_id": session_id}
    if episode_id:
        fields["id"] = episode_id
    return Episode.from_steps(steps, **fields)


def capture_items(messages: Iterable[BaseMessage], *, session_id: str | None,
                  episode_id: str | None) -> list[dict[str, Any]]:
    """``capture_many`` items for user/assistant/tool messages, tool calls and tool errors."""
    items: list[dict[str, Any]] = []

    def add(text: str, source: str, kind: str, role: str, m: BaseMessage, tool: str | None = None) -> None:
        meta: dict[str, Any] = {"role": role}
        if m.id:
            meta["message_id"] = m.id
        if tool:
            meta["tool"] = tool
        items.append({"text": text[:_MAX_TEXT], "source": source, "kind": kind, "session_id": session_id,
                      "episode_id": episode_id, "metadata": meta})

    for m in messages:
        if _skipped(m):
            continue
        text = _text(m)
        if isinstance(m, HumanMessage) and text:  # a task or question is what was asked, not a fact
            add(text, "user", "experience" if is_request(text) else "world", "user", m)
        elif isinstance(m, AIMessage):
            if text:
                add(text, "agent", "experience", "assistant", m)
            for call in m.tool_calls:
                add(f"Called {_call_text(call)}", "agent", "experience", "tool_call", m, call.get("name"))
        elif isinstance(m, ToolMessage) and text:
            if step_kind(getattr(m, "status", None), text) is StepKind.TOOL_ERROR:
                add(f"Tool {m.name or 'call'} failed: {text}", "tool", "experience", "tool_error", m, m.name)
            else:
                add(text, "tool", "world", "tool_result", m, m.name)
    return items


def last_user_text(messages: Sequence[BaseMessage]) -> str:
    at = _last_user(list(messages or []))
    return "" if at is None else _text(messages[at])


def called_tools(messages: Iterable[BaseMessage]) -> list[str]:
    """Names of the tools the AI messages among ``messages`` called, first call first, each once."""
    names = [call.get("name") for m in messages if isinstance(m, AIMessage) for call in (m.tool_calls or [])]
    return list(dict.fromkeys(n for n in names if isinstance(n, str) and n))


def proposed_tools(response: Any) -> list[str]:
    """Names of the tools a model call's answer calls: a ``ModelResponse``, an ``ExtendedModelResponse``
    or an ``AIMessage`` (what a ``wrap_model_call`` handler may return)."""
    inner = getattr(response, "model_response", response)
    messages = getattr(inner, "result", None)
    return called_tools(messages if isinstance(messages, list) else [inner])
