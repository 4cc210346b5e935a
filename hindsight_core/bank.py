"""A memory bank: every read and write scoped to one user, agent or project.

Get one from :meth:`MemoryEngine.bank`. Each public method has an async twin with an ``a`` prefix
(``acapture``, ``arecall``...) that runs the same implementation in a worker thread: Chroma's
embedded client is synchronous, so this is one implementation, not two.

Example:
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> bank = engine.bank("alice")
    >>> bank.capture("The billing service moved to port 9090.").stored
    True
    >>> bank.recall("which port does billing use?", k=1).units[0].text
    'The billing service moved to port 9090.'
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable, Iterator, ParamSpec, TypeVar

import numpy as np

from hindsight_core._capture import Prepared, embed_batch, prepare, same_facts, to_item
from hindsight_core._lifecycle_ops import OVER_FETCH, after_capture, filter_candidates, record_recall
from hindsight_core._render import estimate_tokens
from hindsight_core._trust import check_evidence, confirm, corroborate
from hindsight_core.lifecycle.pii import redact_id
from hindsight_core._validate import check_enum, check_ids, check_k, check_text, check_time
from hindsight_core.config import BankConfig, RecallConfig
from hindsight_core.errors import InvalidInputError, NotFoundError, StorageError
from hindsight_core.models import (
    CaptureItem,
    CaptureResult,
    ChannelHit,
    MemoryKind,
    MemoryStatus,
    MemoryUnit,
    RecallHit,
    RecallResult,
)
from hindsight_core.lifecycle.beliefs import asks_history, supersede_on_capture
from hindsight_core.lifecycle.forgetting import scrub
from hindsight_core.retrieval.context import CONTEXT_KEY, encode_vector
from hindsight_core.retrieval.pipeline import retrieve
from hindsight_core.retrieval.topic import speaker_names, topic_query
from hindsight_core.retrieval.types import RetrievalRequest
from hindsight_core.storage.codec import from_record, to_indexed, to_record

if TYPE_CHECKING:
    from hindsight_core.context import RecalledContext
    from hindsight_core.engine import MemoryEngine
    from hindsight_core.episodes import Episode, EpisodeResult, Reflection
    from hindsight_core.lifecycle.reflect import Reflector
    from hindsight_core.storage.live_index import LiveIndex

__all__ = ["MemoryBank"]

P = ParamSpec("P")
R = TypeVar("R")

_MAX_MENTIONS = 20
_NEIGHBOURS = 8  # stored neighbours searched per captured item: dedup looks at 3, belief updates at 8
_NOVELTY_BELOW = 0.3  # best dense similarity under this: nothing in memory is close
#: One embedded batch: the items, their vectors (row n: the n-th stored item; None when none is) and
#: context-window vectors by unit id (empty unless recall uses them).
_Embedded = tuple[list[Prepared], "np.ndarray | None", dict[str, "np.ndarray"]]
_DROPPED_RETRIES = 3  # a write that keeps finding its bank deleted under it gives up with an error

log = logging.getLogger("hindsight.bank")


@dataclasses.dataclass(slots=True)
class _Journal:
    """What one capture call wrote, so a failure can take it back."""

    added: list[str] = dataclasses.field(default_factory=list)  # new unit ids
    changed: dict[str, tuple[str, dict[str, Any]]] = dataclasses.field(default_factory=dict)  # id -> old record


def _async_twin(fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    @functools.wraps(fn)
    async def twin(*args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(fn, *args, **kwargs)

    twin.__doc__ = f"Async twin of :meth:`{fn.__name__}`: same arguments, same result."
    twin.__name__ = f"a{fn.__name__}"
    return twin


class MemoryBank:
    """A handle on one bank. Cheap to create; all handles of a bank share one index."""

    def __init__(self, engine: "MemoryEngine", bank_id: str, config: BankConfig) -> None:
        self._engine = engine
        self.id = bank_id
        self.config = config

    def __repr__(self) -> str:
        return f"MemoryBank({self.id!r})"

    @property
    def _index(self) -> "LiveIndex":
        return self._engine._live_index(self.id)

    def _current(self) -> "LiveIndex":
        """The bank's index with every change other processes made taken in (see ``LiveIndex.catch_up``)."""
        index = self._index
        try:
            index.catch_up()
        except NotFoundError:  # deleted, or dropped and created again, elsewhere: open it afresh
            with index.lock:
                index.dropped = True
            self._engine._forget_index(self.id, index)
            index = self._index
            index.catch_up()
        return index

    # ---- capture --------------------------------------------------------------------------------
    def capture(
        self,
        text: str,
        *,
        source: str = "user",
        kind: str = "world",
        session_id: str | None = None,
        episode_id: str | None = None,
        occurred_at: datetime | str | None = None,
        mentioned_at: datetime | str | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        keep_raw: bool | None = None,
        evidence_ids: Iterable[str] = (),
        outcome: str | None = None,
        status: str | None = None,
    ) -> CaptureResult:
        """Remember one text.

        Args:
            text: What was said or observed (at most 20,000 characters).
            source: Who produced it: ``"user"``, ``"tool"``, ``"agent"`` or ``"llm"`` (sets trust).
            kind: ``"world"`` (default), ``"experience"``, ``"observation"``, ``"directive"`` or ``"skill"``.
            session_id: The conversation or run it belongs to (groups recall output).
            episode_id: The agent episode it belongs to, if any.
            occurred_at: When it happened; by default resolved from the text ("yesterday") or None.
            mentioned_at: When it was said (default: now). Relative dates resolve against it.
            metadata: Your own JSON-serialisable data, returned unchanged (PII in it is redacted).
            importance: Override the write gate's score (0..1).
            keep_raw: Store even what the gate scores as small talk (default: the bank's ``keep_raw``).
            evidence_ids: Units this one derives from (links in the graph).
            outcome: For experiences and lessons: ``"success"``, ``"failure"`` or ``"partial"``.
            status: Initial status (default ``active``; ``draft`` for ``source="llm"``).

        Returns:
            A :class:`CaptureResult`; ``merged=True`` when it strengthened an existing near-duplicate.

        Raises:
            InvalidInputError: on empty/oversized text, unknown source or kind, bad times or metadata.
        """
        return self._capture_batch(
            [dict(text=text, source=source, kind=kind, session_id=session_id, episode_id=episode_id,
                  occurred_at=occurred_at, mentioned_at=mentioned_at, metadata=metadata, importance=importance,
                  keep_raw=keep_raw, evidence_ids=tuple(evidence_ids) if not isinstance(evidence_ids, str)
                  else evidence_ids, outcome=outcome, status=status)]
        )[0]

    def capture_many(
        self, items: Iterable[CaptureItem | dict[str, Any] | str], *, batch_size: int = 64, progress: bool = False
    ) -> list[CaptureResult]:
        """Remember many texts, embedding them in batches; results come back in input order.

        Every item is validated before anything is written, so a bad item changes nothing.
        """
        if isinstance(items, (str, bytes, dict, CaptureItem)) or not isinstance(items, Iterable):
            raise InvalidInputError(
                f"capture_many takes a list of items (str, dict or CaptureItem), not {type(items).__name__}; "
                "use capture() for a single text"
            )
        checked = [to_item(i) for i in items]
        check_k(batch_size, "batch_size", limit=10_000)
        kwargs = [i.model_dump() for i in checked]
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(kwargs), desc=f"capture {self.id}", unit="item")
        prepared_all = self._prepare_all(kwargs)  # validation of the whole input first
        batches: list[_Embedded] = []
        for start in range(0, len(prepared_all), batch_size):  # embedding: no lock held
            chunk = prepared_all[start:start + batch_size]
            batches.append(self._embed(chunk))
            if bar is not None:
                bar.update(len(chunk))
        if bar is not None:
            bar.close()
        return self._apply(batches)

    def _prepare_all(self, kwargs_list: list[dict[str, Any]]) -> list[Prepared]:
        now = datetime.now(timezone.utc)
        prepared = [prepare(self.id, self.config, now=now, **kw) for kw in kwargs_list]
        check_evidence(self, prepared)  # ids from another bank (or none) are refused before any write
        return prepared

    def _capture_batch(self, kwargs_list: list[dict[str, Any]]) -> list[CaptureResult]:
        return self._store_batch(self._prepare_all(kwargs_list))

    def _embed(self, prepared: list[Prepared]) -> _Embedded:
        """One embedding call (no lock held): row n of the matrix is the n-th stored item's vector
        (None when none is), plus context-window vectors by unit id when recall uses them."""
        to_store = [p for p in prepared if p.stored]
        recall_cfg = self.config.recall
        with_context = bool(recall_cfg.context_weight or recall_cfg.context_next_weight)

        def last_in_session(session_id: str) -> str | None:
            index = self._engine._live_index(self.id)
            with index.lock.read():
                ids = index.graph.session_units(session_id)
                return index.units[ids[-1]].text if ids else None

        matrix, contexts = embed_batch(self._engine.embedder, to_store, last_in_session, with_context)
        return prepared, matrix, contexts

    def _store_batch(self, prepared: list[Prepared]) -> list[CaptureResult]:
        return self._apply([self._embed(prepared)])

    def _apply(self, batches: list[_Embedded]) -> list[CaptureResult]:
        """Store embedded batches under the bank's write lock, all or nothing.

        Every write is journalled; when one fails, what the call already wrote is undone (new units
        deleted, changed units restored) before the error is raised, so a failed call leaves no unit
        and no mention count behind. If the undo itself fails (a full disk), the in-memory index is
        reloaded from Chroma, so it shows exactly what was applied, and the error says so.
        """
        create = any(m is not None for _, m, _ in batches)  # a write creates the bank
        results: list[CaptureResult] = []
        added = 0
        with self._write_lock(create=create) as index:
            journal = _Journal()
            index.journal = journal
            try:
                for prepared, matrix, contexts in batches:
                    batch_results, new = self._apply_batch(index, prepared, matrix, contexts)
                    results += batch_results
                    added += new
            except BaseException as exc:
                index.journal = None
                self._undo(index, journal, exc)
                raise
            finally:
                index.journal = None
        after_capture(self, added)  # may queue consolidation or the budget sweep (background)
        return results

    def _apply_batch(self, index: "LiveIndex", prepared: list[Prepared], matrix: np.ndarray | None,
                     contexts: dict[str, np.ndarray]) -> tuple[list[CaptureResult], int]:
        to_store = [p for p in prepared if p.stored]
        row_of = {id(p): n for n, p in enumerate(to_store)}  # row n of ``matrix`` is to_store[n]'s vector
        results: list[CaptureResult] = []
        new_units: list[tuple[MemoryUnit, Any]] = []
        # one search for the whole batch, shared by dedup and the belief check
        near_rows = index.dense_search_many(matrix, _NEIGHBOURS) if matrix is not None else []
        pending_rows: list[int] = []  # row of ``matrix`` for each entry of new_units
        near: dict[str, list[tuple[str, float]]] = {}  # unit id -> stored neighbours, for supersession
        for p in prepared:
            if not p.stored:
                results.append(self._result(p, unit=None, stored=False))
                continue
            row = row_of[id(p)]
            vec = matrix[row]
            twin, pending_at = (None, None)
            if self.config.dedup:  # pending items are earlier rows: a view, no copy of the batch
                twin, pending_at = self._find_duplicate(p.unit, near_rows[row], new_units,
                                                        (matrix[:row] @ vec)[pending_rows])
            if twin is not None:
                merged = self._absorb(twin, p.unit)
                if pending_at is None:
                    self._rewrite(merged)
                else:  # its twin is earlier in this very batch, not written yet
                    new_units[pending_at] = (merged, new_units[pending_at][1])
                results.append(self._result(p, unit=merged, stored=True, merged=True))
                continue
            promoted, absorbed = corroborate(self, p.unit, vec)  # a user/tool confirms a model draft
            if absorbed:
                results.append(self._result(p, unit=promoted, stored=True, merged=True))
                continue
            new_units.append((p.unit, vec))
            pending_rows.append(row)
            near[p.unit.id] = near_rows[row]
            results.append(self._result(p, unit=p.unit, stored=True))
        new_units, results, older = supersede_on_capture(self, new_units, results, near)  # beliefs keep history
        self._write_new(new_units, contexts)
        for unit in older:
            self._rewrite(unit)
        return results, len(new_units)

    @contextlib.contextmanager
    def _write_lock(self, *, create: bool = False) -> Iterator["LiveIndex"]:
        """The bank's index with its write lock held.

        A bank deleted (or an engine closed) while this thread waited for the lock is found
        ``dropped``: the write goes to the bank as it is now (a fresh one when ``create``).
        """
        for _ in range(_DROPPED_RETRIES):
            index = self._engine._live_index(self.id, create=create)
            index.lock.acquire_write()
            if not index.dropped:
                try:
                    index.catch_up()  # what other processes changed counts (dedup, supersession)
                    break
                except NotFoundError:  # deleted (or dropped and created again) by another process
                    index.dropped = True
                    self._engine._forget_index(self.id, index)
            index.lock.release_write()
        else:
            raise StorageError(f"bank {self.id!r} kept being deleted while this write waited; try again")
        try:
            yield index
        finally:
            index.lock.release_write()

    def _undo(self, index: "LiveIndex", journal: "_Journal", exc: BaseException) -> None:
        """Take back what a failed call wrote (the caller holds the write lock)."""
        if not journal.added and not journal.changed:
            return
        try:
            if journal.added:
                index.store.delete(index.collection, journal.added)
                for unit_id in journal.added:
                    index.remove(unit_id)
            if journal.changed:
                ids = list(journal.changed)
                index.store.update_metadata(index.collection, ids, [journal.changed[i][1] for i in ids])
                for unit_id in ids:
                    doc, meta = journal.changed[unit_id]
                    index.replace(to_indexed(unit_id, doc, meta))
        except Exception as undo_exc:  # noqa: BLE001 - the store refuses even the undo (full disk)
            log.error("undo of a failed write to bank %s failed (%s); reloading it from Chroma", self.id, undo_exc)
            try:
                index.reload()
            except Exception:  # noqa: BLE001 - the next call on this bank reloads it
                index.dropped = True
                self._engine._forget_index(self.id, index)
            if isinstance(exc, StorageError):
                exc.args = (f"{exc.args[0] if exc.args else exc} The undo failed too ({undo_exc}): part of this "
                            "call may be stored; this bank's index was reloaded from Chroma, so recall shows "
                            "exactly what is stored.",)

    @staticmethod
    def _result(p: Prepared, *, unit: MemoryUnit | None, stored: bool, merged: bool = False) -> CaptureResult:
        return CaptureResult(
            unit_id=unit.id if unit is not None else None,
            stored=stored,
            merged=merged,
            importance=p.unit.importance,
            reasons=p.unit.gate_reasons,
            entities=p.unit.entities,
            redactions=p.redactions,
            occurred_at=p.unit.occurred_at,
            unit=unit,
        )

    def _find_duplicate(
        self,
        unit: MemoryUnit,
        stored_near: list[tuple[str, float]],
        pending: list[tuple[MemoryUnit, Any]],
        pending_sims: np.ndarray,
    ) -> tuple[MemoryUnit | None, int | None]:
        """An active unit of the same kind whose text says the same thing (same numbers too),
        and its position in ``pending`` when it is not written yet. ``stored_near`` are the
        unit's nearest stored neighbours, best first; ``pending_sims`` its similarity to each
        item of ``pending`` (earlier items of this batch, not in Chroma yet)."""
        threshold = self.config.dedup_threshold
        for at in np.flatnonzero(pending_sims >= threshold)[::-1]:  # the latest twin first
            other = pending[at][0]
            if other.kind == unit.kind and same_facts(other.text, unit.text):
                return other, int(at)
        index = self._index
        for unit_id, sim in stored_near[:3]:
            if sim < threshold:
                break
            light = index.units.get(unit_id)
            if light is None or light.kind != unit.kind.value or light.status != MemoryStatus.ACTIVE.value:
                continue
            if same_facts(light.text, unit.text):
                return self.get(unit_id), None
        return None, None

    def _absorb(self, existing: MemoryUnit, new: MemoryUnit) -> MemoryUnit:
        """A repeat strengthens what is there, and the repeat's own context is kept in ``mentions``."""
        mention = {
            "mentioned_at": new.mentioned_at.isoformat(),
            "session_id": new.session_id,
            "episode_id": new.episode_id,
            "metadata": new.metadata,
        }
        merged = existing.model_copy(update={
            "mention_count": existing.mention_count + 1,
            "mentions": (existing.mentions + (mention,))[-_MAX_MENTIONS:],
            "importance": round(min(1.0, max(existing.importance, new.importance) + 0.05), 3),
            "confidence": round(min(1.0, max(existing.confidence, new.confidence) + 0.05), 3),
            "activity": round(existing.activity * 1.2, 4),
        })
        return merged

    def _write_new(self, new_units: list[tuple[MemoryUnit, Any]], contexts: dict[str, np.ndarray] | None = None) -> None:
        if not new_units:
            return
        index = self._index
        records = [to_record(u, index.take_seq()) for u, _ in new_units]
        for (unit, _), (_, _, meta) in zip(new_units, records):
            if contexts and unit.id in contexts:
                meta[CONTEXT_KEY] = encode_vector(contexts[unit.id])
        ids = [r[0] for r in records]
        if index.journal is not None:
            index.journal.added += ids  # before the write: a failed upsert may have stored some
        index.store.upsert(index.collection, ids, [r[1] for r in records],
                           [r[2] for r in records], np.stack([v for _, v in new_units]))
        for (unit_id, doc, meta), (_, vec) in zip(records, new_units):
            index.add(to_indexed(unit_id, doc, meta), vec)

    def _rewrite(self, unit: MemoryUnit) -> None:
        """Persist changed fields of an existing unit (text and vector unchanged)."""
        index = self._index
        with index.lock:
            light = index.units.get(unit.id)
            if light is None:  # merged into a unit of this very batch: not yet written
                raise NotFoundError(f"unit {unit.id!r} is not in bank {self.id!r}")
            journal = index.journal
            if journal is not None and unit.id not in journal.changed and unit.id not in journal.added:
                before = index.store.get(index.collection, [unit.id])
                if unit.id in before:
                    journal.changed[unit.id] = (before[unit.id][0], before[unit.id][1])
            unit_id, doc, meta = to_record(unit, light.seq)
            index.store.update_metadata(index.collection, [unit_id], [meta])
            index.replace(to_indexed(unit_id, doc, meta))

    # ---- read -----------------------------------------------------------------------------------
    def get(self, unit_id: str) -> MemoryUnit:
        """The unit with this id, whatever its status (archived units too).

        Raises:
            NotFoundError: no such unit in *this* bank (ids from another bank are not found).
        """
        if not isinstance(unit_id, str):
            raise InvalidInputError(f"unit id must be a str, not {type(unit_id).__name__}")
        index = self._index
        found = index.store.get(index.collection, [unit_id])
        if unit_id not in found:
            raise NotFoundError(f"no memory unit {unit_id!r} in bank {self.id!r}")
        doc, meta, _ = found[unit_id]
        return from_record(unit_id, doc, meta)

    def get_many(self, unit_ids: Iterable[str]) -> list[MemoryUnit]:
        """The units that exist among ``unit_ids``, in the order asked (missing ones are skipped)."""
        if not isinstance(unit_ids, Iterable):
            raise InvalidInputError(f"unit_ids must be a str or a list of str, not {type(unit_ids).__name__}")
        ids = check_ids(list(unit_ids) if not isinstance(unit_ids, str) else unit_ids)
        index = self._index
        found = index.store.get(index.collection, ids)
        return [from_record(i, found[i][0], found[i][1]) for i in ids if i in found]

    def units(self, *, kind: str | None = None, status: str | None = None) -> Iterator[MemoryUnit]:
        """Every unit of the bank in insertion order, optionally filtered (for export and audits)."""
        kind_v = None if kind is None else check_enum(kind, MemoryKind, "kind").value
        status_v = None if status is None else check_enum(status, MemoryStatus, "status").value
        index = self._current()
        with index.lock.read():
            ids = [u.id for u in sorted(index.units.values(), key=lambda u: u.seq)
                   if (kind_v is None or u.kind == kind_v) and (status_v is None or u.status == status_v)]
        for start in range(0, len(ids), 500):
            yield from self.get_many(ids[start:start + 500])

    def count(self) -> int:
        """Number of stored units (every status)."""
        return len(self._current().units)

    @property
    def revision(self) -> int:
        """A number that changes whenever this process writes to the bank (for caches)."""
        return self._index.revision

    # ---- recall ---------------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        *,
        k: int | None = None,
        as_of: datetime | str | None = None,
        max_tokens: int | None = None,
        include_history: bool = False,
        include_archived: bool = False,
        include_drafts: bool = False,
        kinds: Iterable[str] | None = None,
        session_id: str | None = None,
        exclude_ids: Iterable[str] = (),
        config: RecallConfig | None = None,
        record_hits: bool = True,
    ) -> RecallResult:
        """Find what memory holds about ``query``: no LLM, four channels fused.

        Args:
            query: The question or the task at hand.
            k: Hits to return (default: the bank's ``recall.k``, 10).
            as_of: "Now" for relative times in the query ("last week"); default: the current time.
            max_tokens: Keep only the best hits whose text fits this budget (directives count too).
            include_history: Also return superseded beliefs ("what was it before?").
            include_archived: Also return archived (forgotten) units.
            include_drafts: Also return uncorroborated model-written drafts.
            kinds: Restrict to these kinds (e.g. ``["experience", "observation"]``).
            session_id: Restrict to one session.
            exclude_ids: Units not to return (e.g. what the conversation already shows).
            config: A :class:`RecallConfig` for this call (derive it with ``model_copy``).
            record_hits: Count this recall as use (hits gain activity, which forgetting reads). False
                only looks: inspecting memory (the CLI, a debugger) leaves it as it was.

        Returns:
            A :class:`RecallResult`; ``result.render()`` gives prompt-ready text, ``result.explain()``
            says which channels found each hit.
        """
        started = time.perf_counter()
        query = check_text(query, "query")
        include_history = include_history or (self.config.lifecycle.auto_history and asks_history(query))
        cfg = config or self.config.recall
        if not isinstance(cfg, RecallConfig):
            raise InvalidInputError("config must be a RecallConfig")
        k = check_k(cfg.k if k is None else k)
        if max_tokens is not None:
            check_k(max_tokens, "max_tokens", limit=10_000_000)
        now = check_time(as_of, "as_of") or datetime.now(timezone.utc)
        if kinds is not None and not isinstance(kinds, (str, list, tuple, set, frozenset)):
            raise InvalidInputError(f"kinds must be a kind name or a list of them, not {type(kinds).__name__}; "
                                    f"use e.g. kinds=['world', 'experience']")
        kind_set = None if kinds is None else frozenset(
            check_enum(x, MemoryKind, "kind").value for x in ([kinds] if isinstance(kinds, str) else kinds))
        statuses = {MemoryStatus.ACTIVE.value}
        if include_history:
            statuses.add(MemoryStatus.SUPERSEDED.value)
        if include_archived:
            statuses.add(MemoryStatus.ARCHIVED.value)
        if include_drafts:
            statuses.add(MemoryStatus.DRAFT.value)
        if session_id is not None and not isinstance(session_id, str):
            raise InvalidInputError("session_id must be a str")
        if not isinstance(record_hits, bool):
            raise InvalidInputError(f"record_hits must be True or False, not {record_hits!r}")
        if session_id is not None and self.config.pii.enabled:  # stored ids are redacted: match the stored form
            session_id = redact_id(session_id, self.config.pii.kinds)[0]
        excluded = frozenset(check_ids(exclude_ids))
        searchable = (kind_set or frozenset(k.value for k in MemoryKind)) - {MemoryKind.DIRECTIVE.value}

        index = self._current()  # what other processes changed since this bank was loaded
        topic = None
        if cfg.topic_weight:  # the query without the speakers it names, embedded in the same call
            with index.lock.read():
                topic = topic_query(query, speaker_names(index.units))
        vectors = self._engine.embedder.embed([query] if topic is None else [query, topic])
        vector = vectors[0]
        request = RetrievalRequest(query=query, vector=vector, as_of=now.timestamp(),
                                   k=min(k + len(excluded) + OVER_FETCH, 1000),
                                   statuses=frozenset(statuses), kinds=searchable, session_id=session_id,
                                   topic_vector=None if topic is None else vectors[1])
        waited = time.perf_counter()
        with index.lock.read():  # shared: recalls never wait for each other, nor for a capture's embedding
            waited = time.perf_counter() - waited
            candidates, trace = retrieve(request, index, cfg)
            candidates = filter_candidates(self, [c for c in candidates if c.id not in excluded], k, trace)
            directive_ids = sorted(index.directives, key=lambda i: index.units[i].seq)
        trace["lock_wait_ms"] = round(waited * 1000, 2)  # time spent waiting for a write to finish
        units = {u.id: u for u in self.get_many([c.id for c in candidates] + directive_ids)}
        directives = tuple(units[i] for i in directive_ids if i in units)
        if max_tokens is not None:  # standing rules first, as many as the budget holds
            fitting = [d for d in directives]
            while fitting and sum(estimate_tokens(d.text) + 4 for d in fitting) > max_tokens:
                fitting.pop()
            directives = tuple(fitting)
        budget = None if max_tokens is None else max_tokens - sum(estimate_tokens(d.text) + 4 for d in directives)
        hits: list[RecallHit] = []
        for cand in candidates:
            unit = units.get(cand.id)
            if unit is None:
                continue  # deleted by another thread since the search
            if budget is not None:
                budget -= estimate_tokens(unit.text) + 4
                if budget < 0:
                    break
            hits.append(RecallHit(unit=unit, score=cand.score,
                                  channels=tuple(ChannelHit(channel=c, rank=r, score=s) for c, r, s in cand.channels)))
        best_dense = max((s for c in candidates for ch, _, s in c.channels if ch == "dense"), default=0.0)
        if record_hits:
            record_recall(self, [h.unit.id for h in hits], trace)  # in memory now, one Chroma write later
        trace = dict(trace, total_ms=round((time.perf_counter() - started) * 1000, 2))
        return RecallResult(query=query, bank=self.id, as_of=now, hits=tuple(hits), directives=directives,
                            novel=best_dense < _NOVELTY_BELOW, trace=trace)

    # ---- delete ---------------------------------------------------------------------------------
    def delete(self, unit_id: str) -> None:
        """Hard-delete one unit: its vector, record, keyword and graph entries are gone.

        Raises:
            NotFoundError: no such unit in this bank.
        """
        self.get(unit_id)  # raises NotFoundError with a clear message
        with self._write_lock() as index:
            scrub(self, unit_id)  # digests and evidence lists that name it
            index.store.delete(index.collection, [unit_id])
            index.remove(unit_id)

    # ---- episodes -------------------------------------------------------------------------------
    def end_episode(
        self,
        episode: "Episode | dict[str, Any]",
        outcome: str,
        *,
        feedback: str | None = None,
        reflection: "Reflection | None" = None,
        reflector: "Reflector | None" = None,
        background: bool = False,
        ended_at: datetime | str | None = None,
    ) -> "EpisodeResult":
        """Store an ended episode as an experience (recallable at once) and learn from it.

        Args:
            episode: The run: goal, trace steps, session. Build it with ``Episode.from_steps``.
            outcome: ``"success"``, ``"failure"`` or ``"partial"``.
            feedback: Optional words on the outcome (a user's, a judge's).
            reflection: A ready-made reflection (skips the reflector).
            reflector: Overrides the engine's reflector for this call.
            background: Reflect in the bank's background queue; the result has ``pending=True``.
            ended_at: When it ended (default: now).

        Raises:
            InvalidInputError: a bad outcome label, episode or feedback.
            LLMError: the LLM reflector failed (inline mode); the experience is stored regardless.
        """
        from hindsight_core._episode_ops import end_episode
        from hindsight_core.episodes import Episode

        if isinstance(episode, dict):  # validated here so a bad dict is an InvalidInputError
            from pydantic import ValidationError

            try:
                episode = Episode.model_validate(episode)
            except ValidationError as exc:
                problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
                raise InvalidInputError(f"invalid episode: {problems}; pass an Episode (Episode.from_steps(...)) or a "
                                        f"dict of its fields {sorted(Episode.model_fields)}") from None
        return end_episode(self, episode, outcome, feedback=feedback, reflection=reflection, reflector=reflector,
                           background=background, ended_at=ended_at)

    def recall_lessons(self, task: str, *, k: int = 5, as_of: datetime | str | None = None,
                       max_tokens: int | None = None) -> RecallResult:
        """Lessons, beliefs and skills for the task at hand, to read before planning.

        Lessons about the same task are kept together: failure lessons first, newest first, so the
        latest mistake is the first thing the planner sees.
        """
        from hindsight_core._episode_ops import recall_lessons

        if max_tokens is not None:
            check_k(max_tokens, "max_tokens", limit=10_000_000)
        return recall_lessons(self, task, k=k, as_of=as_of, max_tokens=max_tokens)

    def recall_context(self, query: str, **options: Any) -> "RecalledContext":
        """Lessons first, then memories, rendered for a prompt (see :func:`hindsight_core.context.recall_context`
        for the options: ``k``, ``lessons_k``, ``max_tokens``, ``exclude_ids``, ``outcomes``, ``kinds``,
        ``header``). ``result.text`` is the prompt text ("" when nothing is relevant)."""
        from hindsight_core.context import recall_context

        return recall_context(self, query, **options)

    # ---- lifecycle: beliefs, consolidation, forgetting, directives -------------------------------
    def consolidate(self, *, llm: Any = None, max_units: int | None = None, full: bool = False) -> Any:
        """Cluster new memories into evidence-backed observations now (also runs in the background
        after ``lifecycle.consolidate_every`` new units). Returns a ``ConsolidationReport``.

        Args:
            llm: A chat model to compress clusters (default ``engine.llm``; None: extractive).
            max_units: Units read at most (default ``lifecycle.consolidate_max_units``).
            full: Reconsider every unconsolidated unit, not only those newer than the last run.
        """
        from hindsight_core.lifecycle.consolidate import consolidate

        if max_units is not None:
            check_k(max_units, "max_units", limit=10_000_000)
        if not isinstance(full, bool):
            raise InvalidInputError(f"full must be True or False, not {full!r}")
        return consolidate(self, llm=llm, max_units=max_units, full=full)

    def invalidate(self, unit_id: str, reason: str | None = None) -> MemoryUnit:
        """Mark a belief wrong (not merely outdated): hidden from recall, its sources lose trust."""
        from hindsight_core.lifecycle.beliefs import invalidate

        return invalidate(self, unit_id, reason)

    def history(self, unit_id: str) -> list[MemoryUnit]:
        """The supersession chain through ``unit_id``, oldest first; each has ``valid_to``/``superseded_by``."""
        from hindsight_core.lifecycle.beliefs import history

        return history(self, unit_id)

    def enforce_budget(self, budget: int | None = None) -> Any:
        """Archive the least active units if the bank is over its active budget (``ForgetReport``)."""
        from hindsight_core.lifecycle.forgetting import enforce_budget

        if budget is not None:
            check_k(budget, "budget", limit=10_000_000)
        return enforce_budget(self, budget)

    def confirm(self, unit_id: str) -> MemoryUnit:
        """Make a draft active on the user's word: a model's fact, or a directive or skill that came from
        a tool, the agent or the model (those start as drafts; see ``_trust.confirm``)."""
        return confirm(self, unit_id)

    def set_directive(self, text: str, *, metadata: dict[str, Any] | None = None) -> MemoryUnit:
        """A standing rule ("tests use pytest") returned with every recall of this bank, at no search cost."""
        result = self.capture(text, kind="directive", source="user", importance=1.0, keep_raw=True, metadata=metadata)
        assert result.unit is not None
        return result.unit

    def directives(self) -> list[MemoryUnit]:
        """The bank's active directives, oldest first."""
        return list(self.units(kind="directive", status="active"))

    def remove_directive(self, unit_id: str) -> None:
        """Delete a directive (a hard delete, like :meth:`delete`)."""
        if self.get(unit_id).kind is not MemoryKind.DIRECTIVE:
            raise InvalidInputError(f"unit {unit_id!r} is not a directive; use delete() for other units")
        self.delete(unit_id)

    aconsolidate = _async_twin(consolidate)
    ainvalidate = _async_twin(invalidate)
    ahistory = _async_twin(history)
    aenforce_budget = _async_twin(enforce_budget)
    aset_directive = _async_twin(set_directive)
    aconfirm = _async_twin(confirm)
    adirectives = _async_twin(directives)
    aremove_directive = _async_twin(remove_directive)
    acapture = _async_twin(capture)
    aend_episode = _async_twin(end_episode)
    arecall_lessons = _async_twin(recall_lessons)
    arecall_context = _async_twin(recall_context)
    acapture_many = _async_twin(capture_many)
    arecall = _async_twin(recall)
    aget = _async_twin(get)
    aget_many = _async_twin(get_many)
    adelete = _async_twin(delete)
