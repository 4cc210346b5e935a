"""The one lessons-first context renderer: what an agent reads before it plans.

:meth:`MemoryBank.recall_context` (and its async twin) recalls lessons from past episodes (failure
lessons first, newest first, see :meth:`MemoryBank.recall_lessons`), then other memories for the
query, without the units in ``exclude_ids`` (what the conversation already shows), keeps only hits
whose outcome is in ``outcomes`` when given, and renders them under a header within a token budget,
dropping whole memories from the end until the text fits. Both adapters use it.

Lessons are matched to the task by what it *does* as well as by its words
(:mod:`hindsight_core.signatures`): "Push the hotfix live" gets the lesson of "Deploy the api service
to production" (action ``deploy``, object ``software``, tool ``deploy_service``) though they share no
word. Lessons and episodes of runs that did nothing useful (answered without any tool call) rank after
every real lesson and are shown only for a close request. A request that only asks (a question, a
lookup, a writing task) gets no lesson of a tool that changes things (:mod:`hindsight_core.request_kinds`):
"Explain rebasing vs merging" would call no ``merge_pull_request``. ``lesson_match=None`` matches by
words only, as before signatures.

Example:
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> bank = MemoryEngine.ephemeral(embedder=HashEmbedder()).bank("ops")
    >>> _ = bank.capture("The billing service runs on port 9090.")
    >>> ctx = bank.recall_context("which port does billing use?", max_tokens=200)
    >>> ctx.text.splitlines()[0] == DEFAULT_HEADER, "9090" in ctx.text
    (True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Iterable

import numpy as np

from hindsight_core._render import estimate_tokens
from hindsight_core._validate import check_enum, check_k
from hindsight_core._text_vectors import embed_cached
from hindsight_core.errors import InvalidInputError
from hindsight_core.models import Outcome, RecallResult
from hindsight_core.request_kinds import lesson_applies, request_kind
from hindsight_core.signatures import (DEFAULT_LEXICON, LessonMatch, goal_signature, is_noop_lesson,
                                       lesson_goal, lesson_signature, lesson_tools, signature_query,
                                       signatures_match)

if TYPE_CHECKING:
    from hindsight_core.bank import MemoryBank
    from hindsight_core.models import RecallHit

__all__ = ["DEFAULT_HEADER", "LESSON_OUTCOMES", "LESSON_MIN_SIMILARITY", "RecalledContext", "recall_context", "estimate_tokens",
           "check_lesson_match"]

DEFAULT_HEADER = (
    "Long-term memory (what you learned in earlier sessions and runs; use what is relevant, "
    "and heed lessons from failed attempts):"
)
#: Lessons worth reading before a plan. ``unknown`` episodes teach nothing, so they never lead.
LESSON_OUTCOMES: frozenset[Outcome] = frozenset({Outcome.FAILURE, Outcome.PARTIAL, Outcome.SUCCESS})
#: A lesson or episode is shown only when its text is at least this close (dense cosine) to the task.
#: The bank's own "nothing in memory is close" cut (``novel``) is 0.3; a lesson below it belongs to
#: another task and would steer the agent wrong, whereas a plain fact below it merely costs tokens.
LESSON_MIN_SIMILARITY = 0.3


@dataclass(frozen=True, slots=True)
class RecalledContext:
    """Recalled hits in prompt order (``n_lessons`` lessons, then memories) and how to render them."""

    result: "RecallResult"
    n_lessons: int = 0
    header: str = DEFAULT_HEADER
    max_tokens: int | None = None

    def __bool__(self) -> bool:
        return bool(self.result.hits or self.result.directives)

    @property
    def lessons(self) -> tuple["RecallHit", ...]:
        return self.result.hits[: self.n_lessons]

    @property
    def memories(self) -> tuple["RecallHit", ...]:
        return self.result.hits[self.n_lessons:]

    @property
    def ids(self) -> list[str]:
        return [h.id for h in self.result.hits]

    @property
    def text(self) -> str:
        """The rendered context within the budget it was recalled with ("" when nothing is relevant)."""
        return self.render(self.max_tokens)

    def render(self, max_tokens: int | None = None) -> str:
        """The text for the prompt; whole memories are dropped from the end until it fits."""
        hits = list(self.result.hits)
        while True:
            if not hits and not self.result.directives:
                return ""
            body = self.result.model_copy(update={"hits": tuple(hits)}).render()
            text = f"{self.header}\n{body}" if self.header else body
            if max_tokens is None or estimate_tokens(text) <= max_tokens:
                return text
            if not hits:  # the standing rules alone are over budget: cut them line by line
                return self.result.model_copy(update={"hits": ()}).render(max_tokens=max_tokens)
            hits.pop()


def check_lesson_match(value: object, *names: str) -> object:
    """``value`` when :func:`recall_context` takes it as ``lesson_match`` ("bank", "precise", a
    :class:`~hindsight_core.signatures.LessonMatch` or None), or when it is one of ``names`` (an
    adapter's own, such as the middleware's "auto"); else :class:`InvalidInputError`, so an adapter can
    reject a bad value when it is built rather than at its first recall.

    Example:
        >>> check_lesson_match("precise")
        'precise'
    """
    named = isinstance(value, str) and value in ("bank", "precise", *names)
    if value is None or named or isinstance(value, LessonMatch):
        return value
    allowed = ", ".join(repr(n) for n in (*names, "bank", "precise"))
    raise InvalidInputError(f"lesson_match must be {allowed}, a hindsight_core.signatures.LessonMatch or None, "
                            f"not {value!r}")


def _similarity(hit: "RecallHit") -> float:
    """The hit's dense cosine to the query (0 when the dense channel did not find it)."""
    return max((c.score for c in hit.channels if c.channel == "dense"), default=0.0)


