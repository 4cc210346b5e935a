"""Consolidation on the real engine: extractive without an LLM, grounded merges with one, triggers."""

from __future__ import annotations

from datetime import datetime, timezone

from hindsight_core import MemoryEngine
from hindsight_core.testing import scripted_chat_model

T0 = datetime(2024, 2, 1, 8, 0, tzinfo=timezone.utc)
BACKUPS = [
    "The nightly backup job failed on db-1 because the disk was full.",
    "Last night the backup job on db-1 failed again: the disk was full.",
    "The db-1 nightly backup failed once more because its disk is full.",
]
MORE = [
    "Again the nightly backup of db-1 failed since the disk was full.",
    "The backup job of db-1 failed tonight, disk full again.",
    "Nightly db-1 backup failure: the disk was full.",
]
NOISE = ["Alice's daughter plays the violin.", "The cafeteria serves pasta on Thursdays.",
         "Our CI pipeline runs on every push."]


def _bank(engine, **lifecycle):
    return engine.bank("ops", lifecycle={"consolidate_every": 0, **lifecycle})


def test_extractive_consolidation_clusters_and_links(engine):
    bank = _bank(engine)
    res = bank.capture_many([{"text": t, "kind": "experience", "mentioned_at": T0} for t in BACKUPS + NOISE])
    report = bank.consolidate()
    assert report.processed == 6 and len(report.created) == 1 and report.llm_calls == 0
    obs = bank.get(report.created[0])
    assert obs.kind.value == "observation" and "consolidated" in obs.flags and "extractive" in obs.flags
    assert set(obs.evidence_ids) == {r.unit_id for r in res[:3]}
    assert obs.text in BACKUPS and 0.5 < obs.confidence <= 0.9
    index = engine._live_index("ops")
    assert all(index.graph.graph.has_edge("u:" + obs.id, "u:" + e) for e in obs.evidence_ids)
    # a second run with more evidence supports the observation instead of adding a twin
    more = bank.capture_many([{"text": t, "kind": "experience", "mentioned_at": T0} for t in MORE])
    again = bank.consolidate()
    assert again.created == () and again.supported == (obs.id,)
    grown = bank.get(obs.id)
    assert {r.unit_id for r in more} <= set(grown.evidence_ids) and grown.confidence > obs.confidence
    assert bank.consolidate().processed == 0  # nothing new


def test_llm_merge_that_invents_a_fact_is_discarded_and_reported(engine):
    liar = scripted_chat_model(['{"observations": [{"cluster": 1, "text": "The nightly backup of db-1 fails because '
                                'the Hetzner volume only has 500 GB.", "confidence": 0.9}]}'])
    bank = _bank(engine)
    bank.capture_many([{"text": t, "kind": "experience", "mentioned_at": T0} for t in BACKUPS])
    report = bank.consolidate(llm=liar)
    assert report.llm_calls == 1 and len(report.discarded) == 1
    assert "Hetzner" in report.discarded[0]["reason"] and "500" in report.discarded[0]["reason"]
    obs = bank.get(report.created[0])
    assert "Hetzner" not in obs.text and "extractive" in obs.flags
    assert all("Hetzner" not in u.text for u in bank.units())


def test_llm_merge_that_returns_the_prompts_example_is_discarded_and_reported(engine):
    """Small local models return the prompt's example word for word; it names nothing absent from a
    deploy cluster, so the grounding check alone would keep it."""
    import json

    from hindsight_core.prompts import consolidate as consolidate_prompt

    copier = scripted_chat_model([json.dumps(consolidate_prompt.EXAMPLE)])
    bank = _bank(engine)
    bank.capture_many([{"text": t, "kind": "experience", "mentioned_at": T0} for t in BACKUPS])
    report = bank.consolidate(llm=copier)
    assert report.llm_calls == 1 and len(report.discarded) == 1 and "example" in report.discarded[0]["reason"]
    assert "extractive" in bank.get(report.created[0]).flags


def test_llm_merge_that_only_compresses_is_kept(embedder):
    honest = scripted_chat_model(['{"observations": [{"cluster": 1, "text": "The nightly backup job on db-1 fails '
                                  'because the disk is full.", "confidence": 0.8}]}'])
    with MemoryEngine.ephemeral(embedder=embedder, llm=honest) as engine:
        bank = _bank(engine)
        bank.capture_many([{"text": t, "kind": "experience", "mentioned_at": T0} for t in BACKUPS])
        report = bank.consolidate()
        obs = bank.get(report.created[0])
        assert report.discarded == () and "llm" in obs.flags and len(obs.evidence_ids) == 3
        assert obs.text == "The nightly backup job on db-1 fails because the disk is full."


def test_consolidation_is_triggered_in_the_background(engine):
    bank = engine.bank("ops", lifecycle={"consolidate_every": 5})
    bank.capture_many([{"text": t, "kind": "experience", "mentioned_at": T0} for t in BACKUPS + NOISE])
    assert engine.drain(60)
    assert engine.background_failures() == []
    assert list(bank.units(kind="observation"))


async def test_aconsolidate(engine):
    bank = _bank(engine)
    await bank.acapture_many([{"text": t, "kind": "experience"} for t in BACKUPS])
    report = await bank.aconsolidate()
    assert len(report.created) == 1


def test_a_chain_of_near_neighbours_is_not_one_cluster(tmp_path):
    # Two tight groups of three (30 degrees across) and a bridge 40 degrees from the nearest member of
    # each but 70 from the farthest; threshold cos(53 degrees) = 0.6. Linking any close pair would
    # chain all seven into one observation (as greetings and thanks chained 80 chat turns); a group
    # holds only units that are all close to each other, so the bridge stays out of both.
    import math

    from hindsight_core import MemoryEngine

    angles = {"a0": 0, "a1": 15, "a2": 30, "bridge": 70, "b0": 110, "b1": 125, "b2": 140}
    texts = {name: f"Observation point {name} from the field notes." for name in angles}
    by_text = {t: math.radians(angles[n]) for n, t in texts.items()}

    def embed(batch):
        return [[math.cos(by_text.get(t, 3.0)), math.sin(by_text.get(t, 3.0))] for t in batch]

    with MemoryEngine(tmp_path / "store", embedder=embed) as engine:
        bank = engine.bank("field", lifecycle={"consolidate_every": 0, "cluster_threshold": 0.6})
        ids = dict(zip(texts, (r.unit_id for r in bank.capture_many(
            [{"text": t, "kind": "experience", "mentioned_at": T0} for t in texts.values()]))))
        report = bank.consolidate()
        groups = sorted(sorted(bank.get(o).evidence_ids) for o in report.created)
        assert groups == sorted([sorted(ids[n] for n in ("a0", "a1", "a2")), sorted(ids[n] for n in ("b0", "b1", "b2"))])
