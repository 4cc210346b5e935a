"""Tenancy: no read, recall channel, graph walk or export ever crosses banks.

Property-based: hypothesis generates interleaved writes (single captures, batches, evidence
links, episodes with the *same* episode id in several banks, deletes) to many banks that mention
the same entities and even store the very same sentences, then every bank is probed: recall with
queries aimed at the other banks' content (every channel's ranking in the trace is checked, not only
the fused hits), lessons, get/get_many/delete of foreign ids, evidence links to foreign ids, export
(``units()``), and the in-memory keyword and graph indexes. Each example batches dozens of checks;
``CHECKS`` counts them and the last test prints the totals.
"""

from __future__ import annotations

import itertools
import os
import uuid
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hindsight_core import BankConfig, InvalidInputError, MemoryEngine, NotFoundError
from hindsight_core.config import LifecycleConfig
from hindsight_core.episodes import Episode, TraceStep
from hindsight_core.storage.graph import UNIT
from hindsight_core.testing import HashEmbedder

PEOPLE = ["Alice", "Bob", "Carol", "Dana", "Erik"]
PROJECTS = ["Project Falcon", "Project Heron", "the billing service", "the Orion release"]
PLACES = ["Berlin", "Lisbon", "Oslo"]
TEMPLATES = [
    "{p} met {q} in {place} about {proj}.",
    "{p} decided that {proj} moves to {place}.",
    "Remember: {p} owns {proj} and reports to {q}.",
    "{p} prefers tea; {q} reviews {proj} on Fridays.",
]
SHARED_EPISODE = Episode.from_steps(
    [TraceStep(kind="user", text="Deploy Project Falcon to Oslo"),
     TraceStep(kind="tool_error", text="PermissionError: approval required", tool="deploy")],
    session_id="shared-session",
)

CHECKS = {"examples": 0, "checks": 0, "recalls": 0, "hits": 0}
#: Generated examples of the fast property: 1,000 by default (about 0.23 s and ~65 checks each, ~4
#: minutes on 2 cores, still the largest single item of a CI run that must stay under 30 minutes:
#: 1,500 took 346 s of a 21.5-minute run, most of it in Chroma's own get/upsert); set
#: HINDSIGHT_TENANCY_EXAMPLES lower for a quick local run, higher (e.g. 20000) for a soak.
EXAMPLES = int(os.environ.get("HINDSIGHT_TENANCY_EXAMPLES", "1000"))

op = st.tuples(
    st.sampled_from(["capture", "capture", "capture", "batch", "evidence", "shared", "episode", "delete"]),
    st.integers(0, 5),  # bank (mod number of banks)
    st.integers(0, len(TEMPLATES) - 1),
    st.integers(0, len(PEOPLE) - 1),
    st.integers(0, len(PEOPLE) - 1),
    st.integers(0, len(PROJECTS) - 1),
    st.integers(0, len(PLACES) - 1),
)


@dataclass
class World:
    prefix: str
    owned: dict[str, set[str]] = field(default_factory=dict)  # bank -> unit ids it holds
    texts: dict[str, set[str]] = field(default_factory=dict)  # bank -> texts written to it
    markers: dict[str, list[str]] = field(default_factory=dict)  # bank -> its unique marker words

    def owner(self, unit_id: str) -> str | None:
        return next((b for b, ids in self.owned.items() if unit_id in ids), None)


def _text(world: World, bank: str, n: int, t: int, p: int, q: int, proj: int, place: int, marked: bool) -> str:
    text = TEMPLATES[t].format(p=PEOPLE[p], q=PEOPLE[q], proj=PROJECTS[proj], place=PLACES[place])
    if marked:
        marker = f"zq{bank[-1]}k{n}"
        world.markers[bank].append(marker)
        text += f" Ticket {marker}."
    return text


def _apply(engine: MemoryEngine, world: World, banks: list[str], ops) -> None:
    for n, (kind, b, t, p, q, proj, place) in enumerate(ops):
        bank_id = banks[b % len(banks)]
        bank = engine.bank(bank_id)
        if kind == "delete":
            if world.owned[bank_id]:
                victim = sorted(world.owned[bank_id])[0]
                bank.delete(victim)
                world.owned[bank_id].discard(victim)
            continue
        if kind == "episode":  # the same episode id ends in several banks
            res = bank.end_episode(SHARED_EPISODE, "failure")
            world.owned[bank_id] |= {res.experience.id, res.lesson.id}
            world.texts[bank_id] |= {res.experience.text, res.lesson.text}
            continue
        if kind == "batch":
            texts = [_text(world, bank_id, n * 10 + i, (t + i) % len(TEMPLATES), p, q, proj, place, True)
                     for i in range(3)]
            results = bank.capture_many([{"text": x, "session_id": f"s{p}"} for x in texts])
        else:
            evidence = sorted(world.owned[bank_id])[:1] if kind == "evidence" else []
            text = _text(world, bank_id, n, t, p, q, proj, place, marked=kind != "shared")
            results = [bank.capture(text, session_id=f"s{p}", evidence_ids=evidence)]
            texts = [text]
        for r, x in zip(results, texts):
            assert r.unit.bank == bank_id
            world.owned[bank_id].add(r.unit_id)
            world.texts[bank_id].add(x)


