"""Index snapshots on a Chroma server (``storage/chroma_snapshot.py``): another process opens a bank from
the snapshot instead of rebuilding it, answers the same, and never gets a stale or torn one."""

from __future__ import annotations

import base64
import json
import logging
import subprocess
import sys
import textwrap
import uuid

import pytest

from hindsight_core import CacheConfig, MemoryEngine
from hindsight_core.storage.chroma_store import snapshot_name
from hindsight_core.testing import HashEmbedder

pytestmark = pytest.mark.server

UNITS = 240
#: Small banks are not snapshotted by default (they rebuild in ms); these tests lower the bar.
CACHE = CacheConfig(snapshot_min_units=100)
QUERIES = ["Which host runs the nightly Zephyr job 7?", "who owns team 3 backups", "Orion deploy schedule"]

OPENER = textwrap.dedent("""
    import json, sys
    from hindsight_core import CacheConfig, MemoryEngine
    from hindsight_core.testing import HashEmbedder
    host, port, bank_id, queries = sys.argv[1], int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])

    def open_and_recall(snapshots):
        cache = CacheConfig(snapshot_min_units=100, snapshots=snapshots)
        engine = MemoryEngine.from_http(host, port, embedder=HashEmbedder(dim=64), cache=cache)
        ids = [engine.bank(bank_id).recall(q, k=8).ids for q in queries]
        index, snaps = engine._live_index(bank_id), engine._snapshots
        return {"source": index.source, "restored": snaps.restored if snaps else 0,
                "refused": snaps.refused if snaps else 0, "ids": ids, "units": len(index.units)}

    # the same process, the same Chroma state: opened from the snapshot, then rebuilt from Chroma
    print(json.dumps({"snapshot": open_and_recall(True), "rebuild": open_and_recall(False)}))
""")

INVALIDATOR = textwrap.dedent("""
    import sys
    from hindsight_core import MemoryEngine
    from hindsight_core.testing import HashEmbedder
    host, port, bank_id, unit_id = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    MemoryEngine.from_http(host, port, embedder=HashEmbedder(dim=64)).bank(bank_id).invalidate(unit_id, "moved")
    print("DONE")
""")


