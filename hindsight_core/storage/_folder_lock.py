"""One process per embedded store folder.

Chroma's embedded ``PersistentClient`` is not process-safe: each process keeps its own HNSW
index in memory and persists it on its own schedule, so a second process on the same folder
reads stale vectors and can overwrite the first one's index files. The supported deployments are
therefore *one process per folder*, or a Chroma server (``chroma run --path DIR``) that any
number of processes reach with :meth:`MemoryEngine.from_http`.

This module enforces the first rule with an advisory ``flock`` on ``<folder>/.hindsight.lock``:
engines of one process share it (reference counted), a second process gets a
:class:`~hindsight_core.errors.StorageError` that says what to do instead. The kernel releases the
lock when the holder exits, even on ``SIGKILL``, so a crashed process never blocks a restart.
"""

from __future__ import annotations

import os
import threading

from hindsight_core.errors import StorageError

__all__ = ["acquire", "release", "holders", "LOCK_NAME"]

LOCK_NAME = ".hindsight.lock"

_held: dict[str, list[int]] = {}  # real folder path -> [fd, refcount]
_guard = threading.Lock()


def acquire(path: str) -> str:
    """Take (or share, within this process) the folder's lock; returns the key for :func:`release`."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory locks; the rule is documented only
        return ""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"could not create the memory store folder {path!r}: {exc}") from exc
    key = os.path.realpath(path)
    with _guard:
        if key in _held:
            _held[key][1] += 1
            return key
        lock_path = os.path.join(key, LOCK_NAME)
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StorageError(f"could not open the lock file {lock_path!r}: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise StorageError(
                f"the memory store at {path!r} is in use by another process (pid {holder}). An embedded store "
                "serves one process at a time: use another folder, or wait until that process has exited. "
                "Do not point a Chroma server at this folder while that process holds it (two writers corrupt "
                "it). To share one store between processes, stop every process using the folder, then serve it "
                "with a Chroma server and open it with MemoryEngine.from_http(host, port) in each process."
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        _held[key] = [fd, 1]
        return key


def release(key: str) -> None:
    """Drop one reference; the lock is released with the last one."""
    if not key:
        return
    with _guard:
        entry = _held.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            del _held[key]
            os.close(entry[0])  # closing the only descriptor releases the flock


def holders(key: str) -> int:
    """How many engines of this process hold the folder's lock (0 when unknown or released)."""
    with _guard:
        entry = _held.get(key)
        return 0 if entry is None else entry[1]
