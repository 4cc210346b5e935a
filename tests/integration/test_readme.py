"""The README's quickstart runs as written (in a temporary folder)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_quickstart_block_runs(tmp_path, monkeypatch, embedder, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    quickstart = next(b for b in blocks if "MemoryEngine(\"./.hindsight\")" in b and "end_episode" in b)
    monkeypatch.chdir(tmp_path)
    exec(compile(quickstart, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "9090" in out and "change ticket" in out
