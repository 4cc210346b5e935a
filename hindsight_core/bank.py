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
import functools
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable, Iterator, ParamSpec, TypeVar

from hindsight_core import _recall, _write
from hindsight_core._capture import Prepared, to_item
from hindsight_core._trust import confirm
from hindsight_core._validate import check_enum, check_ids, check_k, check_text, check_time
from hindsight_core.config import BankConfig, RecallConfig
from hindsight_core.errors import InvalidInputError
from hindsight_core.lifecycle.beliefs import asks_history
from hindsight_core.lifecycle.forgetting import delete_unit
from hindsight_core.lifecycle.pii import redact_id
from hindsight_core.models import (
    CaptureItem,
    CaptureResult,
    MemoryKind,
    MemoryStatus,
    MemoryUnit,
    RecallResult,
)
from hindsight_core.storage.unit_store import UnitStore

if TYPE_CHECKING:
    from hindsight_core.context import RecalledContext
    from hindsight_core.engine import MemoryEngine
    from hindsight_core.episodes import Episode, EpisodeResult, Reflection
    from hindsight_core.lifecycle.reflect import Reflector
    from hindsight_core.storage.live_index import LiveIndex

__all__ = ["MemoryBank"]

P = ParamSpec("P")
R = TypeVar("R")

def _async_twin(fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    @functools.wraps(fn)
    async def twin(*args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(fn, *args, **kwargs)

    twin.__doc__ = f"Async twin of :meth:`{fn.__name__}`: same arguments, same result."
    twin.__name__ = f"a{fn.__name__}"
    return twin


class MemoryBank:
    """A handle on one bank: a thin facade over its :class:`~hindsight_core.storage.unit_store.UnitStore`
    and the lifecycle services. Cheap to create; all handles of a bank share one index."""

    def __init__(self, engine: "MemoryEngine", bank_id: str, config: BankConfig) -> None:
        self._engine = engine
        self.id = bank_id
        self.config = config
        self._store = UnitStore(bank_id, engine._store_host())

    def __repr__(self) -> str:
        return f"MemoryBank({self.id!r})"

    @property
    def store(self) -> UnitStore:
        """The bank's store: the one way to its units in Chroma and its in-memory indexes (for
        services and tools; everyday code uses the methods of this class)."""
        return self._store

    @property
    def _index(self) -> "LiveIndex":
        return self._store.index

    def _current(self) -> "LiveIndex":
        return self._store.current()

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
        speaker: str | None = None,
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
            metadata: Your own JSON-serialisable data, returned unchanged (PII in it is redacted); the
                library keeps its own data in typed fields, never in it.
            importance: Override the write gate's score (0..1).
            keep_raw: Store even what the gate scores as small talk (default: the bank's ``keep_raw``).
            evidence_ids: Units this one derives from (links in the graph).
            outcome: For experiences and lessons: ``"success"``, ``"failure"`` or ``"partial"``.
            status: Initial status (default ``active``; ``draft`` for ``source="llm"``).
            speaker: Who said it (chat turns); recall links it to the speaker. Default: a str
                ``metadata["speaker"]`` when there is one (read, not removed).

        Returns:
            A :class:`CaptureResult`; ``merged=True`` when it strengthened an existing near-duplicate.

        Raises:
            InvalidInputError: on empty/oversized text, unknown source or kind, bad times or metadata.
        """
        return self._capture_batch(
            [dict(text=text, source=source, kind=kind, session_id=session_id, episode_id=episode_id,
                  occurred_at=occurred_at, mentioned_at=mentioned_at, metadata=metadata, importance=importance,
                  keep_raw=keep_raw, evidence_ids=tuple(evidence_ids) if not isinstance(evidence_ids, str)
                  else evidence_ids, outcome=outcome, status=status, speaker=speaker)]
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
        batches: list[_write.Embedded] = []
        for start in range(0, len(prepared_all), batch_size):  # embedding: no lock held
            chunk = prepared_all[start:start + batch_size]
            batches.append(_write.embed(self._store, self.config, chunk))
            if bar is not None:
                bar.update(len(chunk))
        if bar is not None:
            bar.close()
        return _write.apply(self._store, self.config, batches)

    def _prepare_all(self, kwargs_list: list[dict[str, Any]]) -> list[Prepared]:
        return _write.prepare_all(self._store, self.config, kwargs_list)

    def _capture_batch(self, kwargs_list: list[dict[str, Any]]) -> list[CaptureResult]:
        return _write.store_batch(self._store, self.config, self._prepare_all(kwargs_list))

    def _rewrite(self, unit: MemoryUnit) -> None:
        """Persist changed fields of a stored unit (tests forge old records with it); services use
        ``store.update``."""
        self._store.update(unit)

    # ---- read -----------------------------------------------------------------------------------
    def get(self, unit_id: str) -> MemoryUnit:
        """The unit with this id, whatever its status (archived units too).

        Raises:
            NotFoundError: no such unit in *this* bank (ids from another bank are not found).
        """
        if not isinstance(unit_id, str):
            raise InvalidInputError(f"unit id must be a str, not {type(unit_id).__name__}")
        return self._store.get(unit_id)

    def get_many(self, unit_ids: Iterable[str]) -> list[MemoryUnit]:
        """The units that exist among ``unit_ids``, in the order asked (missing ones are skipped)."""
        if not isinstance(unit_ids, Iterable):
            raise InvalidInputError(f"unit_ids must be a str or a list of str, not {type(unit_ids).__name__}")
        return self._store.get_many(check_ids(list(unit_ids) if not isinstance(unit_ids, str) else unit_ids))

    def units(self, *, kind: str | None = None, status: str | None = None) -> Iterator[MemoryUnit]:
        """Every unit of the bank in insertion order, optionally filtered (for export and audits)."""
        kind_v = None if kind is None else check_enum(kind, MemoryKind, "kind").value
        status_v = None if status is None else check_enum(status, MemoryStatus, "status").value
        ids = self._store.ids(kind=kind_v, status=status_v)
        for start in range(0, len(ids), 500):
            yield from self._store.get_many(ids[start:start + 500])

    def count(self) -> int:
        """Number of stored units (every status)."""
        return self._store.count()

    @property
    def revision(self) -> int:
        """A number that changes whenever this process writes to the bank (for caches)."""
        return self._store.revision

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

        return _recall.recall(self._store, self.config, cfg, query=query, k=k, now=now,
                              statuses=frozenset(statuses), kinds=searchable, session_id=session_id,
                              excluded=excluded, max_tokens=max_tokens, record_hits=record_hits, started=started)

    # ---- delete ---------------------------------------------------------------------------------
    def delete(self, unit_id: str) -> None:
        """Hard-delete one unit: its vector, record, keyword and graph entries are gone.

        Raises:
            NotFoundError: no such unit in this bank.
        """
        self.get(unit_id)  # a bad id type is an InvalidInputError; a missing unit a NotFoundError
        delete_unit(self._store, unit_id)  # digests and evidence lists that name it are scrubbed first

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
        return end_episode(self._store, self.config, episode, outcome, feedback=feedback, reflection=reflection, reflector=reflector,
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
        return recall_lessons(self.recall, self.config, task, k=k, as_of=as_of, max_tokens=max_tokens)

    def recall_context(self, query: str, **options: Any) -> "RecalledContext":
        """Lessons first, then memories, rendered for a prompt (see :func:`hindsight_core.context.recall_context`
        for the options: ``k``, ``lessons_k``, ``max_tokens``, ``exclude_ids``, ``outcomes``, ``kinds``,
        ``header``). ``result.text`` is the prompt text ("" when nothing is relevant)."""
        from hindsight_core.context import recall_context

        return recall_context(self, query, **options)

    def tool_lessons(self, tools: Iterable[str], **options: Any) -> "RecalledContext":
        """Lessons of failed runs that called one of ``tools``, for the moment an agent is about to
        call it (see :func:`hindsight_core.tool_lessons.tool_lessons` for the options: ``k``,
        ``shown``, ``max_tokens``). ``result.text`` is "" when there are none."""
        from hindsight_core.tool_lessons import tool_lessons

        return tool_lessons(self, tools, **options)

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
        return consolidate(self._store, self.config, llm=llm, max_units=max_units, full=full)

    def invalidate(self, unit_id: str, reason: str | None = None) -> MemoryUnit:
        """Mark a belief wrong (not merely outdated): hidden from recall, its sources lose trust."""
        from hindsight_core.lifecycle.beliefs import invalidate

        return invalidate(self._store, unit_id, reason)

    def history(self, unit_id: str) -> list[MemoryUnit]:
        """The supersession chain through ``unit_id``, oldest first; each has ``valid_to``/``superseded_by``."""
        from hindsight_core.lifecycle.beliefs import history

        return history(self._store, unit_id)

    def enforce_budget(self, budget: int | None = None) -> Any:
        """Archive the least active units if the bank is over its active budget (``ForgetReport``)."""
        from hindsight_core.lifecycle.forgetting import enforce_budget

        if budget is not None:
            check_k(budget, "budget", limit=10_000_000)
        return enforce_budget(self._store, self.config, budget)

    def confirm(self, unit_id: str) -> MemoryUnit:
        """Make a draft active on the user's word: a model's fact, or a directive or skill that came from
        a tool, the agent or the model (those start as drafts; see ``_trust.confirm``)."""
        return confirm(self._store, unit_id)

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
    atool_lessons = _async_twin(tool_lessons)
    acapture_many = _async_twin(capture_many)
    arecall = _async_twin(recall)
    aget = _async_twin(get)
    aget_many = _async_twin(get_many)
    adelete = _async_twin(delete)
