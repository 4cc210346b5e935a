"""Gloss vectors: a message in another language is embedded with its English gloss, kept and reloaded.

Every sentence here is written for these tests (none comes from a benchmark set).
"""

from __future__ import annotations

import numpy as np

from hindsight_core import MemoryEngine
from hindsight_core.lifecycle.update_languages import english_gloss
from hindsight_core.storage._unit_columns import from_columns, to_columns
from hindsight_core.testing import HashEmbedder

ENGLISH = "My brother Tiago works as a nurse at the city hospital."
PORTUGUESE = "O meu irmão Tiago agora trabalha como professor numa escola em Coimbra."


def test_only_a_message_in_another_language_has_a_gloss():
    assert english_gloss(ENGLISH) is None
    glossed = english_gloss(PORTUGUESE)
    assert glossed is not None and "brother" in glossed and "teacher" in glossed


def test_the_gloss_is_embedded_in_the_same_call_and_kept_on_reopen(tmp_path, counting_embedder):
    emb = counting_embedder
    with MemoryEngine(tmp_path / "store", embedder=emb) as engine:
        bank = engine.bank("g")
        bank.capture_many([{"text": ENGLISH}, {"text": PORTUGUESE}])
        assert sorted(emb.texts) == sorted([ENGLISH, PORTUGUESE, english_gloss(PORTUGUESE)])  # one call, one extra text
        later = bank.recall("Tiago", k=2).hits
        foreign = next(h.unit for h in later if h.unit.text == PORTUGUESE)
        bank.invalidate(foreign.id, reason="checking that a metadata rewrite keeps the gloss")
    with MemoryEngine(tmp_path / "store", embedder=HashEmbedder(256)) as engine:
        units = engine._live_index("g").units
        kept = units[foreign.id].gloss
        assert kept is not None and units[foreign.id].status == "invalidated"
        assert np.allclose(kept, HashEmbedder(256).embed([english_gloss(PORTUGUESE)])[0], atol=2e-3)  # float16 on disk
        assert all(u.gloss is None for u in units.values() if u.id != foreign.id)
        assert engine.bank("g").get(foreign.id).text == PORTUGUESE  # the unit model never sees the field


def test_gloss_vectors_survive_the_snapshot_columns():
    with MemoryEngine.ephemeral(embedder=HashEmbedder(64)) as engine:
        engine.bank("g").capture_many([{"text": ENGLISH}, {"text": PORTUGUESE}])
        units = sorted(engine._live_index("g").units.values(), key=lambda u: u.seq)
    back = from_columns(*to_columns(units))
    assert [u.gloss is None for u in back] == [True, False]
    assert np.array_equal(back[1].gloss, units[1].gloss)


def test_an_import_embeds_the_gloss_as_capture_does(tmp_path):
    from hindsight_core.export import export_bank, import_bank

    with MemoryEngine.ephemeral(embedder=HashEmbedder(64)) as engine:
        engine.bank("src").capture_many([{"text": ENGLISH}, {"text": PORTUGUESE}])
        export_bank(engine.bank("src"), tmp_path / "bank.jsonl")
        import_bank(engine, tmp_path / "bank.jsonl", bank="dst")
        units = {u.text: u for u in engine._live_index("dst").units.values()}
        assert units[ENGLISH].gloss is None
        assert np.allclose(units[PORTUGUESE].gloss, HashEmbedder(64).embed([english_gloss(PORTUGUESE)])[0], atol=2e-3)
