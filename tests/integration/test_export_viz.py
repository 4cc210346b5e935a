"""export.py and viz.py from Python: conflicts, carried vectors, link rebuilding, escaping."""

from __future__ import annotations

import io
import json

import pytest

from hindsight_core import InvalidInputError, SchemaVersionError
from hindsight_core.episodes import Episode, TraceStep
from hindsight_core.export import export_bank, import_bank, read_export
from hindsight_core.viz import graph_html, graph_view, save_graph


@pytest.fixture
def bank(mem_engine):
    bank = mem_engine.bank("src")
    bank.capture("The billing service listens on port 8080.", session_id="s1", mentioned_at="2024-01-01T00:00:00Z")
    bank.capture("The billing service moved to port 9090.", session_id="s1", mentioned_at="2024-02-01T00:00:00Z")
    bank.capture("<script>alert('x')</script> Alice's manager is Bob.", session_id="s2")
    bank.end_episode(Episode.from_steps([TraceStep(kind="user", text="Deploy billing"),
                                         TraceStep(kind="tool_error", tool="deploy", text="PermissionError: ticket")]),
                     "failure")
    return bank


def _dump(bank, **kw) -> io.StringIO:
    buf = io.StringIO()
    export_bank(bank, buf, **kw)
    buf.seek(0)
    return buf


def test_lessons_first_file_order_still_links_and_vectors_are_reused(mem_engine, bank):
    header, *rows, footer = _dump(bank, embeddings=True).getvalue().splitlines()
    shuffled = io.StringIO("\n".join([header, *reversed(rows), footer]) + "\n")  # evidence before its source
    report = import_bank(mem_engine, shuffled, bank="dst")
    assert (report.imported, report.reembedded) == (len(rows), 0)
    graphs = [mem_engine._live_index(b).graph.graph for b in ("src", "dst")]
    causal = [{(a, b, k) for a, b, k in g.edges(keys=True) if k == "evidence"} for g in graphs]
    assert causal[0] and causal[0] == causal[1]
    src = {u.id: u.model_dump(exclude={"bank"}) for u in bank.units()}
    dst = {u.id: u.model_dump(exclude={"bank"}) for u in mem_engine.bank("dst").units()}
    assert src == dst
    # recall works on the imported vectors
    assert "9090" in mem_engine.bank("dst").recall("which port does billing use?", k=1).units[0].text


def test_conflicts_skip_replace_and_reembed_modes(mem_engine, bank):
    with pytest.raises(InvalidInputError, match="already exist in bank 'src'"):
        import_bank(mem_engine, _dump(bank))
    n = bank.count()
    with pytest.raises(InvalidInputError, match="merge=True"):
        import_bank(mem_engine, _dump(mem_engine.bank("dst")), bank="src")  # new ids, existing bank
    assert import_bank(mem_engine, _dump(bank), on_conflict="skip").skipped == n
    report = import_bank(mem_engine, _dump(bank, embeddings=True), on_conflict="replace", reembed="always")
    assert (report.replaced, report.reembedded, bank.count()) == (n, n, n)
    with pytest.raises(InvalidInputError, match="carries none"):
        import_bank(mem_engine, _dump(bank), bank="other", reembed="never")
    with pytest.raises(InvalidInputError, match="on_conflict"):
        import_bank(mem_engine, _dump(bank), on_conflict="merge")
    assert "other" not in mem_engine.banks()


def test_bad_files_name_the_line(tmp_path, bank):
    header, first, *_ = _dump(bank).getvalue().splitlines()
    bad_field = json.loads(first)
    bad_field["unit"]["importance"] = 7
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([header, json.dumps(bad_field)]))  # (no footer either: the field is found first)
    with pytest.raises(InvalidInputError, match=r"line 2: field 'importance'"):
        read_export(path)
    path.write_text("\n".join([header, first, first]))
    with pytest.raises(InvalidInputError, match="appears twice"):
        read_export(path)
    newer = json.loads(header) | {"hindsight_export": 99}
    path.write_text(json.dumps(newer) + "\n")
    with pytest.raises(SchemaVersionError, match="upgrade"):
        read_export(path)
    with pytest.raises(InvalidInputError, match="empty file"):
        read_export(io.StringIO(""))


def test_graph_view_and_page(tmp_path, bank):
    view = graph_view(bank)
    assert {e.category for e in view.edges} >= {"entity", "temporal", "causal"}
    assert any(n.outcome == "failure" for n in view.units)
    page = graph_html(view)
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page  # memory text is escaped
    small = graph_view(bank, max_units=2)
    assert len(small.units) == 2 and small.truncated and "showing the newest 2 of" in graph_html(small)
    with pytest.raises(InvalidInputError, match="max_units"):
        graph_view(bank, max_units=0)
    with pytest.raises(InvalidInputError, match=".html or .png"):
        save_graph(bank, tmp_path / "g.svg")
    assert save_graph(bank, tmp_path / "g.png").stat().st_size > 10_000


def test_a_supersession_is_drawn_in_the_legends_supersedes_style(bank):
    from hindsight_core.viz import EDGE_STYLES, graph_figure

    old = next(u for u in bank.units() if "8080" in u.text)
    assert old.status.value == "superseded" and old.superseded_by
    view = graph_view(bank)
    pair = ("u:" + old.superseded_by, "u:" + old.id)
    drawn = [e for e in view.edges if {e.src, e.dst} == set(pair)]
    assert {e.category for e in drawn} - {"temporal"} == {"supersedes"}  # not a red causal link
    assert 'class="e-supersedes"' in graph_html(view)
    fig = graph_figure(view)
    colour = EDGE_STYLES["supersedes"][0]
    from matplotlib.colors import to_hex

    arrows = [t.arrow_patch for t in fig.axes[0].texts if getattr(t, "arrow_patch", None)]
    assert any(to_hex(a.get_edgecolor()) == colour for a in arrows)
