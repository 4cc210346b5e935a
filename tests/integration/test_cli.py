"""The ``hindsight`` command line against a store built in-process.

One store is shared by the module. Every subcommand gets a bad-input case: exit code and a message that
says what to do.

Most commands run in-process (``run_main``, and ``hs`` for the shared store): ``cli.main(argv)`` with
stdout, stderr and stdin swapped for strings, in the store's folder, ``sys.argv``, ``sys.path`` and the
environment put back afterwards, and ``SystemExit`` (argparse errors, ``--help``) turned into the exit
code. Each call must close its engine: ``run_main`` checks that the store folder's lock is released.
A subprocess paid imports, Chroma and the model (5-10 s) for every call; in-process the model the
module loaded once is reused and the file runs in a fraction of the time.

A few tests still run ``python -m hindsight_core.cli`` in a real subprocess (``run_cli``), so the entry
point stays tested end to end, and because what they check is about the process itself:
``demo`` then ``banks`` (the default store from ``$HINDSIGHT_PATH`` / the working folder, and model
loading that prints no "Loading weights" bar, which only a process that loads the model shows),
``bench`` without its data (``$HINDSIGHT_LOCOMO`` read by the harness), and ``capture``'s progress bar
(stderr exactly empty when it is not a terminal: only a process sees everything written to it).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
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


def run_main(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``hindsight ARGS`` in this process: ``cli.main`` with captured output, as a subprocess would report it."""
    from hindsight_core import cli
    from hindsight_core.storage import _folder_lock

    saved_env, saved_argv, saved_path, saved_cwd = dict(os.environ), list(sys.argv), list(sys.path), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                _swapped_stdin(io.StringIO(stdin or "")):
            try:
                code = cli.main(list(args))
            except SystemExit as exc:  # argparse errors and --help exit, as the process would
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                if isinstance(exc.code, str):
                    print(exc.code, file=sys.stderr)
    finally:
        os.chdir(saved_cwd)
        sys.argv[:], sys.path[:] = saved_argv, saved_path  # `bench` sets sys.argv for the harness
        for key in set(os.environ) - set(saved_env):
            del os.environ[key]
        os.environ.update(saved_env)
    result = subprocess.CompletedProcess(["hindsight", *args], code, out.getvalue(), err.getvalue())
    assert "Traceback" not in result.stderr, result.stderr  # never a traceback, whatever went wrong
    if "--path" in args:  # the command closed its engine: the folder is free for the next process
        folder = os.path.realpath(args[args.index("--path") + 1])
        assert _folder_lock.holders(folder) == 0, f"hindsight {' '.join(args)} left the store open"
    return result


@contextlib.contextmanager
def _swapped_stdin(stream: io.StringIO):
    saved, sys.stdin = sys.stdin, stream
    try:
        yield
    finally:
        sys.stdin = saved


