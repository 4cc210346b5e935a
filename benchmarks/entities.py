"""Precision, recall and F1 of entity extraction on the labelled sentences in ``tests/data/entities.json``.

``python -m benchmarks.entities`` prints micro-averaged precision, recall and F1 over exact entity keys, and
(with ``--misses``) each sentence where the extracted keys differ from the labelled ones.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

__all__ = ["DATA", "evaluate", "main"]

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "entities.json"


def evaluate(path: Path = DATA) -> dict[str, Any]:
    """Micro precision / recall / F1 (%) over every labelled sentence, with the differing sentences."""
    from hindsight_core.lifecycle.extract import extract_entities

    cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
    tp = fp = fn = 0
    misses = []
    for case in cases:
        got, want = set(extract_entities(case["text"])), set(case["entities"])
        tp, fp, fn = tp + len(got & want), fp + len(got - want), fn + len(want - got)
        if got != want:
            misses.append({"text": case["text"], "extra": sorted(got - want), "missing": sorted(want - got)})
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"sentences": len(cases), "entities": tp + fn, "precision": round(100 * precision, 1),
            "recall": round(100 * recall, 1), "f1": round(100 * f1, 1), "misses": misses}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=str(DATA), help="labelled sentences (default: tests/data/entities.json)")
    p.add_argument("--misses", action="store_true", help="list the sentences extracted wrongly")
    args = p.parse_args(argv)
    out = evaluate(Path(args.data))
    print(f"{out['sentences']} sentences, {out['entities']} entities: precision {out['precision']}%, "
          f"recall {out['recall']}%, F1 {out['f1']}%")
    if args.misses:
        for m in out["misses"]:
            print(json.dumps(m, ensure_ascii=False))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
