"""Forgetting on the real engine: activity, a budget with monthly digests, and hard deletes."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hindsight_core import MemoryStatus, NotFoundError

T0 = datetime(2024, 3, 20, 12, 0, tzinfo=timezone.utc)
TOPICS = ["billing", "payroll", "search", "onboarding", "pricing", "security", "logging", "backups", "mobile",
          "analytics", "caching", "invoices", "support", "hiring", "legal", "design", "docs", "testing", "release",
          "budget", "travel", "marketing", "sales", "infra", "network"]


def _fill(bank, n=25):
    return bank.capture_many([
        {"text": f"Note {i} from the planning meeting: the {TOPICS[i]} work is on track.",
         "mentioned_at": T0 + timedelta(days=i * 2), "session_id": f"m{i}"} for i in range(n)])


def test_recall_hits_raise_activity_in_one_background_write(engine):
    bank = engine.bank("u", lifecycle={"consolidate_every": 0})
    res = _fill(bank, 5)
    target = res[2].unit_id
    hits = bank.recall("How is the search work going?", k=1)
    assert hits.ids == [target]
    assert engine.drain(30)
    unit = bank.get(target)
    assert unit.hit_count == 1 and unit.last_hit_at is not None
    assert unit.activity == pytest.approx(res[2].unit.activity * 1.2, rel=1e-3)


def test_over_budget_bank_archives_into_monthly_digests(engine):
    bank = engine.bank("u", lifecycle={"consolidate_every": 0, "active_budget": 0})
    res = _fill(bank)
    for _ in range(3):  # used memories stay
        bank.recall("How is the billing work going?", k=1)
    small = engine.bank("u", lifecycle={"consolidate_every": 0, "active_budget": 20})
    small.capture("Note 99 from the planning meeting: the cafeteria menu changes in May.", mentioned_at=T0)
    assert engine.drain(60) and engine.background_failures() == []  # the sweep ran in the background
    archived = list(bank.units(status="archived"))
    assert len(archived) == 26 - 18 and res[0].unit_id not in {u.id for u in archived}
    active_ids = set(bank.recall("planning meeting work on track", k=50).ids)
    assert not active_ids & {u.id for u in archived}
    gone = archived[0]
    assert bank.get(gone.id).status is MemoryStatus.ARCHIVED  # still retrievable by id
    assert gone.id in bank.recall(gone.text, k=5, include_archived=True).ids
    digests = [u for u in bank.units(kind="observation") if "digest" in u.flags]
    months = {d.digest["month"] for d in digests}  # the library's own field, not the caller's metadata
    assert months == {u.when.strftime("%Y-%m") for u in archived}
    assert {e for d in digests for e in d.evidence_ids} == {u.id for u in archived}


def test_hard_delete_leaves_nothing_behind(engine):
    bank = engine.bank("u", lifecycle={"consolidate_every": 0, "active_budget": 0})
    res = _fill(bank, 12)
    report = bank.enforce_budget(10)
    victim = report.archived[0]
    text = bank.get(victim).text
    digest_id = next(d for d in report.digests if victim in bank.get(d).evidence_ids)
    bank.delete(victim)
    index = engine._live_index("u")
    with pytest.raises(NotFoundError):
        bank.get(victim)
    assert victim not in index.units and victim not in index.keyword and victim not in index.cold_keyword
    assert victim not in index._cited_by  # the digest that cited it was rewritten; no id is kept in memory
    assert not any(victim in str(n) for n in index.graph.graph.nodes)
    assert victim not in index.store.get(index.collection, [victim])
    for unit in bank.units():
        assert victim not in unit.evidence_ids and unit.superseded_by != victim
    if digest_id in index.units:
        assert text[:60] not in bank.get(digest_id).text
    # superseding belief deleted: the older one is current again
    old = bank.capture("The backup server is nas-1.", mentioned_at=T0)
    new = bank.capture("The backup server moved to nas-2.", mentioned_at=T0 + timedelta(days=1))
    assert bank.get(old.unit_id).status is MemoryStatus.SUPERSEDED
    bank.delete(new.unit_id)
    assert bank.get(old.unit_id).status is MemoryStatus.ACTIVE and bank.get(old.unit_id).superseded_by is None
    engine.delete_bank("u")
    assert engine.banks() == [] and bank.count() == 0
    assert bank.recall("planning meeting", include_archived=True, include_history=True).hits == ()


def test_archived_units_leave_the_hot_indexes(engine, tmp_path, monkeypatch):
    """Archiving moves units out of the keyword index and the exact dense set that default recall
    searches, so a bank that archives most of what it holds searches only what it keeps; explicit
    requests search the cold tier, and reopening the bank rebuilds the same split."""
    from hindsight_core import MemoryEngine
    from hindsight_core.storage import live_index

    bank = engine.bank("u", lifecycle={"consolidate_every": 0, "active_budget": 0})
    res = _fill(bank)
    report = bank.enforce_budget(10)
    index = engine._live_index("u")
    archived = set(report.archived)
    assert len(archived) == 25 - 9
    for unit_id in archived:
        assert unit_id not in index.keyword and unit_id in index.cold_keyword and unit_id not in index._hot
    gone = next(r for r in res if r.unit_id in archived)
    vec = index.vectors([gone.unit_id])[0]
    assert gone.unit_id not in dict(index.dense_search(vec, 50))
    assert index.dense_search(vec, 1, archived=True)[0][0] == gone.unit_id
    assert gone.unit_id not in bank.recall(gone.unit.text, k=25).ids
    assert bank.recall(gone.unit.text, k=3, include_archived=True).ids[0] == gone.unit_id

    monkeypatch.setattr(live_index, "EXACT_LIMIT", 2)  # a big hot tier: Chroma's HNSW, over-fetched
    hot_hits = index.dense_search(vec, 5)
    assert len(hot_hits) == 5 and not {i for i, _ in hot_hits} & archived
    exact = index._hot.search(vec, 5)
    assert [i for i, _ in hot_hits] == [i for i, _ in exact]  # the same answer as the exact set
    assert [s for _, s in hot_hits] == pytest.approx([s for _, s in exact], abs=1e-5)
    monkeypatch.undo()

    path = engine.path
    engine.close()
    reopened = MemoryEngine(path, embedder=engine.embedder)
    again = reopened._live_index("u")
    assert {i for i in again.units if i in again.cold_keyword} == archived
    assert len(again._hot) == len(again.units) - len(archived)
    reopened.close()
