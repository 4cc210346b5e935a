"""Accuracy of write-time date resolution on the labelled time expressions in ``tests/data``.

``python -m benchmarks.time_expressions`` prints the accuracy overall, by form and by language, and the
misses. Each case is a sentence, the time it was said and what it refers to (a day, a window, a clock
time, or nothing); a case is right when ``resolve_time_refs(text, said_at).occurred_at`` is that day,
falls in that window, is that minute, or is None when the sentence has no time reference.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from datetime import date, datetime
from pathlib import Path
from typing import Any

__all__ = ["DATA", "evaluate", "main"]

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "time_expressions.json"


def _right(case: dict[str, Any], got: datetime | None) -> bool:
    expect = case["expect"]
    if expect is None or got is None:
        return expect is None and got is None
    if "date" in expect:
        return got.date().isoformat() == expect["date"]
    if "time" in expect:
        return got.strftime("%Y-%m-%dT%H:%M") == expect["time"]
    return date.fromisoformat(expect["start"]) <= got.date() < date.fromisoformat(expect["end"])


def evaluate(path: Path = DATA) -> dict[str, Any]:
    """Accuracy (%) overall, by form and by language, with the misses."""
    from hindsight_core.lifecycle.timeparse import resolve_time_refs

    cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
    by: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses = []
    for case in cases:
        got = resolve_time_refs(case["text"], datetime.fromisoformat(case["said_at"])).occurred_at
        ok = _right(case, got)
        for key in ("all", f"form:{case['form']}", f"lang:{case['lang']}"):
            by[key][0] += ok
            by[key][1] += 1
        if not ok:
            misses.append({"text": case["text"], "said_at": case["said_at"][:10], "expect": case["expect"],
                           "got": got.isoformat()[:16] if got else None})
    return {"cases": len(cases), "accuracy": {k: round(100 * r / n, 1) for k, (r, n) in sorted(by.items())},
            "misses": misses}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=str(DATA), help="labelled cases (default: tests/data/time_expressions.json)")
    p.add_argument("--misses", action="store_true", help="list the cases resolved wrongly")
    args = p.parse_args(argv)
    out = evaluate(Path(args.data))
    for key, value in out["accuracy"].items():
        print(f"{key:28} {value:5.1f}%")
    print(f"({out['cases']} cases)")
    if args.misses:
        for m in out["misses"]:
            print(json.dumps(m, ensure_ascii=False))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
