"""Durability: acknowledged writes survive SIGKILL mid-ingest; concurrent writers lose nothing;
a second process cannot open an embedded folder in use; schema versions are checked on open.

Supported deployments (see ``hindsight_core/storage/_folder_lock.py``): an embedded folder serves
one process (any number of threads); several processes share memory through a Chroma server
(``MemoryEngine.from_http``), tested in ``tests/conformance/test_server_processes.py``.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time

import chromadb
import numpy as np
import pytest
from chromadb.config import Settings

from hindsight_core import MemoryEngine, SchemaVersionError, StorageError
from hindsight_core.storage.codec import fields, from_record
from hindsight_core.storage.graph import UNIT
from hindsight_core.testing import HashEmbedder

KILLS = 3
CHILD = textwrap.dedent("""
    import sys
    from hindsight_core import MemoryEngine
    from hindsight_core.testing import HashEmbedder
    path, rnd = sys.argv[1], int(sys.argv[2])
    bank = MemoryEngine(path, embedder=HashEmbedder(dim=64)).bank("crash")
    print("READY", bank.count(), flush=True)
    prev = None
    for i in range(100_000):
        if i % 4 == 3:  # a batch: all of it is acknowledged at once, after capture_many returns
            items = [{"text": f"r{rnd} batch {i} item {j}: Alice moved server s{i}x{j} to rack {j}.",
                      "metadata": {"batch": f"r{rnd}b{i}"}} for j in range(5)]
            for res in bank.capture_many(items, batch_size=5):
                print("ACK", res.unit_id, flush=True)
        else:
            res = bank.capture(f"r{rnd} note {i}: Bob owns service svc{i} in zone {i % 7}.", session_id=f"r{rnd}",
                               evidence_ids=[prev] if prev else [])
            prev = res.unit_id
            print("ACK", res.unit_id, flush=True)
""")


def _kill_mid_ingest(path, rnd: int, acks_before_kill: int) -> list[str]:
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(rnd)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    acked: list[str] = []
    try:
        ready = proc.stdout.readline()
        assert ready.startswith("READY"), proc.stderr.read()
        while len(acked) < acks_before_kill:
            line = proc.stdout.readline()
            assert line, f"child died early: {proc.stderr.read()}"
            acked.append(line.split()[1])
        time.sleep(random.uniform(0, 0.05))  # land the kill anywhere in the next write
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate(timeout=30)
        # acked before death; a line the kill cut short ("ACK" with no newline) was never an acknowledgement
        complete = rest.split("\n")[:-1]
        acked += [ln.split()[1] for ln in complete if ln.startswith("ACK ") and len(ln.split()) == 2]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    return acked


def test_acknowledged_writes_survive_repeated_sigkill(tmp_path):
    path = tmp_path / "store"
    acked: list[str] = []
    rng = random.Random(7)
    for rnd in range(KILLS):  # each child reopens what the killed one left: recovery is exercised too
        acked += _kill_mid_ingest(path, rnd, rng.randint(15, 40))
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    bank = engine.bank("crash")
    found = {u.id for u in bank.get_many(acked)}
    assert found == set(acked), f"{len(set(acked) - found)} acknowledged writes lost"
    index = engine._live_index("crash")
    records = list(index.store.scan(index.collection, embeddings=True))
    assert len(records) == bank.count() == len(index.units) >= len(acked)
    batches: dict[str, int] = {}
    for unit_id, doc, meta, emb in records:  # no partial unit: full record, decodable, with its vector
        unit = from_record(unit_id, doc, meta)
        assert unit.text and unit.bank == "crash"
        assert emb is not None and len(emb) == 64 and np.linalg.norm(emb) > 0.5
        if "batch" in unit.metadata:
            batches[unit.metadata["batch"]] = batches.get(unit.metadata["batch"], 0) + 1
    assert all(n == 5 for n in batches.values()), f"a batch was half-written: {batches}"
    graph = index.graph.graph  # the graph is consistent with the records
    assert {n[len(UNIT):] for n in graph.nodes if n.startswith(UNIT)} == set(index.units)
    for unit in index.units.values():
        for evidence in unit.evidence_ids:
            assert evidence in index.units and graph.has_edge(UNIT + unit.id, UNIT + evidence, key="evidence")
    assert len(index.keyword) == len(index.units)
    assert bank.recall("who owns service svc1?", k=3).hits
    engine.close()
    print(f"durability: {KILLS} SIGKILLs, {len(acked)} acknowledged writes, 0 lost")


def test_threads_writing_and_reading_one_engine_lose_nothing(tmp_path):
    engine = MemoryEngine(tmp_path / "store", embedder=HashEmbedder(dim=64))
    acked: dict[str, list[str]] = {"a": [], "b": []}
    errors: list[BaseException] = []

    def writer(worker: int) -> None:
        try:
            for i in range(24):
                bank_id = "ab"[i % 2]
                res = engine.bank(bank_id).capture(f"worker {worker} fact {i}: host h{worker}x{i} runs job {i}.")
                acked[bank_id].append(res.unit_id)
                if i % 5 == 0:
                    engine.bank(bank_id).recall(f"host h{worker}x{i}", k=5)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for bank_id, ids in acked.items():
        assert len(ids) == 48 and len(set(ids)) == 48
        assert {u.id for u in engine.bank(bank_id).get_many(ids)} == set(ids)
        assert engine.bank(bank_id).count() == 48
    engine.close()
    engine = MemoryEngine(tmp_path / "store", embedder=HashEmbedder(dim=64))  # and after a reopen
    assert engine.bank("a").count() == engine.bank("b").count() == 48
    engine.close()


HOLDER = textwrap.dedent("""
    import sys, time
    from hindsight_core import MemoryEngine
    from hindsight_core.testing import HashEmbedder
    MemoryEngine(sys.argv[1], embedder=HashEmbedder(dim=64)).bank("u").capture("Alice owns Project Falcon.")
    print("READY", flush=True)
    time.sleep(120)
