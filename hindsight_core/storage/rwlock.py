"""A reentrant readers-writer lock: the one lock of a bank.

Lock order of the engine (documented once, here; every module follows it):

1. ``BankLock`` of one bank (this class), write or read side; taken through the bank's
   :class:`~hindsight_core.storage.unit_store.UnitStore` (``store.read()``, ``store.write()``,
   ``store.transaction()`` and every write method), the one owner of a bank's state;
2. the engine's registry lock (``MemoryEngine._lock``): a *leaf*, held only for dict look-ups and
   never while waiting for anything else, so it can be taken under a bank lock;
3. a bank's load lock (``MemoryEngine._load_locks``) is taken without any other lock held;
4. waits that are not locks, and so never hold one up: a write step waiting for the engine's
   recalls in flight, or for its turn among the engine's writes (:mod:`hindsight_core.read_priority`;
   the turn is taken before the bank lock), only waits while its thread holds no bank lock
   (:func:`holds_a_bank_lock`), and at most ``MAX_DEFER_S`` each; an embedding call waiting
   for its lane (:mod:`hindsight_core.embed_batching`) waits only for model calls, which take no
   bank lock, so it closes no cycle.

Nothing takes a bank lock while it holds the registry lock, and no thread holds two banks'
locks. Recalls take the read side (they share it: they never wait for each other, nor for a
capture while it embeds, nor for its storage write, only for the short in-memory part of its apply
step: see :meth:`BankLock.admit_readers`); writes take the write side.

``with lock:`` is the write side, reentrant, so code written for an ``RLock`` keeps working.
A thread that holds the write side may take the read side too; a thread that holds only the read
side must not ask for the write side (it would wait for itself): :meth:`acquire_write` raises
``RuntimeError`` instead of deadlocking.

Example:
    >>> lock = BankLock()
    >>> with lock.read():
    ...     with lock.read():  # reentrant
    ...         pass
    >>> with lock:
    ...     with lock.read():  # a writer may read
    ...         pass
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Iterator

__all__ = ["BankLock", "holds_a_bank_lock"]

_held = threading.local()  # how many bank-lock holds (either side, counting re-entries) this thread has


def _count(delta: int) -> None:
    _held.n = getattr(_held, "n", 0) + delta


def holds_a_bank_lock() -> bool:
    """Whether this thread holds any bank's lock, either side (a write step then must not wait for
    recalls: one may be waiting for this very lock; see ``read_priority``)."""
    return getattr(_held, "n", 0) > 0


class BankLock:
    """Many readers or one (reentrant) writer; waiting writers go before new readers."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers: dict[int, int] = {}  # thread id -> read depth
        self._writer: int | None = None
        self._write_depth = 0
        self._writers_waiting = 0
        self._admitting = False  # the writer lets readers in (admit_readers)

    # ---- write side ----------------------------------------------------------------------------
    def acquire_write(self) -> None:
        me = threading.get_ident()
        with self._cond:
            if self._writer == me:
                self._write_depth += 1
                _count(1)
                return
            if me in self._readers:
                raise RuntimeError("a bank's read lock cannot be upgraded to its write lock; "
                                   "take the write lock first")
            self._writers_waiting += 1
            try:
                while self._writer is not None or self._readers:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._writer, self._write_depth = me, 1
            _count(1)

    def release_write(self) -> None:
        with self._cond:
            if self._writer != threading.get_ident():
                raise RuntimeError("release of a bank write lock this thread does not hold")
            self._write_depth -= 1
            _count(-1)
            if self._write_depth == 0:
                self._writer = None
                self._cond.notify_all()

    def acquire(self, blocking: bool = True) -> bool:
        """The write side, ``RLock``-style: with ``blocking=False`` only if no one else holds
        either side (the bank cache asks this way whether a bank is idle)."""
        if blocking:
            self.acquire_write()
            return True
        me = threading.get_ident()
        with self._cond:
            if self._writer == me:
                self._write_depth += 1
                _count(1)
                return True
            if self._writer is not None or self._readers or self._writers_waiting:
                return False
            self._writer, self._write_depth = me, 1
            _count(1)
            return True

    def release(self) -> None:
        """Release the write side (``RLock``-style twin of :meth:`acquire`)."""
        self.release_write()

    def __enter__(self) -> "BankLock":
        self.acquire_write()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release_write()

    # ---- read side -----------------------------------------------------------------------------
    def acquire_read(self) -> None:
        me = threading.get_ident()
        with self._cond:
            if self._writer == me or me in self._readers:  # reentrant, and a writer may read
                self._readers[me] = self._readers.get(me, 0) + 1
                _count(1)
                return
            while (self._writer is not None or self._writers_waiting) and not self._admitting:
                self._cond.wait()
            self._readers[me] = 1
            _count(1)

    def release_read(self) -> None:
        me = threading.get_ident()
        with self._cond:
            depth = self._readers.get(me, 0)
            if depth <= 0:
                raise RuntimeError("release of a bank read lock this thread does not hold")
            _count(-1)
            if depth == 1:
                del self._readers[me]
                self._cond.notify_all()
            else:
                self._readers[me] = depth - 1

    @contextmanager
    def read(self) -> Iterator[None]:
        """Hold the read side for the block."""
        self.acquire_read()
        try:
            yield
        finally:
            self.release_read()

    @contextmanager
    def admit_readers(self, drain_s: float) -> Iterator[None]:
        """The writer (this thread) lets readers take the read side for the block, while it keeps
        other writers out; before the block ends it waits until those readers are done.

        For a write's slow storage call made while the in-memory state is still exactly as readers
        last saw it (a capture's Chroma upsert, which holds the GIL for several milliseconds
        and, on a busy machine, tens): recalls that arrive meanwhile read that state instead of
        waiting for the whole call. After the block, readers are still let in until none is
        inside, for at most ``drain_s`` (the store passes ``read_priority.MAX_DEFER_S``, the
        longest a write step defers to recalls); then new readers wait for the writer as usual.
        """
        me = threading.get_ident()
        with self._cond:
            if self._writer != me:
                raise RuntimeError("only the thread holding a bank's write lock can admit readers")
            nested = self._admitting  # the outer block admits them already, and closes the door
            self._admitting = True
            self._cond.notify_all()
        if nested:
            yield
            return
        try:
            yield
        finally:
            with self._cond:
                # Readers keep coming in until none is left inside, for at most ``drain_s``: the
                # state they read is still untouched, and a recall that arrived now would otherwise
                # wait for every reader already in, then for the writer's in-memory step.
                deadline = time.monotonic() + drain_s
                while self._other_readers(me) and (left := deadline - time.monotonic()) > 0:
                    self._cond.wait(left)
                self._admitting = False
                while self._other_readers(me):  # the door is shut: wait for those still inside
                    self._cond.wait()

    def _other_readers(self, me: int) -> bool:
        return any(reader != me for reader in self._readers)

    def held_by_me(self) -> bool:
        """Whether this thread holds either side (for assertions and re-entry checks)."""
        me = threading.get_ident()
        with self._cond:
            return self._writer == me or me in self._readers
