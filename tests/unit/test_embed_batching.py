"""The embedding coalescer: concurrent small calls share one model call, each caller gets its own rows
or its own error, nothing deadlocks; the bundled model, LangChain ``Embeddings`` and callables use it.

No timing is asserted: calls are held open with events so that merging is forced, not hoped for.
"""

from __future__ import annotations

import threading
import zlib

import numpy as np
import pytest

from hindsight_core.embed_batching import Coalescer, is_urgent, urgent
from hindsight_core.embeddings import resolve_embedder

_HANG_GUARD_S = 60  # a join that takes this long means a deadlock, never a slow machine


def _row(text: str) -> list[float]:
    """A distinct, checkable row per text."""
    return [float(len(text)), float(zlib.crc32(text.encode()) % 1000)]


class _Gated:
    """``fn`` for a Coalescer whose first call blocks until released; records every call's texts."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.calls: list[list[str]] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.fail_on = fail_on
        self._lock = threading.Lock()

    def __call__(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            self.calls.append(list(texts))
            first = len(self.calls) == 1
        if first:
            self.entered.set()
            assert self.release.wait(_HANG_GUARD_S)
        if self.fail_on is not None and self.fail_on in texts:
            raise ValueError(f"cannot embed {self.fail_on!r}")
        return np.array([_row(t) for t in texts])


def _wait_queued(coalescer: Coalescer, n: int) -> None:
    """Block until ``n`` callers are queued (a hang guard, not a timing check)."""
    done = threading.Event()
    for _ in range(_HANG_GUARD_S * 100):
        if coalescer.waiting >= n:
            return
        done.wait(0.01)
    raise AssertionError(f"only {coalescer.waiting} of {n} callers queued")


def _run_threads(targets: list) -> None:
    threads = [threading.Thread(target=t) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(_HANG_GUARD_S)
    assert not any(t.is_alive() for t in threads), "a caller never returned (deadlock)"


def _start_blocked_leader(coalescer: Coalescer, fn: _Gated, results: dict, errors: dict) -> threading.Thread:
    def lead() -> None:
        try:
            results["lead"] = coalescer(["leader text"])
        except Exception as exc:  # noqa: BLE001 - checked by the test
            errors["lead"] = exc

    leader = threading.Thread(target=lead)
    leader.start()
    assert fn.entered.wait(_HANG_GUARD_S)
    return leader


def test_a_lone_call_runs_at_once_and_alone():
    fn = _Gated()
    fn.release.set()
    out = Coalescer(fn)(["a", "bb"])
    assert fn.calls == [["a", "bb"]]
    assert out.tolist() == [_row("a"), _row("bb")]


def test_calls_queued_behind_a_running_one_share_one_call_and_get_their_own_rows():
    fn = _Gated()
    coalescer = Coalescer(fn, max_texts=64)
    results: dict = {}
    errors: dict = {}
    leader = _start_blocked_leader(coalescer, fn, results, errors)
    mine = {n: [f"caller {n} text {i}" for i in range(n % 3 + 1)] for n in range(7)}

    def call(n: int):
        return lambda: results.__setitem__(n, coalescer(mine[n]))

    followers = [threading.Thread(target=call(n)) for n in mine]
    for t in followers:
        t.start()
    _wait_queued(coalescer, len(mine))
    fn.release.set()
    for t in [leader, *followers]:
        t.join(_HANG_GUARD_S)
    assert not errors and not any(t.is_alive() for t in [leader, *followers])
    assert len(fn.calls) == 2  # the leader's own call, then every queued caller in one call
    assert sorted(fn.calls[1]) == sorted(t for texts in mine.values() for t in texts)
    assert results["lead"].tolist() == [_row("leader text")]
    for n, texts in mine.items():
        assert results[n].tolist() == [_row(t) for t in texts], n


def test_a_failing_text_fails_only_its_own_caller():
    fn = _Gated(fail_on="poison")
    coalescer = Coalescer(fn)
    results: dict = {}
    errors: dict = {}
    leader = _start_blocked_leader(coalescer, fn, results, errors)
    texts = {"good-1": ["fine one"], "bad": ["ok part", "poison"], "good-2": ["fine two", "fine three"]}

    def call(name: str):
        def run() -> None:
            try:
                results[name] = coalescer(texts[name])
            except ValueError as exc:
                errors[name] = exc
        return run

    followers = [threading.Thread(target=call(name)) for name in texts]
    for t in followers:
        t.start()
    _wait_queued(coalescer, len(texts))
    fn.release.set()
    for t in [leader, *followers]:
        t.join(_HANG_GUARD_S)
    assert set(errors) == {"bad"} and "poison" in str(errors["bad"])
    assert results["lead"].tolist() == [_row("leader text")]
    assert results["good-1"].tolist() == [_row("fine one")]
    assert results["good-2"].tolist() == [_row("fine two"), _row("fine three")]


def test_a_wrong_row_count_in_a_merged_call_reaches_each_caller_alone():
    calls: list[list[str]] = []

    def short_by_one(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.array([_row(t) for t in texts if t != "dropped"])

    gate = threading.Event()
    entered = threading.Event()

    def fn(texts: list[str]) -> np.ndarray:
        if not entered.is_set():
            entered.set()
            assert gate.wait(_HANG_GUARD_S)
        return short_by_one(texts)

    coalescer = Coalescer(fn)
    results: dict = {}
    leader = threading.Thread(target=lambda: results.__setitem__("lead", coalescer(["first"])))
    leader.start()
    assert entered.wait(_HANG_GUARD_S)
    a = threading.Thread(target=lambda: results.__setitem__("a", coalescer(["kept"])))
    b = threading.Thread(target=lambda: results.__setitem__("b", coalescer(["dropped", "kept too"])))
    a.start(), b.start()
    _wait_queued(coalescer, 2)
    gate.set()
    for t in (leader, a, b):
        t.join(_HANG_GUARD_S)
    assert results["a"].tolist() == [_row("kept")]
    assert results["b"].shape[0] == 1  # its own short answer, for its own embedder to reject


def test_an_interrupted_leader_leaves_nobody_waiting():
    entered, gate = threading.Event(), threading.Event()

    def fn(texts: list[str]) -> np.ndarray:
        if texts == ["leader"]:
            entered.set()
            assert gate.wait(_HANG_GUARD_S)
            raise KeyboardInterrupt
        return np.array([_row(t) for t in texts])

    coalescer = Coalescer(fn)
    seen: dict = {}

    def lead() -> None:
        try:
            coalescer(["leader"])
        except KeyboardInterrupt:
            seen["lead"] = "interrupted"

    leader = threading.Thread(target=lead)
    leader.start()
    assert entered.wait(_HANG_GUARD_S)
    follower = threading.Thread(target=lambda: seen.__setitem__("f", coalescer(["follower"])))
    follower.start()
    _wait_queued(coalescer, 1)
    gate.set()
    for t in (leader, follower):
        t.join(_HANG_GUARD_S)
    assert seen["lead"] == "interrupted" and seen["f"].tolist() == [_row("follower")]
    assert coalescer(["after"]).tolist() == [_row("after")]  # the slot was handed back


def test_many_threads_many_calls_finish_with_the_right_rows():
    coalescer = Coalescer(lambda texts: np.array([_row(t) for t in texts]), max_texts=8)
    bad: list[str] = []

    def worker(n: int):
        def run() -> None:
            for i in range(200):
                texts = [f"w{n} c{i} t{j}" for j in range((n + i) % 4 + 1)]
                if coalescer(texts).tolist() != [_row(t) for t in texts]:
                    bad.append(texts[0])
        return run

    _run_threads([worker(n) for n in range(8)])
    assert not bad


def test_a_call_from_inside_the_model_call_does_not_wait_for_itself():
    box: dict = {}

    def fn(texts: list[str]) -> np.ndarray:
        if texts == ["outer"]:
            box["inner"] = box["coalescer"](["inner"])
        return np.array([_row(t) for t in texts])

    box["coalescer"] = Coalescer(fn)
    _run_threads([lambda: box.__setitem__("outer", box["coalescer"](["outer"]))])
    assert box["outer"].tolist() == [_row("outer")] and box["inner"].tolist() == [_row("inner")]


def test_a_big_call_bypasses_the_queue():
    fn = _Gated()
    coalescer = Coalescer(fn, max_texts=2)
    results: dict = {}
    errors: dict = {}
    leader = _start_blocked_leader(coalescer, fn, results, errors)
    # the leader's call is still running (gated): a big call does not queue behind it
    big = coalescer(["x", "yy", "zzz"])
    assert big.tolist() == [_row("x"), _row("yy"), _row("zzz")]
    fn.release.set()
    leader.join(_HANG_GUARD_S)
    assert results["lead"].tolist() == [_row("leader text")]


def test_bad_limits_are_refused():
    from hindsight_core.errors import InvalidInputError

    with pytest.raises(InvalidInputError):
        Coalescer(lambda t: t, max_in_flight=0)
    with pytest.raises(InvalidInputError):
        Coalescer(lambda t: t, urgent_slots=-1)


def _call_in_thread(coalescer: Coalescer, texts: list[str], results: dict, key: str, *, as_urgent: bool):
    def run() -> None:
        if as_urgent:
            with urgent():
                results[key] = coalescer(texts)
        else:
            results[key] = coalescer(texts)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_urgent_callers_go_before_older_ordinary_ones_and_ride_alone():
    fn = _Gated()
    coalescer = Coalescer(fn, max_texts=64)  # no urgent slot: the model runs one call at a time
    results: dict = {}
    errors: dict = {}
    leader = _start_blocked_leader(coalescer, fn, results, errors)
    threads = [_call_in_thread(coalescer, ["capture one"], results, "c1", as_urgent=False)]
    _wait_queued(coalescer, 1)
    threads.append(_call_in_thread(coalescer, ["capture two"], results, "c2", as_urgent=False))
    _wait_queued(coalescer, 2)
    threads.append(_call_in_thread(coalescer, ["query"], results, "q1", as_urgent=True))
    threads.append(_call_in_thread(coalescer, ["another query"], results, "q2", as_urgent=True))
    _wait_queued(coalescer, 4)
    assert coalescer.waiting_urgent == 2
    fn.release.set()
    for t in [leader, *threads]:
        t.join(_HANG_GUARD_S)
    assert not errors and not any(t.is_alive() for t in [leader, *threads])
    # the queries queued last, yet were served first, in one call of their own; then the captures
    assert fn.calls == [["leader text"], ["query", "another query"], ["capture one", "capture two"]]
    for key, text in (("q1", "query"), ("q2", "another query"), ("c1", "capture one"), ("c2", "capture two")):
        assert results[key].tolist() == [_row(text)]


def test_an_urgent_slot_lets_a_query_run_beside_a_running_capture():
    fn = _Gated()
    coalescer = Coalescer(fn, urgent_slots=1)
    results: dict = {}
    errors: dict = {}
    leader = _start_blocked_leader(coalescer, fn, results, errors)  # an ordinary call, still running
    with urgent():
        assert is_urgent()
        # returns while the ordinary call is still blocked: it did not wait for it
        assert coalescer(["query"]).tolist() == [_row("query")]
    assert not is_urgent()
    assert "lead" not in results and fn.calls == [["leader text"], ["query"]]
    # an ordinary call may not take the urgent slot: it queues behind the running one
    follower = _call_in_thread(coalescer, ["capture"], results, "c", as_urgent=False)
    _wait_queued(coalescer, 1)
    assert coalescer.waiting_urgent == 0
    fn.release.set()
    for t in (leader, follower):
        t.join(_HANG_GUARD_S)
    assert fn.calls == [["leader text"], ["query"], ["capture"]]
    assert results["c"].tolist() == [_row("capture")] and results["lead"].tolist() == [_row("leader text")]


def test_urgent_calls_beyond_the_urgent_slot_queue_and_are_merged():
    fn = _Gated()
    coalescer = Coalescer(fn, max_texts=64)
    results: dict = {}
    errors: dict = {}
    leader = _start_blocked_leader(coalescer, fn, results, errors)
    threads = [_call_in_thread(coalescer, [f"query {n}"], results, f"q{n}", as_urgent=True) for n in range(5)]
    _wait_queued(coalescer, 5)
    fn.release.set()
    for t in [leader, *threads]:
        t.join(_HANG_GUARD_S)
    assert len(fn.calls) == 2 and sorted(fn.calls[1]) == sorted(f"query {n}" for n in range(5))
    for n in range(5):
        assert results[f"q{n}"].tolist() == [_row(f"query {n}")]


def test_both_lanes_under_threads_finish_with_the_right_rows():
    coalescer = Coalescer(lambda texts: np.array([_row(t) for t in texts]), max_texts=8, urgent_slots=1)
    bad: list[str] = []

    def worker(n: int):
        def run() -> None:
            for i in range(200):
                texts = [f"w{n} c{i} t{j}" for j in range((n + i) % 3 + 1)]
                if n % 2:
                    with urgent():
                        out = coalescer(texts)
                else:
                    out = coalescer(texts)
                if out.tolist() != [_row(t) for t in texts]:
                    bad.append(texts[0])
        return run

    _run_threads([worker(n) for n in range(8)])
    assert not bad and coalescer.waiting == 0


class _FakeLangChain:
    """Anything with ``embed_documents``, as LangChain ``Embeddings`` are."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.batches.append(len(texts))
        return [[float(len(t)), 1.0, float(zlib.crc32(t.encode()) % 97)] for t in texts]


