"""``HindsightMemoryBlock``: long-term memory as a block of LlamaIndex's composable ``Memory``.

For users who compose ``Memory.from_defaults(memory_blocks=[...])``. The block recalls lessons and
memories for the latest user message, and stores the messages ``Memory`` flushes out of its
short-term FIFO into the bank (as LlamaIndex's own vector and fact blocks keep theirs): user
statements become facts, user requests are kept as what was asked, final assistant answers as the
agent's experience. ``Memory`` hands blocks only what overflows, so the latest turns reach the bank
later; use :class:`~hindsight_llamaindex.HindsightMemory` to capture every message at once and to
learn from outcomes. Its priority lets ``Memory`` truncate it, whole memories first, when the
prompt is over ``token_limit``.

Example:
    >>> import asyncio
    >>> from llama_index.core.llms import ChatMessage
    >>> from llama_index.core.memory import Memory
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> from hindsight_llamaindex import HindsightMemoryBlock
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> _ = engine.bank("alice").capture("Alice's cat is called Miso.")
    >>> memory = Memory.from_defaults(session_id="s1", memory_blocks=[
    ...     HindsightMemoryBlock.from_engine(engine, bank_id="alice")])
    >>> memory.put(ChatMessage(role="user", content="What is my cat called?"))
    >>> "Miso" in memory.get()[0].content
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.memory import BaseMemoryBlock

from hindsight_core import InvalidInputError, MemoryEngine
from hindsight_core.config import MAX_TEXT_CHARS
from hindsight_core.context import RecalledContext, estimate_tokens
from hindsight_core.outcomes import is_request

from hindsight_llamaindex._messages import final_answer, last_user_text, message_text

if TYPE_CHECKING:
    from hindsight_core import MemoryBank

__all__ = ["HindsightMemoryBlock"]


class HindsightMemoryBlock(BaseMemoryBlock[str]):
    """Memory block: recalls lessons and memories for the latest user message, stores flushed messages."""

    name: str = Field("hindsight_memory", description="Block name (the tag it is rendered under).")
    priority: int = Field(1, description="Truncation priority: 0 never truncates, higher numbers go first.")
    accept_short_term_memory: bool = Field(True, description="Store the messages Memory flushes out of its FIFO.")
    session_id: str | None = Field(None, description="Tags what the block stores (default: none).")
    bank_id: str = Field(description="The bank to recall from.")
    recall_k: int = Field(5, ge=0, le=100)
    lessons_k: int = Field(3, ge=0, le=100)
    max_tokens: int = Field(800, ge=1, description="Token budget of the block before any truncation.")
    header: str = Field("", description="A first line for the block (its tag already names it).")

    _bank: "MemoryBank | None" = PrivateAttr(default=None)
    _last: dict[str, RecalledContext] = PrivateAttr(default_factory=dict)

    @classmethod
    def from_engine(cls, engine: MemoryEngine, bank_id: str = "default", **fields: Any) -> "HindsightMemoryBlock":
        """A block recalling from ``engine``'s bank ``bank_id``."""
        if not isinstance(engine, MemoryEngine):
            raise InvalidInputError(f"engine must be a hindsight_core.MemoryEngine, not {type(engine).__name__}")
        block = cls(bank_id=bank_id, **fields)
        block._bank = engine.bank(bank_id)
        return block

    async def _aget(self, messages: Optional[List[ChatMessage]] = None, **block_kwargs: Any) -> str:
        query = last_user_text(messages or [])
        if not query:
            return ""
        context = await self._need_bank().arecall_context(query, k=self.recall_k, lessons_k=self.lessons_k,
                                                          header=self.header, max_tokens=self.max_tokens)
        text = context.text
        if not text:
            return ""
        self._last = {text: context}  # for atruncate: it gets the text back, we re-render from the hits
        return text

    def _need_bank(self) -> "MemoryBank":
        if self._bank is None:
            raise InvalidInputError(
                "this HindsightMemoryBlock has no bank: build it with "
                "HindsightMemoryBlock.from_engine(engine, bank_id=...)")
        return self._bank

    async def _aput(self, messages: List[ChatMessage]) -> None:
        """Store the messages ``Memory`` flushed out of its short-term FIFO."""
        items = []
        for message in messages:
            role = getattr(message.role, "value", str(message.role))
            if role == "user":
                text = message_text(message)
                kind = "experience" if is_request(text) else "world"
            elif role == "assistant":
                text, kind = final_answer(message), "experience"
            else:
                continue  # tool chatter and system text are not long-term memory
            if text.strip():
                items.append(dict(text=text[:MAX_TEXT_CHARS], source="user" if role == "user" else "agent", kind=kind,
                                  session_id=self.session_id, metadata={"via": "llamaindex-block", "role": role}))
        if items:
            await self._need_bank().acapture_many(items)

    async def atruncate(self, content: str, tokens_to_truncate: int) -> Optional[str]:
        """Drop whole memories, least relevant first, until about ``tokens_to_truncate`` are gone."""
        budget = estimate_tokens(content) - max(tokens_to_truncate, 0)
        context = self._last.get(content)
        if context is None or budget <= 0:
            return None
        text = context.render(budget)
        return text or None
