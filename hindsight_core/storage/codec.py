"""Translation between :class:`MemoryUnit` and Chroma records (document + flat metadata).

Chroma metadata holds scalars only, so tuples and the caller's metadata travel as JSON strings.
Every record carries ``schema_version``; a record from a newer or unknown layout raises
:class:`SchemaVersionError` naming what to do, instead of being misread.

The library's own data on a unit (``speaker``, ``episode``, ``lesson``, ``skill``, ``digest``,
``consolidated``) is stored under reserved keys with the ``hs_`` prefix, beside the caller's
``metadata`` (one JSON string, never touched). Records of schema version 1 kept them inside
``metadata`` (``hindsight_lesson``, ``hindsight_skill``, ``hindsight_digest``,
``hindsight_consolidated``, an experience's ``episode``); :func:`migrate_library_keys` moves them
out when such a record is read (it becomes version 2 on its next write), so old stores keep working
and callers get their metadata back as they gave it.

Record layout (``schema_version`` of the record, :data:`RECORD_VERSION`): version 3 keeps the unit's
text in the metadata key ``text`` and writes no Chroma document, because Chroma full-text indexes
every document and nothing here queries that index (the keyword channel is the library's own BM25):
with the text as a document, Chroma's write cost 0.95-1.15 ms per LoCoMo turn, with it in metadata
0.67-0.85 ms (1,451 recorded capture writes, replayed six times each way). Records of versions 1
and 2 (text in the document) are read as they are, and take the new layout on their next write; a
release older than this one refuses version 3 records with :class:`SchemaVersionError` instead of
reading them without their text.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Mapping

from hindsight_core.errors import SchemaVersionError
from hindsight_core.models import SCHEMA_VERSION, MemoryUnit
from hindsight_core.retrieval.context import CONTEXT_KEY, decode_vector
from hindsight_core.retrieval.types import IndexedUnit

__all__ = ["to_record", "from_record", "to_indexed", "record_text", "whole", "ts", "from_ts", "migrate_library_keys",
           "LIBRARY_FIELDS", "MIGRATED_VERSIONS", "RECORD_VERSION", "READABLE_VERSIONS", "TEXT_KEY"]

_JSON_FIELDS = ("entities", "evidence_ids", "metadata", "gate_reasons", "flags", "time_refs", "mentions",
                "episode", "lesson", "skill", "digest", "consolidated")
#: The unit's library fields and the reserved record keys they are stored under.
LIBRARY_FIELDS = {name: f"hs_{name}" for name in ("speaker", "episode", "lesson", "skill", "digest", "consolidated")}
_KEY_TO_FIELD = {key: name for name, key in LIBRARY_FIELDS.items()}
#: Older record layouts this release migrates when it reads them (see :func:`migrate_library_keys`).
MIGRATED_VERSIONS = frozenset({1})
#: Layout of the records this release writes (see the module docstring); the unit's fields are those of
#: :data:`~hindsight_core.models.SCHEMA_VERSION`.
RECORD_VERSION = 3
#: Record layouts this release reads: 1 (migrated), 2 (text in the document), 3.
READABLE_VERSIONS = frozenset({*MIGRATED_VERSIONS, SCHEMA_VERSION, RECORD_VERSION})
#: The metadata key that holds a unit's text in records of :data:`RECORD_VERSION`.
TEXT_KEY = "text"
#: Where records written before the typed fields kept them: metadata key -> field.
_LEGACY_KEYS = {"hindsight_lesson": "lesson", "hindsight_skill": "skill", "hindsight_digest": "digest",
                "hindsight_consolidated": "consolidated"}
_TIME_FIELDS = ("occurred_at", "mentioned_at", "valid_to", "last_hit_at", "created_at")


def ts(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


def from_ts(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, tz=timezone.utc)


def to_record(unit: MemoryUnit, seq: int) -> tuple[str, None, dict[str, Any]]:
    """``(id, document, metadata)`` for Chroma: no document, the text is in the metadata (see the
    module docstring). ``seq`` orders units within a bank."""
    data = unit.model_dump(mode="python", exclude={"id", "text"})
    meta: dict[str, Any] = {"seq": seq, TEXT_KEY: unit.text}
    for key, value in data.items():
        if value is None:
            continue  # Chroma has no null; absence means None
        stored_as = LIBRARY_FIELDS.get(key, key)
        if key in _JSON_FIELDS:
            meta[stored_as] = json.dumps(value, ensure_ascii=False, default=str)
        elif key in LIBRARY_FIELDS:
            meta[stored_as] = value
        elif key in _TIME_FIELDS:
            meta[key] = ts(value)
        elif hasattr(value, "value"):  # enums
            meta[key] = value.value
        else:
            meta[key] = value
    meta["schema_version"] = RECORD_VERSION
    return unit.id, None, meta


def record_text(document: str | None, meta: Mapping[str, Any]) -> str:
    """A record's unit text: in the metadata from layout 3 on, in the document before."""
    if meta.get("schema_version") == RECORD_VERSION:
        return str(meta.get(TEXT_KEY, ""))
    return document or ""


