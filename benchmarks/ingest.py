"""Write-path benchmark: what capture costs beyond the embedding model, measured in one run.

LoCoMo turns (the same items :mod:`benchmarks.locomo` captures) go through the real engine two ways,
each into a fresh bank: ``batch`` (``capture_many``, as an importer would) and ``single`` (one
``capture`` per turn, as a chat agent would). In the same run the plain model embeds the same turn
texts in batches of 64 (what a plain vector store pays), and replays the exact embedding calls capture
made (its turns plus their context windows), so the model's share is measured twice: timed inside
capture, and replayed outside it.

The headline figure is the **ratio** ``(capture seconds - embedding seconds inside capture) /
embedding seconds inside capture``: the write path's own cost (validation, PII, injection check,
time parsing, entities, gate, neighbour search, dedup, belief candidates, Chroma write, indexing) as a
share of the model's. A ratio is what counts on a shared machine: both parts slow down together.
Every stage's exclusive time (nested calls are charged to the inner stage) is reported too. The
words of captured turns are embedded for keyword expansion in the bank's background queue, not in
capture: that job's time (``vocabulary_learning_s``) is added in ``ratio_with_vocabulary``.

Run:
    nice -n 10 python -m benchmarks.ingest --conversations 0             # ~420 turns, both modes
    nice -n 10 python -m benchmarks.ingest --conversations 0-9 --modes batch --repeat 3
    python -m benchmarks.ingest --max-turns 40 --embedder hash           # smoke (no model)
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
import sys
import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from benchmarks._locomo_data import load_locomo, parse_conversations
from benchmarks._report import publish

__all__ = ["run", "main", "STAGES", "MODES"]

MODES = ("batch", "single")
#: The plain model's batch size, the one ``capture_many`` uses by default.
PLAIN_BATCH = 64
DEFAULT_OUT = Path(__file__).resolve().parent / ".cache" / "ingest.json"

#: Stage name -> the functions timed for it, as (module, attribute path). A name the code no longer
#: has is skipped (and listed under ``not_instrumented``), so the benchmark survives refactors.
STAGES: dict[str, tuple[tuple[str, str], ...]] = {
    "embedding": (),  # timed by the embedder wrapper
    "validation": (("hindsight_core._write", "prepare"), ("hindsight_core._write", "check_evidence")),
    "pii": (("hindsight_core._capture", "redact"), ("hindsight_core._capture", "redact_value"),
            ("hindsight_core._capture", "redact_id")),
    "injection": (("hindsight_core._capture", "looks_like_instruction"),),
    "time_parsing": (("hindsight_core._capture", "resolve_time_refs"),),
    "entities": (("hindsight_core._capture", "extract_entities"),),
    "gate": (("hindsight_core._capture", "score_text"),),
    "context_windows": (("hindsight_core._capture", "window_texts"),),
    "neighbour_search": (("hindsight_core.storage.live_index", "LiveIndex.dense_search_many"),),
    "dedup": (("hindsight_core._write", "_find_duplicate"), ("hindsight_core._write", "corroborate"),
              ("hindsight_core._write", "absorb")),
    "belief_candidates": (("hindsight_core._write", "supersede_on_capture"),),
    "chroma_write": (("hindsight_core.storage.chroma_store", "ChromaStore.upsert"),
                     ("hindsight_core.storage.chroma_store", "ChromaStore.update_metadata"),
                     ("hindsight_core.storage.chroma_store", "ChromaStore.get"),
                     ("hindsight_core.storage.chroma_store", "ChromaStore.changes")),
    "indexing": (("hindsight_core.storage.live_index", "LiveIndex.add"),
                 ("hindsight_core.storage.live_index", "LiveIndex.replace")),
    "lock_and_catch_up": (("hindsight_core.storage.live_index", "LiveIndex.catch_up"),),
    "after_capture": (("hindsight_core._lifecycle_ops", "after_capture"),),
}


class _Clock:
    """Exclusive seconds per stage: a nested timed call is charged to its own stage, not its caller's.

    Only the thread that made the clock is timed (background work runs untimed beside it)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._stack: list[float] = []
        self._thread = threading.get_ident()

    def wrap(self, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() != self._thread:
                return fn(*args, **kwargs)
            self._stack.append(0.0)
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - started
                inner = self._stack.pop()
                self.seconds[stage] += elapsed - inner
                self.calls[stage] += 1
                if self._stack:
                    self._stack[-1] += elapsed

        timed.__wrapped__ = fn  # type: ignore[attr-defined]
        return timed


class _VocabularyClock:
    """Seconds and words of the background vocabulary learning (any thread) while entered: its
    ``_embed_words`` calls (the model, and the word-cache look-ups), not the pauses between them."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.words = 0
        self._lock = threading.Lock()
        self._undo: Callable[[], None] | None = None

    def __enter__(self) -> "_VocabularyClock":
        from hindsight_core import _expansion_ops

        real = _expansion_ops._embed_words

        def timed(embedder: Any, words: list[str]) -> Any:
            started = time.perf_counter()
            out = real(embedder, words)
            with self._lock:
                self.seconds += time.perf_counter() - started
                self.words += len(words)
            return out

        _expansion_ops._embed_words = timed  # type: ignore[assignment]
        self._undo = lambda: setattr(_expansion_ops, "_embed_words", real)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._undo is not None:
            self._undo()


@contextmanager
def _instrumented(clock: _Clock) -> Iterator[list[str]]:
    """Wrap every stage's functions for the duration of the block; yields the names not found."""
    import importlib

    undo: list[Callable[[], None]] = []
    missing: list[str] = []
    try:
        for stage, targets in STAGES.items():
            for module_name, path in targets:
                owner: Any = importlib.import_module(module_name)
                *parents, attr = path.split(".")
                try:
                    for part in parents:
                        owner = getattr(owner, part)
                    raw = inspect.getattr_static(owner, attr)
                except AttributeError:
                    missing.append(f"{module_name}.{path}")
                    continue
                if isinstance(raw, staticmethod):
                    new: Any = staticmethod(clock.wrap(stage, raw.__func__))
                else:
                    new = clock.wrap(stage, raw)
                setattr(owner, attr, new)
                undo.append(lambda o=owner, a=attr, r=raw: setattr(o, a, r))
        yield missing
    finally:
        for restore in reversed(undo):
            restore()


class _TimedEmbedder:
    """The engine's embedder: its calls (texts as sent) are recorded and charged to ``embedding``."""

    def __init__(self, inner: Any, clock: _Clock) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.calls: list[list[str]] = []
        self._thread = threading.get_ident()
        self._embed = clock.wrap("embedding", inner.embed)

    def embed(self, texts: Any) -> np.ndarray:
        if threading.get_ident() != self._thread:  # background work (the vocabulary): not a capture's call
            return self.inner.embed(texts)
        self.calls.append(list(texts))
        return self._embed(texts)


def _embed_seconds(embedder: Any, batches: list[list[str]]) -> float:
    started = time.perf_counter()
    for batch in batches:
        embedder.embed(batch)
    return time.perf_counter() - started


def _items(conversations: list[int], max_turns: int | None) -> list[tuple[int, list[Any]]]:
    from hindsight_core.models import CaptureItem

    convs = {c.index: c for c in load_locomo()}
    out = []
    for ci in conversations:
        turns = convs[ci].turns[:max_turns] if max_turns else convs[ci].turns
        out.append((ci, [CaptureItem(text=t.text, session_id=f"session_{t.session}", mentioned_at=t.session_time,
                                     metadata={"dia_id": t.dia_id, "speaker": t.speaker}) for t in turns]))
    return out


def _capture(engine: Any, bank_id: str, items: list[Any], mode: str) -> None:
    bank = engine.bank(bank_id)
    if mode == "batch":
        bank.capture_many(items)
    else:
        for item in items:
            bank.capture(**item.model_dump())


def _cold_caches() -> int:
    """Empty the write path's memo caches (pair verdicts, readings, redactions...), so a repeat run on
    the same texts pays what the first one paid; returns how many caches were emptied."""
    emptied = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("hindsight_core") or module is None:
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)) and hasattr(value, "cache_info"):
                value.cache_clear()
                emptied += 1
    return emptied


