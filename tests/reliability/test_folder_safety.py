"""Store folders: a kill during creation never leaves a folder that refuses to open; read-only
folders open read-only; the lock error never advises what would corrupt a live store."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hindsight_core import MemoryEngine, StorageError
from hindsight_core.storage import _folder_init
from hindsight_core.testing import HashEmbedder

ROOT = Path(__file__).resolve().parents[2]

CREATOR = """
import sys
import chromadb  # imported before READY, so the kill lands in the folder's creation
from hindsight_core import MemoryEngine
from hindsight_core.testing import HashEmbedder
print("READY", flush=True)
engine = MemoryEngine(sys.argv[1], embedder=HashEmbedder(dim=32))
engine.bank("b").capture("The creator wrote this fact about the Orion launch.")
print("DONE", flush=True)
"""


def _opens(path: Path) -> None:
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=32))
    try:
        bank = engine.bank("after")
        unit = bank.capture("After the crash, Alice moved to Lisbon.").unit_id
        assert bank.recall("where did Alice move?", k=1).hits[0].id == unit
    finally:
        engine.close()


@pytest.mark.parametrize("delay_s", [0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6, 0.9])
def test_a_kill_while_creating_a_store_leaves_a_folder_that_opens(tmp_path, delay_s):
    path = tmp_path / "store"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", CREATOR, str(path)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "READY"  # imports done: the kill lands in the creation
        time.sleep(delay_s)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    _opens(path)


def test_a_half_created_database_of_an_older_version_is_set_aside_and_rebuilt(tmp_path):
    path = tmp_path / "store"
    path.mkdir()
    con = sqlite3.connect(path / "chroma.sqlite3")  # what a kill mid-migration left: some of Chroma's tables
    con.execute("create table migrations (dir text, version int)")
    con.execute("create table tenants (id text)")
    con.commit()
    con.close()
    (path / ".hindsight-init-deadbeef").mkdir()  # and a creation killed before its rename
    _opens(path)
    assert list(path.glob("chroma.sqlite3.half-created-*")) and not list(path.glob(".hindsight-init-*"))


def test_a_database_of_another_program_is_left_untouched(tmp_path):
    path = tmp_path / "store"
    path.mkdir()
    con = sqlite3.connect(path / "chroma.sqlite3")
    con.execute("create table invoices (id int)")
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="another program"):
        MemoryEngine(path, embedder=HashEmbedder(dim=32)).banks()
    con = sqlite3.connect(path / "chroma.sqlite3")
    assert [r[0] for r in con.execute("select name from sqlite_master")] == ["invoices"]
    con.close()


@pytest.mark.parametrize("how", ["explicit", "detected"])
def test_a_read_only_folder_opens_read_only(tmp_path, monkeypatch, how):
    path = tmp_path / "store"
    writer = MemoryEngine(path, embedder=HashEmbedder(dim=32))
    unit = writer.bank("b").capture("The billing service runs on port 9090.").unit_id
    writer.close()
    before = {p: p.stat().st_mtime_ns for p in path.rglob("*") if p.is_file()}
    if how == "detected":  # tests run as root, which writes anywhere: the check is what is replaced
        monkeypatch.setattr(_folder_init.os, "access", lambda p, mode: False)
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=32), read_only=True if how == "explicit" else None)
    assert engine.read_only
    bank = engine.bank("b")
    assert bank.recall("which port does billing use?", k=1).hits[0].id == unit
    assert bank.get(unit).text.startswith("The billing") and len(list(bank.units())) == 1
    from hindsight_core.export import iter_export

    exported = list(iter_export(bank))
    assert any(unit in str(record) for record in exported)
    for write in (lambda: bank.capture("A new fact."), lambda: bank.delete(unit),
                  lambda: engine.bank("new").capture("x y z facts"), lambda: engine.delete_bank("b")):
        with pytest.raises(StorageError, match="read-only"):
            write()
    engine.close()
    assert {p: p.stat().st_mtime_ns for p in path.rglob("*") if p.is_file()} == before  # nothing written


def test_the_lock_error_never_suggests_a_server_on_the_held_folder(tmp_path):
    from hindsight_core.storage import _folder_lock

    path = str(tmp_path / "store")
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        "os.makedirs(sys.argv[1], exist_ok=True)\n"
        "fd = os.open(os.path.join(sys.argv[1], '.hindsight.lock'), os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX); os.write(fd, str(os.getpid()).encode()); print('HELD', flush=True)\n"
        "time.sleep(60)\n"), path], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "HELD"
        with pytest.raises(StorageError) as info:
            _folder_lock.acquire(path)
    finally:
        holder.kill()
        holder.wait()
    message = str(info.value)
    assert "in use by another process" in message and str(holder.pid) in message
    assert f"--path {path}" not in message and "Do not point a Chroma server at this folder" in message
