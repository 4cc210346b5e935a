"""The rule-based write gate: how much a captured text is worth remembering.

The gate ranks, it does not lose: a text it scores as small talk is still stored (flagged
``log_only``) unless the caller opts out, so recall can fall back to the raw log. A model-based
scorer can replace it by following :class:`ImportanceScorer`.

Example:
    >>> score_text("Remember: the deploy key rotates every Friday.").reasons
    ('explicit',)
    >>> score_text("lol ok thanks!").importance < 0.3
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

__all__ = ["GateVerdict", "ImportanceScorer", "score_text", "looks_like_instruction"]


@dataclass(frozen=True, slots=True)
class GateVerdict:
    importance: float
    reasons: tuple[str, ...]


class ImportanceScorer(Protocol):
    """Anything that scores a text in [0, 1] with reasons (an LLM scorer may plug in here)."""

    def __call__(self, text: str, *, source: str, entity_count: int) -> GateVerdict: ...


_I = re.IGNORECASE
# (reason, score, pattern): the highest matching score wins; every match is a reason.
_RULES: tuple[tuple[str, float, re.Pattern[str]], ...] = (
    ("explicit", 0.9, re.compile(
        r"\b(remember( that|:|\b)|don'?t forget|do not forget|note that|keep in mind|make a note|for future reference"
        r"|from now on|going forward)", _I)),
    ("decision", 0.8, re.compile(
        r"\b(decided|we'?ll go with|going with|approved|rejected|cancell?ed|agreed|signed off|chose|switched to"
        r"|migrated|moved\b[^.]{0,40}?\bto\b|deprecated|postponed|rolled back|the plan is)\b", _I)),
    ("changed_number", 0.75, re.compile(
        r"\b(from\s+\$?\d[\d,.]*\w*\s+to\s+\$?\d[\d,.]*|(?:increased|decreased|raised|lowered|changed|bumped|cut)"
        r"\b[^.]{0,40}\d|now (?:is |at |on )?\$?\d)", _I)),
    ("preference", 0.75, re.compile(
        r"\b(i (?:really )?(?:prefer|like|love|hate|dislike|enjoy|can'?t stand)|i'?d rather|my favou?rite"
        r"|i don'?t (?:like|want|eat|drink)|please (?:always|never)|i'?m allergic|i am allergic)\b", _I)),
    ("error", 0.7, re.compile(
        r"\b(error|exception|traceback|failed|failure|timed? ?out|refused|denied|not found|crash(?:ed)?)\b"
        r"|\b[45]\d\d\b(?= \w)", _I)),
    ("fact", 0.55, re.compile(
        r"\b(is|are|was|were|has|have|had|lives?|works?|moved|started|bought|born|married|runs?)\b", _I)),
    # "I'm vegetarian", "I am a nurse": a short statement of who the speaker is, not small talk ("I'm fine")
    ("self", 0.55, re.compile(
        r"^\W*(i'?m|i am)\s+(?:(?:a|an|not|no longer)\s+)?(?!(?:fine|ok|okay|good|great|well|here|back|done|sorry|"
        r"sure|in|on|out|off|home|tired|busy|glad|happy|excited|so|just|about|going|gonna|not)\b)[a-z][a-z-]{3,}\W*$", _I)),
)

_SMALL_TALK = re.compile(
    r"^\W*(hi|hey|hello|yo|thanks?( you)?|thx|ty|ok(ay)?|k|cool|nice|great|awesome|lol|haha+|yes|yeah|yep|no|nope"
    r"|sure|bye|good (morning|night|evening)|see you|sounds good|got it|np|wow|hmm+)(\s+\w+){0,2}\W*$",
    _I,
)
_WORD = re.compile(r"[A-Za-z0-9']+")

def looks_like_instruction(text: str) -> bool:
    """True for text that tries to instruct the agent (prompt injection); it is stored as a quote.

    The detector (normalisation against disguises, many languages) lives in
    :mod:`hindsight_core.lifecycle.injection`.
    """
    from hindsight_core.lifecycle.injection import looks_like_injection

    return looks_like_injection(text)


def score_text(text: str, *, source: str = "user", entity_count: int = 0) -> GateVerdict:
    """Score ``text`` in [0, 1] with the reasons that fired."""
    if _SMALL_TALK.match(text):
        return GateVerdict(0.1, ("small_talk",))
    reasons: list[str] = []
    best = 0.35
    for reason, score, pattern in _RULES:
        if pattern.search(text):
            reasons.append(reason)
            best = max(best, score)
    words = len(_WORD.findall(text))
    if words <= 3 and entity_count == 0 and not reasons:
        return GateVerdict(0.15, ("too_short",))
    best += min(entity_count, 4) * 0.03  # named things make a text more useful later
    if source == "tool" and "error" in reasons:
        best += 0.05  # a tool's own error is first-hand evidence
    return GateVerdict(round(min(best, 1.0), 3), tuple(reasons) or ("plain",))
