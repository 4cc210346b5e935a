"""``HindsightEmbedding``: the core's embedder as a LlamaIndex ``BaseEmbedding``.

One loaded model serves the memory engine and your LlamaIndex indexes.

Example:
    >>> from hindsight_core.testing import HashEmbedder
    >>> from hindsight_llamaindex import HindsightEmbedding
    >>> embed_model = HindsightEmbedding(HashEmbedder(dim=32))
    >>> len(embed_model.get_text_embedding("billing runs on port 9090"))
    32
    >>> embed_model.model_name
    'hash-32'
"""

from __future__ import annotations

import asyncio
from typing import Any, List

from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding
from llama_index.core.bridge.pydantic import PrivateAttr

from hindsight_core import Embedder, InvalidInputError, MemoryEngine
from hindsight_core.embeddings import resolve_embedder

__all__ = ["HindsightEmbedding"]


class HindsightEmbedding(BaseEmbedding):
    """A LlamaIndex embedding model backed by a hindsight :class:`~hindsight_core.Embedder`.

    Args:
        embedder: ``engine.embedder``, or anything :func:`~hindsight_core.embeddings.resolve_embedder`
            accepts (a model name, a callable...).
    """

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Any, **kwargs: Any) -> None:
        resolved = resolve_embedder(embedder)
        kwargs.setdefault("model_name", resolved.name)
        super().__init__(**kwargs)
        self._embedder = resolved

    @classmethod
    def from_engine(cls, engine: MemoryEngine, **kwargs: Any) -> "HindsightEmbedding":
        """The embedding model ``engine`` already uses."""
        if not isinstance(engine, MemoryEngine):
            raise InvalidInputError(f"engine must be a hindsight_core.MemoryEngine, not {type(engine).__name__}")
        return cls(engine.embedder, **kwargs)

    @classmethod
    def class_name(cls) -> str:
        return "HindsightEmbedding"

    @property
    def embedder(self) -> Embedder:
        return self._embedder

    def _get_text_embeddings(self, texts: List[str]) -> List[Embedding]:
        return self._embedder.embed(list(texts)).tolist()

    def _get_text_embedding(self, text: str) -> Embedding:
        return self._get_text_embeddings([text])[0]

    def _get_query_embedding(self, query: str) -> Embedding:
        return self._get_text_embeddings([query])[0]

    async def _aget_text_embeddings(self, texts: List[str]) -> List[Embedding]:
        return await asyncio.to_thread(self._get_text_embeddings, texts)

    async def _aget_text_embedding(self, text: str) -> Embedding:
        return (await self._aget_text_embeddings([text]))[0]

    async def _aget_query_embedding(self, query: str) -> Embedding:
        return (await self._aget_text_embeddings([query]))[0]
