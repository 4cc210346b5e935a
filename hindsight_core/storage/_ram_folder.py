"""The folder in RAM behind an in-memory store (``MemoryEngine.ephemeral``).

Why not Chroma's own in-memory client: every ``chromadb.EphemeralClient`` of a process shares one
Rust core (its system identifier is the constant ``"ephemeral"``) that is never stopped while any
client holds it, and that core keeps the HNSW index of every collection it ever loaded in an LRU of
``RLIMIT_NOFILE // 5`` entries, deleted collections included (chromadb 1.5.9; upstream
chroma-core/chroma#3336, #3486). Measured here: RSS grew by about 2.6 MB for each bank an in-memory
engine deleted, and for each bank of every in-memory engine closed, and never came back (400
engines opened, written and closed one after another: 127 -> 1,152 MB). The bound an embedded
folder uses (``storage/_chroma_cache.py``) cannot apply there: an evicted in-memory index is lost.

So an in-memory store is an embedded store in a private folder on a RAM file system
(``/dev/shm``): its own Chroma core, stopped when the engine closes, and the folder's bounded LRU
(its indexes are whole on "disk" after every write, so evicting one loses nothing). The same 400
engines: 127 -> 156 MB. Nothing of it outlives the process on purpose: the folder is removed when
the store closes or is collected, and folders of processes that died without closing are removed
by the next in-memory store opened on the machine. Where no such file system has room
(:data:`MIN_FREE_BYTES`), e.g. macOS or a container with a 64 MB ``/dev/shm``, :func:`create`
returns None and the store falls back to Chroma's in-memory client.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from typing import Any

__all__ = ["MIN_FREE_BYTES", "ROOT", "available", "create", "remove"]

log = logging.getLogger("hindsight.storage")

#: The RAM file system tried; an in-memory store needs it writable with this much room free.
ROOT = "/dev/shm"
MIN_FREE_BYTES = 512 * 2**20
_PREFIX = "hindsight-mem-"


def available(root: str = ROOT) -> bool:
    """Whether ``root`` is a writable RAM file system (Linux) with :data:`MIN_FREE_BYTES` free."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return shutil.disk_usage(root).free >= MIN_FREE_BYTES and os.access(root, os.W_OK)
    except OSError:
        return False


def create(root: str = ROOT) -> str | None:
    """A new private folder under ``root`` (a RAM file system), or None where there is none with room."""
    if not available(root):
        return None
    try:
        _remove_orphans(root)
        return tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=root)
    except OSError as exc:
        log.debug("no RAM folder for an in-memory store under %s (%s)", root, exc)
        return None


def remove(folder: str, owner: int | None = None, client: Any = None) -> None:
    """Remove ``folder`` and what it holds (best effort: it may be gone already), after closing
    ``client``, the Chroma client on it (which stops its core); with ``owner``, only in that process
    (a forked child exiting must not remove its parent's store)."""
    if owner is not None and owner != os.getpid():
        return
    if client is not None:
        try:
            client.close()
        except Exception:  # noqa: BLE001 - best effort: at exit Chroma may be half torn down
            pass
    shutil.rmtree(folder, ignore_errors=True)


def _remove_orphans(root: str) -> None:
    """Remove the folders of processes that ended without closing their in-memory stores."""
    for name in os.listdir(root):
        if not name.startswith(_PREFIX):
            continue
        pid = name[len(_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            remove(os.path.join(root, name))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive, and not ours to clean
        return True
    return True
