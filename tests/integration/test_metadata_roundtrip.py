"""The caller's ``metadata`` comes back exactly as given (issue 11): the library keeps its own data
(who spoke, an experience's episode, a lesson's reflection, a skill's counters, a digest's month,
how an observation was consolidated) in typed fields, and old stores that kept them inside
``metadata`` are migrated when read."""

from __future__ import annotations

import io
import json

from hindsight_core import MemoryEngine
from hindsight_core.episodes import Episode, TraceStep
from hindsight_core.export import export_bank, import_bank
from hindsight_core.models import Flag
from hindsight_core.storage.codec import LIBRARY_FIELDS, to_record
from hindsight_core.testing import HashEmbedder

#: Keys the library used to write into (or read out of) metadata, and some of the caller's own.
AWKWARD = {"speaker": "Caroline", "episode": {"goal": "mine", "steps": 99}, "hindsight_lesson": "my own key",
           "hindsight_skill": [1, 2], "hindsight_digest": None, "hindsight_consolidated": True,
           "nested": {"list": [1, "two", {"three": 3.0}]}, "dia_id": "D1:3"}


def _engine() -> MemoryEngine:
    return MemoryEngine.ephemeral(embedder=HashEmbedder())


def test_metadata_round_trips_through_get_recall_units_export_and_import():
    engine = _engine()
    bank = engine.bank("alice")
    result = bank.capture("Caroline moved the billing service to port 9090.", metadata=AWKWARD)
    assert result.unit.metadata == AWKWARD
    assert bank.get(result.unit_id).metadata == AWKWARD
    assert bank.recall("which port does billing use?", k=1).hits[0].unit.metadata == AWKWARD
    assert [u.metadata for u in bank.units()] == [AWKWARD]
    assert bank.get(result.unit_id).speaker == "Caroline"  # read from metadata, which keeps it
    buf = io.StringIO()
    export_bank(bank, buf)
    assert json.loads(buf.getvalue().splitlines()[1])["unit"]["metadata"] == AWKWARD
    buf.seek(0)
    import_bank(engine, buf, bank="copy")
    assert [u.metadata for u in engine.bank("copy").units()] == [AWKWARD]


def test_speaker_is_a_field_of_its_own():
    bank = _engine().bank("chat")
    unit = bank.capture("I adopted a second cat last week.", speaker="Melanie", metadata={"turn": 4}).unit
    assert unit.speaker == "Melanie" and unit.metadata == {"turn": 4}
    assert bank.get(unit.id).speaker == "Melanie" and bank.get(unit.id).metadata == {"turn": 4}
    with bank.store.read() as index:
        assert index.units[unit.id].speaker == "Melanie"  # recall's speaker weighting and graph read this


def test_episodes_lessons_skills_keep_their_data_out_of_metadata():
    bank = _engine().bank("agent", lifecycle={"consolidate_every": 0, "skill_after": 1})
    episode = Episode.from_steps([TraceStep(kind="user", text="Deploy the billing service to staging."),
                                  TraceStep(kind="tool_result", text="run_tests passed", tool="run_tests"),
                                  TraceStep(kind="assistant", text="Deployed.")],
                                 session_id="s1", metadata={"ticket": "OPS-7"})
    result = bank.end_episode(episode, "success")
    experience = bank.get(result.experience.id)
    assert experience.metadata == {"ticket": "OPS-7"}  # the caller's episode metadata, as given
    assert experience.episode["goal"] and experience.episode["steps"] == 3
    lesson = bank.get(result.lesson.id)
    assert lesson.metadata == {} and lesson.lesson["outcome"] == "success"
    skills = list(bank.units(kind="skill"))
    assert skills and skills[0].metadata == {} and skills[0].skill["successes"] >= 1
    assert Flag.SKILL in skills[0].flags and "skill" in skills[0].flags  # flags are a str enum


def test_an_old_record_with_library_keys_in_metadata_is_migrated_on_read(flat_record):
    engine = _engine()
    bank = engine.bank("old")
    new = bank.capture("The lesson: run the migrations before the deploy.", kind="observation", source="agent",
                       keep_raw=True, metadata={"mine": 1}).unit
    unit_id, doc, meta = to_record(new, 0)
    meta = flat_record(meta, 1)
    for key in LIBRARY_FIELDS.values():  # as schema 1 (before the typed fields) wrote it
        meta[key] = None  # None removes a key from a Chroma record
    meta["metadata"] = json.dumps({"mine": 1, "hindsight_lesson": {"lesson": "run migrations", "outcome": "success"},
                                   "speaker": "ops-bot"})
    store = bank.store
    index = store.open()
    index.store.update_metadata(index.collection, [unit_id], [meta])
    store.forget()  # reload from Chroma, as a fresh process would
    old = bank.get(unit_id)
    assert old.lesson == {"lesson": "run migrations", "outcome": "success"}
    assert old.metadata == {"mine": 1, "speaker": "ops-bot"} and old.speaker == "ops-bot"
    bank.store.update(old)  # the next write stores it in the new layout
    again = bank.get(unit_id)
    assert again.lesson == old.lesson and again.metadata == old.metadata and again.schema_version == 2