def _outcome_set(outcomes: Iterable[Outcome | str] | None) -> frozenset[Outcome] | None:
    if outcomes is None:
        return None
    if isinstance(outcomes, str):
        outcomes = [outcomes]
    return frozenset(check_enum(o, Outcome, "outcome") for o in outcomes)


def _lessons(bank: "MemoryBank", query: str, k: int, match: LessonMatch | None) -> list[tuple["RecallHit", float]]:
    """Lessons for ``query`` with their relevance, best first (see :func:`recall_context`).

    Words only (``match`` None or disabled): :meth:`MemoryBank.recall_lessons` order, kept when the
    dense cosine reaches :data:`LESSON_MIN_SIMILARITY`. By signature: a second recall with the words
    of the goal's action classes and object types gathers lessons of that kind phrased differently
    (only for a goal with a signature: a question of trivia costs no second recall); a lesson is
    kept when its text's or its goal's cosine reaches the bar or its signature matches the goal's (then
    its relevance gains ``match.signature_bonus``; a failure lesson gains ``match.failure_bonus``), and
    not when the request only asks while the lesson is about tools that change things
    (``match.gate_by_request_kind``; a lesson of tools that only read then needs
    ``match.question_min_similarity``, its signature alone does not do); lessons about one task
    stay together (failures first, as recalled), tasks are ordered by their best relevance, and no-op
    lessons come last.
    """
    if match is None or not match.enabled:
        found = bank.recall_lessons(query, k=k)
        return [(h, _similarity(h)) for h in found.hits if _similarity(h) >= LESSON_MIN_SIMILARITY]
    pool = max(k, match.pool)
    lexicon = match.lexicon or DEFAULT_LEXICON
    goal = goal_signature(query, lexicon=lexicon)
    hits = [(h, _similarity(h)) for h in bank.recall_lessons(query, k=pool).hits]
    if goal.actions and goal.objects:
        seen = {h.id for h, _ in hits}  # lessons of this kind of task told in other words
        more = bank.recall_lessons(signature_query(goal, lexicon), k=pool).hits
        hits += [(h, 0.0) for h in more if h.id not in seen]  # 0: its cosine was to other words
    goal_cosines = _goal_similarities(bank, query, [lesson_goal(h.unit) for h, _ in hits])
    question_bar = _question_bar(query, match)
    groups: dict[str, list[tuple["RecallHit", float]]] = {}
    for (hit, cosine), goal_cosine in zip(hits, goal_cosines):
        close = max(cosine if cosine >= match.min_similarity else 0.0,
                    goal_cosine if goal_cosine >= match.goal_min_similarity else 0.0)
        matched = signatures_match(goal, lesson_signature(hit.unit, lexicon))
        if not close and not (matched and max(cosine, goal_cosine) >= match.signature_min_similarity):
            continue
        close = close or max(cosine, goal_cosine)
        if not _fits_question(query, hit, close, question_bar):
            continue
        if match.demote_noops and close < match.noop_min_similarity and is_noop_lesson(hit.unit):
            continue  # a run that did nothing helps only when the same request comes back
        relevance = close + (match.signature_bonus if matched else 0.0)
        if hit.unit.outcome in (Outcome.FAILURE, Outcome.PARTIAL):
            relevance += match.failure_bonus
        groups.setdefault(_task_key(hit), []).append((hit, relevance))

    def rank(group: list[tuple["RecallHit", float]]) -> tuple[bool, float]:
        noop = match.demote_noops and all(is_noop_lesson(h.unit) for h, _ in group)
        return noop, -max(r for _, r in group)

    ordered = sorted(groups.values(), key=rank)  # stable: ties keep recall order
    return [pair for group in ordered for pair in group]