def _measure(engine: Any, plain: Any, convs: list[tuple[int, list[Any]]], mode: str, tag: str) -> dict[str, Any]:
    """One mode over all conversations: capture, then the plain model on the same texts, back to back."""
    _cold_caches()
    clock = _Clock()
    timed = _TimedEmbedder(plain, clock)
    engine.embedder = timed
    turns, capture_s, drain_s = 0, 0.0, 0.0
    vocabulary = _VocabularyClock()
    with _instrumented(clock) as missing, vocabulary:
        for ci, items in convs:
            started = time.perf_counter()
            _capture(engine, f"ingest-{tag}-{mode}-{ci}", items, mode)
            capture_s += time.perf_counter() - started
            turns += len(items)
            started = time.perf_counter()
            engine.drain(300)  # what capture queued in the background (the vocabulary's words) ends here
            drain_s += time.perf_counter() - started
    engine.embedder = plain
    embed_s = clock.seconds["embedding"]
    replay_s = _embed_seconds(plain, timed.calls)  # the very calls capture made, outside it
    texts = [i.text for _, items in convs for i in items]
    plain_s = _embed_seconds(plain, [texts[i:i + PLAIN_BATCH] for i in range(0, len(texts), PLAIN_BATCH)])
    stages = {s: round(clock.seconds.get(s, 0.0), 3) for s in STAGES}
    stages["other"] = round(capture_s - sum(clock.seconds.values()), 3)
    return {
        "turns": turns,
        "capture_s": round(capture_s, 3),
        "capture_turns_per_s": round(turns / capture_s, 1),
        "embedding_in_capture_s": round(embed_s, 3),
        "texts_embedded_in_capture": sum(len(c) for c in timed.calls),
        "embedding_calls": len(timed.calls),
        "beyond_embedding_s": round(capture_s - embed_s, 3),
        "ratio": round((capture_s - embed_s) / embed_s, 3) if embed_s else None,
        # the background learning of the captured words (retrieval/expansion.py): its model calls,
        # timed in its thread (beside capture on another core, or after it), counted as write-path cost
        "vocabulary_learning_s": round(vocabulary.seconds, 3),
        "vocabulary_words": vocabulary.words,
        "ratio_with_vocabulary": round((capture_s - embed_s + vocabulary.seconds) / embed_s, 3) if embed_s else None,
        "drain_after_capture_s": round(drain_s, 3),
        "replayed_embedding_s": round(replay_s, 3),
        "ratio_vs_replay": round((capture_s - replay_s) / replay_s, 3) if replay_s else None,
        "plain_embedding_s": round(plain_s, 3),
        "plain_embedding_turns_per_s": round(turns / plain_s, 1) if plain_s else None,
        "stages_s": stages,
        "stage_calls": {s: clock.calls.get(s, 0) for s in STAGES},
        "stage_share_of_embedding": {s: round(v / embed_s, 3) for s, v in stages.items()
                                     if s != "embedding" and embed_s},
        "not_instrumented": missing,
    }


