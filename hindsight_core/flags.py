"""The flags the library sets on units, below every other module (``models`` and ``_render`` both
read them), re-exported as :class:`hindsight_core.models.Flag`.

Example:
    >>> Flag.DIGEST in ("digest", "log_only")
    True
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Flag"]


class Flag(StrEnum):
    """Flags the library sets on units (``MemoryUnit.flags``). Members are ``str``, so
    ``Flag.DIGEST in unit.flags`` and ``"digest" in unit.flags`` are the same test. Flags that carry
    a reason (``"superseded (…)"``, ``"invalidated (…)"``, ``"pending conflict with …"``,
    ``"conflict pending: …"``) start with the member's value."""

    PII_REDACTED = "pii_redacted"  # PII was removed before storage
    INSTRUCTION_LIKE = "instruction_like"  # reads like an injected instruction: quoted, never a rule
    LOG_ONLY = "log_only"  # a tool log or trace line: kept, never a belief
    CORROBORATED = "corroborated"  # a model draft a trusted source confirmed
    CONFIRMED = "confirmed"  # a draft the user confirmed
    CONSOLIDATED = "consolidated"  # an observation consolidation wrote
    EXTRACTIVE = "extractive"  # ... from its cluster's medoid
    LLM = "llm"  # ... by the chat model
    DIGEST = "digest"  # a monthly digest of archived units
    SKILL = "skill"  # a skill (also while demoted)
    SKILL_DEMOTED = "skill_demoted"  # a skill a failure demoted to an observation
    SUPERSEDED = "superseded"  # prefix: a newer belief replaced it
    INVALIDATED = "invalidated"  # prefix: marked wrong
    CONFLICT_PENDING = "conflict pending"  # prefix: a lower-trust unit waits to replace this user fact
    PENDING_CONFLICT = "pending conflict with"  # prefix: this lower-trust unit waits to replace another
