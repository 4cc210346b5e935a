"""Input validation shared by the public methods: every bad input becomes an InvalidInputError
with a message that says how to fix it, before anything is changed."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from enum import Enum
from typing import Any, TypeVar

from hindsight_core.config import MAX_TEXT_CHARS
from hindsight_core.errors import InvalidInputError

__all__ = ["check_text", "check_unicode", "check_episode", "MAX_METADATA_DEPTH", "check_time", "check_enum", "check_metadata", "check_k", "check_ids", "normalise_bank_id",
           "MAX_BANK_ID"]

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
        raise InvalidInputError(f"{what} contains a NUL character; remove it (text is stored as UTF-8)")
    check_unicode(text, what)
    return text


def check_unicode(value: str, what: str) -> str:
    """Refuse lone surrogates (half a UTF-16 pair, e.g. from a broken decode): they cannot be stored."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{what} contains a lone surrogate ({value[exc.start]!r} at position {exc.start}), which is not valid "
            "Unicode; decode your input with errors='replace' or remove it"
        ) from None
    return value


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
    depth = _depth(metadata)
    if depth > MAX_METADATA_DEPTH:
        raise InvalidInputError(
            f"metadata is nested more than {MAX_METADATA_DEPTH} levels deep; flatten it (e.g. 'a.b.c' keys) or store "
            "the structure elsewhere and keep a reference"
        )
    try:
        encoded = json.dumps(metadata, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"metadata must be JSON-serialisable (str, int, float, bool, None, lists and dicts of them): {exc}"
        ) from None
    except RecursionError:  # a structure that contains itself
        raise InvalidInputError("metadata contains itself (a cycle) or is nested too deeply; pass plain JSON data") from None
    check_unicode(encoded, "metadata")
    if len(encoded) > 32_000:
        raise InvalidInputError("metadata is over 32,000 characters as JSON; store large payloads elsewhere")
    return json.loads(encoded)  # a private copy: later changes by the caller cannot reach the store


#: Deepest nesting of metadata accepted: real payloads are a few levels; deeper is a bug or an attack
#: (and Python's JSON encoder recurses once per level).
MAX_METADATA_DEPTH = 32


def _depth(value: Any, level: int = 1) -> int:
    if level > MAX_METADATA_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level)
    if isinstance(value, (list, tuple)):
        return max((_depth(v, level + 1) for v in value), default=level)
    return level - 1


def check_episode(episode: Any, feedback: Any) -> None:
    """The parts of an episode that are stored: the goal (as text and in metadata), each step's text,
    tool name and the feedback. Steps may be long (they are cut when rendered); the goal may not."""
    check_text(episode.goal, "the episode's goal")
    for n, step in enumerate(episode.steps, 1):
        if "\x00" in step.text:
            raise InvalidInputError(f"step {n} of the episode contains a NUL character; remove it")
        check_unicode(step.text, f"step {n} of the episode")
        if step.tool is not None:
            check_unicode(step.tool, f"the tool name of step {n}")
    for name, value in (("the episode id", episode.id), ("the episode's session_id", episode.session_id)):
        if value is not None:
            check_unicode(value, name)
    check_metadata(episode.metadata)
    if feedback is not None:
        check_text(feedback, "feedback")


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


#: Longest bank id accepted (characters, after normalisation).
MAX_BANK_ID = 200


def normalise_bank_id(bank: Any) -> str:
    """The one normal form of a bank id: Unicode NFKC, surrounding whitespace trimmed, case kept.

    Look-alike spellings of one id therefore name one bank: "alice", " alice " and the NFD or
    full-width forms of an accented or Latin id are the same bank. Case is kept on purpose: ids are
    usually user or tenant ids from another system, where "Alice" and "alice" may be two people;
    fold case yourself before calling if your ids are case-insensitive. Ids with invisible characters
    (zero-width spaces and joiners, bidi controls, soft hyphens), control characters or lone
    surrogates are refused, never silently changed: they are how two ids that look the same differ.
    Stores written before this normalisation open unchanged when their ids are already normal; other
    ids are moved with :func:`hindsight_core.storage.bank_ids.normalise_bank_ids`; :meth:`MemoryEngine.delete_bank`
    also drops such old spellings of the id, so an erasure reaches everything stored under it.

    Example:
        >>> normalise_bank_id("  Cafe\\u0301 ")
        'Café'
    """
    import unicodedata

    if not isinstance(bank, str):
        raise InvalidInputError(f"bank id must be a str, not {type(bank).__name__}, e.g. engine.bank('alice')")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in bank):
        raise InvalidInputError("bank id contains a lone surrogate (broken Unicode); pass a valid str, e.g. 'alice'")
    hidden = sorted({f"U+{ord(c):04X}" for c in bank if unicodedata.category(c) in ("Cf", "Cc", "Co", "Cn")
                     and c not in " \t"})
    if hidden:
        raise InvalidInputError(
            f"bank id {bank!r} contains invisible or control characters ({', '.join(hidden[:5])}); they make ids "
            "that look the same name different banks. Remove them, e.g. engine.bank('alice')"
        )
    normal = unicodedata.normalize("NFKC", bank).strip()
    if not normal:
        raise InvalidInputError("bank id must be a non-empty string, e.g. engine.bank('alice')")
    if len(normal) > MAX_BANK_ID:
        raise InvalidInputError(f"bank id is {len(normal)} characters; the limit is {MAX_BANK_ID}")
    return normal