def run(conversations: list[int], *, modes: tuple[str, ...] = MODES, max_turns: int | None = None,
        repeat: int = 1, embedder: str | None = None, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Measure each mode ``repeat`` times; returns every run and the median ratio per mode."""
    from hindsight_core import MemoryEngine
    from hindsight_core.embeddings import resolve_embedder
    from hindsight_core.testing import HashEmbedder

    plain = HashEmbedder() if embedder == "hash" else resolve_embedder(embedder)
    convs = _items(conversations, max_turns)
    engine = MemoryEngine.ephemeral(embedder=plain)
    try:
        warm = engine.bank("ingest-warm-up")  # Chroma's start-up and the model's first call are not ingest
        warm.capture_many([i.text for i in convs[0][1][:8]])
        warm.capture(convs[0][1][0].text)
        out: dict[str, Any] = {"conversations": conversations, "max_turns": max_turns, "embedder": plain.name,
                               "load_average_at_start": _load(), "runs": {m: [] for m in modes}}
        for rep in range(repeat):
            for mode in modes:
                res = _measure(engine, plain, convs, mode, str(rep))
                out["runs"][mode].append(res)
                log(f"{mode} #{rep + 1}: {res['turns']} turns, capture {res['capture_turns_per_s']} turns/s, "
                    f"plain embedding {res['plain_embedding_turns_per_s']} turns/s, ratio {res['ratio']} "
                    f"(vs replay {res['ratio_vs_replay']})")
    finally:
        engine.close()
    out["load_average_at_end"] = _load()  # a ratio holds under load; the turns/s do not
    out["ratio"] = {m: statistics.median(r["ratio"] for r in runs) for m, runs in out["runs"].items() if runs}
    out["ratio_with_vocabulary"] = {m: statistics.median(r["ratio_with_vocabulary"] for r in runs)
                                    for m, runs in out["runs"].items() if runs}
    return out


def _load() -> list[float] | None:
    """The machine's 1/5/15-minute load averages (other work slows both parts of the ratio)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):  # not on this platform
        return None


def _table(out: dict[str, Any]) -> str:
    lines = [f"{'mode':7s} {'run':>3s} {'turns':>6s} {'capture/s':>9s} {'plain/s':>8s} {'embed s':>8s} "
             f"{'beyond s':>8s} {'ratio':>6s} {'vs replay':>9s}"]
    for mode, runs in out["runs"].items():
        for n, r in enumerate(runs, 1):
            lines.append(f"{mode:7s} {n:3d} {r['turns']:6d} {r['capture_turns_per_s']:9.1f} "
                         f"{r['plain_embedding_turns_per_s']:8.1f} {r['embedding_in_capture_s']:8.2f} "
                         f"{r['beyond_embedding_s']:8.2f} {r['ratio']:6.3f} {r['ratio_vs_replay']:9.3f}")
    for mode, runs in out["runs"].items():
        last = runs[-1]["stage_share_of_embedding"]
        cells = ", ".join(f"{s} {v:.3f}" for s, v in sorted(last.items(), key=lambda kv: -kv[1]) if v)
        lines.append(f"{mode} stages (share of embedding time, last run): {cells}")
    lines.append(f"median ratio (cost beyond embedding / embedding): {out['ratio']}")
    lines.append(f"  with the background learning of the captured words counted: {out.get('ratio_with_vocabulary')}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--conversations", default="0", help="e.g. 0, 0-9, 0,3,5")
    ap.add_argument("--modes", default=",".join(MODES), help="batch, single or both")
    ap.add_argument("--max-turns", type=int, default=None, help="per conversation (smoke runs)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--embedder", default=None, help="default: all-MiniLM-L6-v2; 'hash': HashEmbedder (smoke)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    modes = tuple(m for m in args.modes.split(",") if m)
    if set(modes) - set(MODES) or not modes:
        ap.error(f"--modes takes {MODES}")
    out = run(parse_conversations(args.conversations, "all"), modes=modes, max_turns=args.max_turns,
              repeat=args.repeat, embedder=args.embedder, log=lambda m: print(m, file=sys.stderr))
    return publish(out, _table(out), args.out)


if __name__ == "__main__":
    raise SystemExit(main())
