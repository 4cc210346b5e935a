"""The state keys the memory nodes read and write, as a mixin for your graph's state.

Inherit it next to your own state so that your nodes see what recall found and can label the
outcome of a run::

    from langgraph.graph import MessagesState
    from hindsight_lg import MemoryState

    class State(MessagesState, MemoryState):
        pass

Every key is ``NotRequired``: a graph that never touches memory runs unchanged.

Example:
    >>> from langgraph.graph import MessagesState
    >>> class State(MessagesState, MemoryState):
    ...     pass
    >>> sorted(k for k in State.__annotations__ if k in MEMORY_KEYS)[:3]
    ['bank_id', 'episode_error', 'episode_id']
"""

from typing import Any

from typing_extensions import NotRequired, TypedDict

__all__ = ["MemoryState", "MEMORY_KEYS", "AFTER"]

#: Prefix of an ``episode_start`` marker meaning "the episode starts after this message id".
AFTER = "after:"


class MemoryState(TypedDict):
    """State keys of the hindsight nodes (declared with ``typing_extensions.TypedDict``, as
    ``MessagesState`` is, so the two mix on Python 3.11)."""

    memory_context: NotRequired[str]
    """What the recall node found, rendered for a prompt ("" when memory holds nothing relevant)."""
    outcome: NotRequired[str | None]
    """``"success"``, ``"failure"`` or ``"partial"``: set it from any node or tool; the reflect node
    learns from the episode with this label and clears it."""
    feedback: NotRequired[str | None]
    """Optional words on the outcome (a user's or a judge's); cleared with ``outcome``."""
    episode_id: NotRequired[str | None]
    """The current episode; a new one starts after each reflection."""
    episode_start: NotRequired[str | None]
    """Where the current episode starts in ``messages``: a message id, or ``"after:<id>"``."""
    episode_error: NotRequired[str | None]
    """The error that ended the episode (set by :func:`~hindsight_lg.with_memory`'s error handler)."""
    last_episode: NotRequired[dict[str, Any] | None]
    """What the last reflection stored: episode id, outcome, experience and lesson ids, lesson text."""
    memory_captured_upto: NotRequired[str | None]
    """Id of the last message the capture node recorded."""
    bank_id: NotRequired[str | None]
    """The bank, when you keep it in state (runtime context and ``configurable`` win over it)."""


#: Every key of :class:`MemoryState`.
MEMORY_KEYS: frozenset[str] = frozenset(MemoryState.__annotations__)
