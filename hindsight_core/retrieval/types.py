"""Light types shared by the engine and the recall pipeline (hot path: plain dataclasses).

The engine keeps, per open bank, a :class:`BankIndex`: every unit's light record
(:class:`IndexedUnit`), a keyword index, a graph index and a dense search over Chroma.
All of it is rebuilt from Chroma when a bank is opened; Chroma stays the source of truth.
Channels are pure functions over a ``BankIndex``; see ``retrieval/pipeline.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Protocol, Sequence

import numpy as np

if TYPE_CHECKING:
    from hindsight_core.storage.graph import GraphIndex
    from hindsight_core.storage.keyword import KeywordIndex

__all__ = ["IndexedUnit", "BankIndex", "RetrievalRequest", "Candidate", "TURN_KINDS"]

#: Kinds that record what was said or done; the others (observation, directive, skill) are derived
#: from them later and are no one's turn in a conversation.
TURN_KINDS = frozenset({"world", "experience"})


@dataclass(slots=True)
class IndexedUnit:
    """What recall needs to know about a unit without touching storage."""

    id: str
    seq: int  # insertion order within the bank (monotonic, survives restarts)
    text: str
    kind: str
    status: str
    source: str
    session_id: str | None
    episode_id: str | None
    occurred_at: float | None  # epoch seconds, UTC
    mentioned_at: float  # epoch seconds, UTC
    entities: tuple[str, ...]
    importance: float
    confidence: float
    activity: float
    outcome: str | None = None
    evidence_ids: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    speaker: str | None = None  # metadata["speaker"] when the caller gave one
    context: np.ndarray | None = None  # context-window embedding (retrieval/context.py); None: none kept
    gloss: np.ndarray | None = None  # its English gloss's embedding, for a message in another language

    @property
    def when(self) -> float:
        return self.occurred_at if self.occurred_at is not None else self.mentioned_at

    @property
    def is_turn(self) -> bool:
        """Said or done (:data:`TURN_KINDS`), not derived later."""
        return self.kind in TURN_KINDS


class BankIndex(Protocol):
    """The per-bank in-memory view recall channels read."""

    units: dict[str, IndexedUnit]
    keyword: "KeywordIndex"
    graph: "GraphIndex"

    def dense_search(self, vector: np.ndarray, n: int, *, archived: bool = False) -> list[tuple[str, float]]:
        """Top ``n`` unit ids by cosine similarity (1.0 = identical), best first. An index that keeps
        archived units apart returns them only when ``archived``; other statuses are the caller's filter."""
        ...

    def vectors(self, ids: Sequence[str]) -> np.ndarray:
        """Unit-normalised embeddings of ``ids``, one row each, in order."""
        ...


@dataclass(slots=True, frozen=True)
class RetrievalRequest:
    query: str
    vector: np.ndarray  # unit-normalised query embedding
    as_of: float  # epoch seconds: "now" for the query's relative times
    k: int
    statuses: frozenset[str]  # which statuses may be returned
    kinds: frozenset[str] | None = None  # None: every kind
    session_id: str | None = None  # optional restriction to one session
    topic_vector: np.ndarray | None = None  # the query embedded without the speakers it names (retrieval/topic.py)
    extra_terms: Mapping[str, float] | None = None  # weighted stems added to the keyword query (retrieval/expansion.py)


@dataclass(slots=True)
class Candidate:
    id: str
    score: float
    # (channel, 1-based rank, raw channel score) for every channel that found it
    channels: list[tuple[str, int, float]] = field(default_factory=list)
