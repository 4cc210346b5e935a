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

__all__ = ["PIIConfig", "GateConfig", "BankConfig", "RecallConfig", "MAX_TEXT_CHARS", "validate_options"]

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


def validate_options(model: type[BaseModel], base: BaseModel | None, options: dict[str, Any]) -> Any:
    """Build ``model`` from ``base`` plus keyword ``options``, with errors that say how to fix them."""
    known = set(model.model_fields)
    unknown = sorted(set(options) - known)
    if unknown:
        raise UnknownOptionError(
            f"unknown option(s) {unknown} for {model.__name__}; valid options are {sorted(known)}"
        )
    data = (base.model_dump() if base is not None else {}) | options
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInputError(f"invalid {model.__name__}: {problems}") from None
