"""How a benchmark's command line ends: the table on stdout, the JSON summary in a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["publish"]


def publish(summary: dict[str, Any], table: str, out: Path) -> int:
    """Print ``table``, write ``summary`` as JSON to ``out`` (folders made as needed); exit code 0."""
    print(table)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=2))
    print(f"wrote {out}")
    return 0
