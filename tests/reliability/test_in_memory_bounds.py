"""An in-memory engine gives its memory back: at close, and as banks come and go.

Chroma's in-memory client keeps every collection's index it ever loaded in one process-wide core
(``storage/_ram_folder.py``): before this, each bank an in-memory engine deleted, and each bank of
every in-memory engine closed, left about 2.6 MB of RSS behind for good. These tests check the
mechanism (a private folder in RAM, its own Chroma core, removed at close) and the outcome (RSS
under bank churn), and that the fallback without a RAM file system still works.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import uuid

import pytest

from hindsight_core import CacheConfig, MemoryEngine
from hindsight_core.storage import _ram_folder
from hindsight_core.storage.chroma_store import ChromaStore
from hindsight_core.testing import HashEmbedder

needs_ram_fs = pytest.mark.skipif(not _ram_folder.available(),
                                  reason="needs a RAM file system with room at /dev/shm (Linux); elsewhere the "
                                         "in-memory store is Chroma's in-memory client")


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _fill(engine: MemoryEngine, bank_id: str) -> None:
    bank = engine.bank(bank_id)
    bank.capture_many([{"text": text, "session_id": "s1"} for text in (
        f"Alice met Bob in Oslo about ticket {bank_id}.",
        "The billing service listens on port 9090.",
        "Dana prefers green tea in the mornings.")])
    assert bank.count() == 3
    hits = bank.recall("Who met Bob in Oslo?", k=3).hits
    assert hits and all(h.unit.bank == bank_id for h in hits)


@needs_ram_fs
def test_each_in_memory_engine_has_its_own_folder_and_core_removed_at_close():
    a = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64))
    b = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64))
    _fill(a, "x")
    _fill(b, "x")  # the same bank id in both: separate stores
    folder_a, folder_b = a.store.path, b.store.path
    assert folder_a != folder_b and folder_a.startswith(_ram_folder.ROOT) and os.path.isdir(folder_a)
    assert a.store.client._server is not b.store.client._server  # not Chroma's one shared in-memory core
    assert a.store.description == "in-memory Chroma" and not a.store.logs_changes
    assert a.path == ":memory:"
    a.close()
    assert not os.path.exists(folder_a)
    assert b.bank("x").count() == 3  # closing one engine leaves the other whole
    b.close()
    assert not os.path.exists(folder_b)


@needs_ram_fs
def test_a_store_never_closed_is_cleaned_up_when_collected():
    store = ChromaStore.ephemeral()
    store.client.list_collections()
    folder, client = store.path, store.client
    del store
    gc.collect()
    assert not os.path.exists(folder)
    assert client._closed  # its Chroma core was released with it


@needs_ram_fs
def test_a_process_that_never_closes_its_engine_leaves_no_folder():
    script = ("from hindsight_core import MemoryEngine\n"
              "from hindsight_core.testing import HashEmbedder\n"
              "engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64))\n"
              "engine.bank('x').capture('Alice met Bob in Oslo.')\n"
              "print(engine.store.path)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    folder = done.stdout.strip().splitlines()[-1]
    assert folder.startswith(_ram_folder.ROOT) and not os.path.exists(folder)


@needs_ram_fs
def test_folders_of_processes_that_died_are_removed_by_the_next_store(tmp_path, monkeypatch):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    pid = int(dead.stdout)
    orphan = tmp_path / f"hindsight-mem-{pid}-abc"
    orphan.mkdir()
    (orphan / "chroma.sqlite3").write_bytes(b"left behind by a killed process")
    mine = tmp_path / f"hindsight-mem-{os.getpid()}-def"  # a live process's folder stays
    mine.mkdir()
    other = tmp_path / "someone-else"
    other.mkdir()
    monkeypatch.setattr(_ram_folder, "MIN_FREE_BYTES", 0)  # the room check is not what is tested here
    new = _ram_folder.create(str(tmp_path))
    assert new is not None and os.path.isdir(new)
    assert not orphan.exists() and mine.exists() and other.exists()


def test_without_a_ram_file_system_the_in_memory_client_is_used(monkeypatch, tmp_path):
    assert _ram_folder.create(str(tmp_path / "missing")) is None
    monkeypatch.setattr(_ram_folder, "create", lambda root=_ram_folder.ROOT: None)
    with MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64)) as engine:
        _fill(engine, "x")
        assert engine.store.path is None and engine.store.description == "in-memory Chroma"
        engine.delete_bank("x")
        assert engine.banks() == []


@needs_ram_fs
def test_bank_churn_in_one_in_memory_engine_keeps_rss_bounded():
    # Before: every deleted bank left ~2.6 MB in Chroma's core (measured: +512 MB over these 200 banks).
    # Now the index cache is bounded (8 here) and a deleted bank's index leaves it like any other.
    with MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64), cache=CacheConfig(chroma_indexes=8)) as engine:
        def churn(n: int) -> None:
            for _ in range(n):
                bank_id = f"churn-{uuid.uuid4().hex[:8]}"
                _fill(engine, bank_id)
                engine.delete_bank(bank_id)

        churn(150)  # the caches fill (measured: RSS levels off after about 300 banks, +6 to +11 MB per 150 after)
        before = _rss_mb()
        churn(200)
        grown = _rss_mb() - before
    assert grown < 150, f"RSS grew {grown:.0f} MB over 200 created and deleted banks"


def test_only_the_creating_process_removes_the_folder(tmp_path):
    folder = tmp_path / "store"
    folder.mkdir()
    _ram_folder.remove(str(folder), owner=os.getpid() + 1)  # as in a forked child exiting
    assert folder.exists()
    _ram_folder.remove(str(folder), owner=os.getpid())
    assert not folder.exists()
