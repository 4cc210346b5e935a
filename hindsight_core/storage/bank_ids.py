"""Bank ids written before ids had one normal form: find them and move them.

Since bank ids are normalised (``_validate.normalise_bank_id``: NFKC, trimmed, invisible characters
refused, case kept), a store written by an older release may hold banks under ids that are no
longer reachable by name: " alice", the NFD spelling of "Zoë", "al\u200bice". Such a bank is a
*legacy alias* of the normal id it now maps to (invisible characters removed, NFKC, trimmed).

* :func:`legacy_aliases` lists them for one normal id: ``MemoryEngine.delete_bank`` drops them too,
  so an erasure request reaches everything stored under the id, whichever spelling wrote it;
* :func:`normalise_bank_ids` moves every legacy bank of a store to its normal id (units, vectors,
  times and links unchanged), once, after an upgrade; it refuses to merge two banks unless asked.

Example:
    >>> lenient_bank_id(" Zoe\\u0308\\u200b ")
    'Zoë'
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

import numpy as np

from hindsight_core.errors import InvalidInputError
from hindsight_core.storage.codec import fields, from_record, to_record

if TYPE_CHECKING:
    from hindsight_core.engine import MemoryEngine
    from hindsight_core.storage.chroma_store import ChromaStore

__all__ = ["lenient_bank_id", "legacy_aliases", "normalise_bank_ids"]

_WRITE_BATCH = 256


def lenient_bank_id(raw: str) -> str | None:
    """The normal id an old, unnormalised bank id maps to (None if nothing valid is left)."""
    if any(0xD800 <= ord(c) <= 0xDFFF for c in raw):
        return None
    kept = "".join(c for c in raw if unicodedata.category(c) not in ("Cf", "Cc", "Co", "Cn"))
    normal = unicodedata.normalize("NFKC", kept).strip()
    return normal or None


def legacy_aliases(store: "ChromaStore", bank_id: str) -> list[str]:
    """Stored bank ids, other than ``bank_id`` itself, that are old spellings of the normal ``bank_id``."""
    return [raw for raw in store.list_banks() if raw != bank_id and lenient_bank_id(raw) == bank_id]


def normalise_bank_ids(engine: "MemoryEngine", *, merge: bool = False, dry_run: bool = False) -> list[tuple[str, str]]:
    """Move every bank stored under an unnormalised id to its normal id; returns ``[(old, new), ...]``.

    Args:
        engine: The engine on the store to migrate (its embedder must match the banks' vectors).
        merge: Allow moving a legacy bank into a normal id that already holds a bank (their units are
            combined; unit ids are unique, so nothing is overwritten). Refused by default.
        dry_run: Only report what would move.

    Raises:
        InvalidInputError: two banks would merge and ``merge`` is False (nothing is moved), or an id
            has no valid normal form (it is listed; delete or export it by its stored id).
    """
    store = engine.store
    moves: list[tuple[str, str]] = []
    broken: list[str] = []
    stored = set(store.list_banks())
    for raw in sorted(stored):
        target = lenient_bank_id(raw)
        if target is None:
            broken.append(raw)
        elif target != raw:
            moves.append((raw, target))
    if broken:
        raise InvalidInputError(f"bank ids {broken!r} have no valid normal form; export them and import with "
                                "bank='new-id', then delete them")
    clashes = sorted({new for old, new in moves if new in stored or sum(n == new for _, n in moves) > 1})
    if clashes and not merge:
        raise InvalidInputError(
            f"moving to normal ids would merge banks into {clashes!r}; review them and pass merge=True to combine "
            "them (an erasure of those ids then reaches all of their data)"
        )
    if dry_run:
        return moves
    for old, new in moves:
        _move(engine, old, new)
    return moves


def _move(engine: "MemoryEngine", old: str, new: str) -> None:
    store = engine.store
    source = store.open_bank(old, embedder=engine.embedder.name, dim=engine.embedder.dim, create=False)
    units = engine.bank(new).store
    target = units.open(create=True)
    batch: list[tuple[str, str, dict, object]] = []

    def flush() -> None:
        with target.lock:
            records = [to_record(from_record(i, d, m).model_copy(update={"bank": new}), target.take_seq())
                       for i, d, m, _ in batch]
            store.upsert(target.collection, [r[0] for r in records], [r[1] for r in records],
                         [r[2] for r in records], np.asarray([v for *_, v in batch], dtype=np.float32))
        batch.clear()

    for unit_id, doc, meta, vector in sorted(store.scan(source, embeddings=True), key=lambda r: fields(r[2]).get("seq", 0)):
        batch.append((unit_id, doc, meta, vector))
        if len(batch) >= _WRITE_BATCH:
            flush()
    if batch:
        flush()
    store.drop_bank(old)
    # the records were written behind the loaded index: the next call loads the bank again. Nothing is
    # loaded under ``old``: the engine loads banks only by their normal id (``engine.bank`` normalises)
    units.forget()
