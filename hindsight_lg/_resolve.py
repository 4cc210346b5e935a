"""Which bank a node or tool call works on, resolved per call, never frozen in a closure.

Order: ``bank_resolver(state, config, runtime)`` when given and not None -> ``runtime.context``
(attribute or key ``bank_key``) -> ``config["configurable"][bank_key]`` -> ``state[bank_key]`` ->
``default_bank``. LangGraph does not mirror ``context=`` into ``configurable`` (or back), so every
place is read.
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import get_runtime

from hindsight_core import InvalidInputError, MemoryBank, MemoryEngine

__all__ = ["BankResolver", "BankSpec", "runtime_of", "thread_id_of"]

#: ``(state, config, runtime) -> bank id or None`` (``None`` falls through to the usual order).
BankResolver = Callable[[Any, RunnableConfig, Any], "str | None"]


def runtime_of(config: RunnableConfig | None = None) -> Any:
    """The LangGraph ``Runtime`` of the current node or tool call (public ``get_runtime``), or None
    outside a graph. ``config`` is accepted for symmetry; the runtime comes from the run's context."""
    try:
        return get_runtime()
    except (RuntimeError, KeyError, TypeError):  # not inside a runnable, or no runtime in it
        return None


def thread_id_of(config: RunnableConfig | None) -> str | None:
    """The checkpointer thread id, used as the memory ``session_id``."""
    value = ((config or {}).get("configurable") or {}).get("thread_id")
    return None if value is None else str(value)


def _lookup(source: Any, key: str) -> Any:
    if source is None:
        return None
    if isinstance(source, Mapping):
        return source.get(key)
    return getattr(source, key, None)


@dataclass(frozen=True, slots=True)
class BankSpec:
    """How a node finds its bank; shared by nodes, the wrapper and tools."""

    engine: MemoryEngine
    default_bank: str | None = None
    bank_key: str = "bank_id"
    bank_resolver: BankResolver | None = None
    bank_options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.engine, MemoryEngine):
            raise InvalidInputError(f"engine must be a hindsight_core.MemoryEngine, not {type(self.engine).__name__}")
        if not isinstance(self.bank_key, str) or not self.bank_key:
            raise InvalidInputError("bank_key must be a non-empty str, e.g. 'bank_id'")
        if self.bank_resolver is not None and not callable(self.bank_resolver):
            raise InvalidInputError("bank_resolver must be a function (state, config, runtime) -> str | None")

    def bank_id(self, state: Any, config: RunnableConfig | None, runtime: Any = None) -> str:
        runtime = runtime if runtime is not None else runtime_of(config)
        if self.bank_resolver is not None:
            found = self.bank_resolver(state, config or {}, runtime)
            if found is not None:
                return str(found)
        for source in (getattr(runtime, "context", None), (config or {}).get("configurable"), state):
            found = _lookup(source, self.bank_key)
            if found is not None:
                return str(found)
        if self.default_bank is not None:
            return self.default_bank
        raise InvalidInputError(
            f"no memory bank for this run: pass context={{'{self.bank_key}': ...}} to invoke, or "
            f"config={{'configurable': {{'{self.bank_key}': ...}}}}, or set state['{self.bank_key}'], "
            "or give the node default_bank=... or bank_resolver=..."
        )

    def bank(self, state: Any, config: RunnableConfig | None, runtime: Any = None) -> MemoryBank:
        """A fresh handle on this call's bank (handles are cheap; never cache one)."""
        return self.engine.bank(self.bank_id(state, config, runtime), **dict(self.bank_options))
