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

Record layout (``schema_version`` of the record, :data:`RECORD_VERSION`): version 4 packs the unit's
fields, its text included, into one JSON string under :data:`PACKED_KEY`; only the fields services set
on their own without rewriting the record (:data:`LOOSE_FIELDS`: activity counters, archiving), the
context-window vector and ``schema_version`` stay separate keys. Nothing queries Chroma's metadata
index (the library keeps its own indexes), and Chroma writes one indexed row per metadata key and
full-text indexes documents: over 1,451 recorded LoCoMo capture writes, replayed side by side, a
record cost 0.95-1.15 ms to write with its text as a document (layout 2), 0.61-0.71 ms with the text
and 21 fields as metadata keys (layout 3), 0.36-0.40 ms packed. Records of versions 1, 2 and 3 are
read as they are (:func:`fields` gives every layout's fields one way) and take the new layout on their
next write; a release older than this one refuses version 4 records with :class:`SchemaVersionError`
instead of misreading them.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Mapping

from hindsight_core.errors import SchemaVersionError, StorageError
from hindsight_core.models import SCHEMA_VERSION, MemoryUnit
from hindsight_core.retrieval.context import CONTEXT_KEY, GLOSS_KEY, VECTOR_KEYS, decode_vector
from hindsight_core.retrieval.types import IndexedUnit

__all__ = ["to_record", "from_record", "to_indexed", "fields", "record_text", "stored_text", "whole", "ts",
           "from_ts", "migrate_library_keys", "LIBRARY_FIELDS", "LOOSE_FIELDS", "MIGRATED_VERSIONS", "PACKED_KEY",
           "RECORD_VERSION", "READABLE_VERSIONS", "TEXT_KEY"]

_JSON_FIELDS = ("entities", "evidence_ids", "metadata", "gate_reasons", "flags", "time_refs", "mentions",
                "episode", "lesson", "skill", "digest", "consolidated")
#: The unit's library fields and the reserved record keys they are stored under.
LIBRARY_FIELDS = {name: f"hs_{name}" for name in ("speaker", "episode", "lesson", "skill", "digest", "consolidated")}
_KEY_TO_FIELD = {key: name for name, key in LIBRARY_FIELDS.items()}
#: Older record layouts this release migrates when it reads them (see :func:`migrate_library_keys`).
MIGRATED_VERSIONS = frozenset({1})
#: Layout of the records this release writes (see the module docstring); the unit's fields are those of
#: :data:`~hindsight_core.models.SCHEMA_VERSION`.
RECORD_VERSION = 4
#: Record layouts this release reads: 1 (migrated), 2 (text in the document), 3 (text and fields as
#: metadata keys), 4 (packed).
READABLE_VERSIONS = frozenset({*MIGRATED_VERSIONS, SCHEMA_VERSION, 3, RECORD_VERSION})
#: The metadata key of a layout-4 record that holds the packed fields (one JSON object).
PACKED_KEY = "unit"
#: The metadata key that holds a unit's text in layout-3 records (and in the packed fields).
TEXT_KEY = "text"
#: Fields a layout-4 record keeps as their own metadata keys: services set them alone
#: (:meth:`~hindsight_core.storage.unit_store.UnitStore.patch`, ``archive``), which a packed field
#: would not survive (Chroma merges metadata key by key).
LOOSE_FIELDS = frozenset({"status", "activity", "hit_count", "last_hit_at"})
#: Where records written before the typed fields kept them: metadata key -> field.
_LEGACY_KEYS = {"hindsight_lesson": "lesson", "hindsight_skill": "skill", "hindsight_digest": "digest",
                "hindsight_consolidated": "consolidated"}
_TIME_FIELDS = ("occurred_at", "mentioned_at", "valid_to", "last_hit_at", "created_at")


def ts(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


def from_ts(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, tz=timezone.utc)


def to_record(unit: MemoryUnit, seq: int) -> tuple[str, None, dict[str, Any]]:
    """``(id, document, metadata)`` for Chroma in layout :data:`RECORD_VERSION`: no document, the
    fields packed under :data:`PACKED_KEY` but :data:`LOOSE_FIELDS` (see the module docstring).
    ``seq`` orders units within a bank."""
    data = unit.model_dump(mode="python", exclude={"id", "schema_version"})  # the record's own is set
    packed: dict[str, Any] = {"seq": seq}
    meta: dict[str, Any] = {"schema_version": RECORD_VERSION}
    for key, value in data.items():
        if value is None:
            continue  # absence means None, as in every layout
        if key in _TIME_FIELDS:
            value = ts(value)
        elif hasattr(value, "value"):  # enums
            value = value.value
        if key in LOOSE_FIELDS:
            meta[key] = value
        else:
            packed[LIBRARY_FIELDS.get(key, key)] = value
    meta[PACKED_KEY] = json.dumps(packed, ensure_ascii=False, default=str)
    return unit.id, None, meta


def fields(meta: Mapping[str, Any]) -> dict[str, Any]:
    """A record's fields as stored, one key each, whatever its layout: a layout-4 record's packed
    fields are unpacked (their lists and objects as such; older layouts hold them as JSON strings).

    Raises:
        StorageError: the packed fields are not a JSON object (the record was written outside
            this library).
    """
    if meta.get("schema_version") != RECORD_VERSION:
        return dict(meta)
    try:
        out = json.loads(meta[PACKED_KEY])
    except (KeyError, TypeError, ValueError) as exc:
        raise StorageError(f"the record's packed fields ({PACKED_KEY!r}) cannot be read ({exc!r}): it was "
                           "written outside this library; delete the unit or restore the bank from a snapshot") from exc
    if not isinstance(out, dict):
        raise StorageError(f"the record's packed fields ({PACKED_KEY!r}) are not a JSON object: it was written "
                           "outside this library; delete the unit or restore the bank from a snapshot")
    out.update((k, v) for k, v in meta.items() if k != PACKED_KEY)
    return out


def record_text(document: str | None, meta: Mapping[str, Any]) -> str:
    """A record's unit text: in the metadata from layout 3 on (packed from layout 4), in the document before."""
    return stored_text(document, fields(meta))


def stored_text(document: str | None, stored: Mapping[str, Any]) -> str:
    """:func:`record_text` of a record whose :func:`fields` were read already."""
    if stored.get("schema_version") in (3, RECORD_VERSION):
        return str(stored.get(TEXT_KEY, ""))
    return document or ""


#: Every key a record of any layout this release reads may hold at its top level.
_RECORD_KEYS = frozenset({"seq", *VECTOR_KEYS, TEXT_KEY, PACKED_KEY} | {
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


def _json(value: Any) -> Any:
    """A JSON-valued field as read: a string in layouts 1-3, the value itself once unpacked."""
    return json.loads(value) if isinstance(value, str) else value


def from_record(unit_id: str, document: str | None, meta: Mapping[str, Any]) -> MemoryUnit:
    _check_version(meta, unit_id)
    stored = fields(meta)
    data: dict[str, Any] = {"id": unit_id, "text": stored_text(document, stored)}
    for key, value in stored.items():
        if key in ("seq", TEXT_KEY) or key in VECTOR_KEYS:  # record-only fields, not part of the unit
            continue
        key = _KEY_TO_FIELD.get(key, key)
        if key in _JSON_FIELDS:
            data[key] = _json(value)
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
    f = fields(meta)
    if meta.get("schema_version") not in MIGRATED_VERSIONS:
        speaker = f.get(LIBRARY_FIELDS["speaker"])
    else:  # an older record: the speaker was read from the caller's metadata
        caller_meta = json.loads(meta.get("metadata", "{}"))
        speaker = caller_meta.get("speaker") if isinstance(caller_meta, dict) else None
    return IndexedUnit(
        id=unit_id,
        seq=int(f["seq"]),
        text=stored_text(document, f),
        kind=f.get("kind", "world"),
        status=f.get("status", "active"),
        source=f.get("source", "user"),
        session_id=f.get("session_id"),
        episode_id=f.get("episode_id"),
        occurred_at=f.get("occurred_at"),
        mentioned_at=f["mentioned_at"],
        entities=tuple(_json(f.get("entities", ()))),
        importance=float(f.get("importance", 0.5)),
        confidence=float(f.get("confidence", 0.5)),
        activity=float(f.get("activity", 0.5)),
        outcome=f.get("outcome"),
        evidence_ids=tuple(_json(f.get("evidence_ids", ()))),
        flags=tuple(_json(f.get("flags", ()))),
        speaker=str(speaker) if speaker is not None else None,
        context=decode_vector(f[CONTEXT_KEY]) if CONTEXT_KEY in f else None,
        gloss=decode_vector(f[GLOSS_KEY]) if GLOSS_KEY in f else None,
    )
