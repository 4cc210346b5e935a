"""Every change one engine makes is seen by another engine's next recall (issue 11, "processes").

The engines share one store but not one in-memory index: on a Chroma server they are two
``from_http`` clients (as two processes would be), on a folder two engines of this process. Each
change is recorded in the bank's change log in Chroma, so the reader sees it whatever the count.
"""

from __future__ import annotations

import pytest

T = "2024-03-01T10:00:00+00:00"


@pytest.fixture
def pair(backend):
    if backend.kind.startswith("memory"):
        pytest.skip("an in-memory store belongs to one engine: there is no other engine to see changes")
    return backend(), backend()


def _ids(result):
    return [h.id for h in result.hits]


def test_supersede_and_invalidate_are_seen(pair, bank_ids):
    a, b = pair
    name = bank_ids("beliefs")
    old = a.bank(name).capture("The billing service runs on port 8080.", mentioned_at=T)
    other = a.bank(name).capture("Alice's favourite colour is green.", mentioned_at=T)
    assert old.unit_id in _ids(b.bank(name).recall("which port does the billing service use?", k=3))
    new = a.bank(name).capture("The billing service now runs on port 9090.", mentioned_at="2024-03-05T10:00:00+00:00")
    assert a.bank(name).get(old.unit_id).status.value == "superseded"
    seen = _ids(b.bank(name).recall("which port does the billing service use?", k=3))
    assert seen[0] == new.unit_id and old.unit_id not in seen
    a.bank(name).invalidate(other.unit_id, reason="she said blue")
    assert other.unit_id not in _ids(b.bank(name).recall("Alice favourite colour", k=3))


def test_delete_one_add_one_is_seen_at_the_same_count(pair, bank_ids):
    a, b = pair
    name = bank_ids("swap")
    gone = a.bank(name).capture("The Zanzibar drawer holds the spare keys.")
    a.bank(name).capture("Alice works at Contoso.")
    assert b.bank(name).count() == 2
    a.bank(name).delete(gone.unit_id)
    added = a.bank(name).capture("The Orion launch moved to June.")
    hits = _ids(b.bank(name).recall("Orion launch date; Zanzibar drawer keys", k=5))
    assert added.unit_id in hits and gone.unit_id not in hits and b.bank(name).count() == 2


def test_archive_is_seen(pair, bank_ids):
    a, b = pair
    name = bank_ids("archive")
    a.config = a.config.model_copy(update={"lifecycle": a.config.lifecycle.model_copy(update={"consolidate_every": 0})})
    racks = [a.bank(name).capture(f"Rack R{i} in room {i} holds server node-{i * 11}.").unit_id for i in range(6)]
    query = "rack room server node"
    assert set(racks) <= set(_ids(b.bank(name).recall(query, k=10)))
    report = a.bank(name).enforce_budget(2)
    assert report.archived
    seen = set(_ids(b.bank(name).recall(query, k=10)))
    assert not seen & set(report.archived)  # archived in A: out of B's default recall
    assert seen == set(_ids(a.bank(name).recall(query, k=10)))
    assert set(racks) <= set(_ids(b.bank(name).recall(query, k=10, include_archived=True)))


def test_drop_and_recreate_is_seen(pair, bank_ids):
    a, b = pair
    name = bank_ids("recreate")
    first = a.bank(name).capture("The first incarnation knew the door code is 4417.")
    assert _ids(b.bank(name).recall("door code", k=1)) == [first.unit_id]
    a.delete_bank(name)
    assert b.bank(name).recall("door code", k=1).hits == () and b.bank(name).count() == 0
    second = a.bank(name).capture("The second incarnation knows the door code is 9902.")
    assert _ids(b.bank(name).recall("door code", k=1)) == [second.unit_id]
    # and B writes into the new incarnation, which A sees
    mine = b.bank(name).capture("B noted the gate opens at seven.").unit_id
    assert mine in _ids(a.bank(name).recall("when does the gate open?", k=2))


def test_changes_are_seen_when_log_handles_were_dropped(pair, bank_ids, monkeypatch):
    """Change-log handles are a bounded cache: a bank whose handle was dropped reopens its log, so
    its writes are still recorded and another engine still sees them, a recreated bank included."""
    from hindsight_core.storage import chroma_store

    monkeypatch.setattr(chroma_store, "LOG_HANDLES", 1)
    a, b = pair
    names = [bank_ids(f"handles-{i}") for i in range(3)]
    first = {n: a.bank(n).capture(f"Locker {n} opens with code 1{i}07.").unit_id for i, n in enumerate(names)}
    assert all(_ids(b.bank(n).recall("locker code", k=1)) == [first[n]] for n in names)
    later = {n: a.bank(n).capture(f"Locker {n} has a new code now: 9{i}55.").unit_id for i, n in enumerate(names)}
    for n in names:  # each write went to a log reopened by name: B catches up on every bank
        assert later[n] in _ids(b.bank(n).recall("locker code", k=2))
    assert len(a.store._logs) <= 1 and len(b.store._logs) <= 1
    a.delete_bank(names[0])
    fresh = a.bank(names[0]).capture("The new locker opens with a key card.").unit_id
    for n in names[1:]:
        b.bank(n).recall("locker", k=1)  # pushes names[0]'s handle out of B's cache
    assert _ids(b.bank(names[0]).recall("locker", k=1)) == [fresh]
