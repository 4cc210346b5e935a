"""Translation between :class:`MemoryUnit` and Chroma records (document + flat metadata).

Chroma metadata holds scalars only, so tuples and the caller's metadata travel as JSON strings.
Every record carries ``schema_version``; a record from a newer or unknown layout raises
:class:`SchemaVersionError` naming what to do, instead of being misread.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Mapping

from hindsight_core.errors import SchemaVersionError
from hindsight_core.models import SCHEMA_VERSION, MemoryUnit
from hindsight_core.retrieval.context import CONTEXT_KEY, decode_vector
from hindsight_core.retrieval.types import IndexedUnit

__all__ = ["to_record", "from_record", "to_indexed", "ts", "from_ts"]

_JSON_FIELDS = ("entities", "evidence_ids", "metadata", "gate_reasons", "flags", "time_refs", "mentions")
_TIME_FIELDS = ("occurred_at", "mentioned_at", "valid_to", "last_hit_at", "created_at")


def ts(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


def from_ts(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, tz=timezone.utc)


def to_record(unit: MemoryUnit, seq: int) -> tuple[str, str, dict[str, Any]]:
    """``(id, document, metadata)`` for Chroma. ``seq`` orders units within a bank."""
    data = unit.model_dump(mode="python", exclude={"id", "text"})
    meta: dict[str, Any] = {"seq": seq}
    for key, value in data.items():
        if value is None:
            continue  # Chroma has no null; absence means None
        if key in _JSON_FIELDS:
            meta[key] = json.dumps(value, ensure_ascii=False, default=str)
        elif key in _TIME_FIELDS:
            meta[key] = ts(value)
        elif hasattr(value, "value"):  # enums
            meta[key] = value.value
        else:
            meta[key] = value
    return unit.id, unit.text, meta


def _check_version(meta: Mapping[str, Any], unit_id: str) -> None:
    version = meta.get("schema_version")
    if version != SCHEMA_VERSION:
        if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
            how = (f"it needs the schema {version} -> {SCHEMA_VERSION} migration, a downgrade no release ships: "
                   f"upgrade hindsight-memory to the release that writes schema {version}")
        else:
            how = (f"it needs the schema {version!r} -> {SCHEMA_VERSION} migration, which this release does not "
                   "ship: read the bank with the release that wrote it (bank.units()) and capture the texts again "
                   "into a new bank with this one")
        raise SchemaVersionError(
            f"unit {unit_id!r} was stored with schema version {version!r}; this release reads version "
            f"{SCHEMA_VERSION}, so {how}."
        )


def from_record(unit_id: str, document: str, meta: Mapping[str, Any]) -> MemoryUnit:
    _check_version(meta, unit_id)
    data: dict[str, Any] = {"id": unit_id, "text": document}
    for key, value in meta.items():
        if key == "seq" or key == CONTEXT_KEY:  # record-only fields, not part of the unit
            continue
        if key in _JSON_FIELDS:
            data[key] = json.loads(value)
        elif key in _TIME_FIELDS:
            data[key] = from_ts(value)
        else:
            data[key] = value
    return MemoryUnit.model_validate(data)


def to_indexed(unit_id: str, document: str, meta: Mapping[str, Any]) -> IndexedUnit:
    """The light record recall reads, straight from Chroma metadata (no pydantic on this path)."""
    _check_version(meta, unit_id)
    caller_meta = json.loads(meta.get("metadata", "{}"))
    speaker = caller_meta.get("speaker") if isinstance(caller_meta, dict) else None
    return IndexedUnit(
        id=unit_id,
        seq=int(meta["seq"]),
        text=document,
        kind=meta.get("kind", "world"),
        status=meta.get("status", "active"),
        source=meta.get("source", "user"),
        session_id=meta.get("session_id"),
        episode_id=meta.get("episode_id"),
        occurred_at=meta.get("occurred_at"),
        mentioned_at=meta["mentioned_at"],
        entities=tuple(json.loads(meta.get("entities", "[]"))),
        importance=float(meta.get("importance", 0.5)),
        confidence=float(meta.get("confidence", 0.5)),
        activity=float(meta.get("activity", 0.5)),
        outcome=meta.get("outcome"),
        evidence_ids=tuple(json.loads(meta.get("evidence_ids", "[]"))),
        flags=tuple(json.loads(meta.get("flags", "[]"))),
        speaker=str(speaker) if speaker is not None else None,
        context=decode_vector(meta[CONTEXT_KEY]) if CONTEXT_KEY in meta else None,
    )
