"""Background work per bank: a bounded queue, debounced per key, retried, never silently lost.

Jobs that keep failing are logged at ERROR level and kept in :attr:`BackgroundQueue.failures`
so a caller (or a health check) can see and replay them.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from hindsight_core.errors import HindsightError

__all__ = ["BackgroundQueue", "FailedJob"]

log = logging.getLogger("hindsight.background")


@dataclass
class FailedJob:
    key: str
    error: BaseException
    attempts: int
    job: Callable[[], object] = field(repr=False)


class BackgroundQueue:
    """One worker thread running jobs in submission order.

    A job submitted again under the same ``key`` before it started replaces the earlier one and
    restarts its debounce delay (so a burst of triggers for one episode runs once).
    """

    def __init__(self, name: str, *, maxsize: int = 256, debounce_s: float = 0.2, retries: int = 3,
                 backoff_s: float = 0.5) -> None:
        self.name = name
        self.maxsize = maxsize
        self.debounce_s = debounce_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.failures: list[FailedJob] = []
        self._pending: dict[str, tuple[float, Callable[[], object]]] = {}
        self._cond = threading.Condition()
        self._running = 0
        self._closed = False
        self._thread: threading.Thread | None = None

    def submit(self, key: str, job: Callable[[], object], *, block_s: float = 10.0) -> None:
        """Queue ``job``; waits up to ``block_s`` for room, then raises (the caller can run it inline)."""
        deadline = time.monotonic() + block_s
        with self._cond:
            if self._closed:
                raise HindsightError(f"background queue {self.name!r} is closed")
            while key not in self._pending and len(self._pending) >= self.maxsize:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise HindsightError(
                        f"background queue {self.name!r} is full ({self.maxsize} jobs); run reflection inline "
                        "(background=False) or raise maxsize"
                    )
                self._cond.wait(left)
            self._pending.pop(key, None)  # re-insert: debounced jobs go to the back
            self._pending[key] = (time.monotonic() + self.debounce_s, job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name=f"hindsight-{self.name}", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every queued job ran (or failed for good). Returns False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._pending or self._running:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left if left is not None else 0.5)
        return True

    def close(self, timeout: float | None = 30.0) -> bool:
        done = self.drain(timeout)
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        return done

    def _next(self) -> tuple[str, Callable[[], object]] | None:
        with self._cond:
            while True:
                if self._closed and not self._pending:
                    return None
                if self._pending:
                    key, (due, job) = next(iter(self._pending.items()))
                    wait = due - time.monotonic()
                    if wait <= 0:
                        del self._pending[key]
                        self._running += 1
                        self._cond.notify_all()
                        return key, job
                    self._cond.wait(wait)
                else:
                    self._cond.wait(1.0)

    def _work(self) -> None:
        while (item := self._next()) is not None:
            key, job = item
            try:
                for attempt in range(1, self.retries + 1):
                    try:
                        job()
                        break
                    except Exception as exc:  # noqa: BLE001 - logged, retried, then kept
                        if attempt == self.retries:
                            log.error("background job %s failed after %d attempts: %s", key, attempt, exc)
                            self.failures.append(FailedJob(key, exc, attempt, job))
                        else:
                            log.warning("background job %s failed (attempt %d): %s; retrying", key, attempt, exc)
                            time.sleep(self.backoff_s * attempt)
            finally:
                with self._cond:
                    self._running -= 1
                    self._cond.notify_all()
