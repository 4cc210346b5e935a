"""``HindsightMemory``: a LlamaIndex ``BaseMemory`` with long-term, cross-session memory.

Short-term chat history stays in LlamaIndex's own :class:`~llama_index.core.memory.Memory` (or any
``BaseMemory`` you pass as ``primary_memory``). On top of it:

* ``aget``/``get`` recall from the bank, using ``input`` or else the last user message, and put
  the recalled context in a system message (or the latest user message) within a token budget;
* ``aput``/``aput_messages``/``aset``/``put`` capture each new message once: user messages (and
  final assistant answers) become long-term memories at once; every message, tool call, tool
  result and tool error joins the open episode;
* ``aend_episode``/``end_episode`` store the episode with its outcome and reflect on it, so a
  failure becomes a lesson recalled before the next similar task.

Example:
    >>> import asyncio
    >>> from llama_index.core.llms import ChatMessage
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> from hindsight_llamaindex import HindsightMemory
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> monday = HindsightMemory.from_engine(engine, bank_id="alice", session_id="monday")
    >>> monday.put(ChatMessage(role="user", content="The staging database is db-staging-2."))
    >>> tuesday = HindsightMemory.from_engine(engine, bank_id="alice", session_id="tuesday")
    >>> messages = tuesday.get(input="Which database is staging?")
    >>> messages[0].role.value, "db-staging-2" in messages[0].content
    ('system', True)
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter, OrderedDict
from typing import TYPE_CHECKING, Any, Iterable, List, Literal, Optional, Union

from llama_index.core.async_utils import asyncio_run
from llama_index.core.base.llms.types import ChatMessage, TextBlock
from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr
from llama_index.core.memory import BaseMemory, Memory

from hindsight_core import InvalidInputError, MemoryEngine
from hindsight_core.config import MAX_TEXT_CHARS
from hindsight_core.context import DEFAULT_HEADER
from hindsight_core.outcomes import is_request

from hindsight_llamaindex._episode import EpisodeRecorder
from hindsight_llamaindex._messages import final_answer, fingerprint, last_user_text, message_steps, message_text
from hindsight_llamaindex._agents import drops_leading_system_message

if TYPE_CHECKING:
    from hindsight_core import MemoryBank
    from hindsight_core.episodes import Episode, EpisodeResult

__all__ = ["HindsightMemory"]

_ROLES = ("user", "assistant", "tool")
_SOURCE = {"user": "user", "assistant": "agent", "tool": "tool"}
_KIND = {"user": "world", "assistant": "experience", "tool": "world"}  # as hindsight_lg's capture node
_MAX_TRACKED = 1_000
_ENGINES: dict[str, MemoryEngine] = {}
_ENGINES_LOCK = threading.Lock()


def _shared_engine(path: str, embedder: Any) -> MemoryEngine:
    """One engine per store folder in this process, so every memory on it shares one model."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(path)
        if engine is None:
            engine = _ENGINES[path] = MemoryEngine(path, embedder=embedder)
        return engine


def _as_text(value: Union[str, ChatMessage, None]) -> str:
    if isinstance(value, ChatMessage):
        return message_text(value)
    return value or ""