def _check_bank(engine: MemoryEngine, world: World, bank_id: str, probes: list[str], foreign: list[str]) -> int:
    bank = engine.bank(bank_id)
    owned = world.owned[bank_id]
    checks = 0
    for query in probes:
        result = bank.recall(query, k=20, include_drafts=True, include_history=True, include_archived=True)
        CHECKS["recalls"] += 1
        assert result.bank == bank_id
        for hit in result.hits:
            CHECKS["hits"] += 1
            assert hit.unit.bank == bank_id, f"{hit.unit.id} of {hit.unit.bank} leaked into {bank_id}"
            assert hit.unit.id in owned and hit.unit.text in world.texts[bank_id]
            assert {c.channel for c in hit.channels} <= {"dense", "keyword", "graph", "temporal", "neighbour"}
        for channel, ids in result.trace.get("top", {}).items():  # every channel's own ranking
            leaked = [i for i in ids if i not in owned]
            assert not leaked, f"channel {channel} of {bank_id} ranked foreign units {leaked}"
        checks += 1
    lessons = bank.recall_lessons("Deploy Project Falcon to Oslo", k=5)
    assert all(h.unit.id in owned for h in lessons.hits)
    for other_id in foreign[:6]:
        with pytest.raises(NotFoundError):
            bank.get(other_id)
        with pytest.raises(NotFoundError):
            bank.delete(other_id)
        checks += 2
    if foreign:
        assert {u.id for u in bank.get_many(foreign + sorted(owned))} == owned
        with pytest.raises(InvalidInputError, match="same bank"):
            bank.capture("A link to another bank's memory.", evidence_ids=[foreign[0]])
        checks += 2
    exported = list(bank.units())
    assert {u.id for u in exported} == owned and all(u.bank == bank_id for u in exported)
    index = engine._live_index(bank_id)
    assert set(index.units) == owned
    assert {n[len(UNIT):] for n in index.graph.graph.nodes if n.startswith(UNIT)} == owned
    assert all(i in index.keyword for i in owned) and len(index.keyword) == len(owned)
    for unit_id in owned:  # graph walks from each unit stay inside the bank
        assert {dst for dst, _, _ in index.graph.links(unit_id)} <= owned
    return checks + 4 + len(owned)


def _run(engine: MemoryEngine, n_banks: int, ops) -> None:
    world = World(prefix=uuid.uuid4().hex[:8])
    banks = [f"{world.prefix}-t{i}" for i in range(n_banks)]
    for b in banks:
        world.owned[b], world.texts[b], world.markers[b] = set(), set(), []
    try:
        _apply(engine, world, banks, ops)
        for bank_id in banks:
            others = [b for b in banks if b != bank_id]
            foreign = sorted(itertools.chain.from_iterable(world.owned[b] for b in others))
            probes = [f"{' '.join(world.markers[b][:3])} {PROJECTS[i % len(PROJECTS)]} {PEOPLE[i]}"
                      for i, b in enumerate(others)][:3]
            probes.append("Who met whom about Project Falcon in Oslo?")
            CHECKS["checks"] += _check_bank(engine, world, bank_id, probes, foreign)
        CHECKS["examples"] += 1
    finally:
        for b in banks:
            engine.delete_bank(b, missing_ok=True)


@pytest.fixture(scope="module")
def hash_engine():
    # Activity tracking is off here only for speed: each recall queues a background flush, and
    # deleting a bank waits for its queue. The real-model property below keeps every default on.
    config = BankConfig().model_copy(update={"lifecycle": LifecycleConfig(track_activity=False)})
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=128), config=config)
    yield engine
    engine.close()


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(n_banks=st.integers(2, 5), ops=st.lists(op, min_size=3, max_size=14))
def test_no_recall_read_or_index_crosses_banks(hash_engine, n_banks, ops):
    _run(hash_engine, n_banks, ops)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(n_banks=st.integers(2, 3), ops=st.lists(op, min_size=3, max_size=8))
def test_no_cross_bank_leak_with_the_real_model(mem_engine, n_banks, ops):
    _run(mem_engine, n_banks, ops)


def test_deleting_a_bank_leaves_the_others_whole(hash_engine):
    a, b = hash_engine.bank("del-a"), hash_engine.bank("del-b")
    kept = b.capture("Alice owns Project Falcon in Oslo.").unit_id
    a.capture("Alice owns Project Falcon in Oslo.")
    hash_engine.delete_bank("del-a")
    assert b.count() == 1 and b.get(kept).bank == "del-b"
    assert [h.id for h in b.recall("Project Falcon", k=5)] == [kept]
    assert "del-a" not in hash_engine.banks()
    with pytest.raises(NotFoundError):
        hash_engine.delete_bank("del-a")
    hash_engine.delete_bank("del-b")


def test_zz_report_case_counts():
    """Runs last in this module: the totals of the generated cases above (shown with -rP / -s)."""
    print(f"tenancy cases: {CHECKS}")
    assert CHECKS["examples"] >= EXAMPLES and CHECKS["checks"] >= 30 * EXAMPLES
