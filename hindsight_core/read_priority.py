"""Recalls first: a write's CPU-heavy steps wait while recalls are in flight.

A recall is an interactive read on an agent's critical path; a capture's model call and its
apply step (dedup search, belief checks, the Chroma write) are not. On a machine with fewer cores
than busy threads, a fair scheduler gives every thread the same share, so a recall that runs
beside several captures takes several times longer than alone. An engine's :class:`ReadPriority`
counts the recalls in flight (:meth:`~ReadPriority.reading`); before each heavy step, a write
calls :meth:`~ReadPriority.yield_to_reads`, which waits until none is in flight. The write then
runs at full speed, and its result is the same: only *when* its steps run changes.

Apply steps also take turns (:meth:`~ReadPriority.write_turn`): one write of the engine applies
at a time, and waits for the recalls in flight when its turn comes. Without turns, every capture
that waited for the same burst of recalls applied at once when it ended, and the next recalls ran
beside all of them. On an embedded store a Chroma write holds the GIL throughout, so writes that
overlap gain nothing. With 8 threads mixing capture and recall on 2 cores (``benchmarks.concurrency``),
turns cut recall p95 under load from 3-4x the single-thread p95 to 0.9-1.6x; captures paid about
17% of their throughput for it, and with no recall in flight writes lost nothing. A Chroma
server's writes wait on the network with the GIL released, so there they overlap while no recall is
in flight (``UnitStore.write_turn``).

Nothing waits forever: a write waits at most ``max_defer_s`` per step, and at most that long for
its turn (so a steady stream of recalls or of other writes cannot starve it). A thread inside a
recall never waits (a recall that writes would wait for itself), and callers skip both waits while
they hold a bank lock (a recall or the turn's holder may be waiting for that lock; see
``UnitStore.yield_to_reads``).

Example:
    >>> reads = ReadPriority()
    >>> with reads.reading():
    ...     reads.in_flight
    1
    >>> reads.yield_to_reads()  # no recall in flight: returns at once
    False
    >>> with reads.write_turn():  # no other write applying, no recall in flight: at once
    ...     reads.late_turns
    0
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
        self.late_turns = 0  # write steps that ran without their turn after waiting max_defer_s for it
        self._turn = threading.Lock()
        self._turn_depth = threading.local()  # this thread's write_turn depth (nested writes)

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

    @contextmanager
    def write_turn(self) -> Iterator[None]:
        """Run the block as this engine's one applying write, after the recalls in flight.

        Waits for the writes applying now (at most ``max_defer_s``; then it runs anyway and counts
        in ``late_turns``), then for the recalls in flight (:meth:`yield_to_reads`). Re-entrant;
        inside a recall of this thread it does not wait."""
        depth = getattr(self._turn_depth, "n", 0)
        if depth or getattr(self._mine, "depth", 0):
            self._turn_depth.n = depth + 1
            try:
                yield
            finally:
                self._turn_depth.n = depth
            return
        got = self._turn.acquire(timeout=self._max_defer_s)
        if not got:
            with self._cond:
                self.late_turns += 1
        self._turn_depth.n = 1
        try:
            self.yield_to_reads()
            yield
        finally:
            self._turn_depth.n = 0
            if got:
                self._turn.release()
