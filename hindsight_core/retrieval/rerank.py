"""Optional cross-encoder reranking of the fused head (off by default: ``RecallConfig.reranker``).

Any sentence-transformers ``CrossEncoder`` name or local folder works, e.g.
``RecallConfig(reranker="cross-encoder/ms-marco-MiniLM-L-6-v2")``. The model is loaded once per
process. Reranked scores replace the fused scores of the head; the tail keeps its order below it.
"""

from __future__ import annotations

import threading
from typing import Any, Mapping

from hindsight_core.errors import OptionalDependencyError
from hindsight_core.retrieval.types import IndexedUnit

__all__ = ["rerank"]

_MODELS: dict[str, Any] = {}
_LOCK = threading.Lock()


def _load(name: str) -> Any:
    with _LOCK:
        if name not in _MODELS:
            try:
                from sentence_transformers import CrossEncoder
            except ImportError as exc:  # pragma: no cover - a core dependency
                raise OptionalDependencyError(
                    "the reranker needs sentence-transformers; `pip install sentence-transformers` "
                    "or set RecallConfig(reranker=None)"
                ) from exc
            _MODELS[name] = CrossEncoder(name, device="cpu")
        return _MODELS[name]


def rerank(model_name: str, query: str, head: list[tuple[str, float]],
           units: Mapping[str, IndexedUnit]) -> list[tuple[str, float]]:
    """Rescore ``head`` (``(unit id, score)`` pairs) with a cross-encoder; best first.

    The returned scores sit above every fused score, so the head stays ahead of the tail.
    """
    if not head:
        return []
    model = _load(model_name)
    scores = model.predict([(query, units[uid].text) for uid, _ in head], show_progress_bar=False)
    lift = max(s for _, s in head) + 1.0
    ranked = sorted(zip((uid for uid, _ in head), (float(s) for s in scores)), key=lambda kv: (-kv[1], kv[0]))
    low = min(s for _, s in ranked)
    return [(uid, lift + s - low) for uid, s in ranked]
