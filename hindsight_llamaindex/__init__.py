"""LlamaIndex adapter for hindsight-memory: long-term, cross-session memory that learns from outcomes.

Public surface:

* :class:`HindsightMemory` - a ``BaseMemory`` for ``agent.run(user_msg=..., memory=memory)``:
  short-term history in LlamaIndex's ``Memory``, recall from the bank into a system message,
  capture of every new message, ``aend_episode(outcome=...)`` to learn from the run;
* :func:`run_with_memory` - await a run, infer its outcome (tool errors, iteration limit, a judge)
  and end the episode; :class:`AgentRun` is what it returns, :func:`infer_outcome` its rules;
* :class:`HindsightMemoryBlock` - recall-only block for ``Memory(memory_blocks=[...])``;
* :class:`HindsightEmbedding` - the engine's embedder as a LlamaIndex ``BaseEmbedding``;
* :func:`checked_tools` - the agent's tools with a second look before the first call, in an
  episode, of a tool that failed before.

Example:
    >>> import asyncio
    >>> from llama_index.core.agent.workflow import FunctionAgent
    >>> from llama_index.core.llms import ChatMessage
    >>> from llama_index.core.llms.mock import MockFunctionCallingLLM
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> from hindsight_llamaindex import HindsightMemory
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())
    >>> seen = []
    >>> def llm_reply(messages, **kwargs):
    ...     seen.append(" ".join(m.content or "" for m in messages))
    ...     return ChatMessage(role="assistant", content="Noted.")
    >>> agent = FunctionAgent(tools=[], llm=MockFunctionCallingLLM(response_generator=llm_reply))
    >>> async def two_sessions():
    ...     first = HindsightMemory.from_engine(engine, bank_id="alice", session_id="s1")
    ...     await agent.run(user_msg="My favourite editor is Helix.", memory=first)
    ...     second = HindsightMemory.from_engine(engine, bank_id="alice", session_id="s2")
    ...     await agent.run(user_msg="Which editor do I like?", memory=second)
    >>> asyncio.run(two_sessions())
    >>> "Helix" in seen[-1]
    True
"""

from __future__ import annotations

try:
    import llama_index.core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    from hindsight_core.errors import OptionalDependencyError

    raise OptionalDependencyError(
        "hindsight_llamaindex needs llama-index-core: pip install 'hindsight-memory[llamaindex]'"
    ) from exc

from hindsight_llamaindex.block import HindsightMemoryBlock
from hindsight_llamaindex.embedding import HindsightEmbedding
from hindsight_llamaindex.memory import HindsightMemory
from hindsight_llamaindex.run import AgentRun, infer_outcome, run_with_memory
from hindsight_llamaindex.tool_check import checked_tools

__all__ = [
    "HindsightMemory",
    "HindsightMemoryBlock",
    "HindsightEmbedding",
    "run_with_memory",
    "AgentRun",
    "infer_outcome",
    "checked_tools",
]
