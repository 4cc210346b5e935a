"""Memory as tools for tool-calling agents: ``recall_memory`` and ``remember``.

The bank is resolved on every call, from the ``ToolRuntime`` LangGraph's ``ToolNode`` injects
(context, state) and the call's config (``configurable``), then ``default_bank``; the model never
chooses the bank. Both tools have sync and async bodies.

Example:
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> remember, recall = remember_tool(engine), recall_tool(engine)
    >>> config = {"configurable": {"bank_id": "alice"}}
    >>> remember.invoke({"text": "Alice's staging database is db-staging-2."}, config)[:10]
    'Remembered'
    >>> "db-staging-2" in recall.invoke({"query": "which staging database?"}, config)
    True
    >>> recall.invoke({"query": "which staging database?"}, {"configurable": {"bank_id": "bob"}})
    'No relevant memories.'
"""

from typing import Any, Mapping

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.prebuilt import ToolRuntime

from hindsight_core import CaptureResult, MemoryEngine
from hindsight_lg._resolve import BankResolver, BankSpec, runtime_of, thread_id_of

__all__ = ["recall_tool", "remember_tool"]

_NOTHING = "No relevant memories."


def _where(spec: BankSpec, config: RunnableConfig | None, runtime: Any) -> tuple[Any, Any, Any]:
    """(bank, state, runtime) of this call."""
    runtime = runtime if runtime is not None else runtime_of(config)
    state = getattr(runtime, "state", None)
    return spec.bank(state, config, runtime), state, runtime


def recall_tool(
    engine: MemoryEngine,
    *,
    default_bank: str | None = None,
    bank_key: str = "bank_id",
    bank_resolver: BankResolver | None = None,
    bank_options: Mapping[str, Any] | None = None,
    k: int = 5,
    lessons_k: int = 3,
    max_tokens: int | None = 1200,
    include_drafts: bool = True,
    name: str = "recall_memory",
    description: str = ("Search long-term memory: facts the user told you, what happened in past runs, "
                        "and lessons from past failures. Use it before planning a task you may have done before."),
) -> BaseTool:
    """A tool ``recall_memory(query)`` that returns lessons first, then other relevant memories
    (drafts too, labelled ``[draft]``, unless ``include_drafts=False``)."""
    spec = BankSpec(engine, default_bank, bank_key, bank_resolver, dict(bank_options or {}))

    def recall_memory(query: str, config: RunnableConfig, runtime: ToolRuntime[Any, Any] = None) -> str:
        bank, _, _ = _where(spec, config, runtime)
        return bank.recall_context(query, k=k, lessons_k=lessons_k, max_tokens=max_tokens, header="",
                                   include_drafts=include_drafts).text or _NOTHING

    async def arecall_memory(query: str, config: RunnableConfig, runtime: ToolRuntime[Any, Any] = None) -> str:
        bank, _, _ = _where(spec, config, runtime)
        context = await bank.arecall_context(query, k=k, lessons_k=lessons_k, max_tokens=max_tokens, header="",
                                              include_drafts=include_drafts)
        return context.text or _NOTHING

    return StructuredTool.from_function(func=recall_memory, coroutine=arecall_memory, name=name,
                                        description=description)


def _said(result: CaptureResult) -> str:
    if result.merged:
        return f"Already known; strengthened memory {result.unit_id}."
    if result.unit is not None and result.unit.status.value == "draft":
        return f"Remembered as draft {result.unit_id} (a fact once the user or a tool confirms it)."
    return f"Remembered as {result.unit_id}."


def remember_tool(
    engine: MemoryEngine,
    *,
    default_bank: str | None = None,
    bank_key: str = "bank_id",
    bank_resolver: BankResolver | None = None,
    bank_options: Mapping[str, Any] | None = None,
    source: str = "llm",
    name: str = "remember",
    description: str = ("Save one self-contained fact or preference to long-term memory, in a full sentence "
                        "(e.g. 'The user's staging database is db-staging-2')."),
) -> BaseTool:
    """A tool ``remember(text)`` that captures a fact into the call's bank (``session_id`` = thread id,
    ``episode_id`` from state when the tool runs in a ``ToolNode``).

    The model writes the text, so by default it is stored with ``source="llm"``: a draft, recalled by
    :func:`recall_tool` with a ``[draft]`` label, active once a user or tool says the same thing.
    Pass ``source="user"`` only where the tool stores the user's own words verbatim."""
    spec = BankSpec(engine, default_bank, bank_key, bank_resolver, dict(bank_options or {}))

    def _kwargs(config: RunnableConfig | None, state: Any) -> dict[str, Any]:
        episode_id = state.get("episode_id") if isinstance(state, Mapping) else None
        return dict(source=source, session_id=thread_id_of(config), episode_id=episode_id, keep_raw=True,
                    metadata={"via": name})

    def remember(text: str, config: RunnableConfig, runtime: ToolRuntime[Any, Any] = None) -> str:
        bank, state, _ = _where(spec, config, runtime)
        return _said(bank.capture(text, **_kwargs(config, state)))

    async def aremember(text: str, config: RunnableConfig, runtime: ToolRuntime[Any, Any] = None) -> str:
        bank, state, _ = _where(spec, config, runtime)
        return _said(await bank.acapture(text, **_kwargs(config, state)))

    return StructuredTool.from_function(func=remember, coroutine=aremember, name=name, description=description)
