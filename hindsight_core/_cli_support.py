"""Helpers of the ``hindsight`` command line: opening the store safely, resolving ids, atomic writes.

Kept apart from ``cli.py`` (which parses arguments and prints) so each reads in one sitting.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Any, Iterator

from hindsight_core.errors import InvalidInputError, NotFoundError, StorageError

__all__ = ["atomic_output", "embedder_spec", "is_store", "open_engine", "resolve_unit_id"]

STORE_MARKER = "chroma.sqlite3"  # what an embedded Chroma folder always holds
SHOWN_ID_CHARS = 12  # ids printed in tables; any unique prefix is accepted back


def is_store(path: str) -> bool:
    """True when ``path`` is a folder holding an embedded store."""
    return os.path.isfile(os.path.join(path, STORE_MARKER))


def embedder_spec(value: str | None) -> Any:
    """``--embedder``: None (the bundled all-MiniLM-L6-v2), ``hash`` / ``hash:DIM`` (a deterministic,
    model-free embedder for trying things out), or a sentence-transformers model name or local folder."""
    if value is None:
        return None
    name, _, dim = value.partition(":")
    if name == "hash":
        from hindsight_core.testing import HashEmbedder

        if dim and not dim.isdigit():
            raise InvalidInputError(f"--embedder hash:DIM wants a whole number of dimensions, not {dim!r}")
        return HashEmbedder(int(dim)) if dim else HashEmbedder()
    return value


def open_engine(args: Any, *, writes: bool) -> Any:
    """The engine for ``--path`` / ``--http``, refusing to turn a folder that is not a store into one.

    A missing folder is created only by commands that write (``writes``); an existing folder that is not
    a store is used only when it is empty and the command writes, or with ``--create``.
    """
    from hindsight_core.engine import MemoryEngine

    embedder = embedder_spec(args.embedder)
    if args.http:
        host, _, port = args.http.rpartition(":")
        if not host or not port.isdigit():
            raise InvalidInputError(f"--http wants HOST:PORT, e.g. localhost:8000, not {args.http!r}")
        return MemoryEngine.from_http(host, int(port), embedder=embedder)
    path = args.path
    if os.path.exists(path) and not os.path.isdir(path):
        raise InvalidInputError(f"--path {path!r} is a file; give the folder of a store")
    if not is_store(path):
        if not os.path.exists(path):
            if not (writes or args.create):
                raise NotFoundError(f"no memory store at {path!r}; pass --path to an existing store "
                                    "(`hindsight demo` makes one at the default path)")
        elif os.listdir(path) and not args.create:
            raise InvalidInputError(f"{path!r} is a folder but not a hindsight store (it has no {STORE_MARKER}); "
                                    "pass --path to a store, or add --create to make a new store in this folder")
        elif not (writes or args.create):
            raise NotFoundError(f"no memory store at {path!r} (an empty folder); pass --path to an existing "
                                "store, or add --create to make one here")
    engine = MemoryEngine(path, embedder=embedder)
    return _with_the_banks_embedder(engine, args, lambda spec: MemoryEngine(path, embedder=spec))


def _with_the_banks_embedder(engine: Any, args: Any, reopen: Any) -> Any:
    """Without ``--embedder``, a bank made with another embedder is read with that one (when this
    installation can load it): ``hindsight stats BANK`` works on every bank ``hindsight banks`` lists."""
    bank = getattr(args, "bank", None)
    if args.embedder is not None or not isinstance(bank, str) or not is_store(args.path):
        return engine
    recorded = next((b["embedder"] for b in engine.store.describe_banks() if b["bank"] == bank), None)
    if not recorded or recorded == engine.embedder.name:
        return engine
    engine.close()
    name, _, dim = recorded.partition("-")
    return reopen(embedder_spec(f"hash:{dim}" if name == "hash" and dim.isdigit() else recorded))


def resolve_unit_id(bank: Any, given: str) -> str:
    """The full id of the unit ``given`` names: the id itself or a unique prefix of it (tables show
    the first 12 characters)."""
    index = bank.store.index  # the CLI inspects the loaded index, as ``stats`` does
    index.catch_up()
    if given in index.units:
        return given
    matches = sorted(i for i in index.units if i.startswith(given)) if given else []
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        shown = ", ".join(matches[:5]) + (f" and {len(matches) - 5} more" if len(matches) > 5 else "")
        raise InvalidInputError(f"id prefix {given!r} matches {len(matches)} units in bank {bank.id!r} ({shown}); "
                                "give more characters of the id")
    raise NotFoundError(f"no memory unit {given!r} in bank {bank.id!r}; `hindsight recall {bank.id} QUERY` "
                        "shows unit ids (or `hindsight export` lists them all)")


@contextlib.contextmanager
def atomic_output(path: str) -> Iterator[str]:
    """Yield a temporary file name beside ``path`` (same extension); on success it is renamed onto ``path``.

    A failed write (read-only folder, full disk, interruption) leaves no partial file: the old file, if
    any, is untouched and the temporary one is removed.
    """
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise InvalidInputError(f"cannot write {path!r}: it is a folder; give a file name, e.g. {path.rstrip('/')}/out")
    if not os.path.isdir(folder):
        raise InvalidInputError(f"cannot write {path!r}: the folder {folder!r} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp" + os.path.splitext(path)[1],
                                   dir=folder)
        os.close(fd)
    except OSError as exc:
        raise StorageError(f"cannot write {path!r}: {exc.strerror or exc}; choose a writable folder") from None
    try:
        yield tmp
        os.replace(tmp, path)
    except OSError as exc:
        raise StorageError(f"could not write {path!r}: {exc.strerror or exc}. Nothing was written; free some "
                           "space or choose another folder") from None
    finally:
        with contextlib.suppress(OSError):
            os.remove(tmp)
