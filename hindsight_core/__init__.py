"""hindsight-memory core: long-term memory for agents on embedded Chroma plus a graph.

Example:
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder())  # or MemoryEngine("./.hindsight")
    >>> bank = engine.bank("alice")
    >>> _ = bank.capture("Remember: the staging database is db-staging-2.", source="user")
    >>> print(bank.recall("which database is staging?", k=1).render())  # doctest: +ELLIPSIS
    Relevant memories:
    - [...] Remember: the staging database is db-staging-2.
"""

from hindsight_core._bank_cache import CacheConfig
from hindsight_core.bank import MemoryBank
from hindsight_core.config import BankConfig, GateConfig, PIIConfig, RecallConfig
from hindsight_core.embeddings import Embedder
from hindsight_core.engine import MemoryEngine
from hindsight_core.errors import (
    HindsightError,
    InvalidInputError,
    LLMError,
    NotFoundError,
    OptionalDependencyError,
    SchemaVersionError,
    StorageError,
    UnknownOptionError,
)
from hindsight_core.models import (
    CaptureItem,
    CaptureResult,
    ChannelHit,
    MemoryKind,
    MemoryStatus,
    MemoryUnit,
    Outcome,
    RecallHit,
    RecallResult,
    Source,
)

__version__ = "0.1.0"

__all__ = [
    "MemoryEngine",
    "MemoryBank",
    "MemoryUnit",
    "MemoryKind",
    "MemoryStatus",
    "Source",
    "Outcome",
    "CaptureItem",
    "CaptureResult",
    "RecallHit",
    "RecallResult",
    "ChannelHit",
    "BankConfig",
    "RecallConfig",
    "PIIConfig",
    "GateConfig",
    "CacheConfig",
    "Embedder",
    "HindsightError",
    "InvalidInputError",
    "UnknownOptionError",
    "NotFoundError",
    "StorageError",
    "SchemaVersionError",
    "LLMError",
    "OptionalDependencyError",
]
