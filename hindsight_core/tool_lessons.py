"""Lessons about a tool, found by the tool's name, for the moment an agent is about to call it.

Matching a lesson to a request by its words (:mod:`hindsight_core.context`) misses paraphrases that
share no words with the failed goal ("Push the hotfix live" after "Deploy the api service to
production"), and a stricter match would miss more. The tool an agent is about to call names the
task exactly: a lesson written when ``deploy_service`` failed applies to the next ``deploy_service``
call whatever the request said. :func:`tool_lessons` finds those lessons; the LangChain middleware
(``HindsightMiddleware(check_tool_calls=True)``) shows them to the model when it proposes such a call
and the plan's context did not already show them.

Example:
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.episodes import Episode, TraceStep
    >>> from hindsight_core.testing import HashEmbedder
    >>> bank = MemoryEngine.ephemeral(embedder=HashEmbedder()).bank("ops")
    >>> _ = bank.end_episode(Episode.from_steps([
    ...     TraceStep(kind="user", text="Deploy billing to production"),
    ...     TraceStep(kind="tool_error", text="deploys need a change ticket", tool="deploy_service")]), "failure")
    >>> notes = tool_lessons(bank, ["deploy_service"])
    >>> "change ticket" in notes.text, tool_lessons(bank, ["restart_cache"]).text
    (True, '')
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import partial
from typing import TYPE_CHECKING, Iterable

from hindsight_core._episode_ops import recall_lessons
from hindsight_core._render import escape_text
from hindsight_core._validate import check_k
from hindsight_core.context import RecalledContext, _goal_similarities
from hindsight_core.errors import InvalidInputError
from hindsight_core.lifecycle.extract import extract_entities
from hindsight_core.models import Outcome, RecallHit, RecallResult
from hindsight_core.signatures import lesson_goal, lesson_tools

if TYPE_CHECKING:
    from hindsight_core.bank import MemoryBank

__all__ = ["tool_lessons", "TOOL_LESSONS_HEADER"]

#: First line of :attr:`RecalledContext.text` (``{tools}``: the tools' names).
TOOL_LESSONS_HEADER = ("Before you call {tools}: lessons from earlier failed calls of it (change the call if "
                       "one applies, otherwise go ahead):")
_POOL = 50  # lessons read per lookup: the tool's name is rare text, so its lessons rank high


def _named_lessons(bank: "MemoryBank", names: list[str]) -> set[str]:
    """Ids of the active failure (or partial) lessons whose text names one of ``names`` as an entity."""
    with bank.store.read() as index:
        ids = {uid for name in names for uid in index.graph.entity_units(name.lower())}
        return {uid for uid in ids if (u := index.units.get(uid)) is not None and u.kind == "observation"
                and u.status == "active" and u.outcome in ("failure", "partial")}


def tool_lessons(bank: "MemoryBank", tools: Iterable[str] | str, *, k: int = 3, shown: str = "",
                 query: str | None = None, max_tokens: int | None = 1200) -> RecalledContext:
    """Lessons of failed (or partly failed) runs that called one of ``tools``: those learned on the
    task closest to ``query`` first, else the newest first.

    Args:
        bank: The bank to read.
        tools: Names of the tools about to be called.
        k: Lessons at most.
        shown: Text the model already has (its system prompt): lessons whose first line is in it
            are left out, so nothing is shown twice.
        query: The request at hand. A tool with many lessons (one query tool, many pitfalls) shows
            first those learned on the closest task.
        max_tokens: Budget of the rendered text (whole lessons are dropped from the end to fit).

    Returns:
        A :class:`~hindsight_core.context.RecalledContext`; its ``text`` is "" when there is nothing.
    """
    if isinstance(tools, str):
        tools = [tools]
    if not isinstance(tools, (list, tuple, set, frozenset)) or not all(isinstance(t, str) for t in tools):
        raise InvalidInputError(f"tools must be a tool name or a list of them, not {tools!r}")
    names = list(dict.fromkeys(t.strip() for t in tools if t.strip()))
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise InvalidInputError(f"k must be an int >= 0, not {k!r}")
    if not isinstance(shown, str):
        raise InvalidInputError("shown must be a str (the text the model already has)")
    if query is not None and not isinstance(query, str):
        raise InvalidInputError(f"query must be a str or None, not {type(query).__name__}")
    if max_tokens is not None:
        check_k(max_tokens, "max_tokens", limit=10_000_000)
    header = TOOL_LESSONS_HEADER.format(tools=", ".join(names))
    if not names or not k:
        empty = RecallResult(query="", bank=bank.id, as_of=datetime.now(timezone.utc), novel=True)
        return RecalledContext(empty, 0, header, max_tokens)
    # A name that is an entity of its own (snake_case, dotted, camelCase) finds in the graph every lesson
    # naming it, however many lessons share its words ("run sql query" in a data team's bank), with no
    # model call; other names ("pay", "mcp__github__search") are looked up by their words. The recall
    # is a lookup, not a use: the lessons it reads and leaves out gain no activity (forgetting reads it).
    exact = [n for n in names if extract_entities(n) == (n.lower(),)]
    worded = [n for n in names if n not in exact]
    found = recall_lessons(partial(bank.recall, record_hits=False), bank.config,
                           " ".join(n.replace("_", " ") for n in worded), k=_POOL) if worded else None
    recalled = found.hits if found is not None else ()
    named = _named_lessons(bank, exact) - {h.id for h in recalled}
    candidates = [*recalled, *(RecallHit(unit=u, score=0.0) for u in bank.get_many(sorted(named)))]
    wanted = set(names)
    hits = [h for h in candidates
            if h.unit.outcome in (Outcome.FAILURE, Outcome.PARTIAL) and wanted & set(lesson_tools(h.unit))
            and escape_text(h.unit.text.splitlines()[0]) not in shown]
    hits.sort(key=lambda h: -h.unit.mentioned_at.timestamp())
    if query and len(hits) > 1:  # stable: equally close lessons stay newest first
        closeness = _goal_similarities(bank, query, [lesson_goal(h.unit) for h in hits])
        hits = [h for _, h in sorted(zip(closeness, hits), key=lambda pair: -pair[0])]
    # the standing rules are in the plan's context already: only the lessons here
    result = RecallResult(query=" ".join(names), bank=bank.id, as_of=datetime.now(timezone.utc), hits=tuple(hits[:k]))
    return RecalledContext(result, len(result.hits), header, max_tokens)