def _concurrent_equals_sequential(emb, texts_per_thread: list[list[str]]) -> None:
    expected = [emb.embed(texts) for texts in texts_per_thread]
    got: dict = {}

    def worker(n: int):
        def run() -> None:
            for _ in range(5):
                got.setdefault(n, []).append(emb.embed(texts_per_thread[n]))
        return run

    _run_threads([worker(n) for n in range(len(texts_per_thread))])
    for n, want in enumerate(expected):
        for out in got[n]:
            np.testing.assert_allclose(out, want, atol=1e-5)


def test_langchain_embeddings_and_callables_under_threads():
    lc = _FakeLangChain()
    texts = [[f"thread {n} says {'x' * n}"] + ([f"and more {n}"] if n % 2 else []) for n in range(8)]
    _concurrent_equals_sequential(resolve_embedder(lc), texts)
    assert sum(lc.batches) > 0
    fn = lambda batch: [[float(len(t)), 2.0] for t in batch]  # noqa: E731
    _concurrent_equals_sequential(resolve_embedder(fn), texts)


def test_a_callable_with_a_wrong_row_count_still_says_so():
    from hindsight_core.errors import InvalidInputError

    emb = resolve_embedder(lambda batch: [[1.0, 2.0]])
    with pytest.raises(InvalidInputError, match="returned 1 vectors for 2 texts"):
        emb.embed(["a", "b"])


def test_the_bundled_model_gives_each_thread_its_own_vectors(embedder):
    texts = [[f"question {n}: where did the {w} go?"] + ([f"topic {n} {w}"] if n % 2 else [])
             for n, w in enumerate(["cat", "train", "invoice", "cake", "ship", "parcel", "dog", "letter"])]
    _concurrent_equals_sequential(embedder, texts)
