"""``LiveIndex.catch_up``: an index takes in units written or deleted behind its back (as another
process on a server does), cheaply, and keeps keyword, graph and evidence links consistent.

Two real processes on one server are tested in ``tests/conformance/test_server_processes.py``;
here a second engine on the same in-process store plays the other process.
"""

from __future__ import annotations

from hindsight_core import MemoryEngine
from hindsight_core.storage.graph import UNIT
from hindsight_core.testing import HashEmbedder


def test_catch_up_adds_removes_and_links(tmp_path):
    path = tmp_path / "store"
    reader = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    writer = MemoryEngine(path, embedder=HashEmbedder(dim=64))  # its own LiveIndex, same Chroma folder
    first = reader.bank("u").capture("Alice owns Project Falcon.").unit_id
    index = reader._live_index("u")
    assert index.catch_up() == 0  # nothing changed: one count() and done

    w = writer.bank("u")
    w_index = writer._live_index("u")
    assert w_index.units.keys() == {first}
    cause = w.capture("Bob approved the Falcon budget of 800k.", session_id="s").unit_id
    effect = w.capture("Falcon hired two engineers with the new budget.", session_id="s", evidence_ids=[cause]).unit_id
    w.delete(first)

    assert reader.bank("u").count() == 2  # count() caught up: +2 -1
    assert set(index.units) == {cause, effect} and first not in index.keyword
    assert index.graph.graph.has_edge(UNIT + effect, UNIT + cause, key="evidence")
    assert {n for n in index.graph.graph.nodes if n.startswith(UNIT)} == {UNIT + cause, UNIT + effect}
    hit = reader.bank("u").recall("Falcon budget 800k", k=2).hits[0]
    assert hit.id == cause and "keyword" in {c.channel for c in hit.channels}
    assert index.next_seq > max(u.seq for u in index.units.values())
    reader.close()
    writer.close()


def test_catch_up_is_free_when_no_one_else_can_write(tmp_path):
    """A folder this engine alone holds (the lock keeps other processes out) or an in-memory store
    never changes behind the engine's back, so recall and capture skip the count() round trip."""
    path = tmp_path / "store"
    only = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    only.bank("u").capture("Alice owns Project Falcon.")
    assert only.store.may_change_elsewhere is False
    second = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    assert second.bank("u").count() == 1  # opens the folder (engines open it lazily)
    assert only.store.may_change_elsewhere is True  # another engine of this process shares the folder
    second.close()
    assert only.store.may_change_elsewhere is False
    only.close()
    memory = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=64))
    assert memory.store.may_change_elsewhere is False
    memory.close()
