"""The engine behaves the same on every Chroma deployment: embedded folder, in memory, server.

Each test takes the ``backend`` factory (see ``conftest.py``); the ``server`` variant runs against a
real ``chroma run`` on loopback through ``MemoryEngine.from_http``, unchanged.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hindsight_core import InvalidInputError, MemoryStatus, NotFoundError
from hindsight_core.episodes import Episode, TraceStep

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)


def test_capture_recall_get(backend, bank_ids):
    bank = backend().bank(bank_ids("core"))
    first = bank.capture("The billing service moved to port 9090 after the outage.", mentioned_at=T0, session_id="s1")
    bank.capture("Alice's daughter plays the violin on Tuesdays.", mentioned_at=T0, session_id="s1")
    bank.capture("We had pasta for lunch.", mentioned_at=T0, session_id="s2")
    result = bank.recall("where does the billing service run now?", k=2, as_of=T0)
    assert result.hits[0].id == first.unit_id and result.bank == bank.id
    assert {"dense", "keyword"} <= {c.channel for c in result.hits[0].channels}
    unit = bank.get(first.unit_id)
    assert unit.text.startswith("The billing service") and unit.mentioned_at == T0 and unit.session_id == "s1"
    assert [u.id for u in bank.get_many([first.unit_id, "nope"])] == [first.unit_id]
    assert bank.count() == 3 and len(list(bank.units())) == 3


def test_capture_many_batches_and_redacts(backend, bank_ids):
    bank = backend().bank(bank_ids("batch"))
    results = bank.capture_many([f"Server node-{i} runs queue worker {i}." for i in range(12)]
                                + [{"text": "Mail ops@example.com about node-3.", "metadata": {"to": "ops@example.com"}}],
                                batch_size=5)
    assert all(r.stored for r in results) and bank.count() == 13
    mail = bank.get(results[-1].unit_id)
    assert "[EMAIL]" in mail.text and mail.metadata == {"to": "[EMAIL]"}


def test_delete(backend, bank_ids):
    bank = backend().bank(bank_ids("del"))
    keep = bank.capture("Alice works at Contoso as a data engineer.", mentioned_at=T0)
    gone = bank.capture("Alice's locker code is kept in the Zanzibar drawer.", mentioned_at=T0)
    bank.delete(gone.unit_id)
    with pytest.raises(NotFoundError):
        bank.get(gone.unit_id)
    with pytest.raises(NotFoundError):
        bank.delete(gone.unit_id)
    assert gone.unit_id not in bank.recall("Zanzibar drawer", k=10).ids
    assert bank.count() == 1 and bank.get(keep.unit_id)


def test_delete_bank(backend, bank_ids):
    engine = backend()
    a, b = engine.bank(bank_ids("a")), engine.bank(bank_ids("b"))
    a.capture("Project Falcon launches on 3 June.")
    kept = b.capture("Project Heron launches in autumn.")
    assert {a.id, b.id} <= set(engine.banks())
    engine.delete_bank(a.id)
    assert a.id not in engine.banks() and b.id in engine.banks()
    with pytest.raises(NotFoundError):
        engine.delete_bank(a.id)
    engine.delete_bank(a.id, missing_ok=True)
    assert b.get(kept.unit_id) and b.count() == 1
    engine.delete_bank(b.id)
    assert not {a.id, b.id} & set(engine.banks())


def test_isolation(backend, bank_ids):
    engine = backend()
    a, b = engine.bank(bank_ids("a")), engine.bank(bank_ids("b"))
    same = "Project Falcon launches on 3 June in Oslo."
    in_a = a.capture(same, mentioned_at=T0)
    in_b = b.capture(same, mentioned_at=T0)
    assert in_a.unit_id != in_b.unit_id and not in_b.merged  # dedup never reaches across banks
    b.capture("Project Heron launches in autumn.", mentioned_at=T0)
    for bank, own in ((a, {in_a.unit_id}), (b, {in_b.unit_id})):
        result = bank.recall("When does Project Falcon launch in Oslo?", k=10)
        assert own <= set(result.ids) and all(h.unit.bank == bank.id for h in result)
        assert all(i in {u.id for u in bank.units()} for ids in result.trace["top"].values() for i in ids)
    with pytest.raises(NotFoundError):
        b.get(in_a.unit_id)
    with pytest.raises(NotFoundError):
        b.delete(in_a.unit_id)
    with pytest.raises(InvalidInputError):
        b.capture("A link across banks.", evidence_ids=[in_a.unit_id])
    assert a.count() == 1 and b.count() == 2


def test_dedup(backend, bank_ids):
    bank = backend().bank(bank_ids("dedup"))
    first = bank.capture("The API gateway listens on port 8080.", mentioned_at=T0, metadata={"n": 1})
    again = bank.capture("The API gateway listens on port 8080.", mentioned_at=T0, metadata={"n": 2})
    changed = bank.capture("The API gateway listens on port 9090.", mentioned_at=T0)
    assert again.merged and again.unit_id == first.unit_id
    assert not changed.merged and changed.unit_id != first.unit_id
    unit = bank.get(first.unit_id)
    assert unit.mention_count == 2 and unit.mentions[0]["metadata"] == {"n": 2}
    draft = bank.capture("The deploy freeze starts on Friday.", source="llm")
    confirmed = bank.capture("The deploy freeze starts on Friday.", source="user")
    assert confirmed.unit_id == draft.unit_id and bank.get(draft.unit_id).status is MemoryStatus.ACTIVE


def test_episodes(backend, bank_ids):
    engine = backend()
    bank = engine.bank(bank_ids("ep"))
    episode = Episode.from_steps([
        TraceStep(kind="user", text="Deploy the billing service to prod"),
        TraceStep(kind="tool_call", text="deploy(env='prod')", tool="deploy"),
        TraceStep(kind="tool_error", text="PermissionError: approval required for prod", tool="deploy"),
    ], session_id="run-1")
    ended = bank.end_episode(episode, "failure", feedback="Ask Dana for approval first.")
    assert ended.experience.kind.value == "experience" and ended.lesson is not None
    assert ended.lesson.evidence_ids == (ended.experience.id,)
    lessons = bank.recall_lessons("deploy billing to prod", k=3)
    assert ended.lesson.id in lessons.ids
    queued = bank.end_episode(episode.model_copy(update={"id": "ep-2"}), "success", background=True)
    assert queued.pending and engine.drain(60)
    assert not engine.background_failures()
    assert bank.count() == 4


def test_reopen_sees_the_same_memory(backend, bank_ids):
    if backend.kind.startswith("memory"):
        pytest.skip("an in-memory store ends with its engine")
    engine = backend()
    bank = engine.bank(bank_ids("reopen"))
    first = bank.capture("Deploys to prod-eu-1 need approval from Dana.", session_id="s1")
    second = bank.capture("Dana approved the deploy to prod-eu-1.", session_id="s1", evidence_ids=[first.unit_id])
    engine.close()
    again = backend().bank(bank.id)
    assert again.count() == 2 and again.get(second.unit_id).evidence_ids == (first.unit_id,)
    assert first.unit_id in again.recall("who approves prod deploys?", k=2).ids
