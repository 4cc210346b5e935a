"""Load at smoke size: sustained capture + recall from several threads, zero errors, nothing lost.
The full-size figures come from ``python -m benchmarks.load --units 100000`` (see its docstring)."""

from __future__ import annotations

from benchmarks.load import main, run_load
from hindsight_core import MemoryEngine
from hindsight_core.testing import HashEmbedder


def test_load_smoke_has_no_errors_and_reports_latency_and_memory():
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    report = run_load(engine, units=240, workers=3, batch=6, recalls_per_batch=2, bank_id="load-smoke")
    engine.close()
    assert report.errors == []
    assert report.stored >= 200  # every capture stored (a few near-duplicates may merge)
    assert report.recalls == 2 * (240 // 6)
    for lat in (report.capture_ms, report.recall_ms):
        assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"]
    assert report.captures_per_s > 0 and len(report.rss_mb) >= 2
    assert "errors=0" in report.summary()


def test_load_cli_writes_a_report(tmp_path, capsys):
    out = tmp_path / "load.json"
    assert main(["--units", "40", "--workers", "2", "--embedder", "hash", "--backend", "memory",
                 "--out", str(out)]) == 0
    assert "errors=0" in capsys.readouterr().out and out.exists()