def hs(store, *args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return run_main("--path", str(store["path"]), *args, cwd=cwd or store["path"].parent, stdin=stdin)


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
    assert out.stdout.splitlines()[0].split() == ["bank", "units", "embedder"] and "demo" in out.stdout
    assert "all-MiniLM-L6-v2" in out.stdout
    out = hs(store, "stats", "demo")
    assert out.returncode == 0 and "superseded" in out.stdout and "graph:" in out.stdout

    missing = run_main("--path", str(tmp_path / "nope"), "banks", cwd=tmp_path)
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


# ---- first hour: one store, ids that round-trip, read-only recall, no tracebacks -------------------------
def run_cli(*args: str, cwd: Path, env: dict[str, str | None] | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``python -m hindsight_core.cli ARGS`` in a real process, for what only a process shows (see the top)."""
    full_env = {k: v for k, v in {**os.environ, **(env or {})}.items() if v is not None}
    out = subprocess.run([sys.executable, "-m", "hindsight_core.cli", *args], capture_output=True, text=True,
                         timeout=300, cwd=cwd, env=full_env, input=stdin)
    assert "Traceback" not in out.stderr, out.stderr  # never a traceback, whatever went wrong
    return out


def test_demo_writes_the_default_store_the_next_command_reads(tmp_path):
    out = run_cli("demo", cwd=tmp_path, env={"HINDSIGHT_PATH": None})
    assert out.returncode == 0, out.stderr
    assert "hindsight banks" in out.stdout and "hindsight recall demo" in out.stdout  # it says what to run next
    assert "Loading weights" not in out.stderr  # model loading is quiet
    banks = run_cli("banks", cwd=tmp_path, env={"HINDSIGHT_PATH": None})
    assert banks.returncode == 0 and "demo" in banks.stdout.split(), banks.stderr


def test_ids_printed_by_recall_are_accepted_by_show_and_forget(store, tmp_path):
    out = hs(store, "recall", "demo", "which port does billing use now?", "--explain", "--as-of", "2024-03-12")
    assert out.returncode == 0, out.stderr
    header = out.stdout.splitlines()[0].split()
    shown = [line.split()[header.index("id")] for line in out.stdout.splitlines()[2:] if line[:1].isdigit()]
    assert shown and all(len(i) == 12 for i in shown)
    full = {i for i in store["units"]}
    for short in shown:
        page = hs(store, "show", "demo", short)
        assert page.returncode == 0, page.stderr
        assert any(page.stdout.startswith(f"unit {f} in bank demo") for f in full if f.startswith(short))

    dump = tmp_path / "d.jsonl"
    assert hs(store, "export", "demo", "-o", str(dump), "--embeddings").returncode == 0
    assert hs(store, "import", str(dump), "--bank", "ids").returncode == 0
    victim = shown[0]
    gone = hs(store, "forget", "ids", victim)
    assert gone.returncode == 0 and "deleted " + victim in gone.stdout
    assert hs(store, "show", "ids", victim).returncode == 3
    assert hs(store, "delete-bank", "ids").returncode == 0


def test_an_ambiguous_id_prefix_is_a_clear_error():
    from types import SimpleNamespace

    from hindsight_core._cli_support import resolve_unit_id
    from hindsight_core.errors import InvalidInputError, NotFoundError

    index = SimpleNamespace(units={"abc123": 1, "abc456": 2, "def789": 3}, catch_up=lambda: None)
    bank = SimpleNamespace(store=SimpleNamespace(index=index), id="b")  # the CLI reads the bank's store
    assert resolve_unit_id(bank, "abc4") == "abc456" and resolve_unit_id(bank, "def789") == "def789"
    with pytest.raises(InvalidInputError, match="matches 2 units.*give more characters"):
        resolve_unit_id(bank, "abc")
    with pytest.raises(NotFoundError, match="no memory unit 'zz'"):
        resolve_unit_id(bank, "zz")


def test_recall_from_the_cli_only_looks_unless_asked(store, tmp_path):
    dump = tmp_path / "d.jsonl"
    assert hs(store, "export", "demo", "-o", str(dump), "--embeddings").returncode == 0
    assert hs(store, "import", str(dump), "--bank", "looks").returncode == 0
    target = store["ids"]["new_port"]

    def hits() -> int:
        return json.loads(hs(store, "show", "looks", target, "--json").stdout)["hit_count"]

    before = hits()
    for _ in range(2):
        assert hs(store, "recall", "looks", "billing port", "--as-of", "2024-03-12").returncode == 0
    assert hits() == before  # looking changed nothing
    assert hs(store, "recall", "looks", "billing port", "--as-of", "2024-03-12", "--record-hits").returncode == 0
    assert hits() == before + 1  # asked: the hit is counted
    assert hs(store, "delete-bank", "looks").returncode == 0


def test_bench_without_its_data_says_how_to_get_it(store, tmp_path):
    root = Path(__file__).resolve().parents[2]
    if not (root / "benchmarks" / "locomo.py").exists():
        pytest.skip("no source checkout")
    out = run_cli("--path", str(store["path"]), "bench", "locomo", cwd=root,
                  env={"HINDSIGHT_LOCOMO": str(tmp_path / "missing.json")})
    assert out.returncode == 3 and "HINDSIGHT_LOCOMO" in out.stderr and "snap-research/locomo" in out.stderr


def test_import_of_invalid_utf8_is_a_clear_error(store, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"format": "hindsight-export"}\n\xff\xfe\xfa not text\n')
    out = run_main("--path", str(store["path"]), "import", str(bad), "--bank", "utf", cwd=tmp_path)
    assert out.returncode == 2 and "not UTF-8" in out.stderr
    assert "utf" not in hs(store, "banks").stdout.split()


def test_a_failed_export_leaves_no_partial_file(store, tmp_path, monkeypatch, capsys):
    """A full disk mid-write (simulated: the writer raises ENOSPC after some lines) leaves the old file."""
    import errno

    from hindsight_core import cli, export

    target = tmp_path / "out.jsonl"
    target.write_text("the previous export\n")

    def full_disk(bank, path, **kwargs):
        with open(path, "w") as fh:
            fh.write('{"partial": ')
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(export, "export_bank", full_disk)
    code = cli.main(["--path", str(store["path"]), "export", "demo", "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 4 and "No space left on device" in err and "Nothing was written" in err
    assert target.read_text() == "the previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]  # no temporary file left behind

    monkeypatch.undo()  # the real writer again, for the checks that fail before it writes
    out = run_main("--path", str(store["path"]), "export", "demo", "-o", "/proc/hindsight.jsonl", cwd=tmp_path)
    assert out.returncode == 4 and "cannot write" in out.stderr  # a folder nobody may write into
    out = run_main("--path", str(store["path"]), "export", "demo", "-o", str(tmp_path), cwd=tmp_path)
    assert out.returncode == 2 and "it is a folder" in out.stderr


def test_banks_lists_banks_of_other_embedders_and_embedder_opens_them(tmp_path, embedder):
    from hindsight_core import MemoryEngine
    from hindsight_core.testing import HashEmbedder

    path = tmp_path / "mixed"
    with MemoryEngine(path, embedder=embedder) as eng:
        eng.bank("minilm").capture("The billing service listens on port 8080.")
    with MemoryEngine(path, embedder=HashEmbedder(64)) as eng:
        eng.bank("hashed").capture("The search cluster runs Postgres 16 on k8s.")
    out = run_main("--path", str(path), "banks", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = {line.split()[0]: line for line in out.stdout.splitlines()[2:]}
    assert set(rows) == {"hashed", "minilm"} and "hash-64" in rows["hashed"] and "--embedder" in rows["hashed"]

    auto = run_main("--path", str(path), "recall", "hashed", "which database?", cwd=tmp_path)
    assert auto.returncode == 0 and "Postgres 16" in auto.stdout, auto.stderr  # the bank's own embedder
    refused = run_main("--path", str(path), "--embedder", "hash:32", "recall", "hashed", "which database?", cwd=tmp_path)
    assert refused.returncode == 2 and "--embedder" in refused.stderr
    found = run_main("--path", str(path), "--embedder", "hash:64", "recall", "hashed", "which database?", cwd=tmp_path)
    assert found.returncode == 0 and "Postgres 16" in found.stdout, found.stderr
    bad = run_main("--path", str(path), "--embedder", "hash:big", "banks", cwd=tmp_path)
    assert bad.returncode == 2 and "hash:DIM" in bad.stderr


def test_a_folder_that_is_not_a_store_is_not_made_one_unless_asked(tmp_path):
    folder = tmp_path / "my-project"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    for args in (("banks",), ("--embedder", "hash", "capture", "b", "hello there, this is a memory")):
        out = run_main("--path", str(folder), *args, cwd=tmp_path)
        assert out.returncode == 2 and "not a hindsight store" in out.stderr and "--create" in out.stderr
        assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]  # nothing created
    made = run_main("--path", str(folder), "--create", "--embedder", "hash", "capture", "b",
                   "The staging cluster was upgraded to Postgres 16.", cwd=tmp_path)
    assert made.returncode == 0 and (folder / "chroma.sqlite3").is_file(), made.stderr


def test_capture_from_a_file_shows_progress(tmp_path):
    lines = tmp_path / "notes.txt"
    lines.write_text("\n".join(f"Ticket {n} was closed by the on-call engineer on day {n}." for n in range(40))
                     + '\n{"text": "Deploys need a change ticket from Priya.", "session_id": "s9"}\n')
    out = run_cli("--path", str(tmp_path / "s"), "--embedder", "hash", "--progress", "capture", "ops", "-f",
                  str(lines), cwd=tmp_path)
    assert out.returncode == 0 and "captured 41 items into bank ops" in out.stdout, out.stderr
    assert "capture ops" in out.stderr and "41/41" in out.stderr  # the tqdm bar
    quiet = run_cli("--path", str(tmp_path / "s"), "--embedder", "hash", "capture", "ops", "one more memory here",
                    cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == ""  # not a terminal: no bar
    both = run_cli("--path", str(tmp_path / "s"), "capture", "ops", "text", "-f", str(lines), cwd=tmp_path)
    assert both.returncode == 2 and "either TEXT or -f FILE" in both.stderr
