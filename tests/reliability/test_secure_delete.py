"""Deleted text cannot be read back from any file of an embedded store folder (issue 11).

Marker strings go into a unit's text, metadata, session id and a bank id; after ``delete``,
``delete_bank`` and ``close()`` every file under the folder is read byte by byte and searched.
"""

from __future__ import annotations

import os
from pathlib import Path

from hindsight_core import MemoryEngine
from hindsight_core.testing import HashEmbedder


def _files_with(folder: Path, markers: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for root, _, files in os.walk(folder):
        for name in files:
            data = (Path(root) / name).read_bytes().lower()
            hits = [m for m in markers if m.lower().encode() in data]
            if hits:
                found[os.path.relpath(Path(root) / name, folder)] = hits
    return found


def test_deleted_units_and_banks_leave_no_readable_trace(tmp_path):
    folder = tmp_path / "store"
    engine = MemoryEngine(folder, embedder=HashEmbedder(dim=64))
    keep = engine.bank("kept").capture("Alice keeps the ordinary fact about Quillfeather.")
    gone = engine.bank("kept").capture("The courier code word is Zorblaxian tangerine.", session_id="sessZEPHYRIN",
                                       metadata={"note": "metaVOLTARIQUE"})
    engine.bank("kept").capture_many([f"Filler fact {i} about rack R{i}." for i in range(20)])
    engine.bank("bankMORVENDALE").capture("The whole bank goes: Pellucidar harbour opens at dawn.")
    markers = ["Zorblaxian", "sessZEPHYRIN", "metaVOLTARIQUE", "MORVENDALE", "Pellucidar"]
    assert _files_with(folder, markers)  # the markers are on disk before the deletes

    engine.bank("kept").delete(gone.unit_id)
    engine.delete_bank("bankMORVENDALE")
    assert _files_with(folder, markers) == {}  # at once, not only after close
    assert _files_with(folder, ["Quillfeather"])  # what was kept is still there

    engine.close()
    assert _files_with(folder, markers) == {}
    reopened = MemoryEngine(folder, embedder=HashEmbedder(dim=64))  # the folder still opens and works
    bank = reopened.bank("kept")
    assert bank.count() == 21 and bank.get(keep.unit_id).text.startswith("Alice")
    assert bank.recall("courier code word", k=3).hits[0].id != gone.unit_id
    assert "bankMORVENDALE" not in reopened.banks()
    bank.capture("After reopening, writes still work.")
    assert bank.count() == 22
    reopened.close()


def test_secure_delete_can_be_turned_off_for_speed(tmp_path):
    folder = tmp_path / "store"
    engine = MemoryEngine(folder, embedder=HashEmbedder(dim=64), secure_delete=False)
    gone = engine.bank("b").capture("The courier code word is Zorblaxian tangerine.").unit_id
    engine.bank("b").delete(gone)
    engine.close()
    assert _files_with(folder, ["Zorblaxian"])  # still in free pages: the documented trade-off
