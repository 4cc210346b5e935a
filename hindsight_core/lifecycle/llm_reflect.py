"""Reflection with a language model: any LangChain chat model, or a LlamaIndex LLM.

Structured output is used when the model supports it; otherwise the JSON answer is parsed and
repaired (code fences, trailing commas, single quotes), and asked for again when it cannot be.
A lesson that names a proper noun or a number absent from the trace is rejected and asked for
again. When every attempt fails, :class:`~hindsight_core.errors.LLMError` is raised: a failed
reflection is never silently stored as "nothing learned".

Example:
    >>> from hindsight_core.testing import scripted_chat_model
    >>> from hindsight_core.episodes import Episode, TraceStep
    >>> model = scripted_chat_model(['{"cause": "no retry", "lesson": "When the API times out, retry once first.",'
    ...                              ' "trigger": "API timeouts", "confidence": 0.7}'])
    >>> ep = Episode.from_steps([TraceStep(kind="user", text="Fetch the report"),
    ...                          TraceStep(kind="tool_error", text="the API timed out", tool="fetch")])
    >>> LLMReflector(model).reflect(ep, "failure").lesson
    'When the API times out, retry once first.'
"""

from __future__ import annotations

import json
import logging
from typing import Any, Callable

from pydantic import ValidationError

from hindsight_core.episodes import Episode, Reflection, ReflectionDraft
from hindsight_core.errors import LLMError
from hindsight_core.lifecycle._llm import not_written, parse_json_object
from hindsight_core.lifecycle.reflect import ungrounded_terms
from hindsight_core.models import Outcome
from hindsight_core.prompts import reflect as reflect_prompt

__all__ = ["LLMReflector", "parse_json_object"]

log = logging.getLogger("hindsight.reflect")

PromptFn = Callable[[Episode, Outcome, "str | None"], list[tuple[str, str]]]


def _ask(model: Any, messages: list[tuple[str, str]], structured: bool) -> ReflectionDraft:
    if hasattr(model, "invoke"):  # LangChain chat model
        if structured and hasattr(model, "with_structured_output"):
            try:
                out = model.with_structured_output(ReflectionDraft).invoke(messages)
                return out if isinstance(out, ReflectionDraft) else ReflectionDraft.model_validate(out)
            except (NotImplementedError, AttributeError, TypeError):
                pass  # no tool calling: fall back to parsing the text answer
        reply = model.invoke(messages)
        text = getattr(reply, "content", reply)
    elif hasattr(model, "complete"):  # LlamaIndex LLM
        prompt = "\n\n".join(content for _, content in messages)
        text = model.complete(prompt).text
    else:
        raise LLMError(f"{type(model).__name__} is neither a LangChain chat model nor a LlamaIndex LLM")
    if not isinstance(text, str):
        text = json.dumps(text) if isinstance(text, dict) else str(text)
    return ReflectionDraft.model_validate(parse_json_object(text))


class LLMReflector:
    """A :class:`~hindsight_core.lifecycle.reflect.Reflector` backed by a language model.

    Args:
        model: A LangChain ``BaseChatModel`` (or anything with ``invoke``) or a LlamaIndex LLM.
        prompt: ``(episode, outcome, feedback) -> [(role, content)]``; defaults to ``prompts.reflect``.
        max_attempts: Answers tried before giving up with :class:`LLMError`.
        structured: Try ``with_structured_output`` first when the model has it.
    """

    def __init__(self, model: Any, *, prompt: PromptFn | None = None, max_attempts: int = 3,
                 structured: bool = True) -> None:
        self.model = model
        self.prompt = prompt or reflect_prompt.build_messages
        self.max_attempts = max_attempts
        self.structured = structured

    def reflect(self, episode: Episode, outcome: Outcome | str, feedback: str | None = None) -> Reflection:
        outcome = Outcome(outcome)
        messages = list(self.prompt(episode, outcome, feedback))
        evidence = "\n".join([episode.goal, feedback or ""] + [s.text + " " + (s.tool or "") for s in episode.steps])
        problems: list[str] = []
        for attempt in range(1, self.max_attempts + 1):
            try:
                draft = _ask(self.model, messages, self.structured)
            except (ValueError, ValidationError) as exc:
                problems.append(f"attempt {attempt}: malformed answer ({str(exc).splitlines()[0]})")
                messages.append(("human", "Your answer was not the JSON object asked for. Answer with the JSON only."))
                continue
            except LLMError:
                raise
            except Exception as exc:  # noqa: BLE001 - the model's own failure, reported below
                problems.append(f"attempt {attempt}: the model raised {type(exc).__name__}: {exc}")
                continue
            if not_written(draft.lesson, str(reflect_prompt.EXAMPLE["lesson"]), draft.cause):
                problems.append(f"attempt {attempt}: the lesson is the prompt's example or an unfilled shape")
                messages.append(("human", "That lesson is not about this run. Write the lesson this trace teaches, "
                                          "with every <...> replaced. Answer again with the JSON only."))
                continue
            invented = ungrounded_terms(" ".join([draft.cause, draft.lesson, draft.trigger]), evidence)
            if invented:
                problems.append(f"attempt {attempt}: names absent from the trace: {invented}")
                messages.append(("human", f"Do not mention {', '.join(invented)}: they are not in the trace. "
                                          "Answer again with the JSON only."))
                continue
            return Reflection(goal=episode.goal, outcome=outcome, **draft.model_dump())
        log.warning("reflection failed for episode %s: %s", episode.id, "; ".join(problems))
        raise LLMError(f"reflection failed after {self.max_attempts} attempts: " + "; ".join(problems))
