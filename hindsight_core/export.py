"""Export a bank to JSON Lines and import it back, losslessly and all-or-nothing.

The file is UTF-8 JSON Lines. Line 1 is a header, the last line a footer; every line between is one
memory unit, in the bank's insertion order::

    {"hindsight_export": 2, "bank": "alice", "schema_version": 2, "units": 2, "embedder": "all-MiniLM-L6-v2",
     "dim": 384, "embeddings": false, "exported_at": "2024-03-12T09:00:00+00:00"}
    {"unit": {"id": "...", "bank": "alice", "kind": "world", "text": "...", "status": "active", ...}}
    {"unit": {...}, "embedding": [0.0123, ...]}          # only with embeddings=True
    {"hindsight_export_end": 2, "units": 2, "checksum": "sha256-set:9f2c..."}

``unit`` is every field of :class:`~hindsight_core.models.MemoryUnit` (ids, times, status,
``superseded_by``, ``valid_to``, ``evidence_ids``, ``mentions``, ``metadata``, counters...).

**Integrity.** The footer carries the unit count and a checksum: SHA-256 over the sorted SHA-256 hex
digests of the unit lines (each line's UTF-8 bytes without its line break), so a file cut anywhere,
or a line edited, is refused while the order of lines stays free. Files of format 1 (no footer,
written before this release) still import, with a :class:`UserWarning`, when the header's unit
count matches the lines; otherwise they are refused as truncated.

**Import is all-or-nothing.** Every line is validated first (JSON, UTF-8, no NUL characters, header
fields, each unit's fields, text length, finite vectors of the header's dimension); then every
vector is computed; only then is anything written, and a failure while writing removes what this
import wrote and restores what it replaced. Every malformed file is an
:class:`~hindsight_core.errors.InvalidInputError` that names the line.

**Import is a write.** PII redaction runs again on the units (text, metadata, ids, mentions) under
the engine's :class:`~hindsight_core.config.PIIConfig`, instruction-like text is flagged as a quote,
and a directive or skill that is not from the user or the application (or reads like an injected
instruction) comes in as a draft. Everything else (ids, times, statuses, links, counters) is kept,
so ``export -> import -> export`` gives the same units (only ``bank`` changes when you import into
another bank).

**Existing banks.** Import refuses to write into a bank that already holds units unless asked:
``merge=True`` (``--merge``), or an ``on_conflict`` of ``"skip"`` or ``"replace"``.

Embeddings: by default they are *not* carried; import re-computes them with the importing engine's
embedder. ``embeddings=True`` carries the vectors; import uses them when its engine's embedder has the
same name and dimension (no model time at all), else re-embeds (``reembed="auto"``, the default).

Example:
    >>> import io
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> _ = engine.bank("alice").capture("Remember: staging is db-staging-2.")
    >>> buf = io.StringIO()
    >>> export_bank(engine.bank("alice"), buf)
    1
    >>> _ = buf.seek(0)
    >>> report = import_bank(engine, buf, bank="alice-copy")
    >>> report.imported, [u.text for u in engine.bank("alice-copy").units()]
    (1, ['Remember: staging is db-staging-2.'])
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import tempfile
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import IO, TYPE_CHECKING, Any, Iterator, Literal

import numpy as np
from pydantic import ValidationError

from hindsight_core._capture import RULE_KINDS, RULE_SOURCES
from hindsight_core._validate import check_metadata, check_text, normalise_bank_id
from hindsight_core.errors import HindsightError, InvalidInputError, SchemaVersionError
from hindsight_core.lifecycle.gate import looks_like_instruction
from hindsight_core.lifecycle.pii import redact, redact_id, redact_value
from hindsight_core.lifecycle.update_languages import english_gloss
from hindsight_core.models import SCHEMA_VERSION, Flag, MemoryStatus, MemoryUnit
from hindsight_core.storage.codec import MIGRATED_VERSIONS, migrate_library_keys

if TYPE_CHECKING:
    from hindsight_core.bank import MemoryBank
    from hindsight_core.engine import MemoryEngine

__all__ = ["FORMAT_VERSION", "ImportReport", "export_bank", "iter_export", "import_bank", "read_export"]

#: Version of the file layout (the header's ``hindsight_export``); 2 added the footer.
FORMAT_VERSION = 2
_FOOTER_KEY = "hindsight_export_end"
_READ_BATCH = 500
_WRITE_BATCH = 256
_EMBED_BATCH = 64
#: Longest line read (bytes): a unit of 20,000 characters, 32,000 of metadata, mentions and a
#: 4,096-dim vector fit with room; a longer line is a broken or hostile file, refused before parsing.
MAX_LINE_BYTES = 8 * 1024 * 1024
#: Deepest JSON nesting accepted on a line (metadata is the caller's; the unit itself needs 4).
MAX_DEPTH = 64

Conflict = Literal["error", "skip", "replace"]
Reembed = Literal["auto", "always", "never"]


@dataclass(slots=True)
class ImportReport:
    """What :func:`import_bank` did."""

    bank: str
    imported: int
    skipped: int = 0
    replaced: int = 0
    reembedded: int = 0
    """Units whose vectors were computed by this engine (the rest used the carried vectors)."""
    redacted: int = 0
    """Units in which PII was found and redacted on the way in."""
    drafted: int = 0
    """Directives or skills from untrusted sources (or instruction-like) that came in as drafts."""
    warnings: list[str] = field(default_factory=list)


# ---- export -----------------------------------------------------------------------------------------
def iter_export(bank: "MemoryBank", *, embeddings: bool = False) -> Iterator[dict[str, Any]]:
    """The export as JSON-ready dicts: the header first, then one dict per unit in insertion order
    (:func:`export_bank` adds the footer, which is computed over the written lines)."""
    index = bank.store.index
    embedder = bank.store.embedder
    with index.lock:
        ids = [u.id for u in sorted(index.units.values(), key=lambda u: u.seq)]
    yield {
        "hindsight_export": FORMAT_VERSION,
        "bank": bank.id,
        "schema_version": SCHEMA_VERSION,
        "units": len(ids),
        "embedder": embedder.name,
        "dim": index.dim,
        "embeddings": embeddings,
        "exported_at": datetime.now(timezone.utc).isoformat(),
    }
    for start in range(0, len(ids), _READ_BATCH):
        chunk = ids[start:start + _READ_BATCH]
        units = {u.id: u for u in bank.get_many(chunk)}
        vectors = index.store.get(index.collection, chunk, embeddings=True) if embeddings else {}
        for unit_id in chunk:
            unit = units.get(unit_id)
            if unit is None:  # deleted since the listing
                continue
            line: dict[str, Any] = {"unit": unit.model_dump(mode="json")}
            if embeddings:
                line["embedding"] = np.asarray(vectors[unit_id][2], dtype=np.float32).tolist()
            yield line


class _Checksum:
    """Order-free SHA-256 over unit lines (see the module docstring)."""

    def __init__(self) -> None:
        self.digests: list[str] = []

    def add(self, line: str) -> None:
        self.digests.append(hashlib.sha256(line.encode("utf-8", "surrogatepass")).hexdigest())

    def value(self) -> str:
        return "sha256-set:" + hashlib.sha256("\n".join(sorted(self.digests)).encode()).hexdigest()


def export_bank(bank: "MemoryBank", dest: str | os.PathLike[str] | IO[str], *, embeddings: bool = False,
                progress: bool = False) -> int:
    """Write ``bank`` to ``dest`` (a path or a text file object) as JSON Lines; returns the unit count.

    A path is written to a temporary file beside it and renamed into place once complete, so a
    failed export (a full disk) never leaves a partial file under the name.

    Args:
        bank: The bank to export (``engine.bank("alice")``).
        dest: A file path (created or overwritten) or an open text stream.
        embeddings: Also write each unit's vector (bigger file; import can skip re-embedding).
        progress: Show a progress bar (tqdm) on stderr.
    """
    lines = iter_export(bank, embeddings=embeddings)
    header = next(lines)
    checksum = _Checksum()
    with _open(dest, "w") as out:
        out.write(json.dumps(header, ensure_ascii=False) + "\n")
        count = 0
        for line in _bar(lines, progress, header["units"], f"export {bank.id}"):
            text = json.dumps(line, ensure_ascii=False)
            checksum.add(text)
            out.write(text + "\n")
            count += 1
        out.write(json.dumps({_FOOTER_KEY: FORMAT_VERSION, "units": count, "checksum": checksum.value()}) + "\n")
    return count


# ---- reading and validating ---------------------------------------------------------------------------
def _lines(src: Any, name: Any) -> Iterator[tuple[int, str]]:
    """``(number, text)`` of each line, decoded strictly; NUL, invalid UTF-8 and giant lines refused."""
    number = 0
    while True:
        try:
            raw = src.readline(MAX_LINE_BYTES + 1)
        except UnicodeDecodeError as exc:  # a text stream opened by the caller with a strict codec
            raise InvalidInputError(f"{name}: line {number + 1} is not valid UTF-8 ({exc.reason}); exports are UTF-8 "
                                    "text. Export the bank again or re-save the file as UTF-8.") from None
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise InvalidInputError(f"{name}: line {number} is over {MAX_LINE_BYTES:,} bytes; this is not a "
                                    "hindsight export (or it was damaged). Export the bank again.")
        if isinstance(raw, bytes):
            if b"\x00" in raw:
                raise InvalidInputError(f"{name}: line {number} contains NUL bytes; this looks like a binary file, "
                                        "not a hindsight export (JSON Lines text)")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidInputError(f"{name}: line {number} is not valid UTF-8 (byte {exc.start + 1}); exports "
                                        "are UTF-8 text. Export the bank again or re-save the file as UTF-8.") from None
        else:
            text = raw
            if "\x00" in text:
                raise InvalidInputError(f"{name}: line {number} contains NUL characters; this is not a hindsight "
                                        "export (JSON Lines text)")
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise InvalidInputError(f"{name}: line {number} holds characters that are not valid Unicode "
                                        "(lone surrogates); re-save the file as UTF-8") from None
        if number == 1 and text.startswith("\ufeff"):
            text = text[1:]  # a byte-order mark some editors add
        yield number, text.rstrip("\r\n")


def _json(text: str, name: Any, number: int) -> Any:
    try:
        data = json.loads(text, parse_constant=lambda c: _reject_constant(c, name, number))
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{name}: line {number} is not valid JSON ({exc.msg}); the file may be truncated or edited "
            "by hand. Export the bank again (`hindsight export BANK -o FILE`)."
        ) from None
    except RecursionError:
        raise InvalidInputError(f"{name}: line {number} is nested too deeply to be a hindsight export") from None
    if _depth(data) > MAX_DEPTH:
        raise InvalidInputError(f"{name}: line {number} is nested more than {MAX_DEPTH} levels deep; flatten the "
                                "metadata (exports of this library never are)")
    return data


def _reject_constant(constant: str, name: Any, number: int) -> Any:
    raise InvalidInputError(f"{name}: line {number} contains {constant}, which is not a number JSON allows; "
                            "export the bank again")


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def read_export(source: str | os.PathLike[str] | IO[str]) -> tuple[dict[str, Any], list[tuple[MemoryUnit, Any]]]:
    """Parse and validate a whole export: ``(header, [(unit, vector or None), ...])``. Nothing is written.

    Raises:
        InvalidInputError: not an export file, invalid UTF-8 or binary content, a malformed line or
            header, a unit or vector that does not validate, a unit id that appears twice, a missing or
            mismatching footer (a truncated or edited file). The message names the line.
        SchemaVersionError: the file was written by a newer hindsight-memory.
    """
    name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else getattr(source, "name", "<stream>")
    units: list[tuple[MemoryUnit, Any]] = []
    seen: set[str] = set()
    checksum = _Checksum()
    header: dict[str, Any] | None = None
    footer: tuple[int, dict[str, Any]] | None = None
    last = 0
    with _open(source, "rb") as src:
        for number, text in _lines(src, name):
            last = number
            if not text.strip():
                continue
            if footer is not None:
                raise InvalidInputError(f"{name}: line {number} comes after the footer (line {footer[0]}); the file "
                                        "was edited or two exports were joined. Export the bank again.")
            data = _json(text, name, number)
            if header is None:
                header = _check_header(data, name, number)
                continue
            if isinstance(data, dict) and _FOOTER_KEY in data:
                footer = (number, data)
                continue
            unit, vector = _parse_unit(data, name, number, seen, header)
            checksum.add(text)
            units.append((unit, vector))
    if header is None:
        raise InvalidInputError(f"{name}: empty file; expected a `hindsight export` JSON Lines file")
    _check_end(header, footer, len(units), checksum, name, last)
    return header, units


def _check_end(header: dict[str, Any], footer: tuple[int, dict[str, Any]] | None, count: int, checksum: _Checksum,
               name: Any, last: int) -> None:
    if header["hindsight_export"] < 2:  # format 1 had no footer: the header's count is all there is
        if header.get("units") is not None and header["units"] != count:
            raise InvalidInputError(
                f"{name}: the header announces {header['units']} units but {count} follow (line {last} is the last): "
                "the file is truncated or was edited. Export the bank again."
            )
        warnings.warn(f"{name}: an export of format 1 (no footer, written before hindsight-memory added checksums): "
                      "its unit count matched, but edits cannot be detected", UserWarning, stacklevel=3)
        return
    if footer is None:
        raise InvalidInputError(
            f"{name}: no footer after line {last}; the file is truncated (an export ends with a "
            f"\"{_FOOTER_KEY}\" line). Export the bank again."
        )
    number, data = footer
    if data.get("units") != count or (header.get("units") is not None and header["units"] != count):
        raise InvalidInputError(f"{name}: line {number} (footer) announces {data.get('units')!r} units but {count} "
                                "were read; lines are missing or were added. Export the bank again.")
    if data.get("checksum") != checksum.value():
        raise InvalidInputError(f"{name}: line {number} (footer): the checksum does not match the unit lines; a line "
                                "was changed after export. Export the bank again.")


def _int_field(data: dict[str, Any], key: str, name: Any, number: int, *, minimum: int = 0,
               required: bool = True) -> int | None:
    if key not in data and not required:
        return None
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidInputError(f"{name}: line {number} (header): {key!r} must be a whole number >= {minimum}, not "
                                f"{value!r}; export the bank again")
    return value


def _check_header(data: Any, name: Any, number: int) -> dict[str, Any]:
    if not isinstance(data, dict) or "hindsight_export" not in data:
        raise InvalidInputError(
            f"{name}: line {number} is not a hindsight export header; this file was not written by "
            "`hindsight export` / hindsight_core.export.export_bank"
        )
    version = _int_field(data, "hindsight_export", name, number, minimum=1)
    schema = _int_field(data, "schema_version", name, number, minimum=1, required=False) or 1
    if version > FORMAT_VERSION or schema > SCHEMA_VERSION:  # type: ignore[operator]
        raise SchemaVersionError(
            f"{name}: written by a newer hindsight-memory (export format {version}, schema {schema}); upgrade this "
            "installation to import it"
        )
    _int_field(data, "units", name, number, required=version >= 2)
    _int_field(data, "dim", name, number, minimum=1, required=False)
    if not isinstance(data.get("bank"), str):
        raise InvalidInputError(f"{name}: line {number} (header) names no bank; pass bank=... (--bank NAME)")
    if data.get("embedder") is not None and not isinstance(data["embedder"], str):
        raise InvalidInputError(f"{name}: line {number} (header): 'embedder' must be a model name (str)")
    if not isinstance(data.get("embeddings", False), bool):
        raise InvalidInputError(f"{name}: line {number} (header): 'embeddings' must be true or false")
    return data


def _parse_unit(data: Any, name: Any, number: int, seen: set[str], header: dict[str, Any]) -> tuple[MemoryUnit, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("unit"), dict):
        raise InvalidInputError(f"{name}: line {number} has no \"unit\" object; is this a hindsight export?")
    raw_schema = data["unit"].get("schema_version", SCHEMA_VERSION)
    if isinstance(raw_schema, bool) or not isinstance(raw_schema, int):
        raise InvalidInputError(f"{name}: line {number}: field 'schema_version' must be a whole number, not "
                                f"{raw_schema!r}; export the bank again")
    if raw_schema > SCHEMA_VERSION:
        raise SchemaVersionError(f"{name}: line {number} was written with a newer schema; upgrade hindsight-memory")
    fields = data["unit"]
    if raw_schema in MIGRATED_VERSIONS:  # written before the library fields were typed: they sit in metadata
        fields = migrate_library_keys(fields)
    try:
        unit = MemoryUnit.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidInputError(f"{name}: line {number}: field {where!r}: {first['msg']}; fix the line or "
                                "export the bank again") from None
    try:
        check_text(unit.text, "the unit's text")
        check_metadata(unit.metadata)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{name}: line {number}: {exc}") from None
    if unit.id in seen:
        raise InvalidInputError(f"{name}: line {number}: unit id {unit.id!r} appears twice in the file")
    seen.add(unit.id)
    vector = data.get("embedding")
    if vector is not None:
        dim = header.get("dim")
        if not (isinstance(vector, list) and vector
                and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vector)):
            raise InvalidInputError(f"{name}: line {number}: \"embedding\" must be a list of numbers")
        if dim is not None and len(vector) != dim:
            raise InvalidInputError(f"{name}: line {number}: \"embedding\" has {len(vector)} numbers but the header "
                                    f"says dim={dim}; the line is damaged. Export the bank again.")
        if not all(math.isfinite(x) for x in vector):
            raise InvalidInputError(f"{name}: line {number}: \"embedding\" contains NaN or infinity; export the "
                                    "bank again, or import with reembed='always' after removing the vectors")
    return unit, vector


# ---- import -----------------------------------------------------------------------------------------
def import_bank(
    engine: "MemoryEngine",
    source: str | os.PathLike[str] | IO[str],
    *,
    bank: str | None = None,
    on_conflict: Conflict = "error",
    reembed: Reembed = "auto",
    merge: bool = False,
    progress: bool = False,
) -> ImportReport:
    """Load an export into ``engine``, unit for unit (ids, times, statuses and links kept), all or nothing.

    Args:
        engine: Where to import.
        source: A path or a stream (text or binary) written by :func:`export_bank` / ``hindsight export``.
        bank: Import into this bank instead of the one named in the file (the units' ``bank`` follows).
        on_conflict: A unit id that already exists in the target bank: ``"error"`` (default, nothing is
            written), ``"skip"`` it, or ``"replace"`` the stored unit. ``"skip"`` and ``"replace"`` also
            allow writing into an existing bank.
        reembed: ``"auto"``: use carried vectors when they come from this engine's embedder, else embed;
            ``"always"``: embed every text; ``"never"``: require carried, compatible vectors.
        merge: Allow adding the units to a bank that already holds units (refused by default, so a file
            never lands silently in the bank its header names).
        progress: Show a progress bar (tqdm) on stderr while embedding and writing.

    Returns:
        An :class:`ImportReport`.

    Raises:
        InvalidInputError: a bad or truncated file (the message names the line), an existing bank
            without ``merge``, an id conflict with ``on_conflict="error"``, or ``reembed="never"`` without
            compatible vectors. Nothing is written in these cases, nor when writing itself fails.
    """
    if on_conflict not in ("error", "skip", "replace"):
        raise InvalidInputError(f"on_conflict must be 'error', 'skip' or 'replace', not {on_conflict!r}")
    if reembed not in ("auto", "always", "never"):
        raise InvalidInputError(f"reembed must be 'auto', 'always' or 'never', not {reembed!r}")
    if not isinstance(merge, bool):
        raise InvalidInputError(f"merge must be True or False, not {merge!r}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        header, parsed = read_export(source)
    for w in caught:
        warnings.warn(str(w.message), w.category, stacklevel=2)
    target = normalise_bank_id(bank if bank is not None else header["bank"])
    embedder = engine.embedder

    carried = bool(header.get("embeddings")) and all(v is not None for _, v in parsed)
    compatible = carried and header.get("embedder") == embedder.name and header.get("dim") == embedder.dim
    if reembed == "never" and not compatible:
        raise InvalidInputError(
            f"reembed='never' needs vectors from {embedder.name!r} ({embedder.dim} dims) in the file, but it "
            + ("carries none (export with embeddings=True / --embeddings)" if not carried else
               f"carries {header.get('embedder')!r} ({header.get('dim')} dims)")
            + "; use reembed='auto' to compute them"
        )
    use_carried = compatible and reembed != "always"

    existed = target in engine.banks()
    index = engine.bank(target).store.index
    with index.lock:
        existing = {u.id for u, _ in parsed if u.id in index.units}
        held = len(index.units)
    if existing and on_conflict == "error":
        example = sorted(existing)[0]
        raise InvalidInputError(
            f"{len(existing)} unit id(s) of the file already exist in bank {target!r} (e.g. {example!r}); "
            "import into another bank (bank=... / --bank NAME), or pass on_conflict='skip' or 'replace' "
            "(--on-conflict skip|replace)"
        )
    if held and not merge and on_conflict == "error":
        raise InvalidInputError(
            f"bank {target!r} already exists with {held} units; an import does not merge into it unless asked. "
            "Import into a new bank (bank=... / --bank NAME), or pass merge=True (--merge) to add the file's units"
        )
    report = ImportReport(bank=target, imported=0, warnings=[str(w.message) for w in caught])
    todo: list[tuple[MemoryUnit, Any]] = []
    for unit, vector in parsed:
        if on_conflict == "skip" and unit.id in existing:
            continue
        safe, changed, drafted = _sanitise(unit, target, engine.config.pii)
        report.redacted += changed
        report.drafted += drafted
        todo.append((safe, None if changed else vector))
    report.imported, report.skipped = len(todo), len(parsed) - len(todo)
    report.replaced = len(existing) if on_conflict == "replace" else 0

    # Every vector before the first write: a failing model leaves the store untouched.
    vectors = _vectors(todo, embedder, use_carried, report, progress, target)
    glosses = _gloss_vectors(todo, embedder)
    store = engine.bank(target).store
    previous = store.records(sorted(existing)) if report.replaced else {}
    written: list[str] = []
    bar = _progress_bar(progress, len(todo), f"import {target}")
    try:
        for start in range(0, len(todo), _WRITE_BATCH):
            units = [u for u, _ in todo[start:start + _WRITE_BATCH]]
            store.load(units, vectors[start:start + _WRITE_BATCH], glosses)  # an import creates the bank
            written += [u.id for u in units]
            if bar is not None:
                bar.update(len(units))
    except BaseException:
        _undo(engine, target, existed, written, previous)
        raise
    finally:
        if bar is not None:
            bar.close()
        # Rebuild the bank's in-memory index from Chroma: links (evidence, supersedes) between imported
        # units are made once every unit is there, whatever order the file had.
        store.forget()
    return report


# ---- helpers ----------------------------------------------------------------------------------------
def _sanitise(unit: MemoryUnit, target: str, pii: Any) -> tuple[MemoryUnit, bool, bool]:
    """The unit as a capture would store it: PII redacted, injected text flagged, untrusted rules drafted.
    Returns ``(unit, text or fields were redacted, made a draft)``."""
    update: dict[str, Any] = {"bank": target} if unit.bank != target else {}
    flags = list(unit.flags)
    changed = False
    if pii.enabled:
        red = redact(unit.text, pii.kinds)
        meta, meta_kinds = redact_value(unit.metadata, pii.kinds)
        mentions, mention_kinds = redact_value(list(unit.mentions), pii.kinds)
        session, s_kinds = redact_id(unit.session_id, pii.kinds)
        episode, e_kinds = redact_id(unit.episode_id, pii.kinds)
        entities = tuple(redact(e, pii.kinds).text for e in unit.entities)
        if red.kinds or meta_kinds or mention_kinds or s_kinds or e_kinds:
            update |= {"text": red.text, "metadata": meta, "mentions": tuple(mentions), "session_id": session,
                       "episode_id": episode, "entities": entities}
            flags += [] if Flag.PII_REDACTED in flags else [Flag.PII_REDACTED]
            changed = red.text != unit.text
    text = update.get("text", unit.text)
    instruction = looks_like_instruction(text)
    if instruction and Flag.INSTRUCTION_LIKE not in flags:
        flags.append(Flag.INSTRUCTION_LIKE)
    drafted = False
    if unit.kind in RULE_KINDS and unit.status is MemoryStatus.ACTIVE and (instruction or unit.source not in RULE_SOURCES):
        if instruction or unit.skill is None:  # the library's own skills carry their ``skill`` record
            update["status"] = MemoryStatus.DRAFT
            drafted = True
    if tuple(flags) != unit.flags:
        update["flags"] = tuple(flags)
    return (unit.model_copy(update=update) if update else unit), changed, drafted


def _gloss_vectors(todo: list[tuple[MemoryUnit, Any]], embedder: Any) -> dict[str, np.ndarray]:
    """The vectors of the English glosses of units in another language, by id, as capture keeps them
    (recall's judge reads such a unit through its gloss); never carried by an export."""
    glossed = [(u.id, g) for u, _ in todo if (g := english_gloss(u.text)) is not None]
    out: dict[str, np.ndarray] = {}
    for start in range(0, len(glossed), _EMBED_BATCH):
        chunk = glossed[start:start + _EMBED_BATCH]
        out.update(zip((uid for uid, _ in chunk), np.asarray(embedder.embed([g for _, g in chunk]), dtype=np.float32)))
    return out


def _vectors(todo: list[tuple[MemoryUnit, Any]], embedder: Any, use_carried: bool, report: ImportReport,
             progress: bool, target: str) -> np.ndarray:
    out = np.zeros((len(todo), embedder.dim), dtype=np.float32)
    missing = [i for i, (_, v) in enumerate(todo) if not use_carried or v is None]
    for i, (_, v) in enumerate(todo):
        if use_carried and v is not None:
            out[i] = np.asarray(v, dtype=np.float32)
    bar = _progress_bar(progress and bool(missing), len(missing), f"embed {target}")
    try:
        for start in range(0, len(missing), _EMBED_BATCH):
            rows = missing[start:start + _EMBED_BATCH]
            out[rows] = np.asarray(embedder.embed([todo[i][0].text for i in rows]), dtype=np.float32)
            if bar is not None:
                bar.update(len(rows))
    finally:
        if bar is not None:
            bar.close()
    report.reembedded = len(missing)
    return out


def _undo(engine: "MemoryEngine", target: str, existed: bool, written: list[str],
          previous: dict[str, tuple[str, dict[str, Any], Any]]) -> None:
    """Take back a failed import: drop a bank it created, else delete what it wrote and restore what it replaced."""
    with contextlib.suppress(HindsightError):
        if not existed:
            engine.store.drop_bank(target)
            return
        store = engine.bank(target).store
        store.delete([i for i in written if i not in previous])
        store.restore(previous)


@contextlib.contextmanager
def _open(target: str | os.PathLike[str] | IO[Any], mode: str) -> Iterator[IO[Any]]:
    """Open a path (``"rb"`` to read, ``"w"`` to write atomically: a temp file renamed into place) or
    pass a stream through (a text stream when reading works too)."""
    if isinstance(target, (str, os.PathLike)):
        path = os.fspath(target)
        if os.path.isdir(path):
            raise InvalidInputError(f"{path!r} is a folder; give a file path")
        if mode == "rb":
            try:
                fh = open(path, "rb")
            except FileNotFoundError:
                raise InvalidInputError(f"no file at {path!r}; check the path") from None
            except PermissionError:
                raise InvalidInputError(f"cannot read {path!r}: permission denied") from None
            with fh:
                yield fh
            return
        folder = os.path.dirname(os.path.abspath(path))
        try:
            fd, tmp = tempfile.mkstemp(prefix=".hindsight-export-", suffix=".tmp", dir=folder)
        except FileNotFoundError:
            raise InvalidInputError(f"no folder {folder!r} to write {path!r} into; create it first") from None
        except PermissionError:
            raise InvalidInputError(f"cannot write into {folder!r}: permission denied; choose another path") from None
        try:
            with open(fd, "w", encoding="utf-8", newline="\n") as fh:
                yield fh
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    elif isinstance(target, io.IOBase) or hasattr(target, "write" if mode == "w" else "readline"):
        if mode == "rb" and isinstance(target, io.TextIOWrapper):
            target = target.buffer  # e.g. sys.stdin: read bytes, so bad UTF-8 is reported with its line
        yield target  # type: ignore[misc]
    else:
        raise InvalidInputError(f"expected a path or a stream, not {type(target).__name__}; pass a file path or an "
                                "open file object")


def _progress_bar(enabled: bool, total: int, desc: str) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="unit")


def _bar(items: Iterator[Any], enabled: bool, total: int, desc: str) -> Iterator[Any]:
    bar = _progress_bar(enabled, total, desc)
    if bar is None:
        yield from items
        return
    try:
        for item in items:
            yield item
            bar.update(1)
    finally:
        bar.close()
