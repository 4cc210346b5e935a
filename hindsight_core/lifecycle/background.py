"""Background work: one small worker pool per engine, one serial queue per bank.

Reflection, consolidation, activity flushes and budget sweeps run off the caller's thread. Every bank
gets a :class:`BackgroundQueue` (a plain object, no thread): its jobs run one at a time, in submission
order, debounced per key. The queues share the engine's :class:`WorkerPool`, a fixed handful of
threads (:data:`DEFAULT_WORKERS`), so 10,000 banks that ended an episode cost 10,000 small queues,
not 10,000 threads. A worker takes the queue whose next job is due first among the queues no other
worker is running, so one bank's jobs never overlap and never reorder.

Jobs that keep failing are logged at ERROR level and kept in :attr:`BackgroundQueue.failures`
(and :meth:`WorkerPool.failures`) so a caller (or a health check) can see and replay them.

Example:
    >>> pool = WorkerPool(workers=2)
    >>> seen = []
    >>> for n in range(3):
    ...     pool.queue("alice").submit(f"job-{n}", lambda n=n: seen.append(n))
    >>> pool.drain(10), seen
    (True, [0, 1, 2])
    >>> pool.close()
    True
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
import time
from dataclasses import dataclass, field
from typing import Callable

from hindsight_core.errors import HindsightError, InvalidInputError

__all__ = ["BackgroundQueue", "FailedJob", "WorkerPool", "DEFAULT_WORKERS"]

log = logging.getLogger("hindsight.background")

#: Worker threads per engine. Background jobs are short and mostly wait on Chroma or an LLM; four
#: keep a slow LLM reflection from holding up every other bank while staying far under the issue's
#: 16-thread ceiling for a process serving thousands of banks.
DEFAULT_WORKERS = 4
#: A worker with nothing to do for this long exits; the pool starts one again on the next job.
_IDLE_EXIT_S = 30.0
#: A deferred job (``submit(..., delay_s=...)``) that is due waits until no job was submitted to
#: the pool for this long: submissions come from foreground calls (every recall with hits queues
#: its activity write-back), and an embedded Chroma write holds the GIL, stalling those calls.
QUIET_S = 0.25
#: ...but no longer than this many times its delay after it was first queued, so a process that is
#: never quiet still writes back (30 s activity write-back: at most 2 min late).
DEFERRED_LATEST_FACTOR = 4.0


@dataclass
class FailedJob:
    key: str
    error: BaseException
    attempts: int
    job: Callable[[], object] = field(repr=False)


class BackgroundQueue:
    """One bank's jobs, run in submission order by the shared pool, never two at once.

    A job submitted again under the same ``key`` before it started replaces the earlier one and
    restarts its debounce delay (so a burst of triggers for one episode runs once).
    Get one from :meth:`WorkerPool.queue`; it holds no thread of its own.
    """

    def __init__(self, key: str, pool: "WorkerPool", *, maxsize: int = 256, debounce_s: float = 0.2,
                 retries: int = 3, backoff_s: float = 0.5) -> None:
        self.key = key
        self.name = f"{pool.name}-{key}"
        self.maxsize = maxsize
        self.debounce_s = debounce_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.failures: list[FailedJob] = []
        self._pool = pool
        self._cond = pool._cond  # one condition for the pool and all its queues
        self._pending: dict[str, tuple[float, Callable[[], object]]] = {}
        self._running = False
        self._closed = False

    @property
    def busy(self) -> bool:
        """True while a job of this queue is waiting or running."""
        with self._cond:
            return bool(self._pending) or self._running

    def submit(self, key: str, job: Callable[[], object], *, block_s: float = 10.0,
               delay_s: float | None = None) -> None:
        """Queue ``job``; waits up to ``block_s`` for room, then raises (the caller can run it inline).

        ``delay_s`` defers the job (a write-back of in-memory state, such as activity counters):

        * it runs ``delay_s`` after it was first queued; submitting it again under the same ``key``
          replaces the job but keeps that time, so a steady stream of triggers runs it once per
          ``delay_s``;
        * it stays behind the queue's other jobs (it writes the state as it is when it runs, so jobs
          queued later never wait for it);
        * once due, it waits for the pool to be quiet (no submission for :data:`QUIET_S`), but no
          later than :data:`DEFERRED_LATEST_FACTOR` times ``delay_s`` after it was first queued;
        * :meth:`drain`, :meth:`WorkerPool.drain`, :meth:`WorkerPool.hurry` and
          ``WorkerPool.busy(key, hurry=True)`` make it due at once.
        """
        deadline = time.monotonic() + block_s
        with self._cond:
            if self._closed or self._pool._closed:
                raise HindsightError(f"background queue {self.name!r} is closed")
            current = self._pool._queues.setdefault(self.key, self)  # an idle queue may have been dropped
            if current is not self:
                current.submit(key, job, block_s=block_s, delay_s=delay_s)
                return
            while key not in self._pending and len(self._pending) >= self.maxsize:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise HindsightError(
                        f"background queue {self.name!r} is full ({self.maxsize} jobs); run reflection inline "
                        "(background=False) or raise maxsize"
                    )
                self._cond.wait(left)
            now = time.monotonic()
            self._pool._last_submit = now
            if delay_s is not None and key in self._pending:  # deferred: keeps its place and its time
                due, _, latest = self._pending[key]
                self._pending[key] = (due, job, latest)
            else:
                self._pending.pop(key, None)  # re-insert: debounced jobs go to the back
                due = now + (self.debounce_s if delay_s is None else delay_s)
                self._pending[key] = (due, job, None if delay_s is None else now + delay_s * DEFERRED_LATEST_FACTOR)
                for later in [k for k, v in self._pending.items() if v[2] is not None and k != key]:
                    self._pending[later] = self._pending.pop(later)  # deferred write-backs wait at the back
            self._pool._wake(self)

    def _hurry(self) -> bool:
        """Make every deferred job due now, keeping their order (caller holds the condition); True if
        one was brought forward (the caller wakes the pool then). Debounced jobs keep their time."""
        now, moved = time.monotonic(), False
        for key, (due, job, latest) in list(self._pending.items()):
            if latest is not None:
                self._pending[key], moved = (min(due, now), job, None), True
        return moved

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every queued job ran (or failed for good). Returns False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._pending or self._running:
                if self._hurry():
                    self._pool._wake(self)
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left if left is not None else 0.5)
        return True

    def close(self, timeout: float | None = 30.0) -> bool:
        """Let queued jobs finish (up to ``timeout``), then refuse new ones."""
        done = self.drain(timeout)
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        return done

    def _due(self) -> float | None:
        """When the next job may start (caller holds the condition); None if nothing can start."""
        if self._running or not self._pending:
            return None
        due, _, latest = next(iter(self._pending.values()))
        if latest is None:
            return due
        return min(latest, max(due, self._pool._last_submit + QUIET_S))  # yields to foreground work

    def _run(self, key: str, job: Callable[[], object]) -> None:
        for attempt in range(1, self.retries + 1):
            try:
                job()
                return
            except Exception as exc:  # noqa: BLE001 - logged, retried, then kept
                if self._pool._exiting:
                    # the interpreter is exiting and may already have closed the store under the job
                    # (an in-memory store's finalizer): dropped as jobs not yet started are, not retried
                    log.debug("background job %s dropped at exit: %s", key, exc)
                    return
                if attempt == self.retries:
                    log.error("background job %s failed after %d attempts: %s", key, attempt, exc)
                    with self._cond:
                        self.failures.append(FailedJob(key, exc, attempt, job))
                else:
                    log.warning("background job %s failed (attempt %d): %s; retrying", key, attempt, exc)
                    time.sleep(self.backoff_s * attempt)


#: At interpreter exit, how long to wait for a job already running (say, a model call) to finish.
_EXIT_JOIN_S = 10.0
_POOLS: "weakref.WeakSet[WorkerPool]" = weakref.WeakSet()


def _stop_pools_at_exit() -> None:
    """A worker still inside a model call when the process tears down native libraries aborts the
    process ("terminate called without an active exception"): a script that never calls
    ``close()`` must still exit cleanly. Jobs not started are dropped, as daemon threads always did."""
    for pool in list(_POOLS):
        pool._stop_at_exit()


# atexit runs the hook registered last first, and weakref.finalize registers its one hook (which
# closes an in-memory store never closed, storage/_ram_folder.py) when the first finalizer is made.
# Make sure that happened, then register ours: a job running at exit finishes before its store closes.
weakref.finalize(_stop_pools_at_exit, lambda: None).atexit = False
atexit.register(_stop_pools_at_exit)


class WorkerPool:
    """A fixed number of worker threads serving any number of per-bank :class:`BackgroundQueue` s.

    Threads start on demand (at most ``workers``), exit after a while without work, and are
    joined by :meth:`close`. Idle queues without failures are dropped, so the pool's memory
    follows the banks with work in flight, not every bank ever touched.
    """

    def __init__(self, workers: int = DEFAULT_WORKERS, *, name: str = "reflect") -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise InvalidInputError(f"workers must be an int >= 1, not {workers!r}")
        self.workers = workers
        self.name = name
        self._cond = threading.Condition()
        self._queues: dict[str, BackgroundQueue] = {}
        self._ready: dict[BackgroundQueue, None] = {}  # queues with a job waiting and none running
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._closed = False
        self._last_submit = 0.0  # when any queue last got a job (monotonic): see QUIET_S
        # idle workers waiting in _next: thread ident -> when it wakes by itself (monotonic). A new
        # job wakes them only if it is due before the earliest of these (see _wake).
        self._sleeping: dict[int, float] = {}
        self.wakeups = 0  # times _wake woke the idle workers (a counter for tests and diagnosis)
        self._exiting = False  # the interpreter is exiting: start no job (_stop_pools_at_exit)
        _POOLS.add(self)

    def queue(self, key: str) -> BackgroundQueue:
        """The queue of ``key`` (a bank id), created on first use."""
        with self._cond:
            if self._closed:
                raise HindsightError(f"worker pool {self.name!r} is closed")
            queue = self._queues.get(key)
            if queue is None:
                queue = self._queues[key] = BackgroundQueue(key, self)
            return queue

    def busy(self, key: str, *, hurry: bool = False) -> bool:
        """True while ``key``'s queue has a job waiting or running; ``hurry`` makes its deferred ones due now."""
        with self._cond:
            queue = self._queues.get(key)
            if queue is not None and hurry and queue._hurry():
                self._wake(queue)
            return queue is not None and (bool(queue._pending) or queue._running)

    def hurry(self) -> None:
        """Make every queue's deferred jobs (write-backs) due now, in their order."""
        with self._cond:
            for queue in list(self._queues.values()):
                if queue._hurry():
                    self._wake(queue)

    def threads(self) -> int:
        """Worker threads alive now (at most ``workers``)."""
        with self._cond:
            return sum(t.is_alive() for t in self._threads)

    def failures(self) -> list[FailedJob]:
        with self._cond:
            return [f for q in self._queues.values() for f in q.failures]

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every queue ran its jobs (or failed them for good). False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while any(q._pending or q._running for q in self._queues.values()):
                for queue in list(self._queues.values()):  # deferred jobs too: drain means done
                    if queue._hurry():
                        self._wake(queue)
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left if left is not None else 0.5)
        return True

    def close_queue(self, key: str, timeout: float | None = 30.0) -> bool:
        """Finish ``key``'s queued jobs, then forget its queue (a later :meth:`queue` makes a new one)."""
        with self._cond:
            queue = self._queues.get(key)
        if queue is None:
            return True
        done = queue.close(timeout)
        with self._cond:
            if self._queues.get(key) is queue:
                del self._queues[key]
            self._ready.pop(queue, None)
        return done

    def close(self, timeout: float | None = 30.0) -> bool:
        """Finish queued jobs (up to ``timeout``), stop and join the worker threads."""
        done = self.drain(timeout)
        with self._cond:
            self._closed = True
            for queue in self._queues.values():
                queue._closed = True
        self._join_workers(timeout)
        return done

    def _stop_at_exit(self) -> None:
        with self._cond:
            self._exiting = True
        self._join_workers(_EXIT_JOIN_S)

    def _join_workers(self, timeout: float | None) -> None:
        """Wake the workers to see a flag just set (closed, exiting) and join them."""
        with self._cond:
            self._cond.notify_all()
            threads = list(self._threads)
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(timeout)

    # ---- workers (callers hold self._cond) -------------------------------------------------------
    def _wake(self, queue: BackgroundQueue) -> None:
        """``queue`` has a new job (or one brought forward): mark it ready, start a worker if one is
        missing, and wake the idle workers only when this job is due before they wake by themselves.

        Every recall submits its bank's deferred activity write-back (due in 30 s), so waking every
        idle worker on each submit made each of them rescan every ready queue: with a few hundred
        banks holding unwritten hits, four workers scanned them all on every recall of any bank,
        taking the GIL from the recall (measured: 637 ``_due`` calls and +0.44 ms CPU per submit
        with 1,000 such banks, and warm recall p95 several times a single bank's).
        """
        if not queue._running:
            self._ready[queue] = None
        self._threads = [t for t in self._threads if t.is_alive()]
        if len(self._ready) > self._idle and len(self._threads) < self.workers:
            thread = threading.Thread(target=self._work, name=f"hindsight-{self.name}-{len(self._threads)}", daemon=True)
            self._threads.append(thread)
            self._idle += 1  # counted idle until it takes a job, so a burst starts one thread at a time
            thread.start()
        due = queue._due()
        if due is not None and self._sleeping and due < min(self._sleeping.values()):
            self.wakeups += 1
            self._cond.notify_all()

    def _next(self) -> tuple[BackgroundQueue, str, Callable[[], object]] | None:
        """Block until a job is due and take it, or return None when this worker should exit."""
        idle_since = time.monotonic()
        with self._cond:
            while True:
                if self._exiting:
                    break
                now = time.monotonic()
                best, best_due = None, None
                for queue in list(self._ready):
                    due = queue._due()
                    if due is None:
                        del self._ready[queue]
                    elif best_due is None or due < best_due:
                        best, best_due = queue, due
                if best is not None and best_due is not None and best_due <= now:
                    key, (_, job, _) = next(iter(best._pending.items()))
                    del best._pending[key]
                    best._running = True
                    del self._ready[best]
                    self._idle -= 1
                    self._cond.notify_all()  # room in the queue for a blocked submit
                    return best, key, job
                if self._closed and best is None:
                    break
                if best is None and now - idle_since >= _IDLE_EXIT_S:
                    break
                timeout = best_due - now if best_due is not None else _IDLE_EXIT_S
                me = threading.get_ident()
                self._sleeping[me] = now + timeout  # a job due earlier wakes this worker (_wake)
                try:
                    self._cond.wait(timeout)
                finally:
                    self._sleeping.pop(me, None)
            self._idle -= 1
            self._threads = [t for t in self._threads if t is not threading.current_thread()]
            return None

    def _work(self) -> None:
        while (item := self._next()) is not None:
            queue, key, job = item
            try:
                queue._run(key, job)
            finally:
                with self._cond:
                    queue._running = False
                    self._idle += 1
                    if queue._pending:
                        self._ready[queue] = None
                    elif not queue.failures and self._queues.get(queue.key) is queue:
                        del self._queues[queue.key]  # idle and clean: a later submit registers it again
                    self._cond.notify_all()
