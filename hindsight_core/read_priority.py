"""Recalls first: a write's CPU-heavy steps wait while recalls are in flight.

A recall is an interactive read on an agent's critical path; a capture's model call and its
apply step (dedup search, belief checks, the Chroma write) are not. On a machine with fewer cores
than busy threads, a fair scheduler gives every thread the same share, so a recall that runs
beside several captures takes several times longer than alone. An engine's :class:`ReadPriority`
counts the recalls in flight (:meth:`~ReadPriority.reading`); before each heavy step, a write
calls :meth:`~ReadPriority.yield_to_reads`, which waits until none is in flight. The write then
runs at full speed, and its result is the same: only *when* its steps run changes.

Nothing waits forever: a write waits at most ``max_defer_s`` per step (so a steady stream of
recalls cannot starve writes), a thread inside a recall never waits (a recall that writes
would wait for itself), and callers skip the wait while they hold a bank lock (a recall may be
waiting for that lock; see ``UnitStore.yield_to_reads``).

Example:
    >>> reads = ReadPriority()
    >>> with reads.reading():
    ...     reads.in_flight
    1
    >>> reads.yield_to_reads()  # no recall in flight: returns at once
    False
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Iterator

__all__ = ["ReadPriority", "MAX_DEFER_S"]

#: Longest a write step waits for recalls in flight before it runs anyway: a recall takes tens of
#: milliseconds, so a write that waited this long is being starved by a steady stream of recalls,
#: not waiting for one burst to end.
MAX_DEFER_S = 0.5


class ReadPriority:
    """Recalls in flight, and a place for write steps to wait until there are none.

    Args:
        max_defer_s: The longest one :meth:`yield_to_reads` waits.
    """

    def __init__(self, *, max_defer_s: float = MAX_DEFER_S) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._in_flight = 0
        self._mine = threading.local()  # this thread's recall depth
        self._max_defer_s = max_defer_s
        self.deferred = 0  # write steps that found a recall in flight and waited (observability, tests)
        self.overdue = 0  # of those, steps that stopped waiting after max_defer_s

    @property
    def in_flight(self) -> int:
        """Recalls running now."""
        with self._cond:
            return self._in_flight

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Count the block as a recall in flight (re-entrant)."""
        depth = getattr(self._mine, "depth", 0)
        self._mine.depth = depth + 1
        if depth == 0:
            with self._cond:
                self._in_flight += 1
        try:
            yield
        finally:
            self._mine.depth = depth
            if depth == 0:
                with self._cond:
                    self._in_flight -= 1
                    if self._in_flight == 0:
                        self._cond.notify_all()

    def yield_to_reads(self) -> bool:
        """Wait until no recall is in flight (at most ``max_defer_s``); whether it waited.

        Returns at once inside a recall of this thread."""
        if getattr(self._mine, "depth", 0):
            return False
        with self._cond:
            if self._in_flight == 0:
                return False
            self.deferred += 1
            deadline = time.monotonic() + self._max_defer_s
            while self._in_flight:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.overdue += 1
                    break
                self._cond.wait(left)
        return True
