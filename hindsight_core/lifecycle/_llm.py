"""Ask a language model for one JSON object: a LangChain chat model or a LlamaIndex LLM.

Shared by the lifecycle's LLM paths (contradiction judge, consolidation). Parsing repairs what
local models commonly break (:func:`parse_json_object`).
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from hindsight_core.errors import LLMError

__all__ = ["ask_json", "configured_llm", "not_written", "parse_json_object"]


def parse_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text``, repaired where a model commonly breaks it."""
    body = re.sub(r"^```(?:json)?|```$", "", text.strip(), flags=re.M).strip()
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object in the answer")
    body = body[start : end + 1]
    for attempt in (body, re.sub(r",\s*([}\]])", r"\1", body)):
        try:
            value = json.loads(attempt)
            if isinstance(value, dict):
                return value
        except json.JSONDecodeError:
            pass
    try:  # single quotes, True/False/None: a Python literal
        value = ast.literal_eval(re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", body)))
    except (ValueError, SyntaxError) as exc:
        raise ValueError(f"unparseable JSON object: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError("the answer is not a JSON object")
    return value


def ask_json(model: Any, messages: list[tuple[str, str]]) -> dict[str, Any]:
    """The model's answer to ``messages`` as a dict.

    Raises:
        LLMError: the model failed, or its answer holds no JSON object.
    """
    try:
        if hasattr(model, "invoke"):
            reply = model.invoke(messages)
            text = getattr(reply, "content", reply)
        elif hasattr(model, "complete"):
            text = model.complete("\n\n".join(content for _, content in messages)).text
        else:
            raise LLMError(f"{type(model).__name__} is neither a LangChain chat model nor a LlamaIndex LLM")
        if not isinstance(text, str):
            text = json.dumps(text) if isinstance(text, dict) else str(text)
        return parse_json_object(text)
    except LLMError:
        raise
    except Exception as exc:  # noqa: BLE001 - the model's own failure, surfaced with its cause
        raise LLMError(f"the lifecycle LLM call failed: {type(exc).__name__}: {exc}") from exc


def configured_llm(engine: Any) -> Any:
    """The engine's chat model for lifecycle judges (``MemoryEngine(llm=...)``), or None."""
    return getattr(engine, "llm", None)


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def not_written(text: str, example: str, *more: str) -> bool:
    """Whether the model did not write ``text`` itself: the prompt's ``example`` returned word for word
    (small local models do this), or the answer shape returned with a ``<...>`` slot unfilled in
    ``text`` or in ``more`` (other fields of the same answer)."""
    return _words(text) == _words(example) or bool(re.search(r"<[^<>]{3,}>", "".join((text, *more))))
