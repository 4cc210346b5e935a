"""Knowledge updates in natural wording: does recall answer with the current value and keep look-alikes?

Reads ``../shared/data/updates/updates_dev.json`` (or ``$HINDSIGHT_UPDATES``) and follows the protocol
of its README: every case in a fresh bank; ``before[]`` captured on consecutive days, ``after`` 30 days
after the last of them, the question asked 10 days later with default recall and k = 5.

- ``update`` passes when the top hit contains ``current`` and no top-5 hit contains ``stale``
  without also containing ``current``.
- ``no_update`` passes when a top-5 hit contains ``must_keep`` and the unit made from
  ``before[keep_index]`` is still active.

Beside it, plain dense top-1 over the same texts (no lifecycle): for updates, whether the nearest text
to the question contains ``current``; for no-updates, whether ``must_keep`` is among the 5 nearest.

``--split dev`` / ``--split held`` score the half of the cases whose id hashes even / odd, so rules
tuned on one half can be checked on the other.

Run: ``python -m benchmarks.updates`` (about a minute with the bundled MiniLM model; ``--embedder hash``
for a quick look), ``--fails`` lists failing cases, ``--out FILE`` writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.lifecycle import _embedder  # "hash" for a fast check, else a model name

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

__all__ = ["data_path", "load_cases", "in_split", "run_case", "run", "main"]

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
AFTER_GAP = timedelta(days=30)  # the README: the later text comes 30 days after the last earlier one
QUESTION_GAP = timedelta(days=10)  # and the question 10 days after that
K = 5


def data_path() -> Path:
    """Where the dev set is read from (never copied into the repository)."""
    env = os.environ.get("HINDSIGHT_UPDATES")
    return Path(env) if env else ROOT / ".." / "shared" / "data" / "updates" / "updates_dev.json"


def load_cases(path: Path | None = None) -> list[dict[str, Any]]:
    """The cases, or a clear error saying how to get the file."""
    path = path or data_path()
    if not path.exists():
        raise SystemExit(f"updates dev set not found at {path}: put updates_dev.json there or set $HINDSIGHT_UPDATES")
    return json.loads(path.read_text())


def in_split(case_id: str, split: str) -> bool:
    """``all``, ``dev`` (ids whose md5 is even) or ``held`` (odd): a stable half/half cut."""
    if split == "all":
        return True
    even = int(hashlib.md5(case_id.encode()).hexdigest(), 16) % 2 == 0
    return even if split == "dev" else not even


#: Lifecycle options of every case's bank (``--update-model`` adds the learned update reader, opt-in).
LIFECYCLE: dict[str, Any] = {"consolidate_every": 0}


def _has(text: str, key: str | None) -> bool:
    return key is not None and key.lower() in text.lower()


def run_case(engine: Any, case: dict[str, Any]) -> dict[str, Any]:
    """Capture one case in a fresh bank, ask its question; returns pass/fail and what was seen."""
    bank = engine.bank("c" + hashlib.md5(case["id"].encode()).hexdigest()[:16], lifecycle=LIFECYCLE)
    before = case["before"]
    ids = [bank.capture(text, mentioned_at=T0 + timedelta(days=n)).unit_id for n, text in enumerate(before)]
    after_at = T0 + timedelta(days=len(before) - 1) + AFTER_GAP
    bank.capture(case["after"], mentioned_at=after_at)
    res = bank.recall(case["question"], k=K, as_of=after_at + QUESTION_GAP)
    texts = [h.unit.text for h in res.hits]
    if case["type"] == "update":
        ok = bool(texts) and _has(texts[0], case["current"]) and not any(
            _has(t, case["stale"]) and not _has(t, case["current"]) for t in texts)
    else:
        kept = bank.get(ids[case["keep_index"]]).status.value == "active"
        ok = kept and any(_has(t, case["must_keep"]) for t in texts)
    return {"id": case["id"], "ok": ok, "top": texts}


def _dense_ok(embedder: Any, case: dict[str, Any]) -> bool:
    texts = case["before"] + [case["after"]]
    vecs = np.asarray(embedder.embed(texts), dtype=np.float32)
    q = np.asarray(embedder.embed([case["question"]])[0], dtype=np.float32)
    order = np.argsort(-(vecs @ q), kind="stable")
    if case["type"] == "update":
        return _has(texts[int(order[0])], case["current"])
    return any(_has(texts[int(j)], case["must_keep"]) for j in order[:K])


def _rate(xs: list[bool]) -> float:
    return round(sum(xs) / len(xs), 4) if xs else 0.0


def run(embedder: Any, cases: list[dict[str, Any]], llm: Any = None) -> dict[str, Any]:
    """Score every case; figures overall, by form and by domain, ours and plain dense top-1. ``llm``:
    a chat model for the pairs the rules leave open (``MemoryEngine(llm=...)``)."""
    from hindsight_core import MemoryEngine

    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    with MemoryEngine.ephemeral(embedder=embedder, llm=llm) as engine:
        for case in cases:
            row = run_case(engine, case)
            row.update(type=case["type"], form=case["form"], domain=case["domain"], dense=_dense_ok(embedder, case))
            rows.append(row)
    out: dict[str, Any] = {"cases": len(rows), "seconds": round(time.perf_counter() - started, 1)}
    for kind in ("update", "no_update"):
        sel = [r for r in rows if r["type"] == kind]
        block: dict[str, Any] = {"n": len(sel), "ours": _rate([r["ok"] for r in sel]),
                                 "dense_top1": _rate([r["dense"] for r in sel])}
        for by in ("form", "domain"):
            groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for r in sel:
                groups[r[by]].append(r)
            block[f"by_{by}"] = {g: {"n": len(rs), "ours": _rate([r["ok"] for r in rs]),
                                     "dense_top1": _rate([r["dense"] for r in rs])} for g, rs in sorted(groups.items())}
        out[kind] = block
    out["fails"] = [{"id": r["id"], "top": r["top"][:3]} for r in rows if not r["ok"]]
    return out


def _print(res: dict[str, Any], fails: bool) -> None:
    for kind in ("update", "no_update"):
        b = res[kind]
        print(f"{kind:10s} n={b['n']:3d}  ours {b['ours']:.1%}  dense top-1 {b['dense_top1']:.1%}")
        for by in ("form", "domain"):
            print(f"  by {by}:")
            for g, s in b[f"by_{by}"].items():
                print(f"    {g:22s} n={s['n']:3d}  ours {s['ours']:6.1%}  dense {s['dense_top1']:6.1%}")
    if fails:
        for f in res["fails"]:
            print("FAIL", f["id"], "|", " || ".join(f["top"]))


class _Counted:
    """A chat model that counts its calls and their time (how many pairs the rules left open)."""

    def __init__(self, model: Any) -> None:
        self.model, self.calls, self.seconds = model, 0, 0.0

    def invoke(self, messages: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return self.model.invoke(messages, **kwargs)
        finally:
            self.calls += 1
            self.seconds += time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("all", "dev", "held"), default="all",
                    help="all cases, or the half whose id hashes even (dev) / odd (held)")
    ap.add_argument("--embedder", default="minilm", help="minilm (bundled), hash, or a sentence-transformers name")
    ap.add_argument("--data", default=None, help="path of updates_dev.json (default: ../shared/data/updates/)")
    ap.add_argument("--fails", action="store_true", help="list failing cases with their top hits")
    ap.add_argument("--no-update-model", dest="update_model", action="store_false",
                    help="turn off the learned update reader (lifecycle.update_model), for the rules' figures alone")
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    ap.add_argument("--llm", default=None,
                    help="judge the pairs the rules leave open with a local model: 0.5b, 1.5b or a GGUF path "
                         "(benchmarks/local_llm.py says what to install)")
    args = ap.parse_args(argv)
    LIFECYCLE["update_model"] = args.update_model
    cases = [c for c in load_cases(Path(args.data) if args.data else None) if in_split(c["id"], args.split)]
    llm = None
    if args.llm:
        from benchmarks.local_llm import local_chat_model

        try:
            llm = _Counted(local_chat_model(args.llm))
        except RuntimeError as exc:
            raise SystemExit(str(exc)) from None
    res = run(_embedder(args.embedder), cases, llm)
    res["split"] = args.split
    if llm is not None:
        res["llm"] = {"model": args.llm, "calls": llm.calls, "seconds": round(llm.seconds, 1)}
        print(f"llm {args.llm}: {llm.calls} calls, {llm.seconds:.0f} s")
    _print(res, args.fails)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        published = {k: v for k, v in res.items() if k != "fails"}  # no dev-set text in published figures
        Path(args.out).write_text(json.dumps(published, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
