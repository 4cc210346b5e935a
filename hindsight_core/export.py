"""Export a bank to JSON Lines and import it back, losslessly.

The file is UTF-8 JSON Lines. Line 1 is a header; every other line is one memory unit, in the
bank's insertion order::

    {"hindsight_export": 1, "bank": "alice", "schema_version": 1, "units": 2, "embedder": "all-MiniLM-L6-v2",
     "dim": 384, "embeddings": false, "exported_at": "2024-03-12T09:00:00+00:00"}
    {"unit": {"id": "...", "bank": "alice", "kind": "world", "text": "...", "status": "active", ...}}
    {"unit": {...}, "embedding": [0.0123, ...]}          # only with embeddings=True

``unit`` is every field of :class:`~hindsight_core.models.MemoryUnit` (ids, times, status,
``superseded_by``, ``valid_to``, ``evidence_ids``, ``mentions``, ``metadata``, counters...). Import
writes the units as they are: the write gate, PII redaction, entity extraction and de-duplication
do not run again, so ``export -> import -> export`` gives the same units (only ``bank`` changes
when you import into another bank).

Embeddings: by default they are *not* carried; import re-computes them with the importing engine's
embedder. Files stay small, and a bank moves to another embedding model by export + import.
``embeddings=True`` carries the vectors; import uses them when its engine's embedder has the same
name and dimension (no model time at all), else re-embeds (``reembed="auto"``, the default).

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
import io
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO, TYPE_CHECKING, Any, Iterator, Literal

import numpy as np
from pydantic import ValidationError

from hindsight_core.errors import InvalidInputError, SchemaVersionError
from hindsight_core.models import SCHEMA_VERSION, MemoryUnit
from hindsight_core.storage.chroma_store import validate_bank_id
from hindsight_core.storage.codec import to_record

if TYPE_CHECKING:
    from hindsight_core.bank import MemoryBank
    from hindsight_core.engine import MemoryEngine

__all__ = ["FORMAT_VERSION", "ImportReport", "export_bank", "iter_export", "import_bank", "read_export"]

#: Version of the file layout (the header's ``hindsight_export``).
FORMAT_VERSION = 1
_READ_BATCH = 500
_WRITE_BATCH = 256
_EMBED_BATCH = 64

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


# ---- export -----------------------------------------------------------------------------------------
def iter_export(bank: "MemoryBank", *, embeddings: bool = False) -> Iterator[dict[str, Any]]:
    """The export as JSON-ready dicts: the header first, then one dict per unit in insertion order."""
    index = bank._index
    embedder = bank._engine.embedder
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


def export_bank(bank: "MemoryBank", dest: str | os.PathLike[str] | IO[str], *, embeddings: bool = False,
                progress: bool = False) -> int:
    """Write ``bank`` to ``dest`` (a path or a text file object) as JSON Lines; returns the unit count.

    Args:
        bank: The bank to export (``engine.bank("alice")``).
        dest: A file path (created or overwritten) or an open text stream.
        embeddings: Also write each unit's vector (bigger file; import can skip re-embedding).
        progress: Show a progress bar (tqdm) on stderr.
    """
    lines = iter_export(bank, embeddings=embeddings)
    header = next(lines)
    with _open(dest, "w") as out:
        out.write(json.dumps(header, ensure_ascii=False) + "\n")
        count = 0
        for line in _bar(lines, progress, header["units"], f"export {bank.id}"):
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            count += 1
    return count


# ---- import -----------------------------------------------------------------------------------------
def read_export(source: str | os.PathLike[str] | IO[str]) -> tuple[dict[str, Any], list[tuple[MemoryUnit, Any]]]:
    """Parse and validate an export: ``(header, [(unit, vector or None), ...])``. Nothing is written.

    Raises:
        InvalidInputError: not an export file, a malformed line, a unit that does not validate,
            or a unit id that appears twice. The message names the line.
        SchemaVersionError: the file was written by a newer hindsight-memory.
    """
    name = source if isinstance(source, (str, os.PathLike)) else getattr(source, "name", "<stream>")
    units: list[tuple[MemoryUnit, Any]] = []
    seen: set[str] = set()
    with _open(source, "r") as src:
        header: dict[str, Any] | None = None
        for number, raw in enumerate(src, 1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise InvalidInputError(
                    f"{name}: line {number} is not valid JSON ({exc.msg}); the file may be truncated or edited "
                    "by hand. Export the bank again (`hindsight export BANK -o FILE`)."
                ) from None
            if header is None:
                header = _check_header(data, name)
                continue
            units.append(_parse_unit(data, name, number, seen))
    if header is None:
        raise InvalidInputError(f"{name}: empty file; expected a `hindsight export` JSON Lines file")
    return header, units


def import_bank(
    engine: "MemoryEngine",
    source: str | os.PathLike[str] | IO[str],
    *,
    bank: str | None = None,
    on_conflict: Conflict = "error",
    reembed: Reembed = "auto",
    progress: bool = False,
) -> ImportReport:
    """Load an export into ``engine``, unit for unit (ids, times, statuses and links kept).

    Args:
        engine: Where to import.
        source: A path or a text stream written by :func:`export_bank` / ``hindsight export``.
        bank: Import into this bank instead of the one named in the file (the units' ``bank`` follows).
        on_conflict: A unit id that already exists in the target bank: ``"error"`` (default, nothing is
            written), ``"skip"`` it, or ``"replace"`` the stored unit.
        reembed: ``"auto"``: use carried vectors when they come from this engine's embedder, else embed;
            ``"always"``: embed every text; ``"never"``: require carried, compatible vectors.
        progress: Show a progress bar (tqdm) on stderr while embedding and writing.

    Returns:
        An :class:`ImportReport`.

    Raises:
        InvalidInputError: a bad file, an id conflict with ``on_conflict="error"``, or ``reembed="never"``
            without compatible vectors. Nothing is written in these cases.
    """
    if on_conflict not in ("error", "skip", "replace"):
        raise InvalidInputError(f"on_conflict must be 'error', 'skip' or 'replace', not {on_conflict!r}")
    if reembed not in ("auto", "always", "never"):
        raise InvalidInputError(f"reembed must be 'auto', 'always' or 'never', not {reembed!r}")
    header, parsed = read_export(source)
    target = validate_bank_id(bank if bank is not None else header["bank"])
    embedder = engine.embedder

    carried = bool(header.get("embeddings")) and all(v is not None for _, v in parsed)
    compatible = carried and header.get("embedder") == embedder.name and int(header.get("dim", -1)) == embedder.dim
    if reembed == "never" and not compatible:
        raise InvalidInputError(
            f"reembed='never' needs vectors from {embedder.name!r} ({embedder.dim} dims) in the file, but it "
            + ("carries none (export with embeddings=True / --embeddings)" if not carried else
               f"carries {header.get('embedder')!r} ({header.get('dim')} dims)")
            + "; use reembed='auto' to compute them"
        )
    use_carried = compatible and reembed != "always"

    index = engine._live_index(target, create=True)  # an import creates the bank
    with index.lock:
        existing = {u.id for u, _ in parsed if u.id in index.units}
    if existing and on_conflict == "error":
        example = sorted(existing)[0]
        raise InvalidInputError(
            f"{len(existing)} unit id(s) of the file already exist in bank {target!r} (e.g. {example!r}); "
            "import into another bank (bank=... / --bank NAME), or pass on_conflict='skip' or 'replace' "
            "(--on-conflict skip|replace)"
        )
    todo = [(u, v) for u, v in parsed if not (on_conflict == "skip" and u.id in existing)]
    report = ImportReport(bank=target, imported=len(todo), skipped=len(parsed) - len(todo),
                          replaced=len(existing) if on_conflict == "replace" else 0)

    bar = _progress_bar(progress, len(todo), f"import {target}")
    try:
        for start in range(0, len(todo), _WRITE_BATCH):
            chunk = todo[start:start + _WRITE_BATCH]
            units = [u.model_copy(update={"bank": target}) if u.bank != target else u for u, _ in chunk]
            if use_carried:
                vectors = np.asarray([v for _, v in chunk], dtype=np.float32)
            else:
                vectors = np.concatenate([
                    embedder.embed([u.text for u in units[i:i + _EMBED_BATCH]])
                    for i in range(0, len(units), _EMBED_BATCH)
                ]).astype(np.float32)
                report.reembedded += len(units)
            with index.lock:
                records = [to_record(u, index.take_seq()) for u in units]
                index.store.upsert(index.collection, [r[0] for r in records], [r[1] for r in records],
                                   [r[2] for r in records], vectors)
            if bar is not None:
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
        # Rebuild the bank's in-memory index from Chroma: links (evidence, supersedes) between imported
        # units are made once every unit is there, whatever order the file had.
        with engine._lock:
            engine._indexes.pop(target, None)
    return report


# ---- helpers ----------------------------------------------------------------------------------------
def _check_header(data: Any, name: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or "hindsight_export" not in data:
        raise InvalidInputError(
            f"{name}: line 1 is not a hindsight export header; this file was not written by "
            "`hindsight export` / hindsight_core.export.export_bank"
        )
    version = data["hindsight_export"]
    if not isinstance(version, int) or version > FORMAT_VERSION or int(data.get("schema_version", 1)) > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{name}: written by a newer hindsight-memory (export format {version}, schema "
            f"{data.get('schema_version')}); upgrade this installation to import it"
        )
    if not isinstance(data.get("bank"), str):
        raise InvalidInputError(f"{name}: the header names no bank; pass bank=... (--bank NAME)")
    return data


def _parse_unit(data: Any, name: Any, number: int, seen: set[str]) -> tuple[MemoryUnit, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("unit"), dict):
        raise InvalidInputError(f"{name}: line {number} has no \"unit\" object; is this a hindsight export?")
    if int(data["unit"].get("schema_version", SCHEMA_VERSION)) > SCHEMA_VERSION:
        raise SchemaVersionError(f"{name}: line {number} was written with a newer schema; upgrade hindsight-memory")
    try:
        unit = MemoryUnit.model_validate(data["unit"])
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidInputError(f"{name}: line {number}: field {where!r}: {first['msg']}; fix the line or "
                                "export the bank again") from None
    if unit.id in seen:
        raise InvalidInputError(f"{name}: line {number}: unit id {unit.id!r} appears twice in the file")
    seen.add(unit.id)
    vector = data.get("embedding")
    if vector is not None and not (isinstance(vector, list) and vector and all(isinstance(x, (int, float)) for x in vector)):
        raise InvalidInputError(f"{name}: line {number}: \"embedding\" must be a list of numbers")
    return unit, vector


@contextlib.contextmanager
def _open(target: str | os.PathLike[str] | IO[str], mode: str) -> Iterator[IO[str]]:
    if isinstance(target, (str, os.PathLike)):
        try:
            fh = open(target, mode, encoding="utf-8", newline="\n" if mode == "w" else None)
        except FileNotFoundError:
            raise InvalidInputError(f"no file at {os.fspath(target)!r}; check the path") from None
        except IsADirectoryError:
            raise InvalidInputError(f"{os.fspath(target)!r} is a folder; give a file path") from None
        with fh:
            yield fh
    elif isinstance(target, io.IOBase) or hasattr(target, "write" if mode == "w" else "read"):
        yield target  # type: ignore[misc]
    else:
        raise InvalidInputError(f"expected a path or a text stream, not {type(target).__name__}")


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
