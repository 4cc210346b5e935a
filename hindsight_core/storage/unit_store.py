"""One bank's store: the only code that changes Chroma and the bank's in-memory indexes together.

A :class:`UnitStore` is the narrow waist between the lifecycle services (capture's write step,
beliefs, consolidation, forgetting, skills, trust, episodes) and storage. Every write goes through
it, so Chroma (the source of truth), the change log other processes read, the live index (dense
vectors, keyword, graph), the bank's revision and a running capture's undo journal stay in step in
one place:

* :meth:`put` new units (with their vectors), :meth:`update` a unit's fields, :meth:`patch` a
  few fields of many units, :meth:`archive` and :meth:`delete` units;
* :meth:`get` / :meth:`get_many` read whole units from Chroma;
* :meth:`read` gives the bank's index under its shared read lock (a consistent view: no write
  is applied while it is held), :meth:`write` under its write lock;
* :attr:`state` is the bank's lifecycle state, :attr:`revision` changes on every write.

Services take ``(store, config)`` and never see :class:`~hindsight_core.bank.MemoryBank` or the
engine: what they need from the engine (the embedder, the chat model, the reflector, the bank's
background queue) comes through a :class:`StoreHost` of plain callables.

Lock order: see :mod:`hindsight_core.storage.rwlock` (the bank lock, then the engine's leaf locks).

Example:
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> bank = engine.bank("alice")
    >>> unit_id = bank.capture("Alice prefers tea.").unit_id
    >>> store = bank.store  # what the lifecycle services work on
    >>> unit = store.get(unit_id)
    >>> store.update(unit.model_copy(update={"confidence": 0.9}))
    >>> with store.read() as view:  # the bank's index under its read lock
    ...     len(view.units), view.units[unit_id].confidence
    (1, 0.9)
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from hindsight_core.errors import InvalidInputError, NotFoundError, StorageError
from hindsight_core.models import MemoryStatus, MemoryUnit
from hindsight_core.read_priority import MAX_DEFER_S, ReadPriority
from hindsight_core.retrieval.context import CONTEXT_KEY, GLOSS_KEY, VECTOR_KEYS, encode_vector
from hindsight_core.storage.codec import fields, from_record, to_indexed, to_record, whole
from hindsight_core.storage.live_index import LiveIndex
from hindsight_core.storage.rwlock import holds_a_bank_lock

__all__ = ["UnitStore", "StoreHost", "Journal"]

log = logging.getLogger("hindsight.storage")

#: A write that keeps finding its bank deleted under it gives up with an error after this many tries.
_DROPPED_RETRIES = 3


def _keep_vectors(units: Sequence[MemoryUnit], records: Sequence[tuple[str, None, dict[str, Any]]],
                  by_key: Mapping[str, Mapping[str, np.ndarray] | None]) -> None:
    """Put the record-only vectors of ``units`` (``{record key: {unit id: vector}}``: a context window,
    a gloss) on their records, encoded; a unit without one gets no key."""
    for unit, (_, _, meta) in zip(units, records):
        for key, vectors in by_key.items():
            if vectors and unit.id in vectors:
                meta[key] = encode_vector(vectors[unit.id])


@dataclass(frozen=True, slots=True)
class StoreHost:
    """What a bank's store needs from its engine, as plain callables (the store never sees the engine).

    Attributes:
        open_index: ``(bank_id, create) -> LiveIndex``: the bank's loaded index (an empty, uncached
            one for a bank that does not exist unless ``create``).
        forget_index: ``(bank_id, index)``: drop a stale index (None: whatever is loaded) so the next
            call loads the bank again.
        embedder: ``() -> Embedder``: the engine's current :class:`~hindsight_core.embeddings.Embedder`.
        submit: ``(bank_id, key, job, block_s, delay_s)``: run ``job`` in the bank's background queue.
        llm: ``() -> chat model or None``: the engine's current chat model (settable later).
        reflector: ``() -> Reflector``: the engine's current reflector.
        after_write: ``(store, config, new units)``, called after each successful capture write
            (the lifecycle triggers: consolidation, the active budget). Injected, so the write step
            does not import the services that themselves store through it.
        reads: The engine's recalls in flight, which writes let go first (see
            :mod:`hindsight_core.read_priority`).
    """

    open_index: Callable[[str, bool], LiveIndex]
    forget_index: Callable[[str, "LiveIndex | None"], None]
    embedder: Callable[[], Any]
    submit: Callable[[str, str, Callable[[], object], "float | None", "float | None"], None]
    llm: Callable[[], Any]
    reflector: Callable[[], Any]
    after_write: Callable[["UnitStore", Any, int], None] = lambda store, config, new: None
    reads: ReadPriority = field(default_factory=ReadPriority)


@dataclass(slots=True)
class Journal:
    """What one write call changed, so a failure can take it back (see :meth:`UnitStore.undo`)."""

    added: dict[str, None]  # new unit ids, in write order (a dict: O(1) membership for big batches)
    changed: dict[str, tuple[str | None, dict[str, Any], Any]]  # unit id -> its record and vector before the call

    @classmethod
    def empty(cls) -> "Journal":
        return cls({}, {})


class UnitStore:
    """The store of one bank (see the module docstring). Cheap to create: state lives on the index."""

    def __init__(self, bank_id: str, host: StoreHost) -> None:
        self.id = bank_id
        self._host = host

    def __repr__(self) -> str:
        return f"UnitStore({self.id!r})"

    # ---- what the engine lends ------------------------------------------------------------------
    @property
    def embedder(self) -> Any:
        """The engine's embedder (services embed goals and digests with it)."""
        return self._host.embedder()

    @property
    def llm(self) -> Any:
        """The engine's chat model for lifecycle judges, or None."""
        return self._host.llm()

    @property
    def reflector(self) -> Any:
        """The engine's reflector (episodes -> lessons)."""
        return self._host.reflector()

    @property
    def read_only(self) -> bool:
        """Whether the store is open read-only (writes raise :class:`StorageError`)."""
        return bool(self.index.store.read_only)

    def submit(self, key: str, job: Callable[[], object], *, block_s: float | None = None,
               delay_s: float | None = None) -> None:
        """Run ``job`` in this bank's background queue (jobs of one bank run in order); ``delay_s``
        defers it (see :meth:`~hindsight_core.lifecycle.background.BackgroundQueue.submit`)."""
        self._host.submit(self.id, key, job, block_s, delay_s)

    @property
    def reads(self) -> ReadPriority:
        """The engine's recalls in flight (recall counts itself with ``reads.reading()``)."""
        return self._host.reads

    def yield_to_reads(self) -> bool:
        """Before a write's model call: let the engine's recalls in flight finish first (see
        :mod:`hindsight_core.read_priority`; its apply step waits in :meth:`write_turn`); whether
        it waited. Never waits while this thread holds a bank lock: a recall may be waiting for it."""
        if holds_a_bank_lock():
            return False
        return self._host.reads.yield_to_reads()

    @contextlib.contextmanager
    def write_turn(self) -> Iterator[None]:
        """Around a write's apply step: the engine's writes apply one at a time, each after the
        recalls in flight (:meth:`ReadPriority.write_turn <hindsight_core.read_priority.ReadPriority.write_turn>`).
        Never waits while this thread holds a bank lock: the turn's holder may be waiting for it.
        On a Chroma server, writes overlap while no recall is in flight: each waits on the network
        with the GIL released, so taking turns then only cost throughput (8 threads capturing on
        8 banks: about 25% fewer captures per second)."""
        reads = self._host.reads
        if holds_a_bank_lock() or (self.index.store.remote and not reads.in_flight):
            yield
            return
        with reads.write_turn():
            yield

    def written(self, config: Any, new: int) -> None:
        """Tell the lifecycle that a capture write stored ``new`` units (see :class:`StoreHost`)."""
        self._host.after_write(self, config, new)

    # ---- the bank's index, lock, revision and state ---------------------------------------------
    @property
    def index(self) -> LiveIndex:
        """The bank's loaded index as it is (see :meth:`current` for one with other processes' writes)."""
        return self._host.open_index(self.id, False)

    def open(self, *, create: bool = False) -> LiveIndex:
        """The bank's loaded index; ``create`` creates the bank first when it does not exist."""
        return self._host.open_index(self.id, create)

    def current(self) -> LiveIndex:
        """The bank's index with every change other processes made taken in (``LiveIndex.catch_up``)."""
        index = self.index
        try:
            index.catch_up()
        except NotFoundError:  # deleted, or dropped and created again, elsewhere: open it afresh
            with index.lock:
                index.dropped = True
            self._host.forget_index(self.id, index)
            index = self.index
            index.catch_up()
        return index

    def forget(self) -> None:
        """Drop what is loaded of this bank: the next call rebuilds its indexes from Chroma (after
        units were written behind the index, e.g. by an import)."""
        self._host.forget_index(self.id, None)

    @contextlib.contextmanager
    def read(self) -> Iterator[LiveIndex]:
        """The bank's index (caught up) under its shared read lock: a view no write changes while held."""
        index = self.current()
        with index.lock.read():
            yield index

    @contextlib.contextmanager
    def write(self, *, create: bool = False) -> Iterator[LiveIndex]:
        """The bank's index with its write lock held (reentrant).

        A bank deleted (or an engine closed) while this thread waited for the lock is found
        ``dropped``: the write goes to the bank as it is now (a fresh one when ``create``).
        """
        for _ in range(_DROPPED_RETRIES):
            index = self._host.open_index(self.id, create)
            outermost = not index.lock.held_by_me()
            index.lock.acquire_write()
            if not index.dropped:
                try:
                    index.catch_up()  # what other processes changed counts (dedup, supersession)
                    break
                except NotFoundError:  # deleted (or dropped and created again) by another process
                    index.dropped = True
                    self._host.forget_index(self.id, index)
            index.lock.release_write()
        else:
            raise StorageError(f"bank {self.id!r} kept being deleted while this write waited; try again")
        if outermost:
            index.write_base = index.revision  # what readers saw (see put)
        try:
            yield index
        finally:
            index.lock.release_write()

    @property
    def revision(self) -> int:
        """A number that changes whenever this process writes to the bank (for caches)."""
        return self.index.revision

    @property
    def state(self) -> Any:
        """The slot for the bank's lifecycle state (``hindsight_core._bank_state``); lives on the index."""
        return self.index.lifecycle_state

    def count(self) -> int:
        """Number of stored units (every status), with other processes' writes."""
        return len(self.current().units)

    # ---- reads ----------------------------------------------------------------------------------
    def get(self, unit_id: str) -> MemoryUnit:
        """The unit with this id, whatever its status.

        Raises:
            NotFoundError: no such unit in this bank.
            InvalidInputError: ``unit_id`` is not a str.
        """
        if not isinstance(unit_id, str):
            raise InvalidInputError(f"unit id must be a str, not {type(unit_id).__name__}")
        index = self.index
        found = index.store.get(index.collection, [unit_id])
        if unit_id not in found:
            raise NotFoundError(f"no memory unit {unit_id!r} in bank {self.id!r}")
        doc, meta, _ = found[unit_id]
        return from_record(unit_id, doc, meta)

    def get_many(self, unit_ids: Iterable[str]) -> list[MemoryUnit]:
        """The units that exist among ``unit_ids``, in the order asked (missing ones are skipped)."""
        ids = list(unit_ids)
        if not ids:
            return []
        index = self.index
        found = index.store.get(index.collection, ids)
        return [from_record(i, found[i][0], found[i][1]) for i in ids if i in found]

    def fields(self, unit_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The stored record fields (Chroma metadata) of the units that exist among ``unit_ids``:
        cheaper than :meth:`get_many` when a counter is all a service reads."""
        index = self.index
        return {i: fields(meta) for i, (_, meta, _) in index.store.get(index.collection, list(unit_ids)).items()}

    def ids(self, *, kind: str | None = None, status: str | None = None) -> list[str]:
        """Ids of the bank's units in insertion order, optionally of one kind and status."""
        with self.read() as index:
            return [u.id for u in sorted(index.units.values(), key=lambda u: u.seq)
                    if (kind is None or u.kind == kind) and (status is None or u.status == status)]

    # ---- writes (each takes the write lock; callers may already hold it) -------------------------
    def put(self, units: Sequence[tuple[MemoryUnit, np.ndarray]], *,
            contexts: Mapping[str, np.ndarray] | None = None, glosses: Mapping[str, np.ndarray] | None = None,
            create: bool = False) -> None:
        """Store units with their vectors: new ones get the next ``seq``, a unit already stored keeps
        its own (its text and vector are replaced). ``contexts`` are context-window vectors by id,
        ``glosses`` the vectors of English glosses (messages in another language) by id."""
        if not units:
            return
        with self.write(create=create) as index:
            records, over = [], []  # over: written over a stored record
            for unit, _ in units:
                known = index.units.get(unit.id)
                records.append(to_record(unit, known.seq if known is not None else index.take_seq()))
                over.append(known is not None)
            _keep_vectors([u for u, _ in units], records, {CONTEXT_KEY: contexts, GLOSS_KEY: glosses})
            ids = [r[0] for r in records]
            journal = index.journal
            if journal is not None:  # before the write: a failed upsert may have stored some
                self._remember(index, journal, [i for i, o in zip(ids, over) if o])
                journal.added.update((i, None) for i, o in zip(ids, over) if not o)
            # Nothing in memory changed yet in this write: recalls may read the index during
            # Chroma's upsert (it holds the GIL throughout, chroma-core/chroma#3873) rather than
            # wait for it; the new units join the index only after it.
            untouched = index.write_base == index.revision
            with index.lock.admit_readers(MAX_DEFER_S) if untouched else contextlib.nullcontext():
                # a record written over a stored one: none of the stored one's fields, nor its document
                # (an older layout's text), may survive the merge
                index.store.upsert(index.collection, ids, ["" if o else r[1] for r, o in zip(records, over)],
                                   [whole(r[2]) if o else r[2] for r, o in zip(records, over)],
                                   np.stack([np.asarray(v, dtype=np.float32) for _, v in units]))
            for (unit_id, doc, meta), (_, vec) in zip(records, units):
                index.add(to_indexed(unit_id, doc, meta), vec)

    def update(self, unit: MemoryUnit) -> None:
        """Persist changed fields of a stored unit (text and vector unchanged); fields that became
        None are removed from the record (``codec.whole``), its context window stays.

        Raises:
            NotFoundError: the unit is not stored in this bank (yet).
        """
        with self.write() as index:
            light = index.units.get(unit.id)
            if light is None:  # merged into a unit of this very batch: not yet written
                raise NotFoundError(f"unit {unit.id!r} is not in bank {self.id!r}")
            if index.journal is not None:
                self._remember(index, index.journal, [unit.id])
            live = index.lifecycle_state.live_activity(unit.id) if index.lifecycle_state is not None else None
            if live is not None:  # recall's counter, not written back yet: the caller read an older value
                unit = unit.model_copy(update={"activity": live})
            unit_id, doc, meta = to_record(unit, light.seq)
            stored = whole(meta)
            for key in VECTOR_KEYS:  # the text is unchanged, and so are its context window and gloss
                del stored[key]
            index.store.update_metadata(index.collection, [unit_id], [stored])
            index.replace(to_indexed(unit_id, doc, meta))

    def patch(self, ids: Sequence[str], fields: Sequence[Mapping[str, Any]]) -> None:
        """Set a few record fields of many units in one write (activity counters), in Chroma only:
        the caller already changed the light records it reads."""
        if not ids:
            return
        with self.write() as index:
            index.store.update_metadata(index.collection, list(ids), [dict(f) for f in fields])

    def archive(self, ids: Sequence[str], *, chunk: int = 5_000) -> None:
        """Move units to the archived tier: status ``archived`` in Chroma, out of the hot indexes."""
        with self.write() as index:
            ids = [i for i in ids if i in index.units]
            for start in range(0, len(ids), chunk):
                part = ids[start:start + chunk]
                index.store.update_metadata(index.collection, part,
                                            [{"status": MemoryStatus.ARCHIVED.value}] * len(part))
            index.archive(ids)

    def delete(self, ids: Sequence[str]) -> None:
        """Hard-delete units: vector, record, keyword and graph entries (and the change-log entry) go."""
        if not ids:
            return
        with self.write() as index:
            index.store.delete(index.collection, list(ids))
            for unit_id in ids:
                index.remove(unit_id)

    # ---- bulk loads (imports) -------------------------------------------------------------------
    def load(self, units: Sequence[MemoryUnit], vectors: np.ndarray,
             glosses: Mapping[str, np.ndarray] | None = None) -> None:
        """Bulk-write units behind the loaded index (an import): each gets the next ``seq`` and goes to
        Chroma only (``glosses`` as in :meth:`put`). Call :meth:`forget` after the last batch: the next
        call rebuilds the indexes, and the links between the units, from Chroma, whatever order they came in."""
        if not units:
            return
        with self.write(create=True) as index:
            records = [to_record(u, index.take_seq()) for u in units]
            _keep_vectors(units, records, {GLOSS_KEY: glosses})
            index.store.upsert(index.collection, [r[0] for r in records], [""] * len(records),  # may replace
                               [whole(r[2]) for r in records], np.asarray(vectors, dtype=np.float32))

    def records(self, unit_ids: Sequence[str]) -> dict[str, tuple[str, dict[str, Any], Any]]:
        """The stored records ``{id: (document, fields, vector)}`` of the units among ``unit_ids``, as
        they are (to put back with :meth:`restore`)."""
        if not unit_ids:
            return {}
        index = self.index
        return index.store.get(index.collection, list(unit_ids), embeddings=True)

    def restore(self, records: Mapping[str, tuple[str, dict[str, Any], Any]]) -> None:
        """Write records from :meth:`records` back as they were (undo of a bulk load); the loaded
        index is dropped, so the next call rebuilds it from Chroma."""
        if not records:
            return
        ids = list(records)
        with self.write(create=True) as index:
            index.store.upsert(index.collection, ids, [records[i][0] for i in ids], [whole(records[i][1]) for i in ids],
                               np.asarray([records[i][2] for i in ids], dtype=np.float32))
        self.forget()

    # ---- all or nothing -------------------------------------------------------------------------
    @contextlib.contextmanager
    def transaction(self, *, create: bool = False) -> Iterator[LiveIndex]:
        """The write lock, with every write journalled: on an error, what the block wrote is undone
        (new units deleted, changed ones restored) before the error propagates."""
        with self.write(create=create) as index:
            if index.journal is not None:  # nested: the outer transaction owns the journal
                yield index
                return
            journal = Journal.empty()
            index.journal = journal
            try:
                yield index
            except BaseException as exc:
                index.journal = None
                self._undo(index, journal, exc)
                raise
            finally:
                index.journal = None

    @staticmethod
    def _remember(index: LiveIndex, journal: Journal, ids: list[str]) -> None:
        todo = [i for i in ids if i not in journal.changed and i not in journal.added]
        if todo:
            before = index.store.get(index.collection, todo, embeddings=True)  # a rewrite changes the vector
            for unit_id in todo:
                if unit_id in before:
                    journal.changed[unit_id] = before[unit_id]

    def _undo(self, index: LiveIndex, journal: Journal, exc: BaseException) -> None:
        """Take back what a failed transaction wrote (write lock held). If the store refuses even the
        undo (a full disk), the index is reloaded from Chroma so it shows exactly what is stored."""
        if not journal.added and not journal.changed:
            return
        try:
            if journal.added:
                index.store.delete(index.collection, list(journal.added))
                for unit_id in journal.added:
                    index.remove(unit_id)
            if journal.changed:
                ids = list(journal.changed)
                before = [journal.changed[i] for i in ids]
                index.store.upsert(index.collection, ids, [b[0] for b in before], [whole(b[1]) for b in before],
                                   np.asarray([b[2] for b in before], dtype=np.float32))
                for unit_id, (doc, meta, vector) in zip(ids, before):
                    index.replace(to_indexed(unit_id, doc, meta), vector=vector)
        except Exception as undo_exc:  # noqa: BLE001 - the store refuses even the undo (full disk)
            log.error("undo of a failed write to bank %s failed (%s); reloading it from Chroma", self.id, undo_exc)
            try:
                index.reload()
            except Exception:  # noqa: BLE001 - the next call on this bank reloads it
                index.dropped = True
                self._host.forget_index(self.id, index)
            if isinstance(exc, StorageError):
                exc.args = (f"{exc.args[0] if exc.args else exc} The undo failed too ({undo_exc}): part of this "
                            "call may be stored; this bank's index was reloaded from Chroma, so recall shows "
                            "exactly what is stored.",)