def _question_bar(query: str, match: LessonMatch) -> float | None:
    """The cosine a lesson of a reading tool needs when ``query`` only asks; None when the request-kind
    gate is off or the query asks for a change."""
    if match.gate_by_request_kind and request_kind(query) == "ask":
        return match.question_min_similarity
    return None


def _fits_question(query: str, hit: "RecallHit", close: float, bar: float | None) -> bool:
    """Whether a lesson or episode may answer ``query`` (``bar``: see :func:`_question_bar`): a question
    gets none about tools that only change things (it would make no such call), and one about a tool
    that reads only when at least ``bar`` close. Lessons naming no tool, and requests to act, pass."""
    if bar is None or not (tools := lesson_tools(hit.unit)):
        return True
    return lesson_applies(query, tools) and close >= bar


def _goal_similarities(bank: "MemoryBank", query: str, goals: list[str]) -> list[float]:
    """Dense cosine of ``query`` to each lesson's goal alone. A lesson's text also quotes the error
    and the advice, which dilutes its vector; a paraphrase of the goal is closer to the goal itself
    ("I need somewhere to stay in Lisbon, reserve it" / "Book a room at the Hilton Midtown").
    Goals and the query are embedded once per embedder (the recalls before this embedded the query)."""
    if not goals:
        return []
    vectors, _ = embed_cached(bank.store.embedder, [query, *goals])
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return (vectors[1:] @ vectors[0]).tolist()


def _task_key(hit: "RecallHit") -> str:
    """Lessons about one task (the same goal) group together."""
    return " ".join(lesson_goal(hit.unit).lower().split()) or hit.id


