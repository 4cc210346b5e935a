"""The ``hindsight`` command line, run for real in subprocesses against a store built in-process.

One store is shared by the module (the model loads once here; only ``recall`` and a re-embedding
``import`` load it in their subprocess). Every subcommand gets a bad-input case: exit code and a
message that says what to do.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

STORE_TURNS = [
    ("2024-03-04T09:00", "s1", "The billing service listens on port 8080."),
    ("2024-03-04T09:01", "s1", "Remember: deploys to production need a change ticket from Priya."),
    ("2024-03-11T14:30", "s2", "Remember: deploys to production need a change ticket from Priya."),  # a repeat
    ("2024-03-11T14:31", "s2", "The billing service moved to port 9090 yesterday."),
    ("2024-03-11T14:32", "s2", "My email is sam@example.com if the pager fails."),
]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def store(tmp_path_factory, embedder):
    from hindsight_core import MemoryEngine
    from hindsight_core.episodes import Episode, TraceStep

    path = tmp_path_factory.mktemp("cli") / "store"
    engine = MemoryEngine(path, embedder=embedder)
    bank = engine.bank("demo")
    for when, session, text in STORE_TURNS:
        bank.capture(text, session_id=session, mentioned_at=at(when), metadata={"turn": when, "tags": ["ops", "é"]})
    episode = Episode.from_steps([
        TraceStep(kind="user", text="Deploy the billing service to production"),
        TraceStep(kind="tool_error", tool="deploy", text="PermissionError: a change ticket is required"),
    ], session_id="s3")
    ended = bank.end_episode(episode, "failure", ended_at=at("2024-03-12T10:00"))
    units = {u.id: u for u in bank.units()}
    engine.close()  # an embedded folder is for one process at a time
    ids = {
        "lesson": ended.lesson.id,
        "old_port": next(i for i, u in units.items() if "8080" in u.text),
        "new_port": next(i for i, u in units.items() if "9090" in u.text),
    }
    return {"path": path, "ids": ids, "units": units}


def hs(store, *args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hindsight_core.cli", "--path", str(store["path"]), *args],
                          capture_output=True, text=True, timeout=180, cwd=cwd or store["path"].parent, input=stdin)


def test_the_store_has_what_the_round_trip_must_keep(store):
    units = store["units"].values()
    assert {u.status.value for u in units} >= {"active", "superseded"}
    assert any(u.superseded_by and u.valid_to for u in units)
    assert any(u.evidence_ids for u in units) and any(u.mentions for u in units)
    assert any(u.occurred_at for u in units) and any("pii_redacted" in u.flags for u in units)


# ---- banks / stats -----------------------------------------------------------------------------------
def test_banks_and_stats_print_tables(store, tmp_path):
    out = hs(store, "banks")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].split() == ["bank", "units"] and "demo" in out.stdout
    out = hs(store, "stats", "demo")
    assert out.returncode == 0 and "superseded" in out.stdout and "graph:" in out.stdout

    missing = subprocess.run([sys.executable, "-m", "hindsight_core.cli", "--path", str(tmp_path / "nope"), "banks"],
                             capture_output=True, text=True, cwd=tmp_path)
    assert missing.returncode == 3 and "no memory store at" in missing.stderr and "--path" in missing.stderr
    bad = hs(store, "stats", "nope")
    assert bad.returncode == 3 and "`hindsight banks` lists the banks" in bad.stderr


# ---- recall ------------------------------------------------------------------------------------------
def test_recall_prints_a_table_with_the_explain_trace(store):
    out = hs(store, "recall", "demo", "which port does billing use now?", "-k", "3", "--explain",
             "--as-of", "2024-03-12T09:00:00+00:00")
    assert out.returncode == 0, out.stderr
    header = out.stdout.splitlines()[0]
    assert header.split()[:3] == ["#", "score", "kind"] and "found by" in header
    assert "9090" in out.stdout and "dense#" in out.stdout and "timings (ms)" in out.stdout

    bad = hs(store, "recall", "demo", "port?", "--as-of", "last tuesday-ish")
    assert bad.returncode == 2 and "as_of" in bad.stderr
    assert hs(store, "recall", "nope", "port?").returncode == 3


# ---- show --------------------------------------------------------------------------------------------
def test_show_prints_fields_evidence_chain_and_history(store):
    out = hs(store, "show", "demo", store["ids"]["lesson"])
    assert out.returncode == 0, out.stderr
    assert "field" in out.stdout and "outcome         failure" in out.stdout
    chain = out.stdout.split("evidence chain:")[1]
    assert "Episode (failure)" in chain

    out = hs(store, "show", "demo", store["ids"]["new_port"])
    history = out.stdout.split("history (oldest first):")[1]
    assert history.index(store["ids"]["old_port"]) < history.index(store["ids"]["new_port"])
    assert "superseded" in history and "8080" in history

    raw = hs(store, "show", "demo", store["ids"]["old_port"], "--json")
    assert json.loads(raw.stdout)["superseded_by"] == store["ids"]["new_port"]

    bad = hs(store, "show", "demo", "no-such-id")
    assert bad.returncode == 3 and "no memory unit 'no-such-id'" in bad.stderr and "hindsight recall" in bad.stderr


# ---- export / import ---------------------------------------------------------------------------------
def _lines(path: Path) -> tuple[dict, list[dict]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return rows[0], [r for r in rows[1:] if "unit" in r]  # the last line is the footer (count, checksum)


def test_export_import_round_trip_keeps_every_field(store, tmp_path, embedder):
    first = tmp_path / "demo.jsonl"
    out = hs(store, "export", "demo", "-o", str(first))
    assert out.returncode == 0, out.stderr
    header, rows = _lines(first)
    assert header["bank"] == "demo" and header["units"] == len(rows) == len(store["units"])
    assert not header["embeddings"] and "embedding" not in rows[0]

    out = hs(store, "import", str(first), "--bank", "copy")
    assert out.returncode == 0, out.stderr
    assert f"imported {len(rows)} units into bank copy" in out.stdout and f"embedded {len(rows)}" in out.stdout

    second = tmp_path / "copy.jsonl"
    assert hs(store, "export", "copy", "-o", str(second)).returncode == 0
    _, again = _lines(second)
    assert [r["unit"] | {"bank": "demo"} for r in again] == [r["unit"] for r in rows]  # every field, in order
    originals = {i: u.model_dump(mode="json") for i, u in store["units"].items()}
    assert {r["unit"]["id"]: r["unit"] for r in rows} == originals

    # the copy's graph has the same links (entities, temporal, evidence and supersession) as the original
    from hindsight_core import MemoryEngine

    engine = MemoryEngine(store["path"], embedder=embedder)
    try:
        edges = [set(engine._live_index(b).graph.graph.edges(keys=True)) for b in ("demo", "copy")]
    finally:
        engine.close()
    assert edges[0] == edges[1] and any(k == "evidence" for _, _, k in edges[0])

    # vectors carried: importing with the same model embeds nothing
    with_vectors = tmp_path / "demo-vectors.jsonl"
    assert hs(store, "export", "demo", "-o", str(with_vectors), "--embeddings").returncode == 0
    assert len(_lines(with_vectors)[1][0]["embedding"]) == 384
    out = hs(store, "import", str(with_vectors), "--bank", "copy2")
    assert out.returncode == 0 and "embedded 0" in out.stdout, out.stderr

    # stdout export, for pipes
    piped = hs(store, "export", "demo")
    assert piped.returncode == 0 and piped.stdout.splitlines()[1:] == first.read_text().splitlines()[1:]


def test_import_and_export_bad_inputs(store, tmp_path):
    good = tmp_path / "demo.jsonl"
    assert hs(store, "export", "demo", "-o", str(good)).returncode == 0

    conflict = hs(store, "import", str(good))  # into "demo" itself: every id exists
    assert conflict.returncode == 2 and "already exist in bank 'demo'" in conflict.stderr
    assert "--bank NAME" in conflict.stderr and "--on-conflict" in conflict.stderr
    skipped = hs(store, "import", str(good), "--on-conflict", "skip", "--reembed", "never")
    assert skipped.returncode == 2 and "--embeddings" in skipped.stderr  # no vectors carried, none computed

    missing = hs(store, "import", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "no file at" in missing.stderr
    broken = tmp_path / "broken.jsonl"
    broken.write_text(good.read_text().splitlines()[0] + "\n{\"unit\": {\"id\": \n")
    out = hs(store, "import", str(broken), "--bank", "x")
    assert out.returncode == 2 and "line 2 is not valid JSON" in out.stderr and "Export the bank again" in out.stderr
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text('{"hello": "world"}\n')
    out = hs(store, "import", str(foreign))
    assert out.returncode == 2 and "not a hindsight export header" in out.stderr
    assert "x" not in hs(store, "banks").stdout.split()  # nothing was written by the failed imports

    out = hs(store, "export", "nope")
    assert out.returncode == 3 and "`hindsight banks`" in out.stderr


# ---- graph -------------------------------------------------------------------------------------------
def test_graph_html_and_png(store, tmp_path):
    page = tmp_path / "g.html"
    out = hs(store, "graph", "demo", "-o", str(page))
    assert out.returncode == 0, out.stderr
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>") and "<svg" in text and "e-causal" in text and "e-temporal" in text
    assert "<script src" not in text and "<link" not in text and "https://" not in text  # nothing fetched
    assert "port 9090" in text

    png = tmp_path / "g.png"
    out = hs(store, "graph", "demo", "-o", str(png))
    assert out.returncode == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    bad = hs(store, "graph", "demo", "-o", str(tmp_path / "g.svg"))
    assert bad.returncode == 2 and "ending in .html or .png" in bad.stderr
    bad = hs(store, "graph", "demo", "-o", str(tmp_path / "no-folder" / "g.html"))
    assert bad.returncode == 2 and "does not exist" in bad.stderr


# ---- forget / delete-bank ----------------------------------------------------------------------------
def test_forget_and_delete_bank(store, tmp_path):
    dump = tmp_path / "d.jsonl"
    assert hs(store, "export", "demo", "-o", str(dump), "--embeddings").returncode == 0
    assert hs(store, "import", str(dump), "--bank", "scratch").returncode == 0
    victim = store["ids"]["lesson"]
    out = hs(store, "forget", "scratch", victim)
    assert out.returncode == 0 and f"deleted {victim} from scratch" in out.stdout
    assert hs(store, "show", "scratch", victim).returncode == 3
    assert hs(store, "show", "demo", victim).returncode == 0  # other banks untouched
    bad = hs(store, "forget", "scratch", victim)
    assert bad.returncode == 3 and "no memory unit" in bad.stderr

    out = hs(store, "delete-bank", "scratch")
    assert out.returncode == 0 and "scratch" not in hs(store, "banks").stdout.split()
    bad = hs(store, "delete-bank", "scratch")
    assert bad.returncode == 3 and "`hindsight banks`" in bad.stderr


# ---- bench -------------------------------------------------------------------------------------------
def test_bench_delegates_to_the_source_checkout(store):
    root = Path(__file__).resolve().parents[2]
    out = hs(store, "bench", "locomo", "--help")
    if (root / "benchmarks" / "locomo.py").exists():
        assert out.returncode == 0 and "LoCoMo" in out.stdout and "--conversations" in out.stdout
    else:
        assert out.returncode == 2 and "source checkout" in out.stderr
    bad = hs(store, "bench", "nosuch")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
