"""Coalesce small embedding calls that arrive from several threads into one model call.

Eight threads that each embed one query take turns on a CPU model: each waits for all the others'
calls, one at a time. Embedding eight short texts in one call costs far less than eight calls, so a
:class:`Coalescer` answers the calls that arrive *while another is running* with one call:

- a call that finds a free slot (fewer than ``max_in_flight`` calls running) runs at once, alone:
  one thread alone pays no wait and no batching;
- a call that finds every slot taken queues; when a running call ends, it hands its slot to the
  oldest queued caller, which runs everything queued (up to ``max_texts`` texts) as one call and
  hands each caller its own rows;
- when a merged call fails, every caller in it runs its own texts again by itself, so each caller
  gets its own result or its own error, never another caller's;
- calls of more than ``max_texts`` texts (a whole batch being ingested) run as they are.

Two lanes. A recall's query is on an agent's critical path; a capture's text is not. Calls made
inside :func:`urgent` (recall does this) queue in their own lane, which is served first: when a
call ends, its slot goes to the oldest urgent caller if there is one, and urgent callers are merged
only with each other, so a query never waits behind a queue of captures nor rides in their batch.
``urgent_slots`` extra slots, if the model can run two calls at once, let an urgent call start even
while every ordinary slot is busy: a recall does not wait for a capture's embedding at all.

Example:
    >>> import numpy as np
    >>> double = Coalescer(lambda texts: np.array([[len(t), 2.0 * len(t)] for t in texts]))
    >>> double(["ab", "abc"]).tolist()
    [[2.0, 4.0], [3.0, 6.0]]
"""

from __future__ import annotations

import contextvars
import threading
from collections import deque
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from hindsight_core.errors import InvalidInputError

__all__ = ["Coalescer", "MAX_TEXTS", "urgent", "is_urgent"]

#: Most texts one merged call holds: the embedders' "small batch" size (a query is 1-2 texts, a
#: captured turn 1), so a merged call stays on their fast path for small inputs.
MAX_TEXTS = 16

_URGENT: contextvars.ContextVar[bool] = contextvars.ContextVar("hindsight_urgent_embedding", default=False)


@contextmanager
def urgent() -> Iterator[None]:
    """Embedding calls made in this block are an interactive read (a recall's query): every
    :class:`Coalescer` serves them in its urgent lane, before ordinary calls (captures).

    Example:
        >>> is_urgent()
        False
        >>> with urgent():
        ...     is_urgent()
        True
    """
    token = _URGENT.set(True)
    try:
        yield
    finally:
        _URGENT.reset(token)


def is_urgent() -> bool:
    """Whether this thread is inside :func:`urgent`."""
    return _URGENT.get()


class _Call:
    """One caller's texts and, once its merged call ran, its rows or its error."""

    __slots__ = ("texts", "urgent", "done", "rows", "error", "lead", "alone")

    def __init__(self, texts: list[str], urgent: bool) -> None:
        self.texts = texts
        self.urgent = urgent
        self.done = threading.Event()
        self.rows: np.ndarray | None = None
        self.error: BaseException | None = None
        self.lead = False  # woken to run the queue itself
        self.alone = False  # woken to run its own texts by itself (its merged call failed)


