"""Baseline retrievers for the LoCoMo harness: dense top-k in Chroma, Okapi BM25, RRF of both.

They see the same formatted turns and the same embeddings as the engine.
"""

from __future__ import annotations

import math
import re
import uuid
from collections import Counter
from typing import Sequence

import numpy as np

from hindsight_core.retrieval.fusion import rrf_fuse

__all__ = ["OkapiBM25", "ChromaDense", "rrf"]

_TOKEN = re.compile(r"[a-z0-9]+")


class OkapiBM25:
    """Plain Okapi BM25 over lower-case alphanumeric tokens (no stemming, no stopwords)."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.ids = list(ids)
        docs = [Counter(_TOKEN.findall(t.lower())) for t in texts]
        self.len = np.array([sum(d.values()) for d in docs], dtype=np.float64)
        self.avg = float(self.len.mean()) if len(docs) else 1.0
        self.k1, self.b = k1, b
        self.post: dict[str, list[tuple[int, int]]] = {}
        for i, d in enumerate(docs):
            for term, tf in d.items():
                self.post.setdefault(term, []).append((i, tf))

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        n = len(self.ids)
        scores = np.zeros(n)
        norm = self.k1 * (1 - self.b + self.b * self.len / self.avg)
        for term in set(_TOKEN.findall(query.lower())):
            plist = self.post.get(term)
            if not plist:
                continue
            idx = np.array([p[0] for p in plist])
            tf = np.array([p[1] for p in plist], dtype=np.float64)
            idf = math.log(1 + (n - len(plist) + 0.5) / (len(plist) + 0.5))
            scores[idx] += idf * tf * (self.k1 + 1) / (tf + norm[idx])
        order = np.argsort(-scores, kind="stable")[:k]
        return [(self.ids[i], float(scores[i])) for i in order if scores[i] > 0]


class ChromaDense:
    """Dense top-k in an in-memory Chroma collection (cosine HNSW), the engine's vector store."""

    def __init__(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False, is_persistent=False)
        database = f"baseline_{uuid.uuid4().hex}"
        chromadb.AdminClient(settings).create_database(database)
        client = chromadb.EphemeralClient(settings=settings, database=database)
        self.col = client.create_collection(f"baseline-{uuid.uuid4().hex[:8]}", metadata={"hnsw:space": "cosine"})
        for start in range(0, len(ids), 1000):
            self.col.add(ids=list(ids[start:start + 1000]), embeddings=vectors[start:start + 1000].tolist())
        self.n = len(ids)

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        res = self.col.query(query_embeddings=[np.asarray(vector).tolist()], n_results=min(k, self.n))
        return [(i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0])]


def rrf(dense: list[tuple[str, float]], keyword: list[tuple[str, float]], k: int = 60) -> list[tuple[str, float]]:
    return rrf_fuse({"dense": dense, "keyword": keyword}, k=k)
