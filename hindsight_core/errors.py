"""The error tree of hindsight-memory.

Every error the library raises on purpose derives from :class:`HindsightError`::

    HindsightError
    ├── InvalidInputError      the caller passed something we cannot accept (also a ValueError)
    │   └── UnknownOptionError   a keyword or option name that does not exist
    ├── NotFoundError          a bank or unit id that does not exist (also a KeyError)
    ├── StorageError           the Chroma store could not be opened, read or written
    │   └── SchemaVersionError   data written by a version this one cannot read
    ├── LLMError               a plugged-in model failed or answered unusably
    └── OptionalDependencyError  an extra (LangGraph, LlamaIndex, a model) is not installed

Messages say what went wrong *and* how to fix it.
"""

from __future__ import annotations

__all__ = [
    "HindsightError",
    "InvalidInputError",
    "UnknownOptionError",
    "NotFoundError",
    "StorageError",
    "SchemaVersionError",
    "LLMError",
    "OptionalDependencyError",
]


class HindsightError(Exception):
    """Base class of every error raised on purpose by hindsight-memory."""


class InvalidInputError(HindsightError, ValueError):
    """The caller passed a value the library cannot accept; nothing was changed."""


class UnknownOptionError(InvalidInputError):
    """An option or keyword name that does not exist (often a typo)."""


class NotFoundError(HindsightError, KeyError):
    """A bank or memory unit that does not exist (or belongs to another bank)."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the sentence readable
        return str(self.args[0]) if self.args else ""


class StorageError(HindsightError):
    """The vector store could not be opened, read or written."""


class SchemaVersionError(StorageError):
    """Stored data was written by a schema version this release cannot read."""


class LLMError(HindsightError):
    """A plugged-in language model failed, or its answer could not be used."""


class OptionalDependencyError(HindsightError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""
