"""Recall for a prompt: lessons first, then relevant memories, rendered within a token budget.

Shared by :class:`~hindsight_llamaindex.HindsightMemory` and
:class:`~hindsight_llamaindex.HindsightMemoryBlock`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Collection

if TYPE_CHECKING:
    from hindsight_core import MemoryBank, RecallHit, RecallResult

__all__ = ["RecalledContext", "arecall_context", "estimate_tokens", "DEFAULT_HEADER"]

DEFAULT_HEADER = (
    "Long-term memory (what you learned in earlier sessions and runs; use what is relevant, "
    "and heed lessons from failed attempts):"
)


def estimate_tokens(text: str) -> int:
    """About four characters a token, like the core's budget (no tokenizer needed)."""
    return len(text) // 4 + 1


@dataclass(frozen=True, slots=True)
class RecalledContext:
    """Recalled hits in prompt order (lessons, then memories) and the recall they came from."""

    result: "RecallResult"
    header: str = DEFAULT_HEADER

    def __bool__(self) -> bool:
        return bool(self.result.hits or self.result.directives)

    def render(self, max_tokens: int | None = None) -> str:
        """The text for the prompt; whole memories are dropped from the end until it fits."""
        hits = list(self.result.hits)
        while True:
            if not hits and not self.result.directives:
                return ""
            body = self.result.model_copy(update={"hits": tuple(hits)}).render()
            text = f"{self.header}\n{body}" if self.header else body
            if max_tokens is None or estimate_tokens(text) <= max_tokens:
                return text
            if not hits:  # the standing rules alone are over budget: cut them line by line
                return self.result.model_copy(update={"hits": ()}).render(max_tokens=max_tokens)
            hits.pop()


async def arecall_context(
    bank: "MemoryBank",
    query: str,
    *,
    k: int,
    lessons_k: int,
    exclude_ids: Collection[str] = (),
    header: str = DEFAULT_HEADER,
) -> RecalledContext | None:
    """Lessons (failures first) then memories for ``query``, without the units in ``exclude_ids``
    (what the short-term history already shows). ``None`` when nothing relevant is stored."""
    query = " ".join(query.split())
    if not query:
        return None
    lessons_task = bank.arecall_lessons(query, k=lessons_k) if lessons_k > 0 else None
    facts_task = bank.arecall(query, k=max(k + len(exclude_ids), 1))
    if lessons_task is not None:
        lessons, facts = await asyncio.gather(lessons_task, facts_task)
        lesson_hits: tuple["RecallHit", ...] = tuple(h for h in lessons.hits if h.unit.outcome is not None)
    else:
        facts, lesson_hits = await facts_task, ()
    picked: list["RecallHit"] = []
    seen = set(exclude_ids)
    for hit in lesson_hits[:lessons_k]:
        if hit.id not in seen:
            seen.add(hit.id)
            picked.append(hit)
    n_facts = 0
    for hit in facts.hits:
        if n_facts >= k:
            break
        if hit.id not in seen:
            seen.add(hit.id)
            picked.append(hit)
            n_facts += 1
    context = RecalledContext(facts.model_copy(update={"hits": tuple(picked)}), header)
    return context if context else None
