"""A crash that tears Chroma's vector files must not brick a bank (see ``storage/_repair.py``).

Chroma rewrites a collection's HNSW files in place. A SIGKILL in the middle left
``index_metadata.pickle`` cut short in a CI run of ``test_durability``: every later call on the
bank failed ("Error deserializing pickle file: ... EOF while parsing"). These tests cut the files
short on purpose, at every file that matters, and check the bank reopens with every record and the
same vectors, and stays repaired.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from hindsight_core import MemoryEngine, StorageError
from hindsight_core.storage import _repair
from hindsight_core.storage.chroma_store import ChromaStore
from hindsight_core.testing import HashEmbedder

TEXTS = [f"note {i}: Bob owns service svc{i} in zone {i % 7}." for i in range(60)]


def _fill(path: Path) -> tuple[dict[str, np.ndarray], str, int]:
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    bank = engine.bank("crash")
    bank.capture_many([{"text": t} for t in TEXTS])
    engine.drain()  # background consolidation writes its digest: the bank is final before it is compared
    ids = [u.id for u in bank.units()]
    col = engine._live_index("crash").collection
    vectors = {i: np.asarray(v[2]) for i, v in engine.store.get(col, ids, embeddings=True).items()}
    top = bank.recall("who owns svc17?").units[0].id
    count = bank.count()  # the captures and what the library derived from them
    engine.close()
    return vectors, top, count


def _tear(path: Path, name: str, *, garble: bool = False) -> None:
    """Cut ``name`` short, or with ``garble`` overwrite its middle and keep its length and last byte
    (what the check before Chroma opens cannot see: Chroma's own load finds it)."""
    files = list(path.glob(f"*/{name}"))
    assert len(files) == 1, f"expected one vector segment holding {name}, found {files}"
    data = files[0].read_bytes()
    if garble:
        middle = len(data) // 2
        files[0].write_bytes(data[:middle] + b"\xff" * 64 + data[middle + 64:])
    else:
        files[0].write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize("torn, garble", [("index_metadata.pickle", False), ("data_level0.bin", False),
                                          ("index_metadata.pickle", True)])
def test_a_torn_vector_file_is_rebuilt_from_the_records(tmp_path, caplog, torn, garble):
    path = tmp_path / "store"
    vectors, top, count = _fill(path)
    _tear(path, torn, garble=garble)

    with caplog.at_level(logging.WARNING, logger="hindsight.storage"):
        engine = MemoryEngine(path, embedder=HashEmbedder(dim=64))
        bank = engine.bank("crash")
        assert bank.count() == count
        assert bank.recall("who owns svc17?").units[0].id == top
    assert any(f"vector index rebuilt from {count} records" in r.getMessage() for r in caplog.records)
    col = engine._live_index("crash").collection
    restored = {i: np.asarray(v[2]) for i, v in engine.store.get(col, list(vectors), embeddings=True).items()}
    engine.close()
    assert restored.keys() == vectors.keys()
    for unit_id, vector in vectors.items():
        np.testing.assert_allclose(restored[unit_id], vector, atol=1e-5)

    caplog.clear()  # the repair is on disk: the next open finds whole files
    with caplog.at_level(logging.WARNING, logger="hindsight.storage"):
        engine = MemoryEngine(path, embedder=HashEmbedder(dim=64))
        assert engine.bank("crash").count() == count
        engine.close()
    assert not [r for r in caplog.records if "torn" in r.getMessage()]


def test_a_reset_cut_off_before_the_vectors_were_written_back_is_finished_on_open(tmp_path, caplog):
    path = tmp_path / "store"
    vectors, top, count = _fill(path)
    for snapshot in path.rglob("*.snap"):  # a crash leaves no snapshot behind: the bank is rebuilt from Chroma
        snapshot.unlink()
    collection = next(p.name for p in path.iterdir() if p.is_dir() and (p / "header.bin").exists())
    import sqlite3

    con = sqlite3.connect(path / "chroma.sqlite3")
    (collection_id,) = con.execute("select collection from segments where id = ?", (collection,)).fetchone()
    con.close()
    _repair.reset_vector_segment(str(path), collection_id)  # what a reset does; then the process died

    with caplog.at_level(logging.WARNING, logger="hindsight.storage"):
        engine = MemoryEngine(path, embedder=HashEmbedder(dim=64))
        bank = engine.bank("crash")
        assert bank.count() == count
        assert bank.recall("who owns svc17?").units[0].id == top
        col = engine._live_index("crash").collection
        assert len(engine.store.get(col, list(vectors), embeddings=True)) == len(vectors)
        engine.close()
    assert any(f"vector index rebuilt from {count} records" in r.getMessage() for r in caplog.records)


def test_a_failed_rebuild_says_what_happened_and_what_to_do(tmp_path):
    path = tmp_path / "store"
    _fill(path)
    _tear(path, "index_metadata.pickle")

    def broken_model(texts):
        raise RuntimeError("model unavailable")

    store = ChromaStore.persistent(str(path))
    try:
        col = store.open_bank("crash", embedder=HashEmbedder(dim=64).name, dim=64, create=False)
        with pytest.raises(StorageError, match=r"torn .* rebuilding them failed \(model unavailable\).*intact"):
            store.ensure_readable(col, "bank 'crash'", broken_model)
    finally:
        store.close()
