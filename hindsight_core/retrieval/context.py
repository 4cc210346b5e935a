"""Context windows: a unit embedded together with the unit before it in its session.

A turn of a conversation often makes sense only after the one before it ("Yes, I did - last
Tuesday!"): embedded alone, its vector says little; read after the question it answers, it says
what it is about. At capture the engine embeds a unit that has a predecessor in its session twice,
alone and in its context window (one more text in the same batch call), keeps the second vector on
the unit's record (:data:`CONTEXT_KEY`, float16, base64) and recall scores both
(``RecallConfig.context_weight`` and ``context_next_weight``; the next unit's window holds this
unit's text followed by its answer).

Example:
    >>> context_text("Did you go to the race?", "Yes, last Tuesday!")
    'Did you go to the race? Yes, last Tuesday!'
    >>> window_texts([("s1", "Did you go?"), ("s1", "Yes!"), (None, "Note")], lambda s: None)
    [None, 'Did you go? Yes!', None]
    >>> import numpy as np
    >>> decode_vector(encode_vector(np.array([0.5, -1.0], dtype=np.float32))).tolist()
    [0.5, -1.0]
"""

from __future__ import annotations

import base64
from typing import Callable, Sequence

import numpy as np

__all__ = ["context_text", "window_texts", "encode_vector", "decode_vector", "CONTEXT_CHARS", "CONTEXT_KEY",
           "GLOSS_KEY", "VECTOR_KEYS"]

#: The previous unit's text is cut to its last this many characters: the model reads 256 word
#: pieces at most, and the unit's own text must fit after its context.
CONTEXT_CHARS = 600
#: Record field holding the context-window vector (not part of :class:`~hindsight_core.models.MemoryUnit`).
CONTEXT_KEY = "context_vector"
#: Record field holding the vector of a message's English gloss when it is written in another language
#: (:func:`~hindsight_core.lifecycle.update_languages.english_gloss`): recall's judge weighs it against
#: English facts through this vector (:mod:`~hindsight_core.retrieval.present`).
GLOSS_KEY = "gloss_vector"
#: The record fields holding vectors beside the unit's own: record-only, never part of a unit, and kept
#: when a unit's metadata is rewritten (its text, and so these, unchanged).
VECTOR_KEYS = (CONTEXT_KEY, GLOSS_KEY)


def context_text(previous: str | None, text: str) -> str:
    """The text embedded as ``text``'s context window: the previous unit's text, then its own."""
    if not previous:
        return text
    return f"{previous[-CONTEXT_CHARS:]} {text}"


def window_texts(items: Sequence[tuple[str | None, str]], last_in_session: Callable[[str], str | None]) -> list[str | None]:
    """For a batch of ``(session_id, text)`` in capture order, each item's context-window text, or
    None when it has no predecessor (no session, or the first unit of its session).

    The predecessor is the latest earlier item of the batch in the same session, else
    ``last_in_session(session_id)``: the text of the session's latest stored unit.
    """
    latest: dict[str, str] = {}
    out: list[str | None] = []
    for session, text in items:
        if session is None:
            out.append(None)
            continue
        previous = latest[session] if session in latest else last_in_session(session)
        out.append(context_text(previous, text) if previous else None)
        latest[session] = text
    return out


def encode_vector(vector: np.ndarray) -> str:
    """A vector as base64 of its float16 bytes (768 bytes for 384 dimensions): a record field."""
    return base64.b64encode(np.asarray(vector, dtype="<f2").tobytes()).decode("ascii")


def decode_vector(value: str) -> np.ndarray:
    """The float32 vector :func:`encode_vector` wrote."""
    return np.frombuffer(base64.b64decode(value), dtype="<f2").astype(np.float32)
