"""The main demo (`make demo`) runs on the embedded default and every check it prints passes."""

from __future__ import annotations

from hindsight_core.demo import run_demo


def test_demo_checks_pass(tmp_path, capsys):
    checks = run_demo(tmp_path / "demo-store")
    assert checks == {name: True for name in checks} and "port_is_current" in checks
    out = capsys.readouterr().out
    assert "supersedes=1 earlier belief(s)" in out  # the port change is a belief update
    assert not any(line.startswith("FAIL") for line in out.splitlines())