class HindsightMemory(BaseMemory):
    """LlamaIndex memory with long-term recall across sessions and learning from outcomes.

    Build it with :meth:`from_engine` (your engine) or :meth:`from_defaults` (an embedded store at
    ``./.hindsight``), then pass it to ``agent.run(user_msg=..., memory=memory)``. End the episode
    with :meth:`aend_episode` or let :func:`~hindsight_llamaindex.run_with_memory` do it.

    ``reset()`` clears the short-term history only; :meth:`forget_long_term` deletes the bank.
    One memory serves one conversation at a time (the open episode is per memory).

    Note:
        A ``ReActAgent`` without a ``system_prompt`` drops the first system message it is given. With
        ``insert_method="auto"`` (the default) the memory notices which agent asks (the agent calling
        ``aget``) and, for such an agent, puts the recalled context into the latest user message;
        every other agent gets it as a system message.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    primary_memory: BaseMemory = Field(description="Short-term chat history (LlamaIndex Memory by default).")
    bank_id: str = Field(description="The bank every read and write goes to (a user, agent or team).")
    session_id: str = Field(description="This conversation; tags captured memories and episodes.")
    recall_k: int = Field(5, ge=0, le=100, description="Memories recalled per query (besides lessons).")
    lessons_k: int = Field(3, ge=0, le=100, description="Lessons from earlier episodes recalled per query.")
    max_recall_tokens: int = Field(800, ge=1, description="Token budget of the recalled context.")
    capture_roles: tuple[Literal["user", "assistant", "tool"], ...] = Field(
        ("user", "assistant"),
        description="Whose messages become long-term memories at once: 'user', 'assistant' (final answers "
                    "only) and/or 'tool' (tool results). Every message joins the episode regardless.",
    )
    insert_method: Literal["auto", "system", "user"] = Field(
        "auto", description="Where recalled context goes: a system message, the latest user message, or "
                            "'auto': a system message unless the asking agent would drop it (see the note).")
    header: str = Field(DEFAULT_HEADER, description="First line of the recalled context.")
    lesson_match: Literal["bank", "precise"] = Field(
        "bank", description="How lessons are matched to the request: the bank's own matching, or its stricter "
                            "'precise' bars, for tools with a second look (checked_tools sets it).")

    _engine: MemoryEngine | None = PrivateAttr(default=None)
    _bank: "MemoryBank | None" = PrivateAttr(default=None)
    _recorder: EpisodeRecorder = PrivateAttr(default_factory=EpisodeRecorder)
    _captured: "OrderedDict[str, str]" = PrivateAttr(default_factory=OrderedDict)  # fingerprint -> unit id
    _put: "OrderedDict[int, ChatMessage]" = PrivateAttr(default_factory=OrderedDict)  # objects already put
    _cache: tuple[Any, str] | None = PrivateAttr(default=None)
    _version: int = PrivateAttr(default=0)

    @classmethod
    def class_name(cls) -> str:
        return "HindsightMemory"

    # ---- construction ---------------------------------------------------------------------------
    @classmethod
    def from_engine(
        cls,
        engine: MemoryEngine,
        bank_id: str = "default",
        session_id: str | None = None,
        *,
        primary_memory: BaseMemory | None = None,
        token_limit: int = 30_000,
        **fields: Any,
    ) -> "HindsightMemory":
        """A memory on ``engine``'s bank ``bank_id`` for the conversation ``session_id``.

        Args:
            engine: The shared :class:`~hindsight_core.MemoryEngine` (LangGraph graphs can use it too).
            bank_id: Whose memory: a user, agent or team id.
            session_id: This conversation (default: a new id).
            primary_memory: Short-term history; default ``Memory.from_defaults(session_id=...)``.
            token_limit: Token limit of the default short-term ``Memory``.
            **fields: ``recall_k``, ``lessons_k``, ``max_recall_tokens``, ``capture_roles``,
                ``insert_method``, ``header``.
        """
        if not isinstance(engine, MemoryEngine):
            raise InvalidInputError(f"engine must be a hindsight_core.MemoryEngine, not {type(engine).__name__}")
        unknown = set(fields.get("capture_roles", ())) - set(_ROLES)
        if unknown:
            raise InvalidInputError(f"unknown capture_roles {sorted(unknown)}; choose from {list(_ROLES)}")
        bank = engine.bank(bank_id)  # validates the id
        session_id = session_id or uuid.uuid4().hex
        primary = primary_memory or Memory.from_defaults(session_id=session_id, token_limit=token_limit)
        memory = cls(primary_memory=primary, bank_id=bank_id, session_id=session_id, **fields)
        memory._engine = engine
        memory._bank = bank
        return memory

    @classmethod
    def from_defaults(  # type: ignore[override]
        cls,
        bank_id: str = "default",
        session_id: str | None = None,
        *,
        path: str = "./.hindsight",
        embedder: Any = None,
        **kwargs: Any,
    ) -> "HindsightMemory":
        """A memory on the embedded store at ``path`` (one engine per folder per process).

        ``embedder`` is used only when this process opens ``path`` for the first time; other keyword
        arguments are those of :meth:`from_engine`.
        """
        return cls.from_engine(_shared_engine(str(path), embedder), bank_id, session_id, **kwargs)

    @property
    def engine(self) -> MemoryEngine:
        if self._engine is None:
            raise InvalidInputError(
                "this HindsightMemory has no engine: build it with "
                "HindsightMemory.from_engine(engine, bank_id=...) or HindsightMemory.from_defaults(bank_id=...)"
            )
        return self._engine

    @property
    def bank(self) -> "MemoryBank":
        """The core bank, for direct ``capture``/``recall`` calls."""
        if self._bank is None:
            self._bank = self.engine.bank(self.bank_id)
        return self._bank

    @property
    def episode_id(self) -> str:
        """Id of the open episode (what is put now belongs to it)."""
        return self._recorder.episode_id

    @property
    def recalled_text(self) -> str:
        """The long-term context the last ``aget`` recalled ("" before any, or when nothing was relevant)."""
        with self._recorder.lock:
            return self._cache[1] if self._cache is not None else ""

    @property
    def recalled_for(self) -> str:
        """The query the last ``aget`` recalled for ("" before any)."""
        with self._recorder.lock:
            return self._cache[0][0] if self._cache is not None else ""

    def current_episode(self, goal: str | None = None) -> "Episode | None":
        """The open episode as it would be stored now (``None`` if nothing was put yet)."""
        built = self._recorder.build(session_id=self.session_id, goal=goal)
        return built[0] if built else None

    # ---- read -----------------------------------------------------------------------------------
    async def aget(self, input: Union[str, ChatMessage, None] = None, **kwargs: Any) -> List[ChatMessage]:
        """Short-term history plus recalled long-term context for ``input`` (else the last user message)."""
        history = list(await self.primary_memory.aget(input=input, **kwargs))
        query = _as_text(input) or last_user_text(history)
        context = await self._recall(query, history) if query else ""
        if not context:
            return history
        method = self.insert_method
        if method == "auto":
            method = "user" if drops_leading_system_message() else "system"
        return self._insert(history, context, method)

    async def aget_all(self) -> List[ChatMessage]:
        """The short-term history only (no recall)."""
        return list(await self.primary_memory.aget_all())

    async def _recall(self, query: str, history: list[ChatMessage]) -> str:
        in_window = {fingerprint(m) for m in history}
        with self._recorder.lock:
            exclude = frozenset(u for fp, u in self._captured.items() if fp in in_window)
            key = (query, exclude, self._version, self.bank.count(), self.lesson_match)
            if self._cache is not None and self._cache[0] == key:
                return self._cache[1]
        context = await self.bank.arecall_context(query, k=self.recall_k, lessons_k=self.lessons_k,
                                                  exclude_ids=exclude, header=self.header,
                                                  max_tokens=self.max_recall_tokens, lesson_match=self.lesson_match)
        text = context.text
        with self._recorder.lock:
            self._cache = (key, text)
        return text

    @staticmethod
    def _insert(history: list[ChatMessage], context: str, method: str) -> list[ChatMessage]:
        block = TextBlock(text=context)
        if method == "user":
            for i in range(len(history) - 1, -1, -1):
                if getattr(history[i].role, "value", history[i].role) == "user":
                    msg = history[i].model_copy(deep=True)  # never edit the stored message
                    msg.blocks = [TextBlock(text=context + "\n\n"), *msg.blocks]
                    return [*history[:i], msg, *history[i + 1:]]
            return [*history, ChatMessage(role="user", blocks=[block])]
        if history and getattr(history[0].role, "value", history[0].role) == "system":
            first = history[0].model_copy(deep=True)  # e.g. the primary Memory's own blocks
            first.blocks = [TextBlock(text=context + "\n\n"), *first.blocks]
            return [first, *history[1:]]
        return [ChatMessage(role="system", blocks=[block]), *history]

    # ---- write ----------------------------------------------------------------------------------
    async def aput(self, message: ChatMessage) -> None:
        """Add a message to the short-term history; capture it once into long-term memory and the episode."""
        await self.primary_memory.aput(message)
        await self._ingest([message])

    async def aput_messages(self, messages: List[ChatMessage]) -> None:
        """Add messages (an agent's scratchpad); each new one is captured once."""
        await self.primary_memory.aput_messages(list(messages))
        await self._ingest(messages)

    async def aset(self, messages: List[ChatMessage]) -> None:
        """Replace the short-term history; only messages it did not hold already are captured."""
        before = Counter(fingerprint(m) for m in await self.primary_memory.aget_all())
        await self.primary_memory.aset(list(messages))
        new = []
        for message in messages:  # a re-sent history: each old message matches one already there
            fp = fingerprint(message)
            if before[fp] > 0:
                before[fp] -= 1
            else:
                new.append(message)
        await self._ingest(new)

    async def _ingest(self, messages: Iterable[ChatMessage]) -> None:
        """Capture messages that are new: not an object put before, not equal to one of this episode."""
        items: list[dict[str, Any]] = []
        fps: list[str] = []
        rec = self._recorder
        with rec.lock:
            for message in messages:
                if self._put.get(id(message)) is message:
                    continue  # the same object again (an agent re-putting its scratchpad)
                self._put[id(message)] = message
                while len(self._put) > _MAX_TRACKED:
                    self._put.popitem(last=False)
                fp = fingerprint(message)
                if fp in rec.fingerprints:
                    continue  # an equal copy within this episode
                rec.fingerprints.add(fp)
                rec.add(message_steps(message, rec.tool_names))
                role = getattr(message.role, "value", str(message.role))
                if role not in self.capture_roles:
                    continue
                text = final_answer(message) if role == "assistant" else message_text(message)
                if not text.strip():
                    continue
                kind = "experience" if role == "user" and is_request(text) else _KIND[role]  # asked, not a fact
                items.append(dict(text=text[:MAX_TEXT_CHARS], source=_SOURCE[role], kind=kind,
                                  session_id=self.session_id, episode_id=rec.episode_id,
                                  metadata={"via": "llamaindex", "role": role}))
                fps.append(fp)
        if not items:
            return
        results = await self.bank.acapture_many(items)
        with rec.lock:
            for fp, result in zip(fps, results):
                if result.unit_id:
                    self._captured[fp] = result.unit_id
                    self._captured.move_to_end(fp)
            while len(self._captured) > _MAX_TRACKED:
                self._captured.popitem(last=False)
            self._version += 1

    def record_tool_results(self, results: Iterable[Any]) -> None:
        """Tell the open episode which tool calls failed.

        Pass the ``ToolCallResult`` events of a run, or ``AgentOutput.tool_calls`` of a finished one
        (``run_with_memory`` does this for you). Calls the messages never showed (a run that raised
        before the agent wrote its scratchpad) are added.
        """
        self._recorder.record_tool_results(results)

    # ---- episodes -------------------------------------------------------------------------------
    async def aend_episode(
        self,
        outcome: str,
        feedback: str | None = None,
        *,
        goal: str | None = None,
        background: bool = False,
    ) -> "EpisodeResult":
        """Store the open episode with its outcome, reflect on it, and start the next one.

        Args:
            outcome: ``"success"``, ``"failure"``, ``"partial"`` or ``"unknown"`` (stored, no lesson).
            feedback: Words on the outcome (a user's, a judge's); they shape the lesson.
            goal: The task (default: the first user message of the episode).
            background: Reflect in the bank's background queue (the lesson lands a little later).

        Raises:
            InvalidInputError: nothing was put since the last episode ended, or a bad outcome label.
        """
        built = self._recorder.build(session_id=self.session_id, goal=goal)
        if built is None:
            raise InvalidInputError(
                "no episode to end: nothing was put into this memory since the last episode ended. "
                "Call aend_episode after agent.run(..., memory=memory)."
            )
        episode, used = built
        result = await self.bank.aend_episode(episode, outcome, feedback=feedback, background=background)
        self._recorder.close(used)
        with self._recorder.lock:
            self._version += 1
        return result

    async def aforget_long_term(self) -> None:
        """Delete this memory's whole bank (every session's memories, lessons and episodes).

        The short-term history is kept; call ``reset()`` for that. Other memories and graphs on the
        same bank lose their long-term memory too.
        """
        await self.engine.adelete_bank(self.bank_id, missing_ok=True)
        with self._recorder.lock:
            self._captured.clear()
            self._version += 1

    async def areset(self) -> None:
        """Clear the short-term history. Long-term memory and the open episode are kept."""
        await self.primary_memory.areset()
        with self._recorder.lock:
            self._cache = None

    # ---- sync shells ----------------------------------------------------------------------------
    def get(self, input: Union[str, ChatMessage, None] = None, **kwargs: Any) -> List[ChatMessage]:
        """Sync :meth:`aget`."""
        return asyncio_run(self.aget(input=input, **kwargs))

    def get_all(self) -> List[ChatMessage]:
        """Sync :meth:`aget_all`."""
        return asyncio_run(self.aget_all())

    def put(self, message: ChatMessage) -> None:
        """Sync :meth:`aput`."""
        asyncio_run(self.aput(message))

    def put_messages(self, messages: List[ChatMessage]) -> None:
        """Sync :meth:`aput_messages`."""
        asyncio_run(self.aput_messages(messages))

    def set(self, messages: List[ChatMessage]) -> None:
        """Sync :meth:`aset`."""
        asyncio_run(self.aset(messages))

    def reset(self) -> None:
        """Sync :meth:`areset`: clears the short-term history only."""
        asyncio_run(self.areset())

    def end_episode(self, outcome: str, feedback: Optional[str] = None, *, goal: str | None = None,
                    background: bool = False) -> "EpisodeResult":
        """Sync :meth:`aend_episode`."""
        return asyncio_run(self.aend_episode(outcome, feedback, goal=goal, background=background))

    def forget_long_term(self) -> None:
        """Sync :meth:`aforget_long_term`."""
        asyncio_run(self.aforget_long_term())
