"""Frozen configuration models with named presets.

Derive a per-call or per-bank variant with ``model_copy(update=...)``; nothing here is mutated.

Example:
    >>> from hindsight_core.config import BankConfig
    >>> strict = BankConfig().model_copy(update={"keep_raw": False})
    >>> strict.keep_raw, BankConfig().keep_raw
    (False, True)
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hindsight_core.errors import InvalidInputError, UnknownOptionError
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.signatures import LessonMatch

__all__ = ["PIIConfig", "GateConfig", "LifecycleConfig", "BankConfig", "RecallConfig", "MAX_TEXT_CHARS",
           "validate_options"]

#: Longest text one capture accepts. Longer documents should be split by the caller (chunking is
#: a retrieval decision the caller understands better than we do).
MAX_TEXT_CHARS = 20_000

PII_KINDS = ("email", "phone", "card", "id_number", "iban", "secret", "ip_address")


class PIIConfig(BaseModel):
    """What is redacted before anything is stored or embedded."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = True
    kinds: frozenset[str] = Field(frozenset(PII_KINDS), description=f"Subset of {PII_KINDS}.")

    def model_post_init(self, __context: Any) -> None:
        unknown = set(self.kinds) - set(PII_KINDS)
        if unknown:
            raise InvalidInputError(f"unknown PII kinds {sorted(unknown)}; choose from {list(PII_KINDS)}")


class GateConfig(BaseModel):
    """The rule-based write gate: it ranks what is worth remembering, it does not lose text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    log_only_below: float = Field(
        0.3, ge=0.0, le=1.0, description="Units scored below this are kept only as raw log (flag 'log_only')."
    )
    important_at: float = Field(0.75, ge=0.0, le=1.0, description="Score from which a unit counts as important.")


class LifecycleConfig(BaseModel):
    """Beliefs, consolidation, skills and forgetting (see ``hindsight_core/lifecycle/``).

    Example:
        >>> LifecycleConfig().model_copy(update={"active_budget": 500}).active_budget
        500
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    supersede_on_capture: bool = Field(True, description="A captured fact that updates an older belief supersedes it.")
    contradiction_min_sim: float = Field(0.55, ge=0.0, le=1.0, description=(
        "Cosine from which the word-by-word template rules compare two facts (at most 0.35 is used); the slot "
        "rules read a new fact's nearest stored facts at any closeness."))
    llm_judge: bool = Field(True, description="Ask engine.llm about close pairs the rules leave undecided.")
    update_model: bool = Field(True, description=(
        "Ask the bundled learned reader (hindsight_core/lifecycle/update_model.py) about the closest related pairs "
        "the rules and the LLM leave undecided (a pass of a small model per capture of a fact with such pairs), "
        "and about the English pairs the rules read as updated: one it reads as almost surely no update stays."))
    auto_history: bool = Field(True, description="A query about the past ('what was it before?') includes history.")
    consolidate_every: int = Field(50, ge=0, description="New units that trigger background consolidation (0: off).")
    consolidate_after_s: float = Field(6 * 3600.0, ge=0.0, description="Seconds after which new units trigger it (0: off).")
    consolidate_max_units: int = Field(200, ge=1, description="Units one consolidation run reads at most.")
    consolidate_kinds: tuple[str, ...] = Field(("world", "experience"), description="Kinds that are clustered.")
    cluster_threshold: float = Field(0.8, ge=0.0, le=1.0, description="Cosine linking two units into a cluster.")
    min_cluster: int = Field(3, ge=2, description="Units a cluster needs to become an observation.")
    observation_merge_threshold: float = Field(0.92, ge=0.0, le=1.0, description="Cosine of near-duplicate observations.")
    llm_batch: int = Field(8, ge=1, description="Clusters per LLM call when consolidating with a model.")
    min_confidence: float = Field(0.2, ge=0.0, le=1.0, description="Beliefs and skills below this leave default recall.")
    skill_after: int = Field(3, ge=1, description="Successes of one reusable action that make it a skill.")
    skill_match: float = Field(0.85, ge=0.0, le=1.0, description="Cosine of lessons that state the same action.")
    skill_trigger_match: float = Field(0.5, ge=0.0, le=1.0, description="Query cosine from which a skill is put first.")
    track_activity: bool = Field(True, description="Recall hits raise activity (x hit_boost), scanned misses lower it.")
    hit_boost: float = Field(1.2, ge=1.0, description="Activity factor on each recall hit.")
    scan_decay: float = Field(0.95, ge=0.0, le=1.0, description="Activity factor when scanned but not returned.")
    unhit_days: float = Field(180.0, ge=0.0, description="Days without a hit after which activity decays.")
    decay_half_life_days: float = Field(90.0, gt=0.0, description="Half-life of that decay.")
    active_budget: int = Field(5_000, ge=0, description="Active units per bank before the least active are archived (0: no limit).")
    archive_fraction: float = Field(0.1, gt=0.0, lt=1.0, description="Share of the budget archived when it is exceeded.")
    cold_start_below: int = Field(20, ge=0, description="Below this many units recall is plain retrieval over the raw log.")


class BankConfig(BaseModel):
    """Per-bank options (``engine.bank("alice", keep_raw=False)``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    keep_raw: bool = Field(True, description="Store what the gate scores as small talk, as raw episodic log.")
    dedup: bool = Field(True, description="A near-duplicate strengthens the existing unit instead of adding one.")
    dedup_threshold: float = Field(0.97, ge=0.5, le=1.0, description="Cosine similarity for a near-duplicate.")
    resolve_dates: bool = Field(True, description="Resolve 'yesterday', 'last Friday'... at write time.")
    pii: PIIConfig = PIIConfig()
    gate: GateConfig = GateConfig()
    recall: RecallConfig = RecallConfig()
    lifecycle: LifecycleConfig = LifecycleConfig()
    lessons: LessonMatch = Field(LessonMatch(), description="How lessons are matched to a task (task signatures, "
                                                             "the action/object lexicon, no-op demotion).")


def _deep_merge(base: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``options`` over ``base``, section by section: ``lifecycle={"consolidate_every": 0}`` keeps the
    base's other lifecycle settings (a config *object* given as a value replaces the section whole)."""
    out = dict(base)
    for key, value in options.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def validate_options(model: type[BaseModel], base: BaseModel | None, options: dict[str, Any]) -> Any:
    """Build ``model`` from ``base`` plus keyword ``options``, with errors that say how to fix them.

    Nested sections merge deeply: a dict option changes only the keys it names.

    Example:
        >>> base = BankConfig(lifecycle=LifecycleConfig(active_budget=100))
        >>> cfg = validate_options(BankConfig, base, {"lifecycle": {"consolidate_every": 0}})
        >>> cfg.lifecycle.active_budget, cfg.lifecycle.consolidate_every
        (100, 0)
    """
    known = set(model.model_fields)
    unknown = sorted(set(options) - known)
    if unknown:
        raise UnknownOptionError(
            f"unknown option(s) {unknown} for {model.__name__}; valid options are {sorted(known)}"
        )
    data = _deep_merge(base.model_dump() if base is not None else {}, options)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInputError(f"invalid {model.__name__}: {problems}") from None