class Coalescer:
    """Wrap ``fn(texts) -> (len(texts), dim) rows`` so that concurrent small calls share one call.

    Args:
        fn: The model call. It must return one row per text, in order.
        max_in_flight: How many calls may run at the same time before callers queue (1 for a local
            model whose calls take turns anyway; more for a remote service whose calls overlap).
        max_texts: Calls with more texts than this bypass the queue, and a merged call holds at most
            this many texts.
        urgent_slots: Slots only urgent calls (see :func:`urgent`) may take, on top of
            ``max_in_flight``: 0 when the model runs one call at a time (urgent calls then only go
            first), 1 or more when it can run that many more calls alongside.
    """

    def __init__(self, fn: Callable[[list[str]], Any], *, max_in_flight: int = 1, max_texts: int = MAX_TEXTS,
                 urgent_slots: int = 0) -> None:
        if max_in_flight < 1 or max_texts < 1 or urgent_slots < 0:
            raise InvalidInputError("Coalescer needs max_in_flight >= 1, max_texts >= 1 and urgent_slots >= 0")
        self._fn = fn
        self._max_in_flight = max_in_flight
        self._max_texts = max_texts
        self._urgent_slots = urgent_slots
        self._lock = threading.Lock()
        self._urgent: deque[_Call] = deque()  # served first
        self._queue: deque[_Call] = deque()
        self._running = 0
        self._inside = threading.local()  # a thread already running fn (a re-entrant call runs directly)

    @property
    def waiting(self) -> int:
        """Callers queued behind the running calls right now (to observe merging, e.g. in tests)."""
        with self._lock:
            return len(self._queue) + len(self._urgent)

    @property
    def waiting_urgent(self) -> int:
        """Of those, urgent callers (see :func:`urgent`)."""
        with self._lock:
            return len(self._urgent)

    def _limit(self, urgent_call: bool) -> int:
        return self._max_in_flight + (self._urgent_slots if urgent_call else 0)

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """Rows for ``texts``, from a call of their own or from one merged with other threads' texts."""
        texts = list(texts)
        if len(texts) > self._max_texts or getattr(self._inside, "active", False):
            return self._run(texts)
        call = _Call(texts, _URGENT.get())
        with self._lock:
            # an ordinary call also lets queued urgent callers go first
            if self._running < self._limit(call.urgent) and (call.urgent or not self._urgent):
                self._running += 1
                call.lead = True
            else:
                (self._urgent if call.urgent else self._queue).append(call)
        if not call.lead:
            call.done.wait()
            if call.alone:
                return self._run(texts)
            if not call.lead:  # answered by another thread's merged call
                if call.error is not None:
                    raise call.error
                assert call.rows is not None
                return call.rows
        return self._lead(call)

    def _run(self, texts: list[str]) -> np.ndarray:
        self._inside.active = True
        try:
            return np.asarray(self._fn(texts))
        finally:
            self._inside.active = False

    def _lead(self, own: _Call) -> np.ndarray:
        """Run ``own`` with whatever is queued behind it in its lane, hand out the rows, then pass the
        slot on (to an urgent caller first)."""
        batch = [own]
        size = len(own.texts)
        lane = self._urgent if own.urgent else self._queue
        with self._lock:
            while lane and size + len(lane[0].texts) <= self._max_texts:
                batch.append(lane.popleft())
                size += len(batch[-1].texts)
        try:
            rows = self._run([t for c in batch for t in c.texts])
            if len(batch) == 1:  # a call of its own: its rows as they came (the embedder checks them)
                own.rows = rows
            elif rows.ndim != 2 or rows.shape[0] != size:
                raise InvalidInputError(f"an embedder returned an array of shape {rows.shape} for {size} texts; "
                                        f"expected ({size}, dim)")
            else:
                start = 0
                for c in batch:
                    c.rows = rows[start:start + len(c.texts)].copy()
                    start += len(c.texts)
            failed = False
        except Exception as exc:  # noqa: BLE001 - handed to its owner below
            failed = True
            if len(batch) == 1:
                own.error = exc
        finally:  # even on KeyboardInterrupt: nobody is left waiting
            with self._lock:
                heir = self._heir()
                if heir is not None:
                    heir.lead = True  # keeps the slot this call held
                else:
                    self._running -= 1
            if heir is not None:
                heir.done.set()
            for c in batch[1:]:
                c.alone = c.rows is None  # a failed or interrupted merged call: each caller runs its own
                c.done.set()
        if failed and len(batch) > 1:
            return self._run(own.texts)  # its own error, or its rows if another caller's text failed
        if own.error is not None:
            raise own.error
        assert own.rows is not None
        return own.rows

    def _heir(self) -> _Call | None:
        """Who takes over the slot of a call that ended (lock held): the oldest urgent caller; else
        the oldest ordinary one if the slot is an ordinary one (fewer than ``max_in_flight`` others run)."""
        if self._urgent:
            return self._urgent.popleft()
        if self._queue and self._running - 1 < self._max_in_flight:
            return self._queue.popleft()
        return None
