"""Public data models: memory units, capture and recall results.

Models are data only: they never talk to storage. The engine turns them into Chroma records
(see ``storage/codec.py``) and back.
"""

from __future__ import annotations

from datetime import datetime, timezone
from enum import StrEnum
from typing import Any, Iterator

from pydantic import BaseModel, ConfigDict, Field, field_validator

from hindsight_core.flags import Flag

__all__ = [
    "SCHEMA_VERSION",
    "MemoryKind",
    "MemoryStatus",
    "Source",
    "Outcome",
    "Flag",
    "MemoryUnit",
    "CaptureItem",
    "CaptureResult",
    "ChannelHit",
    "RecallHit",
    "RecallResult",
]

#: Version of a unit's stored fields (what exports and snapshots carry). Bump it, and add a migration
#: in ``storage/codec.py``, whenever the meaning of a stored field changes. 2: the library's own data
#: left ``metadata`` for typed fields (``speaker``, ``episode``, ``lesson``, ``skill``, ``digest``,
#: ``consolidated``); records of version 1 are migrated when read. How a unit is laid out in a Chroma
#: record has its own number, ``storage.codec.RECORD_VERSION``.
SCHEMA_VERSION = 2


class MemoryKind(StrEnum):
    """What a memory unit is."""

    WORLD = "world"
    """A fact about the world or the user, said by someone (the default for captured text)."""
    EXPERIENCE = "experience"
    """Something the agent itself did: an episode, an action and its outcome."""
    OBSERVATION = "observation"
    """A belief distilled from evidence (consolidation, reflection lessons); has history."""
    DIRECTIVE = "directive"
    """A mental model or standing rule ("tests use pytest"), returned with every recall."""
    SKILL = "skill"
    """A procedure that worked repeatedly, recalled first when its trigger matches."""


