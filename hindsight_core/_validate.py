"""Input validation shared by the public methods: every bad input becomes an InvalidInputError
with a message that says how to fix it, before anything is changed."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from enum import Enum
from typing import Any, TypeVar

from hindsight_core.config import MAX_TEXT_CHARS
from hindsight_core.errors import InvalidInputError

__all__ = ["check_text", "check_time", "check_enum", "check_metadata", "check_k", "check_ids"]

E = TypeVar("E", bound=Enum)


def check_text(text: Any, what: str = "text") -> str:
    if not isinstance(text, str):
        raise InvalidInputError(f"{what} must be a str, not {type(text).__name__}")
    if not text.strip():
        raise InvalidInputError(f"{what} is empty; pass the text to remember or search for")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInputError(
            f"{what} is {len(text):,} characters; the limit is {MAX_TEXT_CHARS:,}. Split long documents into "
            "passages and capture each one."
        )
    if "\x00" in text:
        raise InvalidInputError(f"{what} contains a NUL character")
    return text


def check_time(value: Any, what: str) -> datetime | None:
    """Accept an aware or naive (taken as UTC) datetime, or an ISO-8601 string; return aware UTC."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidInputError(
                f"{what}={value!r} is not an ISO-8601 time; pass a datetime or e.g. '2023-05-08T13:56:00+00:00'"
            ) from None
    if not isinstance(value, datetime):
        raise InvalidInputError(f"{what} must be a datetime or an ISO-8601 string, not {type(value).__name__}")
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    try:
        return value.astimezone(timezone.utc)
    except (OverflowError, ValueError) as exc:
        raise InvalidInputError(f"{what}={value!r} cannot be converted to UTC: {exc}") from None


def check_enum(value: Any, enum: type[E], what: str) -> E:
    if isinstance(value, enum):
        return value
    try:
        return enum(value)
    except ValueError:
        choices = ", ".join(repr(m.value) for m in enum)  # type: ignore[attr-defined]
        raise InvalidInputError(f"unknown {what} {value!r}; use one of {choices}") from None


def check_metadata(metadata: Any) -> dict[str, Any]:
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise InvalidInputError(f"metadata must be a dict, not {type(metadata).__name__}")
    if any(not isinstance(k, str) for k in metadata):
        raise InvalidInputError("metadata keys must be strings")
    try:
        encoded = json.dumps(metadata, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"metadata must be JSON-serialisable (str, int, float, bool, None, lists and dicts of them): {exc}"
        ) from None
    if len(encoded) > 32_000:
        raise InvalidInputError("metadata is over 32,000 characters as JSON; store large payloads elsewhere")
    return json.loads(encoded)  # a private copy: later changes by the caller cannot reach the store


def check_k(k: Any, what: str = "k", limit: int = 1000) -> int:
    if isinstance(k, bool) or not isinstance(k, int):
        raise InvalidInputError(f"{what} must be an int, not {type(k).__name__}")
    if not 1 <= k <= limit:
        raise InvalidInputError(f"{what} must be between 1 and {limit}, got {k}")
    return k


def check_ids(ids: Any, what: str = "ids") -> list[str]:
    """A str, or a list/tuple/set of str (``None``: no ids)."""
    if ids is None:
        return []
    if isinstance(ids, str):
        return [ids]
    if not isinstance(ids, (list, tuple, set, frozenset)) or any(not isinstance(i, str) for i in ids):
        raise InvalidInputError(f"{what} must be a str or a list of str (unit ids), not {type(ids).__name__}")
    return list(ids)
