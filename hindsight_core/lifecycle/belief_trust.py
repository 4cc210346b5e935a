"""Who may supersede whom: a lower-trust source does not silently replace what the user said.

A fact from the agent, the model or a tool that would update a user's statement becomes a *pending
conflict* instead: both stay active, the user's fact carries ``conflict pending: <id> (<source>)``
and the challenger ``pending conflict with <id>``, so :func:`~hindsight_core.audit.audit_bank`
and ``bank.history()`` show it. A second lower-trust source that states the same change
(corroboration) lets the update through; so does a user who says it.

Example:
    >>> may_supersede("user", "agent"), may_supersede("user", "user"), may_supersede("agent", "tool")
    (False, True, True)
"""

from __future__ import annotations

import re

from hindsight_core.models import Flag, MemoryUnit

__all__ = ["may_supersede", "pending_flags", "pending_challengers", "corroborated", "PENDING", "CHALLENGER",
           "LOW_TRUST"]

#: Sources whose word alone does not overturn a user's statement (the issue: agent, llm and tool).
LOW_TRUST = frozenset({"agent", "llm", "tool"})
PENDING = f"{Flag.CONFLICT_PENDING}: "
CHALLENGER = f"{Flag.PENDING_CONFLICT} "
_PENDING = re.compile(re.escape(PENDING) + r"(\w+) \((\w+)\)")


def _value(source: object) -> str:
    return getattr(source, "value", str(source))


def may_supersede(older_source: object, newer_source: object) -> bool:
    """Whether a statement from ``newer_source`` may replace one from ``older_source`` on its own."""
    return not (_value(older_source) == "user" and _value(newer_source) in LOW_TRUST)


def pending_challengers(unit: MemoryUnit) -> list[tuple[str, str]]:
    """``(unit id, source)`` of the lower-trust units waiting to replace ``unit``."""
    return [(m.group(1), m.group(2)) for f in unit.flags for m in [_PENDING.match(f)] if m is not None]


def corroborated(older: MemoryUnit, newer: MemoryUnit) -> bool:
    """Another lower-trust source already challenged ``older``: two independent sources agree."""
    return any(src != _value(newer.source) for _, src in pending_challengers(older))


def pending_flags(older: MemoryUnit, newer: MemoryUnit, reason: str) -> tuple[MemoryUnit, MemoryUnit]:
    """Both units, flagged as a pending conflict (both stay active)."""
    tag = f"{PENDING}{newer.id} ({_value(newer.source)})"
    old = older if tag in older.flags else older.model_copy(update={"flags": older.flags + (tag,)})
    challenge = f"{CHALLENGER}{older.id} ({reason})"[:200]
    new = newer.model_copy(update={"flags": newer.flags + (challenge,)})
    return old, new
