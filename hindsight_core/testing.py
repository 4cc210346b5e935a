"""Fakes for your own tests: a small deterministic embedder (more fakes join as adapters land).

``HashEmbedder`` embeds by hashing words and character trigrams, so texts that share words are
close and the result is stable across runs and machines. It needs no model download.

Example:
    >>> import numpy as np
    >>> emb = HashEmbedder(dim=64)
    >>> a, b, c = emb.embed(["port 8080 for billing", "billing port", "chocolate cake"])
    >>> bool(a @ b > a @ c)
    True
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Sequence

import numpy as np

__all__ = ["HashEmbedder", "scripted_chat_model"]

_TOKEN = re.compile(r"[a-z0-9]+")


class HashEmbedder:
    """Deterministic bag-of-words-and-trigrams embedder (an :class:`~hindsight_core.embeddings.Embedder`)."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"

    def _slot(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return value % self.dim, 1.0 if (value >> 63) & 1 else -1.0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _TOKEN.findall(text.lower()):
                slot, sign = self._slot("w:" + token)
                out[row, slot] += 2.0 * sign
                padded = f"#{token}#"
                for i in range(len(padded) - 2):
                    slot, sign = self._slot("t:" + padded[i:i + 3])
                    out[row, slot] += 0.5 * sign
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def scripted_chat_model(responses: Sequence[str]) -> Any:
    """A LangChain chat model that answers with ``responses`` in turn (for tests of LLM paths).

    It has no tool calling, like many local models, so structured output falls back to parsing.
    """
    try:
        from langchain_core.language_models.fake_chat_models import FakeListChatModel
    except ImportError as exc:  # pragma: no cover
        from hindsight_core.errors import OptionalDependencyError

        raise OptionalDependencyError("scripted_chat_model needs langchain-core: pip install 'hindsight-memory[langgraph]'") from exc
    return FakeListChatModel(responses=list(responses))