def recall_context(
    bank: "MemoryBank",
    query: str,
    *,
    k: int = 5,
    lessons_k: int = 3,
    max_tokens: int | None = 1200,
    exclude_ids: Iterable[str] = (),
    outcomes: Iterable[Outcome | str] | None = None,
    kinds: Iterable[str] | None = None,
    header: str = DEFAULT_HEADER,
    include_drafts: bool = False,
    lesson_match: LessonMatch | None | str = "bank",
) -> RecalledContext:
    """Lessons first, then memories, for ``query`` (see the module docstring); empty for a blank query.

    Args:
        bank: The bank to read.
        query: The task or the user's latest request.
        k: Memories of any kind besides the lessons (0: lessons only).
        lessons_k: Lessons to put first (0: none).
        max_tokens: Budget of :attr:`RecalledContext.text` (None: no budget).
        exclude_ids: Units not to return (what the conversation already shows).
        outcomes: Keep only hits whose outcome is one of these (hits without an outcome, plain facts,
            are kept); lessons always need an outcome in :data:`LESSON_OUTCOMES`. Hits with an
            outcome (lessons, episodes) must also be at least :data:`LESSON_MIN_SIMILARITY` close.
        kinds: Restrict the memories (not the lessons) to these kinds.
        header: First line of the text ("" for none).
        include_drafts: Also show uncorroborated model-written drafts (rendered as ``[draft]``).
        lesson_match: How lessons are matched to the task (a :class:`~hindsight_core.signatures.LessonMatch`;
            ``"bank"``, the default, takes the bank's ``BankConfig.lessons``; ``"precise"`` takes them
            with :meth:`~hindsight_core.signatures.LessonMatch.precise` bars, for agents that also get a
            second look before a tool call (:mod:`hindsight_core.tool_lessons`)): by default also by task
            signature (action class, object type, tool), so a lesson reaches a paraphrased goal, and
            lessons of runs that did nothing useful rank last. None: by the goal's words only (dense
            cosine at least :data:`LESSON_MIN_SIMILARITY`), in recall order, as before signatures.
    """
    for value, label in ((k, "k"), (lessons_k, "lessons_k")):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1000:
            raise InvalidInputError(f"{label} must be an int between 0 and 1000, not {value!r}")
    if max_tokens is not None:
        check_k(max_tokens, "max_tokens", limit=10_000_000)
    if not isinstance(header, str):
        raise InvalidInputError("header must be a str")
    if not isinstance(query, str):
        raise InvalidInputError(f"query must be a str, not {type(query).__name__}")
    if isinstance(check_lesson_match(lesson_match), str):
        lesson_match = bank.config.lessons if lesson_match == "bank" else bank.config.lessons.precise()
    wanted = _outcome_set(outcomes)
    excluded = frozenset(exclude_ids if not isinstance(exclude_ids, str) else [exclude_ids])
    query = " ".join(query.split())
    if not query:
        empty = RecallResult(query="", bank=bank.id, as_of=datetime.now(timezone.utc), novel=True)
        return RecalledContext(empty, 0, header, max_tokens)

    matching = lesson_match is not None and lesson_match.enabled
    floor = lesson_match.min_similarity if matching else LESSON_MIN_SIMILARITY
    noop_bar = lesson_match.noop_min_similarity if matching and lesson_match.demote_noops else None
    question_bar = _question_bar(query, lesson_match) if matching else None

    def keep(hit: "RecallHit") -> bool:
        outcome = hit.unit.outcome
        if outcome is not None and _similarity(hit) < floor:
            return False  # a lesson of another task
        if noop_bar is not None and outcome is not None and _similarity(hit) < noop_bar and is_noop_lesson(hit.unit):
            return False  # a run that did nothing: shown only for the same request
        if outcome is not None and not _fits_question(query, hit, _similarity(hit), question_bar):
            return False
        return hit.id not in excluded and (wanted is None or outcome is None or outcome in wanted)

    picked: list["RecallHit"] = []
    if lessons_k:
        lessons = _lessons(bank, query, lessons_k + len(excluded), lesson_match)
        picked = [h for h, _ in lessons if h.unit.outcome in LESSON_OUTCOMES and h.id not in excluded
                  and (wanted is None or h.unit.outcome in wanted)][:lessons_k]
    n_lessons = len(picked)
    facts = bank.recall(query, k=max(k + len(excluded) + n_lessons, 1), kinds=kinds, exclude_ids=excluded,
                        include_drafts=include_drafts)
    seen = {h.id for h in picked}
    picked += [h for h in facts.hits if h.id not in seen and keep(h)][:k]
    return RecalledContext(facts.model_copy(update={"hits": tuple(picked)}), n_lessons, header, max_tokens)
