"""Bank ids have one normal form (NFKC, trimmed, invisible characters refused, case kept); stores
written before it migrate with storage.bank_ids.normalise_bank_ids; erasure reaches every spelling."""

from __future__ import annotations

import pytest

from hindsight_core import InvalidInputError, MemoryEngine
from hindsight_core.storage.bank_ids import legacy_aliases, normalise_bank_ids
from hindsight_core.testing import HashEmbedder


@pytest.fixture
def engine():
    eng = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=32))
    yield eng
    eng.close()


@pytest.mark.parametrize("spelling", [" alice", "alice ", "\talice\t", "ａｌｉｃｅ"])
def test_look_alike_spellings_are_one_bank(engine, spelling):
    engine.bank("alice").capture("Alice likes green tea.")
    assert [u.text for u in engine.bank(spelling).units()] == ["Alice likes green tea."]
    assert engine.banks() == ["alice"]
    engine.delete_bank(spelling)
    assert engine.banks() == []


def test_nfc_and_nfd_are_one_bank(engine):
    engine.bank("Zo\u00eb").capture("Zoë is on call.")
    assert engine.bank("Zoe\u0308").count() == 1


@pytest.mark.parametrize("bad", ["al\u200bice", "\u200balice", "ali\u200dce", "al\u202eice", "al\u00adice", "al\x07ice",
                                 "a\ud800"])
def test_invisible_characters_are_refused_not_stripped(engine, bad):
    with pytest.raises(InvalidInputError, match="invisible|surrogate"):
        engine.bank(bad)


def test_case_is_kept(engine):
    engine.bank("Alice").capture("Upper-case Alice's fact.")
    assert engine.bank("alice").count() == 0 and engine.banks() == ["Alice"]


def _legacy(engine, raw: str, text: str) -> None:
    """Write a bank the way a release without normalisation did: under the raw id."""
    from hindsight_core._capture import prepare
    from hindsight_core.storage.codec import to_record

    col = engine.store.open_bank(raw, embedder=engine.embedder.name, dim=engine.embedder.dim, create=True)
    unit = prepare(raw, engine.config, text=text).unit
    rid, doc, meta = to_record(unit, 0)
    engine.store.upsert(col, [rid], [doc], [meta], engine.embedder.embed([text]))


def test_old_stores_migrate_to_normal_ids(engine):
    _legacy(engine, " bob ", "Bob's old fact.")
    _legacy(engine, "Zoe\u0308", "Zoë's old fact.")
    engine.bank("carol").capture("Carol's fact.")
    assert normalise_bank_ids(engine, dry_run=True) == [(" bob ", "bob"), ("Zoe\u0308", "Zoë")]
    assert sorted(normalise_bank_ids(engine)) == [(" bob ", "bob"), ("Zoe\u0308", "Zoë")]
    assert sorted(engine.banks()) == ["Zoë", "bob", "carol"]
    assert [u.text for u in engine.bank("bob").units()] == ["Bob's old fact."]
    assert all(u.bank == "bob" for u in engine.bank("bob").units())
    assert normalise_bank_ids(engine) == []  # idempotent


def test_migration_refuses_to_merge_unless_asked(engine):
    _legacy(engine, "dana ", "Dana's legacy fact.")
    engine.bank("dana").capture("Dana's new fact.")
    with pytest.raises(InvalidInputError, match="merge=True"):
        normalise_bank_ids(engine)
    assert legacy_aliases(engine.store, "dana") == ["dana "]
    normalise_bank_ids(engine, merge=True)
    assert sorted(u.text for u in engine.bank("dana").units()) == ["Dana's legacy fact.", "Dana's new fact."]


def test_erasure_reaches_legacy_spellings(engine):
    _legacy(engine, "erin\u200b", "Erin's zero-width legacy fact.")
    _legacy(engine, " erin", "Erin's spaced legacy fact.")
    engine.bank("erin").capture("Erin's fact.")
    engine.delete_bank("erin")
    assert engine.banks() == []


def test_collection_names_hide_the_bank_id_and_old_readable_names_still_open(tmp_path, monkeypatch):
    folder = tmp_path / "store"
    monkeypatch.setenv("HINDSIGHT_READABLE_BANK_NAMES", "1")  # how earlier releases named collections
    old = MemoryEngine(folder, embedder=HashEmbedder(dim=32))
    old.bank("alice.smith").capture("Alice's fact from an older release.")
    old.close()
    monkeypatch.delenv("HINDSIGHT_READABLE_BANK_NAMES")
    engine = MemoryEngine(folder, embedder=HashEmbedder(dim=32))
    engine.bank("bob.jones").capture("Bob's fact.")
    names = [c.name for c in engine.store.client.list_collections()]
    assert not any("bob" in n for n in names) and any("alice" in n for n in names)
    assert [u.text for u in engine.bank("alice.smith").units()] == ["Alice's fact from an older release."]
    assert sorted(engine.banks()) == ["alice.smith", "bob.jones"]
    engine.delete_bank("alice.smith")
    engine.delete_bank("bob.jones")
    assert engine.banks() == [] and engine.store.client.list_collections() == []
    engine.close()


def test_the_name_key_changes_the_collection_name(monkeypatch):
    from hindsight_core.storage.chroma_store import _collection_name

    default = _collection_name("alice")
    monkeypatch.setenv("HINDSIGHT_BANK_NAME_KEY", "my-secret")
    assert _collection_name("alice") != default and "alice" not in _collection_name("alice")