""")


def test_a_second_process_cannot_open_a_folder_in_use(tmp_path):
    path = tmp_path / "store"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "READY"
        with pytest.raises(StorageError, match="in use by another process") as info:
            MemoryEngine(path, embedder=HashEmbedder(dim=64)).banks()
        assert "from_http" in str(info.value) and str(proc.pid) in str(info.value)
    finally:
        proc.kill()
        proc.wait()
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=64))  # the kernel dropped the dead holder's lock
    assert engine.bank("u").count() == 1
    engine.close()


# ---- schema versions ---------------------------------------------------------------------------
def _raw_collection(path, bank_id: str):
    """The bank's Chroma collection, opened with chromadb alone (as another release would)."""
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=8))
    name = engine._live_index(bank_id).collection.name
    engine.close()
    client = chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))
    return client, client.get_collection(name)


def _write_raw(path, bank_id: str, schema_version: int) -> None:
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=8))
    engine.bank(bank_id).capture("Alice owns Project Falcon.")
    engine.close()
    client, col = _raw_collection(path, bank_id)
    meta = dict(col.get(include=["metadatas"])["metadatas"][0], schema_version=schema_version, seq=99)
    col.upsert(ids=["from-another-release"], documents=["Bob owns Project Heron."], metadatas=[meta],
               embeddings=[[0.3] * 8])
    client.close()


@pytest.mark.parametrize("version, words", [(0, "schema 0 -> 4 migration"), (99, "schema 99 -> 4 migration")])
def test_records_of_another_schema_version_fail_with_the_migration_named(tmp_path, version, words):
    path = tmp_path / "store"
    _write_raw(path, "u", version)
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=8))
    with pytest.raises(SchemaVersionError, match=words) as info:
        engine.bank("u").recall("Project Heron")
    assert "from-another-release" in str(info.value)
    assert ("upgrade hindsight-memory" if version > 1 else "capture the texts again") in str(info.value)
    engine.close()


def test_records_pack_their_fields_and_older_layouts_still_read(tmp_path, flat_record):
    path = tmp_path / "store"
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=8))
    engine.bank("u").capture("Alice owns Project Falcon.")
    engine.close()
    client, col = _raw_collection(path, "u")
    stored = col.get(include=["documents", "metadatas"])
    meta = stored["metadatas"][0]
    assert stored["documents"] == [None] and meta["schema_version"] == 4 and "text" not in meta
    assert fields(meta)["text"] == "Alice owns Project Falcon." and fields(meta)["entities"] == ["alice", "project falcon"]
    older = {}
    for version, seq, text in ((2, 98, "Bob owns Project Heron."), (3, 99, "Carol owns Project Ibis.")):
        record = {k: v for k, v in flat_record(meta, version).items()  # Alice's own fields go
                  if v is not None and k not in ("text", "entities", "context_vector")}
        older[version] = dict(record, seq=seq, **({"text": text} if version == 3 else {}))
        # release 2 kept the text in the document, release 3 in the metadata key "text"
        col.upsert(ids=[f"v{version}"], documents=[text if version == 2 else None], metadatas=[older[version]],
                   embeddings=HashEmbedder(dim=8).embed([text]).tolist())
    client.close()

    engine = MemoryEngine(path, embedder=HashEmbedder(dim=8))
    bank = engine.bank("u")
    assert bank.get("v2").text == "Bob owns Project Heron." and bank.get("v3").text == "Carol owns Project Ibis."
    for question, text in (("Who owns Project Heron?", "Bob owns Project Heron."),
                           ("Who owns Project Ibis?", "Carol owns Project Ibis.")):
        keyword = [h for h in bank.recall(question).hits if any(c.channel == "keyword" and c.rank == 1
                                                                  for c in h.channels)]
        assert [h.unit.text for h in keyword] == [text]  # older records' texts are indexed too
    for unit_id, text in (("v2", "Bob left Project Heron."), ("v3", "Carol left Project Ibis.")):
        unit = bank.get(unit_id)
        bank.store.update(unit.model_copy(update={"confidence": 0.9}))  # its next write takes the new layout
        bank.store.put([(unit.model_copy(update={"text": text}), HashEmbedder(dim=8).embed([text])[0])])
    engine.close()
    client, col = _raw_collection(path, "u")
    again = col.get(ids=["v2", "v3"], include=["documents", "metadatas"])
    client.close()
    assert again["documents"] == ["", ""]  # the older text left the v2 record (put clears the document)
    for meta, text in zip(again["metadatas"], ("Bob left Project Heron.", "Carol left Project Ibis.")):
        assert meta["schema_version"] == 4 and "text" not in meta and fields(meta)["text"] == text
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=8))
    assert engine.bank("u").get("v2").text == "Bob left Project Heron."
    engine.close()


def test_a_bank_of_a_newer_layout_fails_with_a_clear_message(tmp_path):
    path = tmp_path / "store"
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=8))
    engine.bank("u").capture("Alice owns Project Falcon.")
    col = engine._live_index("u").collection
    col.modify(metadata=dict(col.metadata, schema_version=99))
    engine.close()
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=8))
    with pytest.raises(SchemaVersionError, match="newer hindsight-memory"):
        engine.bank("u").count()
    engine.close()
