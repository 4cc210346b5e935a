"""The notebooks run offline top to bottom (executed with nbclient), and say what they showed.

The notebooks hold no test cells: each prints what happened in words a reader wants anyway ("same as
before the restart: True"), and these tests assert on those outputs. They also check that the committed
notebooks carry their outputs (so a reader sees results without running anything), that those outputs
are small and hold no path of the machine that rendered them (``python notebooks/_render.py`` writes
them), and that nothing new appears in the repository (stores go to temp folders, the kernel runs in a
temp folder).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
_SKIP_DIRS = {".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}


def _repo_files() -> set[str]:
    out = set()
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.endswith(".egg-info")]
        out.update(os.path.relpath(os.path.join(dirpath, f), ROOT) for f in filenames)
    return out


def _execute(name: str, cwd: Path):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=240, kernel_name="python3",
                                     resources={"metadata": {"path": str(cwd)}})
    before = _repo_files()
    client.execute()
    # source files other people add to a shared working tree meanwhile are not what a notebook leaves
    created = {f for f in _repo_files() - before if not f.endswith((".py", ".md"))}
    assert not created, f"{name} wrote into the repository: {sorted(created)}"
    return nb


def _stdout(nb) -> str:
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")


def _mimes(nb) -> list[str]:
    return [m for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) for m in o.get("data", {})]


# Notebooks whose committed outputs are checked (`python notebooks/_render.py NAME` renders one).
RENDERED = ["01_quickstart.ipynb", "02_langgraph_agent.ipynb", "03_llamaindex_agent.ipynb",
            "04_beliefs_over_time.ipynb", "05_graph_and_benchmarks.ipynb"]


def test_notebooks_are_committed_with_small_portable_outputs():
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("_render", NOTEBOOKS / "_render.py")
    render = module_from_spec(spec)
    spec.loader.exec_module(render)
    names = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    assert names == ["01_quickstart.ipynb", "02_langgraph_agent.ipynb", "03_llamaindex_agent.ipynb",
                     "04_beliefs_over_time.ipynb", "05_graph_and_benchmarks.ipynb"]
    for name in names:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(nb)
        size = (NOTEBOOKS / name).stat().st_size
        assert size <= render.MAX_NOTEBOOK_BYTES, f"{name}: {size} bytes; keep outputs small"
        assert not render.MACHINE_PATH.search(render.output_text(nb)), f"{name}: an output holds a machine path"
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert not any(o.get("output_type") == "error" for c in code for o in c.outputs), f"{name}: an error output"
        if name in RENDERED:
            assert all(c.execution_count for c in code), f"{name}: run `python notebooks/_render.py` and commit"
            assert any(c.outputs for c in code)
            # checks stay out of the reader's way: no assert statements, no shutil.rmtree cells
            assert not any(line.lstrip().startswith("assert ") for c in code for line in c.source.splitlines()), name
            assert not any("rmtree" in c.source for c in code), name


def test_quickstart_recalls_the_same_after_a_restart(tmp_path):
    out = _stdout(_execute("01_quickstart.ipynb", tmp_path))
    assert "dense#" in out  # the explain trace
    assert "redacted=['email']" in out
    assert "same as before the restart: True" in out and "9090" in out.split("best memory after the restart:")[1]
    assert "the email address is stored anywhere: False" in out


def test_langgraph_agent_learns_from_its_failure(tmp_path):
    out = _stdout(_execute("02_langgraph_agent.ipynb", tmp_path))
    assert "outcome: failure" in out and "outcome: success" in out
    assert out.index("outcome: failure") < out.index("outcome: success")
    assert "change ticket" in out.split("memory the planner read before planning:")[1]
    assert "run 1: failure | run 2: success" in out
    assert "one system message, and it comes first: True" in out
    assert "the failure lesson was in it before planning: True" in out
    # other words, same tool: the plan's context missed the lesson, the second look before the call did not
    assert "the lesson was in the plan's context: False" in out and "the second look showed it: True" in out
    assert "deploy calls that ran: [{'service': 'billing', 'env': 'prod', 'ticket': 'CHG-1'}]" in out
    assert "with_memory outcome: success" in out and "the lesson was in memory_context: True" in out


def test_llamaindex_agent_learns_from_its_failure(tmp_path):
    nb = _execute("03_llamaindex_agent.ipynb", tmp_path)
    out = _stdout(nb)
    assert "outcome: failure" in out and "outcome: success" in out
    assert "change ticket" in out.split("system message of the first LLM call of run 2:")[1]
    assert "run 1: failure; run 2: success; lesson in run 2's first LLM call: True" in out
    # other words, same tool: checked_tools answered the first deploy call with the lesson
    assert "the lesson was in the recalled context: False" in out
    assert "the first deploy call answered with it: True" in out and "agent: Deployed billing. | outcome: success" in out
    assert "image/png" in _mimes(nb)  # the before / after picture


def test_beliefs_notebook_shows_history_and_a_timeline(tmp_path):
    nb = _execute("04_beliefs_over_time.ipynb", tmp_path)
    out = _stdout(nb)
    assert "supersedes 1 older belief" in out
    assert "superseded 2024-01-10 .. 2024-03-11 The billing service listens on port 8080." in out
    assert "active     2024-06-02 .. now" in out
    assert "image/png" in _mimes(nb)  # the timeline plot
    assert "the unrelated staging fact is still active: True" in out
    current = out.split("Relevant memories:")[1].split("Relevant memories:")[0]
    assert "7070" in current and "8080" not in current and "9090" not in current  # recall answers with what holds


def test_graph_and_benchmark_notebook(tmp_path):
    nb = _execute("05_graph_and_benchmarks.ipynb", tmp_path)
    out = _stdout(nb)
    mimes = _mimes(nb)
    assert "text/html" in mimes and mimes.count("image/png") >= 2  # the page, the PNG graph, a chart
    assert "self-contained: True) and PNG; link kinds: causal, entity, supersedes, temporal" in out
    published = (ROOT / "benchmarks" / "results" / "locomo.json").exists()
    if published:
        assert "LoCoMo evidence recall" in out and "engine" in out
    else:
        assert "not published in this checkout yet" in out
    assert "benchmarks shown:" in out
