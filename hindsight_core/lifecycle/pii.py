"""PII and secret redaction, applied before anything is stored or embedded.

Each detector is a compiled pattern plus an optional validator (Luhn for cards) so that ports,
dates, versions and ordinary numbers are left alone.

Example:
    >>> redact("mail bob@example.com or call +1 (415) 555-0199.").text
    'mail [EMAIL] or call [PHONE].'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable

__all__ = ["Redaction", "redact", "redact_value"]


def _luhn_ok(candidate: str) -> bool:
    digits = [int(c) for c in candidate if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _phone_ok(candidate: str) -> bool:
    digits = sum(c.isdigit() for c in candidate)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", candidate.strip()):  # an ISO date, not a phone
        return False
    return 10 <= digits <= 15


# Order matters: secrets and cards before phones, so a card number is not half-read as a phone.
_DETECTORS: list[tuple[str, str, re.Pattern[str], Callable[[str], bool] | None]] = [
    ("secret", "[SECRET]", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"), None),
    (
        "secret",
        "[SECRET]",
        re.compile(
            r"\b(?:sk-(?:proj-)?[A-Za-z0-9_-]{16,}|sk_live_[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}"
            r"|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
        ),
        None,
    ),
    (
        "secret",
        "[SECRET]",
        re.compile(
            r"(?i)\b(?:password|passwd|pwd|secret|api[_ -]?key|access[_ -]?token|auth[_ -]?token|token|bearer)"
            r"(\s*(?:is|=|:)\s*|\s+)(?=[^\s]*[0-9\W_])(?!\[)([^\s'\",;]{6,})"
        ),
        None,
    ),
    ("email", "[EMAIL]", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b"), None),
    ("iban", "[IBAN]", re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,4})?\b"), None),
    ("card", "[CARD]", re.compile(r"\b(?:\d[ -]?){12,18}\d\b"), _luhn_ok),
    ("id_number", "[ID_NUMBER]", re.compile(r"\b\d{3}-\d{2}-\d{4}\b"), None),  # US SSN shape
    (
        "phone",
        "[PHONE]",
        re.compile(r"(?<![\w.])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]\d{2,4}){1,4}(?!\w|\.\d)"),
        _phone_ok,
    ),
    ("phone", "[PHONE]", re.compile(r"(?<![\w.])\+\d{10,14}(?!\w|\.\d)"), None),
    (
        "ip_address",
        "[IP_ADDRESS]",
        re.compile(r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b"),
        None,
    ),
]


@dataclass(frozen=True, slots=True)
class Redaction:
    text: str
    kinds: tuple[str, ...]  # kinds found, each once, in detector order


def redact(text: str, kinds: Iterable[str] | None = None) -> Redaction:
    """Replace PII of the given ``kinds`` (default: all) with typed placeholders."""
    wanted = None if kinds is None else frozenset(kinds)
    found: list[str] = []
    for kind, placeholder, pattern, validator in _DETECTORS:
        if wanted is not None and kind not in wanted:
            continue

        def _sub(m: re.Match[str], kind: str = kind, placeholder: str = placeholder, validator=validator) -> str:
            if validator is not None and not validator(m.group(0)):
                return m.group(0)
            if kind not in found:
                found.append(kind)
            if pattern.groups >= 2:  # "password: xyz" keeps its label
                return m.group(0)[: m.start(2) - m.start(0)] + placeholder
            return placeholder

        text = pattern.sub(_sub, text)
    return Redaction(text=text, kinds=tuple(found))


def redact_value(value: Any, kinds: Iterable[str] | None = None) -> tuple[Any, tuple[str, ...]]:
    """Redact every string inside a JSON-like value (metadata); returns the value and kinds found."""
    found: list[str] = []

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            r = redact(v, kinds)
            found.extend(k for k in r.kinds if k not in found)
            return r.text
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return type(v)(walk(x) for x in v)
        return v

    return walk(value), tuple(found)
