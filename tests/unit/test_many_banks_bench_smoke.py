"""A tiny run of the many-banks benchmark (timings are reported, not asserted)."""

from __future__ import annotations

import json

import pytest

from benchmarks.many_banks import main, run


def test_many_banks_benchmark_runs_end_to_end(tmp_path):
    report = run(banks=12, units=4, samples=6, open_sizes=[150], folder=str(tmp_path))
    many = report["many_banks"]
    assert many["banks"] == 12 and many["background_failures"] == 0
    assert many["extra_threads_peak"] <= many["cache"]["workers"]  # a shared pool, not a thread per bank
    assert many["threads_after_close"] <= 0
    assert many["recall_cold_ms"]["n"] == 6 and many["cold_recalls_with_hits"] == 6
    assert 0 < many["recall_warm_ms"]["p50"] <= many["recall_warm_ms"]["p95"]
    (opened,) = report["cold_open"]
    assert opened["units"] == 150 and opened["snapshot_used"]
    assert opened["rebuild_ms"] > 0 and opened["snapshot_open_ms"] > 0


def test_many_banks_cli_writes_its_report(tmp_path):
    out = tmp_path / "report.json"
    assert main(["--banks", "0", "--open-sizes", "120", "--open-repeats", "1", "--rebuild-max", "100",
                 "--tmp", str(tmp_path), "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert "many_banks" not in report and report["cold_open"][0]["units"] == 120
    (opened,) = report["cold_open"]  # above --rebuild-max: no rebuild timed, the snapshot open still is
    assert opened["rebuild_ms"] is None and opened["speedup"] is None
    assert opened["snapshot_used"] and len(opened["snapshot_open_ms_each"]) == 1


@pytest.mark.server
def test_many_banks_cold_opens_over_a_server(tmp_path):
    """``--server``: the benchmark starts its own Chroma server; the snapshot stored in it is used."""
    report = run(banks=0, units=1, samples=1, open_sizes=[150], folder=str(tmp_path), open_repeats=1, server=True)
    (opened,) = report["cold_open_server"]
    assert opened["store"] == "chroma server" and opened["units"] == 150 and opened["snapshot_used"]
    assert opened["rebuild_ms"] > 0 and opened["snapshot_open_ms"] > 0 and opened["snapshot_mb"] > 0