#: Every key :func:`to_record` may write (record-only keys and the unit's fields as stored).
_RECORD_KEYS = frozenset({"seq", CONTEXT_KEY, TEXT_KEY} | {
    LIBRARY_FIELDS.get(name, name) for name in MemoryUnit.model_fields if name not in ("id", "text")})


def whole(meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta`` with every other record key set to None. Chroma merges the metadata of an update or an
    upsert into what is stored (a key set to None is removed), so a record written over another one,
    or put back by an undo, takes this form or keeps the other's fields that ``meta`` lacks."""
    return {**dict.fromkeys(_RECORD_KEYS - meta.keys()), **meta}


def _check_version(meta: Mapping[str, Any], unit_id: str) -> None:
    version = meta.get("schema_version")
    if not (type(version) is int and version in READABLE_VERSIONS):
        if isinstance(version, int) and not isinstance(version, bool) and version > RECORD_VERSION:
            how = (f"it needs the schema {version} -> {RECORD_VERSION} migration, a downgrade no release ships: "
                   f"upgrade hindsight-memory to the release that writes schema {version}")
        else:
            how = (f"it needs the schema {version!r} -> {RECORD_VERSION} migration, which this release does not "
                   "ship: read the bank with the release that wrote it (bank.units()) and capture the texts again "
                   "into a new bank with this one")
        raise SchemaVersionError(
            f"unit {unit_id!r} was stored with schema version {version!r}; this release reads versions "
            f"{', '.join(map(str, sorted(READABLE_VERSIONS)))}, so {how}."
        )


def migrate_library_keys(data: dict[str, Any]) -> dict[str, Any]:
    """A unit's fields as an older release wrote them -> as this one does: the library's keys move out
    of ``metadata`` into their typed fields (an experience's ``episode`` summary too, and the caller's
    episode metadata it carried becomes the experience's metadata); a str ``metadata["speaker"]`` is
    copied into ``speaker`` (the caller's key stays). Fields already set are left as they are."""
    meta = data.get("metadata", {})
    if not isinstance(meta, dict):
        return data
    meta = dict(meta)
    out = dict(data)
    for key, name in _LEGACY_KEYS.items():
        if key in meta and out.get(name) is None:
            out[name] = meta.pop(key)
    library_experience = out.get("kind") == "experience" and out.get("source") == "agent" and out.get("episode_id")
    if library_experience and isinstance(meta.get("episode"), dict) and out.get("episode") is None:
        episode = dict(meta.pop("episode"))
        caller = episode.pop("metadata", None)
        out["episode"] = episode
        if isinstance(caller, dict) and not meta:
            meta = caller
    if out.get("speaker") is None and isinstance(meta.get("speaker"), str):
        out["speaker"] = meta["speaker"]
    out["metadata"] = meta
    out["schema_version"] = SCHEMA_VERSION
    return out


def from_record(unit_id: str, document: str | None, meta: Mapping[str, Any]) -> MemoryUnit:
    _check_version(meta, unit_id)
    data: dict[str, Any] = {"id": unit_id, "text": record_text(document, meta)}
    for key, value in meta.items():
        if key in ("seq", CONTEXT_KEY, TEXT_KEY):  # record-only fields, not part of the unit
            continue
        key = _KEY_TO_FIELD.get(key, key)
        if key in _JSON_FIELDS:
            data[key] = json.loads(value)
        elif key in _TIME_FIELDS:
            data[key] = from_ts(value)
        else:
            data[key] = value
    if meta.get("schema_version") in MIGRATED_VERSIONS:  # library data still inside the caller's metadata
        data = migrate_library_keys(data)
    data["schema_version"] = SCHEMA_VERSION  # the unit's fields; the record's layout stays the codec's
    return MemoryUnit.model_validate(data)


def to_indexed(unit_id: str, document: str | None, meta: Mapping[str, Any]) -> IndexedUnit:
    """The light record recall reads, straight from Chroma metadata (no pydantic on this path)."""
    _check_version(meta, unit_id)
    if meta.get("schema_version") not in MIGRATED_VERSIONS:
        speaker = meta.get(LIBRARY_FIELDS["speaker"])
    else:  # an older record: the speaker was read from the caller's metadata
        caller_meta = json.loads(meta.get("metadata", "{}"))
        speaker = caller_meta.get("speaker") if isinstance(caller_meta, dict) else None
    return IndexedUnit(
        id=unit_id,
        seq=int(meta["seq"]),
        text=record_text(document, meta),
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