def _run(script: str, *args: object) -> str:
    out = subprocess.run([sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()[-1]


def _engine(server, **kwargs) -> MemoryEngine:
    host, port = server
    return MemoryEngine.from_http(host, port, embedder=HashEmbedder(dim=64), cache=kwargs.pop("cache", CACHE), **kwargs)


@pytest.fixture
def saved_bank(chroma_server):
    """A bank of UNITS captures written by one engine, whose close stored its snapshot in the server;
    yields ``(bank_id, captured ids, recall ids per query as that engine answered, unit count)``."""
    bank_id = f"snap-{uuid.uuid4().hex[:8]}"
    engine = _engine(chroma_server)
    bank = engine.bank(bank_id)
    ids = [r.unit_id for r in bank.capture_many(
        [f"Fact {i}: host h{i} runs the nightly Zephyr job {i % 13} for team {i % 7}; Orion deploys on day {i % 5}."
         for i in range(UNITS)])]
    answers = [bank.recall(q, k=8).ids for q in QUERIES]
    engine.drain()
    units = bank.count()  # the captures, and what the lifecycle derived from them
    engine.close()
    assert engine._snapshots.saved == 1
    yield bank_id, ids, answers, units
    cleaner = _engine(chroma_server)
    cleaner.delete_bank(bank_id, missing_ok=True)
    cleaner.close()


def _snapshot_collection(engine: MemoryEngine, bank_id: str):
    name = engine.store._name_of(bank_id)
    return engine.store.client.get_collection(snapshot_name(name), embedding_function=None)


def test_another_process_opens_from_the_snapshot_and_answers_the_same(chroma_server, saved_bank):
    bank_id, ids, answers, units = saved_bank
    run = json.loads(_run(OPENER, *chroma_server, bank_id, json.dumps(QUERIES)))
    got, rebuilt = run["snapshot"], run["rebuild"]
    assert got["source"] == "snapshot" and got["restored"] == 1 and got["refused"] == 0
    assert rebuilt["source"] == "chroma"
    assert got["units"] == rebuilt["units"] == units
    assert got["ids"] == rebuilt["ids"]  # what a rebuild from Chroma answers, tie order included
    assert all(len(a) == 8 for a in got["ids"])


def test_a_write_by_another_process_is_caught_up_not_served_stale(chroma_server, saved_bank, caplog):
    bank_id, ids, _, units = saved_bank
    writer = _engine(chroma_server, cache=CacheConfig(snapshots=False))
    new = writer.bank(bank_id).capture("Host zq9 took over the Zephyr job from every other host.").unit_id
    writer.close()
    reader = _engine(chroma_server)
    with caplog.at_level(logging.DEBUG, logger="hindsight.snapshot"):
        hits = reader.bank(bank_id).recall("Which host took over the Zephyr job from every other host?", k=3).ids
    index = reader._live_index(bank_id)
    snaps = reader._snapshots
    assert index.source == "snapshot" and snaps.restored == 1 and snaps.caught_up == 1 and snaps.refused == 0
    assert new in index.units and new in hits and len(index.units) == units + 1
    assert any("after catching up" in r.getMessage() for r in caplog.records)
    rebuilt = _engine(chroma_server, cache=CacheConfig(snapshots=False))
    for q in QUERIES:  # the same hits as a rebuild (ties may order differently: units came in another order)
        assert set(reader.bank(bank_id).recall(q, k=8).ids) == set(rebuilt.bank(bank_id).recall(q, k=8).ids)
    rebuilt.close()
    reader.close()


def test_an_update_in_place_by_another_process_is_caught_up(chroma_server, saved_bank):
    """The unit count stays the same: the change log's recent entries tell the snapshot is old."""
    bank_id, ids, _, units = saved_bank
    assert _run(INVALIDATOR, *chroma_server, bank_id, ids[5]) == "DONE"
    reader = _engine(chroma_server)
    assert reader.bank(bank_id).count() == units
    index = reader._live_index(bank_id)
    assert index.source == "snapshot" and reader._snapshots.caught_up == 1
    assert index.units[ids[5]].status == reader.bank(bank_id).get(ids[5]).status != "active"
    reader.close()


def test_a_write_missing_from_the_change_log_falls_back_to_a_rebuild(chroma_server, saved_bank, caplog):
    """A writer that died between the bank write and its log entry: catching up cannot see the unit,
    so the snapshot is dropped and the bank rebuilt."""
    bank_id, _, _, units = saved_bank
    writer = _engine(chroma_server, cache=CacheConfig(snapshots=False))
    writer.bank(bank_id).count()
    writer.store._record = lambda *args, **kwargs: None  # the log entry never lands
    lost = writer.bank(bank_id).capture("Host zq9 wrote this and died before logging it.").unit_id
    writer.close()
    reader = _engine(chroma_server)
    with caplog.at_level(logging.DEBUG, logger="hindsight.snapshot"):
        assert reader.bank(bank_id).count() == units + 1
    index = reader._live_index(bank_id)
    assert index.source == "chroma" and reader._snapshots.refused == 1 and reader._snapshots.restored == 0
    assert lost in index.units
    assert any("without its change-log entry" in r.getMessage() for r in caplog.records)
    reader.close()


def test_a_snapshot_saved_after_the_write_is_used_again(chroma_server, saved_bank):
    bank_id, ids, _, units = saved_bank
    writer = _engine(chroma_server)
    writer.bank(bank_id).capture("Host zq9 took over the Zephyr job.")
    writer.close()  # its index is in step with Chroma: a new snapshot replaces the stale one
    assert writer._snapshots.saved == 1
    got = json.loads(_run(OPENER, *chroma_server, bank_id, json.dumps(QUERIES)))["snapshot"]
    assert got["source"] == "snapshot" and got["units"] == units + 1
    assert len(_snapshot_collection(writer, bank_id).get(include=[])["ids"]) == 2  # the head and one chunk


@pytest.mark.parametrize("damage", ["missing chunk", "flipped bytes", "bad base64"])
def test_a_torn_or_corrupt_snapshot_falls_back_to_a_rebuild(chroma_server, saved_bank, damage, caplog):
    bank_id, ids, answers, units = saved_bank
    engine = _engine(chroma_server)
    col = _snapshot_collection(engine, bank_id)
    head = col.get(ids=["head"], include=["metadatas"])["metadatas"][0]
    chunk = f"{head['snapshot']}-0"
    if damage == "missing chunk":
        col.delete(ids=[chunk])
    else:
        text = col.get(ids=[chunk], include=["metadatas"])["metadatas"][0]["d"]
        if damage == "flipped bytes":
            raw = bytearray(base64.b64decode(text))
            raw[len(raw) // 2] ^= 0xFF
            text = base64.b64encode(bytes(raw)).decode()
        else:
            text = text[:100] + "!!" + text[102:]
        col.update(ids=[chunk], metadatas=[{"d": text}])
    with caplog.at_level(logging.DEBUG, logger="hindsight.snapshot"):
        got = [engine.bank(bank_id).recall(q, k=8).ids for q in QUERIES]
    assert engine._live_index(bank_id).source == "chroma" and engine._snapshots.refused == 1
    rebuilt = _engine(chroma_server, cache=CacheConfig(snapshots=False))
    assert got == [rebuilt.bank(bank_id).recall(q, k=8).ids for q in QUERIES]
    assert len(engine._live_index(bank_id).units) == units
    rebuilt.close()
    assert any("not used" in r.getMessage() for r in caplog.records)
    engine.close()


def test_an_evicted_bank_is_snapshotted_in_the_background_and_reopens_from_it(chroma_server):
    bank_id, other = f"evict-{uuid.uuid4().hex[:8]}", f"evict-other-{uuid.uuid4().hex[:8]}"
    engine = _engine(chroma_server, cache=CacheConfig(max_banks=1, snapshot_min_units=100))
    engine.bank(bank_id).capture_many([f"Fact {i}: host h{i} runs job {i % 13}." for i in range(150)])
    assert engine.drain(60)  # the answer is read from the bank its background work (consolidation) completed
    answer = engine.bank(bank_id).recall("host h42 job", k=5).ids
    assert engine.drain(60)  # its background jobs are done: an idle bank is evicted at the next insert
    engine.bank(other).capture("Another bank pushes the first one out of the cache.")
    assert bank_id not in engine._indexes
    assert engine.drain(60)
    assert engine._snapshots.saved == 1
    assert engine.bank(bank_id).recall("host h42 job", k=5).ids == answer
    assert engine._live_index(bank_id).source == "snapshot" and engine._snapshots.restored == 1
    engine.delete_bank(bank_id)
    engine.delete_bank(other)
    engine.close()


def test_deleting_a_unit_deletes_the_snapshot_holding_its_text(chroma_server, saved_bank):
    bank_id, ids, _, units = saved_bank
    engine = _engine(chroma_server, cache=CacheConfig(snapshots=False))
    name = snapshot_name(engine.store._name_of(bank_id))
    text = engine.bank(bank_id).get(ids[3]).text
    engine.bank(bank_id).delete(ids[3])
    assert name not in {c.name for c in engine.store.client.list_collections()}
    engine.close()
    reader = _engine(chroma_server)
    assert reader.bank(bank_id).count() == units - 1
    assert reader._live_index(bank_id).source == "chroma" and ids[3] not in reader._live_index(bank_id).units
    assert text not in [h.unit.text for h in reader.bank(bank_id).recall(text, k=5).hits]
    reader.close()  # the next snapshot is stored without the deleted unit
    assert reader._snapshots.saved == 1
    again = _engine(chroma_server)
    assert again.bank(bank_id).count() == units - 1 and again._live_index(bank_id).source == "snapshot"
    assert ids[3] not in again._live_index(bank_id).units
    again.close()


def test_deleting_the_bank_deletes_its_snapshot(chroma_server, saved_bank):
    bank_id, _, _, _ = saved_bank
    engine = _engine(chroma_server)
    name = snapshot_name(engine.store._name_of(bank_id))
    assert name in {c.name for c in engine.store.client.list_collections()}
    engine.delete_bank(bank_id)
    assert name not in {c.name for c in engine.store.client.list_collections()}
    assert bank_id not in engine.banks()
    engine.close()
    again = _engine(chroma_server)
    again.bank(bank_id).capture("A bank of the same name, created again, starts empty.")
    assert again.bank(bank_id).count() == 1 and again._live_index(bank_id).source == "chroma"
    again.delete_bank(bank_id)
    again.close()


def test_a_small_bank_is_not_snapshotted(chroma_server):
    bank_id = f"small-{uuid.uuid4().hex[:8]}"
    engine = _engine(chroma_server, cache=None)  # the default bar: 1,000 units
    engine.bank(bank_id).capture_many([f"Fact {i}." for i in range(20)])
    engine.close()
    assert engine._snapshots.saved == 0
    check = _engine(chroma_server)
    assert snapshot_name(check.store._name_of(bank_id)) not in {c.name for c in check.store.client.list_collections()}
    check.delete_bank(bank_id)
    check.close()