class MemoryStatus(StrEnum):
    """Lifecycle state of a unit. Only ``active`` units are recalled by default."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    """Replaced by a newer belief (history, not an error): see ``superseded_by``."""
    ARCHIVED = "archived"
    """Forgotten from default recall to keep it sharp; still retrievable by id."""
    DRAFT = "draft"
    """Written by a model; needs corroboration before it is recalled as fact."""
    INVALIDATED = "invalidated"
    """Marked wrong by a user or tool (distinct from superseded)."""


class Source(StrEnum):
    """Who produced the text. Trust: tool > user = system > agent > llm.

    Only ``user`` and ``system`` may set a directive or a skill; from any other source it is a draft.
    """

    USER = "user"
    TOOL = "tool"
    AGENT = "agent"
    LLM = "llm"
    SYSTEM = "system"  # the application itself (its configuration, its own rules); trusted like the user


class Outcome(StrEnum):
    """Outcome label of an episode (the one place these literals live).

    ``UNKNOWN``: nothing shows whether the run worked (no tool attempted, no feedback). Such an
    episode is stored as an experience but never becomes a "worked before" recipe.
    """

    SUCCESS = "success"
    FAILURE = "failure"
    PARTIAL = "partial"
    UNKNOWN = "unknown"


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


class MemoryUnit(BaseModel):
    """One unit of memory, as stored in a bank.

    Times are timezone-aware UTC. ``metadata`` is the caller's own and comes back unchanged: what
    the library derives (a lesson's reflection, a skill's counters, a digest's month, the episode an
    experience records, who spoke) lives in its own typed fields.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    bank: str
    kind: MemoryKind = MemoryKind.WORLD
    text: str
    entities: tuple[str, ...] = ()
    occurred_at: datetime | None = Field(None, description="When what the text describes happened.")
    mentioned_at: datetime = Field(description="When the text was said or written.")
    importance: float = Field(0.5, ge=0.0, le=1.0)
    confidence: float = Field(0.5, ge=0.0, le=1.0)
    activity: float = Field(0.5, ge=0.0, description="Forgetting score: starts at importance.")
    status: MemoryStatus = MemoryStatus.ACTIVE
    superseded_by: str | None = None
    valid_to: datetime | None = Field(None, description="Until when a belief held (superseded beliefs).")
    evidence_ids: tuple[str, ...] = Field((), description="Units this one was derived from.")
    source: Source = Source.USER
    session_id: str | None = None
    episode_id: str | None = None
    outcome: Outcome | None = Field(None, description="For episodes and lessons: how the episode ended.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="The caller's own data, returned unchanged.")
    speaker: str | None = Field(None, description="Who said it (chat turns): links the unit to the speaker.")
    episode: dict[str, Any] | None = Field(
        None, description="For experiences: the episode's goal, number of steps and feedback.")
    lesson: dict[str, Any] | None = Field(None, description="For lessons: the reflection they were learnt from.")
    skill: dict[str, Any] | None = Field(
        None, description="For skills: trigger, action, successes, failures and the lessons behind them.")
    digest: dict[str, Any] | None = Field(None, description="For digests: the month and how many units it sums up.")
    consolidated: dict[str, Any] | None = Field(
        None, description="For consolidated observations: how they were written (mode) and cluster size.")
    gate_reasons: tuple[str, ...] = Field((), description="Why the write gate scored it as it did.")
    flags: tuple[str, ...] = Field((), description="e.g. 'pii_redacted', 'instruction_like', 'log_only'.")
    time_refs: tuple[str, ...] = Field((), description="Relative dates found and how they resolved.")
    mention_count: int = Field(1, ge=1, description="How many captures this unit absorbed (duplicates).")
    mentions: tuple[dict[str, Any], ...] = Field(
        (), description="The absorbed duplicate captures (when, session, metadata), newest last, at most 20."
    )
    hit_count: int = Field(0, ge=0)
    last_hit_at: datetime | None = None
    created_at: datetime
    schema_version: int = SCHEMA_VERSION

    _normalise_times = field_validator(
        "occurred_at", "mentioned_at", "valid_to", "last_hit_at", "created_at"
    )(classmethod(lambda cls, v: _aware(v)))

    @property
    def when(self) -> datetime:
        """The best time for ordering: when it happened, else when it was said."""
        return self.occurred_at or self.mentioned_at


class CaptureItem(BaseModel):
    """One item for :meth:`MemoryBank.capture_many` (same fields as ``capture``'s arguments)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    source: Source = Source.USER
    kind: MemoryKind = MemoryKind.WORLD
    session_id: str | None = None
    episode_id: str | None = None
    occurred_at: datetime | None = None
    mentioned_at: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    speaker: str | None = Field(None, description="Who said it (default: a str metadata['speaker'], read only).")
    importance: float | None = Field(None, ge=0.0, le=1.0, description="Overrides the write gate.")
    keep_raw: bool | None = Field(None, description="Store even what the gate drops (default: engine config).")
    evidence_ids: tuple[str, ...] = ()
    outcome: Outcome | None = None
    status: MemoryStatus | None = None


class CaptureResult(BaseModel):
    """What happened to one captured text."""

    model_config = ConfigDict(frozen=True)

    unit_id: str | None = Field(description="The stored unit (or the one a duplicate strengthened).")
    stored: bool = Field(description="False only when the gate dropped it and keep_raw was off.")
    merged: bool = Field(False, description="True when it strengthened an existing near-duplicate.")
    importance: float
    reasons: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    redactions: tuple[str, ...] = Field((), description="Kinds of PII removed before storage.")
    occurred_at: datetime | None = None
    unit: MemoryUnit | None = None
    supersedes: tuple[str, ...] = Field((), description="Older beliefs this capture superseded (now history).")


class ChannelHit(BaseModel):
    """Where one recall channel ranked a unit (1-based) and with what raw score."""

    model_config = ConfigDict(frozen=True)

    channel: str
    rank: int
    score: float


class RecallHit(BaseModel):
    """A recalled unit with its fused score and the explain trace."""

    model_config = ConfigDict(frozen=True)

    unit: MemoryUnit
    score: float
    channels: tuple[ChannelHit, ...] = ()

    @property
    def id(self) -> str:
        return self.unit.id

    def explain(self) -> str:
        found = ", ".join(f"{c.channel}#{c.rank}" for c in self.channels) or "pinned"
        return f"{self.unit.id} score={self.score:.4f} via {found}"


class RecallResult(BaseModel):
    """The answer to a recall: hits best-first, plus directives and the explain trace."""

    model_config = ConfigDict(frozen=True)

    query: str
    bank: str
    as_of: datetime
    hits: tuple[RecallHit, ...] = ()
    directives: tuple[MemoryUnit, ...] = Field((), description="Standing rules returned with every recall.")
    novel: bool = Field(False, description="Nothing in memory was close to the query: explore, don't copy.")
    trace: dict[str, Any] = Field(default_factory=dict, description="Per-channel rankings and timings.")

    def __iter__(self) -> Iterator[RecallHit]:  # type: ignore[override]
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    @property
    def units(self) -> list[MemoryUnit]:
        return [h.unit for h in self.hits]

    @property
    def ids(self) -> list[str]:
        return [h.unit.id for h in self.hits]

    def explain(self) -> str:
        """One line per hit saying which channels found it and at what rank."""
        return "\n".join(f"{i}. {h.explain()}" for i, h in enumerate(self.hits, 1))

    def render(self, max_tokens: int | None = None) -> str:
        """Text ready for a prompt.

        Directives first; then hits grouped by session or episode (groups ordered by their best
        hit), each group in time order so a chain of events reads as one narrative. Lessons
        learned from failures are labelled so the model does not copy them as a recipe.
        """
        from hindsight_core._render import render_result

        return render_result(self, max_tokens=max_tokens)
