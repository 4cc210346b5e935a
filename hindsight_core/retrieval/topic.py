"""The query's topic: the question without the people of the bank it names.

Conversation turns are stored as ``'Melanie said, "Just got some new shoes"'``: every turn of a
speaker carries the speaker's name, so for "What items has Melanie bought?" the name dominates the
cosine and every turn Melanie ever spoke looks alike. The speaker is known at capture, and the
pool scorer already has a feature for "the query names this unit's speaker"; the name can leave
the embedded query without losing who it is about. Recall embeds the query a second time without
the names of the bank's speakers (one more short text in the same embedding call) and scores the
cosine with that *topic* vector as one more feature (``RecallConfig.topic_weight``), so the turns
of that person that are about the question's subject rise among all of that person's turns.

Example:
    >>> topic_query("What items has Melanie bought?", {"melanie", "caroline"})
    'What items has bought?'
    >>> topic_query("Where did Caroline's sister move?", {"caroline"})
    'Where did sister move?'
    >>> topic_query("What is the capital of France?", {"melanie"}) is None
    True
    >>> topic_query("Melanie?", {"melanie"}) is None
    True
"""

from __future__ import annotations

import re
from typing import Iterable

from hindsight_core.storage.keyword import tokenize

__all__ = ["topic_query"]


def topic_query(query: str, speakers: Iterable[str]) -> str | None:
    """``query`` without the names in ``speakers`` (and their possessive ``'s``), or None when it
    names none of them, or nothing but them and stopwords (then the plain query says it all)."""
    names = sorted((s for s in speakers if s.strip()), key=len, reverse=True)
    if not names:
        return None
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")(?:['\u2019]s)?\b", re.IGNORECASE)
    out, hits = pattern.subn(" ", query)
    if not hits:
        return None
    out = re.sub(r"\s+([?.,!;:])", r"\1", re.sub(r"\s+", " ", out)).strip()
    return out if tokenize(out) else None
