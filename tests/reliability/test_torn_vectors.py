"""A crash that tears Chroma's vector files must not brick a bank (see ``storage/_repair.py``).

Chroma rewrites a collection's HNSW files in place. A SIGKILL in the middle left
``index_metadata.pickle`` cut short in a CI run of ``test_durability``: every later call on the
bank failed ("Error deserializing pickle file: ... EOF while parsing"). These tests cut the files
short on purpose, at every file that matters, and check the bank reopens with every record and the
same vectors, and stays repaired.
"""

from __future__ import annotations

import io
import logging
import pickletools
import struct
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


def _tear(path: Path, name: str, how: str) -> None:
    """Tear ``name`` as a kill mid-write does: ``cut`` short; ``garble`` its middle, keeping its
    length and last byte (the check before Chroma opens cannot see it: Chroma's own load finds it);
    ``stale``: the pickle one element behind ``header.bin`` (the .bin files written, the pickle not)."""
    (path / _repair.CLOSED_MARK).unlink()  # files torn by a crash: and a crash leaves no clean-close mark
    files = list(path.glob(f"*/{name}"))
    assert len(files) == 1, f"expected one vector segment holding {name}, found {files}"
    data = files[0].read_bytes()
    if how == "garble":
        middle = len(data) // 2
        data = data[:middle] + b"\xff" * 64 + data[middle + 64:]
    elif how == "stale":
        ops = list(pickletools.genops(io.BytesIO(data)))
        at = next(n for n, (_, arg, _) in enumerate(ops) if arg == "total_elements_added") + 1
        opcode, count, pos = ops[at]
        assert opcode.name == "BININT", opcode.name  # serde_pickle writes a 4-byte little-endian int
        data = data[:pos + 1] + struct.pack("<i", count - 1) + data[pos + 5:]
    else:
        data = data[: len(data) // 2]
    files[0].write_bytes(data)


@pytest.mark.parametrize("torn, how", [("index_metadata.pickle", "cut"), ("data_level0.bin", "cut"),
                                       ("index_metadata.pickle", "garble"), ("index_metadata.pickle", "stale")])
def test_a_torn_vector_file_is_rebuilt_from_the_records(tmp_path, caplog, torn, how):
    path = tmp_path / "store"
    vectors, top, count = _fill(path)
    _tear(path, torn, how)

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
    (path / _repair.CLOSED_MARK).unlink()

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
    _tear(path, "index_metadata.pickle", "cut")

    def broken_model(texts):
        raise RuntimeError("model unavailable")

    store = ChromaStore.persistent(str(path))
    try:
        col = store.open_bank("crash", embedder=HashEmbedder(dim=64).name, dim=64, create=False)
        with pytest.raises(StorageError, match=r"torn .* rebuilding them failed \(model unavailable\).*intact"):
            store.ensure_readable(col, "bank 'crash'", broken_model)
    finally:
        store.close()


def test_only_a_clean_close_leaves_the_mark_that_skips_the_check(tmp_path):
    path = tmp_path / "store"
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    engine.bank("crash").capture("Bob owns service svc1.")
    assert not (path / _repair.CLOSED_MARK).exists()  # open: a crash now must be checked for next time
    engine.close()
    assert (path / _repair.CLOSED_MARK).exists()
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    assert engine.bank("crash").count() == 1
    assert not (path / _repair.CLOSED_MARK).exists()  # removed on open, before any write
    engine.close()
