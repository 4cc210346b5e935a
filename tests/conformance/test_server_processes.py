"""Several processes on one Chroma server: concurrent writers lose nothing, and a process's
in-memory index catches up with what the others wrote or deleted (``LiveIndex.catch_up``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import uuid

import pytest

from hindsight_core import MemoryEngine
from hindsight_core.testing import HashEmbedder

pytestmark = pytest.mark.server

WRITER = textwrap.dedent("""
    import sys
    from hindsight_core import MemoryEngine
    from hindsight_core.testing import HashEmbedder
    host, port, bank_id, worker, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
    bank = MemoryEngine.from_http(host, port, embedder=HashEmbedder(dim=64)).bank(bank_id)
    for i in range(n):
        res = bank.capture(f"worker {worker} fact {i}: host w{worker}h{i} runs the nightly Zephyr job {i}.")
        print("ACK", res.unit_id, flush=True)
""")

DELETER = textwrap.dedent("""
    import sys
    from hindsight_core import MemoryEngine
    from hindsight_core.testing import HashEmbedder
    host, port, bank_id = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    bank = MemoryEngine.from_http(host, port, embedder=HashEmbedder(dim=64)).bank(bank_id)
    for unit_id in sys.argv[4:]:
        bank.delete(unit_id)
    print("DONE", bank.count(), flush=True)
""")


def _run(script: str, *args: object) -> list[str]:
    out = subprocess.run([sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.splitlines()


def test_concurrent_writer_processes_lose_nothing_and_others_catch_up(chroma_server):
    host, port = chroma_server
    bank_id = f"procs-{uuid.uuid4().hex[:8]}"
    engine = MemoryEngine.from_http(host, port, embedder=HashEmbedder(dim=64))
    bank = engine.bank(bank_id)
    mine = bank.capture("The parent process owns the Zephyr schedule.").unit_id
    assert bank.count() == 1  # this process's index is loaded before the others write

    procs = [subprocess.Popen([sys.executable, "-c", WRITER, host, str(port), bank_id, str(w), "15"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(3)]
    acked: list[str] = []
    for proc in procs:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err[-2000:]
        acked += [line.split()[1] for line in out.splitlines() if line.startswith("ACK")]
    assert len(acked) == len(set(acked)) == 45

    assert bank.count() == 46  # caught up: count() compares with Chroma and loads the missing units
    assert {u.id for u in bank.get_many(acked)} == set(acked)
    index = engine._live_index(bank_id)
    assert set(index.units) == set(acked) | {mine} and len(index.keyword) == 46
    # a word only worker 2's fact 7 has: neighbour scores depend on how the writers interleaved
    hit = bank.recall("What does host w2h7 run every night?", k=5).hits[0]
    assert hit.unit.text.startswith("worker 2 fact 7") and "keyword" in {c.channel for c in hit.channels}

    deleted = acked[:10]
    assert _run(DELETER, host, port, bank_id, *deleted)[-1] == "DONE 36"
    result = bank.recall("nightly Zephyr job", k=50)
    assert not set(result.ids) & set(deleted) and bank.count() == 36
    assert not set(deleted) & set(index.units) and not any(i in index.keyword for i in deleted)
    engine.delete_bank(bank_id)
    engine.close()
