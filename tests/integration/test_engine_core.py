"""The engine end to end on real Chroma and the real embedding model."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import datetime, timezone

import pytest

from hindsight_core import (
    CaptureItem,
    InvalidInputError,
    MemoryEngine,
    MemoryStatus,
    NotFoundError,
    UnknownOptionError,
)

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)


def test_capture_then_recall_with_explain_trace(engine):
    bank = engine.bank("alice")
    bank.capture("The billing service moved to port 9090 after the outage.", mentioned_at=T0, session_id="s1")
    bank.capture("Alice's daughter plays the violin on Tuesdays.", mentioned_at=T0, session_id="s1")
    bank.capture("We had pasta for lunch.", mentioned_at=T0, session_id="s2")
    result = bank.recall("where does the billing service run now?", k=2, as_of=T0)
    assert result.hits[0].unit.text.startswith("The billing service")
    channels = {c.channel for c in result.hits[0].channels}
    assert {"dense", "keyword"} <= channels
    assert all(c.rank >= 1 for c in result.hits[0].channels)
    assert "billing" in result.render()
    assert "dense#" in result.explain()


def test_reopened_in_a_new_process_sees_the_same_memory_and_graph(tmp_path, embedder):
    path = tmp_path / "store"
    engine = MemoryEngine(path, embedder=embedder)
    bank = engine.bank("proj")
    first = bank.capture("Deploys to prod-eu-1 need approval from Dana.", mentioned_at=T0, session_id="s1")
    bank.capture("Dana approved the deploy to prod-eu-1 yesterday.", mentioned_at=T0, session_id="s1",
                 evidence_ids=[first.unit_id])
    index = engine._live_index("proj")
    nodes, edges = index.graph.graph.number_of_nodes(), index.graph.graph.number_of_edges()
    engine.close()
    script = textwrap.dedent(f"""
        import json
        from hindsight_core import MemoryEngine
        e = MemoryEngine({str(path)!r})
        b = e.bank("proj")
        r = b.recall("who approves prod deploys?", k=2)
        g = e._live_index("proj").graph.graph
        print(json.dumps({{"texts": [h.unit.text for h in r], "nodes": g.number_of_nodes(),
                          "edges": g.number_of_edges(), "banks": e.banks()}}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["banks"] == ["proj"]
    assert any("approval from Dana" in t for t in seen["texts"])
    assert (seen["nodes"], seen["edges"]) == (nodes, edges)


def test_banks_are_isolated(engine):
    a, b = engine.bank("a"), engine.bank("b")
    secret = a.capture("Project Falcon launches on 3 June.", mentioned_at=T0)
    b.capture("Project Heron launches in autumn.", mentioned_at=T0)
    texts = [h.unit.text for h in b.recall("When does Project Falcon launch?", k=10)]
    assert texts and all("Falcon" not in t for t in texts)
    with pytest.raises(NotFoundError):
        b.get(secret.unit_id)
    with pytest.raises(NotFoundError):
        b.delete(secret.unit_id)
    assert a.get(secret.unit_id).text.startswith("Project Falcon")


def test_hard_delete_removes_every_trace(engine):
    bank = engine.bank("alice")
    keep = bank.capture("Alice works at Contoso as a data engineer.", mentioned_at=T0)
    gone = bank.capture("Alice's locker code is kept in the Zanzibar drawer.", mentioned_at=T0)
    bank.delete(gone.unit_id)
    with pytest.raises(NotFoundError):
        bank.get(gone.unit_id)
    index = engine._live_index("alice")
    assert gone.unit_id not in index.units and gone.unit_id not in index.keyword
    assert not any(gone.unit_id in str(n) for n in index.graph.graph.nodes)
    assert all("Zanzibar" not in h.unit.text for h in bank.recall("Zanzibar drawer", k=10))
    assert bank.get(keep.unit_id)
    engine.delete_bank("alice")
    assert engine.banks() == []
    with pytest.raises(NotFoundError):
        engine.delete_bank("alice")
    engine.delete_bank("alice", missing_ok=True)


def test_pii_is_redacted_before_storage_and_embedding(tmp_path, embedder):
    seen: list[str] = []

    def spy(texts):
        seen.extend(texts)
        return embedder.embed(texts)

    path = tmp_path / "store"
    engine = MemoryEngine(path, embedder=spy)
    res = engine.bank("u").capture(
        "Email me at jane.doe@example.com, card 4111 1111 1111 1111, key sk-live1234567890abcdefXYZ",
        metadata={"contact": "jane.doe@example.com"},
    )
    assert set(res.redactions) >= {"email", "card", "secret"}
    unit = engine.bank("u").get(res.unit_id)
    assert "[EMAIL]" in unit.text and unit.metadata == {"contact": "[EMAIL]"}
    engine.close()
    assert all("jane.doe" not in t and "4111" not in t for t in seen)
    blob = b"".join(p.read_bytes() for p in path.rglob("*") if p.is_file())
    for planted in (b"jane.doe@example.com", b"4111 1111 1111 1111", b"sk-live1234567890abcdefXYZ"):
        assert planted not in blob


def test_relative_dates_resolve_against_when_it_was_said(engine):
    res = engine.bank("u").capture("I went to a support group yesterday.", mentioned_at=T0)
    assert res.occurred_at is not None and res.occurred_at.date().isoformat() == "2023-05-07"
    unit = engine.bank("u").get(res.unit_id)
    assert unit.mentioned_at == T0 and unit.time_refs


def test_near_duplicates_strengthen_instead_of_copying(engine):
    bank = engine.bank("u")
    first = bank.capture("The API gateway listens on port 8080.", mentioned_at=T0, metadata={"n": 1})
    again = bank.capture("The API gateway listens on port 8080.", mentioned_at=T0, metadata={"n": 2})
    changed = bank.capture("The API gateway listens on port 9090.", mentioned_at=T0)
    assert again.merged and again.unit_id == first.unit_id
    assert not changed.merged and changed.unit_id != first.unit_id
    unit = bank.get(first.unit_id)
    assert unit.mention_count == 2 and unit.importance > first.importance
    assert unit.metadata == {"n": 1} and unit.mentions[0]["metadata"] == {"n": 2}
    assert bank.count() == 2
    batch = bank.capture_many(["Lunch is at noon.", "Lunch is at noon."])
    assert batch[1].merged and batch[1].unit_id == batch[0].unit_id and bank.count() == 3


def test_gate_ranks_small_talk_but_keeps_it_unless_opted_out(engine):
    bank = engine.bank("u")
    chat = bank.capture("lol ok thanks!", mentioned_at=T0)
    key = bank.capture("Remember: the on-call rotation switches on Mondays.", mentioned_at=T0)
    assert chat.stored and chat.importance < key.importance and "explicit" in key.reasons
    assert "log_only" in bank.get(chat.unit_id).flags
    dropped = engine.bank("u", keep_raw=False).capture("haha ok", mentioned_at=T0)
    assert not dropped.stored and dropped.unit_id is None
    assert bank.count() == 2


def test_token_budget_limits_returned_text(engine):
    bank = engine.bank("u")
    bank.capture_many([f"Server node-{i} runs the payments queue worker number {i}." for i in range(20)])
    full = bank.recall("payments queue worker", k=20)
    small = bank.recall("payments queue worker", k=20, max_tokens=60)
    assert 0 < len(small) < len(full)


@pytest.mark.parametrize(
    "call, exc",
    [
        (lambda b: b.capture(""), InvalidInputError),
        (lambda b: b.capture("   "), InvalidInputError),
        (lambda b: b.capture(123), InvalidInputError),
        (lambda b: b.capture("x" * 20_001), InvalidInputError),
        (lambda b: b.capture("ok text", source="robot"), InvalidInputError),
        (lambda b: b.capture("ok text", kind="gossip"), InvalidInputError),
        (lambda b: b.capture("ok text", occurred_at="yesterday-ish"), InvalidInputError),
        (lambda b: b.capture("ok text", mentioned_at=12345), InvalidInputError),
        (lambda b: b.capture("ok text", metadata={"f": object()}), InvalidInputError),
        (lambda b: b.capture("ok text", metadata=["not", "a", "dict"]), InvalidInputError),
        (lambda b: b.capture("ok text", importance=3), InvalidInputError),
        (lambda b: b.capture("ok text", outcome="meh"), InvalidInputError),
        (lambda b: b.recall(""), InvalidInputError),
        (lambda b: b.recall("q", k=0), InvalidInputError),
        (lambda b: b.recall("q", k="5"), InvalidInputError),
        (lambda b: b.recall("q", as_of="not a time"), InvalidInputError),
        (lambda b: b.recall("q", kinds=["gossip"]), InvalidInputError),
        (lambda b: b.get(42), InvalidInputError),
        (lambda b: b.get("no-such-id"), NotFoundError),
        (lambda b: b.capture_many(["fine", {"text": "x", "colour": "red"}]), InvalidInputError),
        (lambda b: b.capture_many(["fine", ""]), InvalidInputError),
    ],
)
def test_bad_input_gets_a_clear_error_and_changes_nothing(engine, call, exc):
    bank = engine.bank("u")
    with pytest.raises(exc) as info:
        call(bank)
    assert str(info.value)  # a message, not a bare exception
    assert bank.count() == 0


def test_bad_engine_and_bank_options(tmp_path, embedder):
    with pytest.raises(UnknownOptionError, match="valid options"):
        MemoryEngine(tmp_path, embedder=embedder).bank("u", keep_rav=False)
    with pytest.raises(InvalidInputError):
        MemoryEngine(tmp_path, embedder=embedder).bank("u", dedup_threshold=7)
    with pytest.raises(InvalidInputError):
        MemoryEngine(tmp_path, embedder=embedder).bank("")
    with pytest.raises(InvalidInputError):
        MemoryEngine(tmp_path, embedder=embedder).bank(None)
    with pytest.raises(InvalidInputError):
        MemoryEngine(12, embedder=embedder)


def test_capture_many_batches_in_order(engine):
    items = [CaptureItem(text=f"Turn {i}: the sprint goal is feature {i}.", session_id="s", mentioned_at=T0)
             for i in range(10)] + [{"text": "Turn x from a dict", "metadata": {"dia_id": "D1:1"}}, "a bare string"]
    results = engine.bank("u").capture_many(items, batch_size=4)
    assert [r.stored for r in results] == [True] * 12
    assert engine.bank("u").get(results[10].unit_id).metadata == {"dia_id": "D1:1"}
    assert engine.bank("u").count() == 12


def test_history_and_drafts_are_excluded_by_default(engine):
    bank = engine.bank("u")
    draft = bank.capture("The model thinks the user likes jazz.", source="llm")
    assert bank.get(draft.unit_id).status == MemoryStatus.DRAFT
    assert draft.unit_id not in bank.recall("does the user like jazz?").ids
    assert draft.unit_id in bank.recall("does the user like jazz?", include_drafts=True).ids


async def test_async_twins(engine):
    bank = engine.bank("u")
    res = await bank.acapture("Async capture of the Orion release notes.")
    hits = await bank.arecall("Orion release", k=1)
    assert hits.ids == [res.unit_id]
    assert (await bank.aget(res.unit_id)).id == res.unit_id
    await bank.adelete(res.unit_id)
    assert bank.count() == 0
    assert await engine.abanks() == ["u"]


def test_reads_never_create_a_bank(engine):
    ghost = engine.bank("ghost")
    assert ghost.count() == 0 and len(ghost.recall("anything at all")) == 0
    assert list(ghost.units()) == [] and ghost.get_many(["x"]) == []
    with pytest.raises(NotFoundError):
        ghost.get("x")
    assert engine.banks() == []
    ghost.capture("Now the ghost bank exists.")
    assert engine.banks() == ["ghost"] and ghost.count() == 1


def test_exclude_ids_and_revision(engine):
    bank = engine.bank("u")
    before = bank.revision
    first = bank.capture("The quarterly report is due on Friday.")
    second = bank.capture("The quarterly report needs the sales figures.")
    assert bank.revision > before
    hits = bank.recall("quarterly report", k=1, exclude_ids=[first.unit_id])
    assert hits.ids == [second.unit_id]
