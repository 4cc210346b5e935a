"""Light unit records (:class:`IndexedUnit`) as columns, and back, for index snapshots.

A bank of 100,000 units pickled record by record spends most of its load time in the unpickler
and the garbage collector; as columns the same records are a few flat numpy arrays and JSON
lists, and the records are rebuilt with one ``map`` over them (see :mod:`hindsight_core.storage.snapshot`).

Example:
    >>> u = IndexedUnit("a", 1, "hi", "world", "active", "user", "s1", None, None, 5.0, ("x",), 0.5, 1.0, 0.0)
    >>> meta, arrays = to_columns([u])
    >>> from_columns(meta, arrays) == [u]
    True
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Iterable, Sequence

import numpy as np

from hindsight_core.retrieval.types import IndexedUnit

__all__ = ["to_columns", "from_columns"]

#: Text columns with few distinct values: stored once each, with a code per unit (-1: None).
_CODED = ("kind", "status", "source", "session_id", "episode_id", "outcome", "speaker")
_FLOATS = ("mentioned_at", "importance", "confidence", "activity")
_TUPLES = ("entities", "evidence_ids", "flags")
_VECTORS = ("context", "gloss")


def _encode(values: Iterable[str | None]) -> tuple[list[str], np.ndarray]:
    vocab: dict[str, int] = {}
    codes = [-1 if v is None else vocab.setdefault(v, len(vocab)) for v in values]
    return list(vocab), np.asarray(codes, dtype=np.int64)


def to_columns(units: Sequence[IndexedUnit]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``units`` as (JSON-able values, flat arrays), in their order."""
    def column(name: str) -> list[Any]:
        return list(map(attrgetter(name), units))

    meta: dict[str, Any] = {"id": column("id"), "text": column("text")}
    arrays: dict[str, np.ndarray] = {"seq": np.asarray(column("seq"), dtype=np.int64)}
    for name in _CODED:
        meta[name], arrays[name] = _encode(column(name))
    for name in _FLOATS:
        arrays[name] = np.asarray(column(name), dtype=np.float64)
    occurred = column("occurred_at")
    arrays["occurred_at_set"] = np.asarray([t is not None for t in occurred], dtype=bool)
    arrays["occurred_at"] = np.asarray([0.0 if t is None else t for t in occurred], dtype=np.float64)
    for name in _TUPLES:
        meta[name] = column(name)  # tuples: JSON arrays
    for name in _VECTORS:  # kept by few units: a matrix of those, and each unit's row in it (-1: none)
        vectors = column(name)
        has = np.asarray([v is not None for v in vectors], dtype=bool)
        arrays[f"{name}_row"] = np.where(has, np.cumsum(has) - 1, -1).astype(np.int64)
        kept = [v for v in vectors if v is not None]
        arrays[name] = np.stack(kept) if kept else np.zeros((0, 0), dtype=np.float32)
    return meta, arrays


def from_columns(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> list[IndexedUnit]:
    """The records :func:`to_columns` described."""
    n = len(meta["id"])

    def decoded(name: str) -> list[str | None]:
        vocab = list(meta[name]) + [None]  # code -1 picks the trailing None
        return list(map(vocab.__getitem__, arrays[name].tolist()))

    occurred = [t if present else None
                for t, present in zip(arrays["occurred_at"].tolist(), arrays["occurred_at_set"].tolist())]
    def vectors(name: str) -> list[np.ndarray | None]:
        matrix = arrays[name]
        if not matrix.flags.writeable:  # the records own writable vectors, as after a rebuild
            matrix = np.array(matrix)
        return [matrix[r] if r >= 0 else None for r in arrays[f"{name}_row"].tolist()]

    columns = {
        "id": meta["id"], "seq": arrays["seq"].tolist(), "text": meta["text"], "occurred_at": occurred,
        **{name: vectors(name) for name in _VECTORS},
        **{name: decoded(name) for name in _CODED},
        **{name: arrays[name].tolist() for name in _FLOATS},
        **{name: list(map(tuple, meta[name])) for name in _TUPLES},
    }
    if any(len(c) != n for c in columns.values()):
        raise ValueError("unit columns differ in length")
    order = IndexedUnit.__dataclass_fields__  # the constructor's argument order
    return list(map(IndexedUnit, *(columns[name] for name in order)))
