"""The per-bank in-memory index, rebuilt from Chroma when a bank is opened.

It implements :class:`~hindsight_core.retrieval.types.BankIndex`: light unit records, the keyword
index, the graph index and the vectors. Chroma stays the source of truth: the index can always
be thrown away and rebuilt by :meth:`LiveIndex.load`.

Units are split in two tiers. The *hot* tier is everything recall may return by default (active
units, and drafts and superseded beliefs when asked); its vectors sit in an exact in-memory
:class:`~hindsight_core.retrieval.vectors.VectorSet` and its words in the main keyword index.
*Archived* units (forgotten over the active budget) keep their light record and graph links but
move to a cold keyword index and a plain vector table, so a bank that archives most of what it
holds searches only what it keeps active; ``recall(include_archived=True)`` searches both tiers.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

from hindsight_core.retrieval.types import IndexedUnit
from hindsight_core.retrieval.vectors import VectorSet
from hindsight_core.storage._unit_columns import from_columns, to_columns
from hindsight_core.storage.chroma_store import LOG_WINDOW_NS, ChromaStore
from hindsight_core.storage.codec import to_indexed
from hindsight_core.storage.graph import GraphIndex
from hindsight_core.storage.keyword import KeywordIndex
from hindsight_core.storage.rwlock import BankLock

__all__ = ["LiveIndex", "EXACT_LIMIT"]

#: Up to this many hot units dense search is exact and in memory (one mat-vec product, ~2 ms at
#: 20k x 384 on one core); beyond it Chroma's HNSW index answers, over-fetched past archived units.
EXACT_LIMIT = 20_000
_MAX_FETCH = 2_000
_ARCHIVED = "archived"


class LiveIndex:
    """In-memory view of one bank.

    Callers hold ``lock`` (a :class:`~hindsight_core.storage.rwlock.BankLock`) around reads and
    writes: ``with index.lock.read():`` to read, ``with index.lock:`` to change it. ``dropped`` is
    set (under the write lock) when the bank is deleted or the engine closed: a writer that finds
    it set after taking the lock must not write, and asks the engine for the bank again.
    """

    def __init__(self, store: ChromaStore, collection: Any, dim: int) -> None:
        self.store = store
        self.collection = collection
        self.dim = dim
        self.units: dict[str, IndexedUnit] = {}
        self.keyword = KeywordIndex()  # hot units
        self.cold_keyword = KeywordIndex()  # archived units
        self.graph = GraphIndex()
        self._hot = VectorSet(dim)
        self._cold: dict[str, np.ndarray] = {}
        self._cited_by: dict[str, set[str]] = {}  # unit id -> units whose evidence names it
        self.drafts: set[str] = set()  # ids of draft units (corroboration candidates)
        self.directives: set[str] = set()  # ids of active directives (returned with every recall)
        self.next_seq = 0
        self.revision = 0  # bumped on every change, so callers can cache reads
        self.write_base = -1  # the revision when the current outermost write began (UnitStore.write)
        self._speakers: tuple[int, frozenset[str]] = (-1, frozenset())  # (revision, speakers)
        self.lock = BankLock()
        self.dropped = False
        self.journal: Any = None  # the running capture's undo journal (set under the write lock)
        self.lifecycle_state: Any = None  # the bank's lifecycle counters (hindsight_core._bank_state)
        self.cursor = 0  # newest change-log time seen (ns); see catch_up
        self._applied: dict[str, int] = {}  # unit id -> change-log time already taken in
        # Units whose vector this index took from a writer, not from Chroma. Chroma stores a cosine
        # collection's vectors re-normalised, which can move a component by an ulp, so a snapshot
        # reads these back from Chroma and equals a rebuild bit for bit.
        self._unsynced: set[str] = set()
        #: How :meth:`load` filled the index: ``"snapshot"``, ``"chroma"`` (rebuilt) or ``""`` (not loaded).
        self.source = ""

    # ---- BankIndex protocol ---------------------------------------------------------------------
    def dense_search(self, vector: np.ndarray, n: int, *, archived: bool = False) -> list[tuple[str, float]]:
        """Top ``n`` hot units by cosine, best first; with ``archived``, archived units compete too."""
        return self.dense_search_many(np.asarray(vector, dtype=np.float32).reshape(1, -1), n, archived=archived)[0]

    def dense_search_many(self, vectors: np.ndarray, n: int, *, archived: bool = False) -> list[list[tuple[str, float]]]:
        """:meth:`dense_search` for each row of ``vectors``."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if not archived and len(self._hot) <= EXACT_LIMIT:
            return [self._hot.search(v, n) for v in vectors]
        allowed = len(self.units) if archived else len(self._hot)
        if allowed == 0 or n <= 0:
            return [[] for _ in range(len(vectors))]
        # HNSW holds every unit: ask for enough that n allowed ones are likely among them
        fetch = min(n * -(-len(self.units) // allowed), max(n, _MAX_FETCH))
        rows = self.store.query_many(self.collection, vectors, fetch)
        # a unit another process is still writing is not in this index yet
        keep = self.units if archived else self._hot
        return [[(i, s) for i, s in row if i in keep][:n] for row in rows]

    def vectors(self, ids: Sequence[str]) -> np.ndarray:
        if not ids:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._cold:
            return np.stack([self._hot.get(i) if i in self._hot else self._cold[i] for i in ids])
        return self._hot.rows(ids)  # one gather; a recall asks for a few hundred rows, twice

    def keyword_search(self, query: str, n: int, *, archived: bool = False, ties: bool = False) -> list[tuple[str, float]]:
        """BM25 over hot units; with ``archived``, the cold index's hits are merged in by score
        (``ties`` as in :meth:`KeywordIndex.search`: the hits tied with the ``n``-th come too)."""
        hits = self.keyword.search(query, n, ties=ties)
        if archived and len(self.cold_keyword):
            merged = sorted(hits + self.cold_keyword.search(query, n, ties=ties), key=lambda h: -h[1])
            hits = [h for h in merged if h[1] >= merged[min(n, len(merged)) - 1][1]] if ties else merged[:n]
        return hits

    # ---- maintenance ----------------------------------------------------------------------------
    def load(self, restore: Callable[["LiveIndex"], bool] | None = None) -> "LiveIndex":
        """Fill the index: by ``restore(self)`` when given and it returns True (a fresh snapshot,
        see :mod:`hindsight_core.storage.snapshot`), otherwise rebuilt from Chroma."""
        if self.collection is not None:
            self.cursor = time.time_ns()
        if self.collection is not None and self.store.may_change_elsewhere:  # what a scan or snapshot already holds
            recent = self.store.changes(self.collection, self.cursor - LOG_WINDOW_NS)
            self._applied = {i: ts for i, ts, _, _ in recent}
            self.cursor = max([self.cursor] + list(self._applied.values()))
        if restore is not None and restore(self):
            self.source = "snapshot"
            return self
        self.source = "chroma"
        return self.rebuild()

    def rebuild(self) -> "LiveIndex":
        """Rebuild everything from Chroma, the source of truth (what every open did before snapshots)."""
        records = [
            (to_indexed(i, doc, meta), emb) for i, doc, meta, emb in self.store.scan(self.collection, embeddings=True)
        ]
        records.sort(key=lambda r: r[0].seq)
        for unit, emb in records:
            self._add(unit, np.asarray(emb, dtype=np.float32), link=False)
        for unit, _ in records:  # links after all nodes exist, whatever the order they were written in
            self._link(unit)
        return self

    def export_columns(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Everything derived from the bank's records as (JSON-able values, flat numpy arrays), for
        :mod:`hindsight_core.storage.snapshot`; the caller holds ``lock``. Plain data only: no
        per-unit objects, so loading it back costs a few bulk conversions, not an unpickler's walk.

        The state is laid out as :meth:`rebuild` lays out the same records: units, vector rows and
        keyword slots in ``seq`` order, links added after every node, vectors as Chroma holds them
        (see ``_unsynced``). The live index differs only in order (units written later, or rewritten,
        come last), which decides ties: so a bank opened from a snapshot answers exactly as a rebuilt
        one. Nothing is tokenized again and the light records are not copied.
        """
        ordered = sorted(self.units.values(), key=lambda u: u.seq)
        code = {u.id: i for i, u in enumerate(ordered)}
        hot = [u.id for u in ordered if u.status != _ARCHIVED]
        cold = [u.id for u in ordered if u.status == _ARCHIVED]
        stored = self.store.get(self.collection, [i for i in self._unsynced if i in self.units], embeddings=True)
        vectors = self.vectors(hot + cold)
        for row, unit_id in enumerate(hot + cold):
            if unit_id in stored:
                vectors[row] = np.asarray(stored[unit_id][2], dtype=np.float32)
        canon = LiveIndex(self.store, self.collection, self.dim)  # the graph and links, as rebuild() adds them
        canon.units = self.units
        canon.graph = self.graph.reordered(code)
        for unit in ordered:
            canon._link(unit)
        meta: dict[str, Any] = {}
        arrays: dict[str, np.ndarray] = {}

        def put(prefix: str, part: tuple[dict[str, Any], dict[str, np.ndarray]]) -> None:
            meta[prefix] = part[0]
            arrays.update((f"{prefix}.{name}", value) for name, value in part[1].items())

        put("units", to_columns(ordered))
        put("keyword", self.keyword.export_columns(hot))
        put("cold_keyword", self.cold_keyword.export_columns(cold))
        put("graph", canon.graph.export_columns(code))
        put("vectors", ({"cold": cold}, {"hot_unit": np.asarray([code[i] for i in hot], dtype=np.int64),
                                         "hot": vectors[:len(hot)], "cold": vectors[len(hot):]}))
        meta["index"] = {"cited_by": [[i, list(by)] for i, by in canon._cited_by.items()],
                         "drafts": [u.id for u in ordered if u.status == "draft"],
                         "directives": [u.id for u in ordered if u.kind == "directive" and u.status == "active"],
                         "next_seq": self.next_seq}
        return meta, arrays

    def import_columns(self, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        """Install what :meth:`export_columns` gave (the caller checked it is this bank's, and holds
        ``lock``); bumps :attr:`revision`. Raises ``KeyError``/``ValueError``/``TypeError`` on a
        malformed state, leaving the index as it was."""
        def part(prefix: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
            head = prefix + "."
            return meta[prefix], {k[len(head):]: v for k, v in arrays.items() if k.startswith(head)}

        units = from_columns(*part("units"))
        ids = [u.id for u in units]
        keyword = KeywordIndex.from_columns(*part("keyword"))
        cold_keyword = KeywordIndex.from_columns(*part("cold_keyword"))
        graph = GraphIndex.from_columns(*part("graph"), ids)
        vec_meta, vec = part("vectors")
        hot = VectorSet.from_rows([ids[i] for i in vec["hot_unit"].tolist()], vec["hot"])
        if hot.dim != self.dim or (len(vec_meta["cold"]) and vec["cold"].shape[1] != self.dim):
            raise ValueError(f"vectors of dimension {hot.dim}, not {self.dim}")
        cold_rows = vec["cold"] if vec["cold"].flags.writeable else np.array(vec["cold"], dtype=np.float32)
        cold = dict(zip(vec_meta["cold"], cold_rows))
        rest = meta["index"]
        self.units = dict(zip(ids, units))
        self.keyword, self.cold_keyword, self.graph, self._hot, self._cold = keyword, cold_keyword, graph, hot, cold
        self._cited_by = {i: set(by) for i, by in rest["cited_by"]}
        self.drafts, self.directives = set(rest["drafts"]), set(rest["directives"])
        self.next_seq = int(rest["next_seq"])
        self._unsynced = set()
        self.revision += 1

    def catch_up(self) -> int:
        """Take in what other engines changed in this bank since it was loaded (on a server, or a
        folder two engines of this process share); returns how many units changed.

        Every write is recorded in the bank's change log in Chroma (one entry per unit: last time
        written or deleted), so a new unit, a superseded, invalidated or archived one
        and a deletion are all seen, whatever the count. Free when no one else can write; else one
        small log query, and only the changed units are read.

        Raises:
            NotFoundError: the bank was deleted (or dropped and created again) elsewhere; the
                engine then drops this index and opens the bank afresh.
        """
        if self.collection is None or not self.store.may_change_elsewhere:
            return 0
        rows = self.store.changes(self.collection, self.cursor - LOG_WINDOW_NS)
        with self.lock:
            if rows:
                self.cursor = max(self.cursor, max(ts for _, ts, _, _ in rows))
            # this engine's own entries too: the log keeps one entry per unit, so a later write of
            # ours may have replaced another writer's entry for the same unit (read the record again)
            fresh = {i: (ts, op) for i, ts, op, _ in rows if self._applied.get(i) != ts}
            horizon = self.cursor - 2 * LOG_WINDOW_NS
            if len(self._applied) > 10_000:  # forget entries no query can return again
                self._applied = {i: ts for i, ts in self._applied.items() if ts > horizon}
            if not fresh:
                return 0
            self._applied.update((i, ts) for i, (ts, _) in fresh.items())
            found = self.store.get(self.collection, [i for i, (_, op) in fresh.items() if op != "delete"],
                                   embeddings=True)
            for unit_id in fresh:
                if unit_id not in found:
                    self.remove(unit_id)
            changed = sorted(((to_indexed(i, doc, meta), emb) for i, (doc, meta, emb) in found.items()),
                             key=lambda r: r[0].seq)
            for unit, emb in changed:
                self._add(unit, np.asarray(emb, dtype=np.float32), link=False)
            for unit, _ in changed:
                self._link(unit)
                for citing in self._cited_by.get(unit.id, ()):  # units that cite it (or arrived first)
                    if citing in self.units:
                        self.graph.link(citing, unit.id, "evidence")
            return len(fresh)

    def catch_up_since(self, since_ns: int) -> int:
        """:meth:`catch_up` on every change-log entry newer than ``since_ns``: for an index just
        restored from a snapshot whose bank state was read at ``since_ns`` (``storage/chroma_snapshot.py``);
        afterwards the cursor is where :meth:`load` left it. Returns how many units changed."""
        with self.lock:
            loaded = self.cursor
            self._applied = {}  # re-read every entry since the snapshot, also those load() saw
            self.cursor = since_ns + LOG_WINDOW_NS  # catch_up reads from cursor - LOG_WINDOW_NS
        try:
            return self.catch_up()
        finally:
            with self.lock:
                self.cursor = max(self.cursor, loaded)

    def reload(self) -> "LiveIndex":
        """Throw away what is in memory and load the bank again from Chroma (write lock held)."""
        self.clear()
        self.next_seq = 0
        return self.load()

    def clear(self) -> None:
        """Forget everything in memory (the bank was deleted); the caller holds the write lock."""
        self.units.clear()
        self.keyword = KeywordIndex()
        self.cold_keyword = KeywordIndex()
        self.graph = GraphIndex()
        self._hot = VectorSet(self.dim)
        self._cold.clear()
        self._cited_by.clear()
        self.drafts.clear()
        self.directives.clear()
        self._unsynced.clear()
        self.revision += 1

    def take_seq(self) -> int:
        seq = self.next_seq
        self.next_seq += 1
        return seq

    def speakers(self) -> frozenset[str]:
        """The lower-cased speakers of the bank's units; recomputed only after a change, since recall
        asks on every call and a scan costs O(units).

        Safe without the bank's lock, so a recall plans its query without waiting for a capture's
        write step: the units are copied in one C-level call (no other thread runs during it), and
        the answer is labelled with the revision read *before* that copy, so a write that lands in
        between makes the next call scan again rather than keep a stale answer."""
        revision = self.revision
        seen, names = self._speakers
        if seen != revision:
            units = list(self.units.values())
            names = frozenset(u.speaker.lower() for u in units if u.speaker)
            self._speakers = (revision, names)
        return names

    def add(self, unit: IndexedUnit, vector: np.ndarray) -> None:
        """A unit this engine wrote (``vector`` as the embedder gave it; see ``_unsynced``)."""
        self._add(unit, vector, link=True)
        self._unsynced.add(unit.id)

    def _add(self, unit: IndexedUnit, vector: np.ndarray, *, link: bool) -> None:
        if unit.id in self.units:
            self._drop(unit.id)
        self.units[unit.id] = unit
        self.revision += 1
        if unit.status == _ARCHIVED:
            self._cold[unit.id] = np.asarray(vector, dtype=np.float32)
            self.cold_keyword.add(unit.id, unit.text)
        else:
            self._hot.add(unit.id, vector)
            self.keyword.add(unit.id, unit.text)
        if unit.status == "draft":
            self.drafts.add(unit.id)
        if unit.kind == "directive" and unit.status == "active":
            self.directives.add(unit.id)
        self.graph.add(unit)
        self.next_seq = max(self.next_seq, unit.seq + 1)
        if link:
            self._link(unit)

    def archive(self, ids: Sequence[str]) -> None:
        """Move units to the archived tier (their status is already ``archived`` in Chroma)."""
        for unit_id in ids:
            unit = self.units.get(unit_id)
            if unit is None or unit.status == _ARCHIVED:
                continue
            unit.status = _ARCHIVED  # the light record; graph links stay as they are
            self._cold[unit_id] = self._hot.get(unit_id).copy()
            self._hot.discard(unit_id)
            self.keyword.remove(unit_id)
            self.cold_keyword.add(unit_id, unit.text)
            self.drafts.discard(unit_id)
            self.directives.discard(unit_id)
        self.revision += 1

    def _link(self, unit: IndexedUnit) -> None:
        for source_id in unit.evidence_ids:
            self._cited_by.setdefault(source_id, set()).add(unit.id)
            if source_id in self.units:
                self.graph.link(unit.id, source_id, "evidence")

    def replace(self, unit: IndexedUnit, *, vector: np.ndarray | None = None) -> None:
        """Metadata changed (status, confidence...): the vector stays, unless ``vector`` is given (an
        undo puts a rewritten unit back)."""
        vector = self.vectors([unit.id])[0] if vector is None else np.asarray(vector, dtype=np.float32)
        before = self.units.get(unit.id)
        if before is not None:  # a metadata rewrite keeps the context window and the gloss's vector
            unit.context = before.context if unit.context is None else unit.context
            unit.gloss = before.gloss if unit.gloss is None else unit.gloss
        self._drop(unit.id)
        self.add(unit, vector)
        for citing in self._cited_by.get(unit.id, ()):  # remove() dropped their links to it
            if citing in self.units:
                self.graph.link(citing, unit.id, "evidence")

    def remove(self, unit_id: str) -> None:
        """Forget a unit entirely (deleted): no trace of its id is left in memory."""
        self._drop(unit_id)
        self._cited_by.pop(unit_id, None)
        self._unsynced.discard(unit_id)

    def _drop(self, unit_id: str) -> None:
        """Take a unit out of every index; who cites it is kept (it may come back, as in replace)."""
        unit = self.units.pop(unit_id, None)
        if unit is None:
            return
        self.revision += 1
        self._hot.discard(unit_id)
        self._cold.pop(unit_id, None)
        self.drafts.discard(unit_id)
        self.directives.discard(unit_id)
        for source_id in unit.evidence_ids:
            self._cited_by.get(source_id, set()).discard(unit_id)
        self.keyword.remove(unit_id)
        self.cold_keyword.remove(unit_id)
        self.graph.remove(unit_id)
