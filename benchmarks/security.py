"""Security benchmark: PII redaction and prompt-injection detection on labelled corpora.

Both corpora live in ``tests/data/`` and were written by hand for this project (sentence frames and
values chosen by a person, checksums computed so cards and IBANs are valid); they are not generated
from the detectors' patterns. An independent acceptance set is held out elsewhere.

* PII (``tests/data/pii_corpus.jsonl``): each line is a text, the exact PII substrings in it, and a kind;
  benign look-alikes (version numbers, "password manager", dates, order numbers, ports) carry none.
  recall = PII substrings gone after :func:`~hindsight_core.lifecycle.pii.redact` / all PII substrings;
  precision = redactions that removed PII / all redactions (a placeholder in a benign text, or more
  placeholders than PII substrings in a positive, counts as a false redaction);
  benign kept = benign texts left byte-identical.
* Injection (``tests/data/injection_corpus.jsonl``): texts labelled attack or benign (imperatives users
  really give: "remember to deploy on Fridays"). precision / recall of
  :func:`~hindsight_core.lifecycle.injection.looks_like_injection`.

Each has a smaller *held-out* twin (``pii_holdout.jsonl``, ``injection_holdout.jsonl``), written after
the detectors were finished and measured once without changing them: the main corpora were used
while building the detectors, so their figures are in-sample; the held-out figures are the honest
estimate for text nobody tuned on.

Run: ``python -m benchmarks.security`` (a second, no model, no network) or with
``--out benchmarks/results/security.json`` to publish the figures; ``--show-misses`` lists every miss.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from hindsight_core.lifecycle.injection import looks_like_injection
from hindsight_core.lifecycle.pii import PLACEHOLDERS, redact

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"


def _load(name: str) -> list[dict[str, Any]]:
    with open(DATA / name, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _placeholders(text: str) -> int:
    return sum(text.count(p) for p in PLACEHOLDERS.values())


def pii_figures(show_misses: bool = False, corpus: str = "pii_corpus.jsonl") -> dict[str, Any]:
    rows = _load(corpus)
    found = total = false_red = benign = benign_kept = 0
    by_kind: Counter[str] = Counter()
    by_kind_found: Counter[str] = Counter()
    misses: list[str] = []
    start = time.perf_counter()
    for row in rows:
        out = redact(row["text"]).text
        placed = _placeholders(out) - _placeholders(row["text"])
        if not row["pii"]:
            benign += 1
            benign_kept += out == row["text"]
            false_red += placed
            if out != row["text"]:
                misses.append(f"FALSE  {row['text']!r} -> {out!r}")
            continue
        hits = sum(1 for v in row["pii"] if v not in out and v.replace(" ", "") not in out.replace(" ", ""))
        total += len(row["pii"])
        found += hits
        by_kind[row["kind"]] += len(row["pii"])
        by_kind_found[row["kind"]] += hits
        false_red += max(0, placed - len(row["pii"]))
        if hits < len(row["pii"]):
            misses.append(f"MISSED {row['text']!r} -> {out!r}")
    elapsed = time.perf_counter() - start
    if show_misses:
        print("\n".join(misses))
    return {
        "positives": sum(1 for r in rows if r["pii"]),
        "pii_values": total,
        "benign": benign,
        "recall": round(found / total, 4),
        "precision": round(found / max(1, found + false_red), 4),
        "benign_kept": round(benign_kept / max(1, benign), 4),
        "false_redactions": false_red,
        "recall_by_kind": {k: round(by_kind_found[k] / n, 4) for k, n in sorted(by_kind.items())},
        "ms_per_text": round(1000 * elapsed / len(rows), 3),
    }


def injection_figures(show_misses: bool = False, corpus: str = "injection_corpus.jsonl") -> dict[str, Any]:
    rows = _load(corpus)
    tp = fp = fn = tn = 0
    by_group: Counter[str] = Counter()
    by_group_found: Counter[str] = Counter()
    misses: list[str] = []
    for row in rows:
        flagged = looks_like_injection(row["text"])
        if row["label"] == "attack":
            by_group[row.get("group", "plain")] += 1
            if flagged:
                tp += 1
                by_group_found[row.get("group", "plain")] += 1
            else:
                fn += 1
                misses.append(f"MISSED {row['text']!r}")
        elif flagged:
            fp += 1
            misses.append(f"FALSE  {row['text']!r}")
        else:
            tn += 1
    if show_misses:
        print("\n".join(misses))
    return {
        "attacks": tp + fn,
        "benign": fp + tn,
        "recall": round(tp / max(1, tp + fn), 4),
        "precision": round(tp / max(1, tp + fp), 4),
        "false_positives": fp,
        "recall_by_group": {g: round(by_group_found[g] / n, 4) for g, n in sorted(by_group.items())},
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the figures as JSON here")
    parser.add_argument("--show-misses", action="store_true", help="print every missed or false detection")
    args = parser.parse_args(argv)
    figures = {
        "pii": pii_figures(args.show_misses),
        "injection": injection_figures(args.show_misses),
        "pii_holdout": pii_figures(args.show_misses, "pii_holdout.jsonl"),
        "injection_holdout": injection_figures(args.show_misses, "injection_holdout.jsonl"),
    }
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return figures


if __name__ == "__main__":
    main()
