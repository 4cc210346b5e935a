"""What an episode meant: which steps failed, and how the run ended, inferred from evidence.

Decided once here; the LangGraph and LlamaIndex adapters only translate their messages into
:class:`~hindsight_core.episodes.TraceStep` s and ask.

A step failed when its tool reported an error (``status="error"``, ``is_error=True``) or when its
output reads like one (:func:`looks_like_error`). The outcome of a run, first rule that matches:

1. an explicit label (a node, a tool, the user) wins;
2. a judge (a function or :class:`LLMJudge`), when given and when it decides;
3. the run raised: ``failure``;
4. the user corrected the agent ("no, that's wrong"): ``failure``, or ``partial`` when a tool
   succeeded after the last correction;
5. tool errors never recovered (no successful tool result after the last error): ``failure``;
   the tool that failed (the goal's tool, or one of ``goal_tools``) succeeded after the last
   error: ``success``; some other tool worked after the errors: ``partial``;
6. tools were used and none failed: ``success``;
7. nothing was attempted (an answer without any tool call) and no feedback: ``unknown`` -- the
   experience is stored, but it never becomes a "worked before" recipe.

Example:
    >>> from hindsight_core.episodes import TraceStep
    >>> steps = [TraceStep(kind="user", text="Deploy billing"),
    ...          TraceStep(kind="tool_call", text="deploy()", tool="deploy"),
    ...          TraceStep(kind="tool_result", text="Error: a ticket is required", tool="deploy")]
    >>> infer_outcome(steps).outcome.value
    'failure'
    >>> infer_outcome(steps + [TraceStep(kind="tool_call", text="deploy(ticket=1)", tool="deploy"),
    ...                        TraceStep(kind="tool_result", text="deployed", tool="deploy")]).outcome.value
    'success'
    >>> infer_outcome([TraceStep(kind="user", text="Hi"), TraceStep(kind="assistant", text="Done.")]).outcome.value
    'unknown'
"""

from __future__ import annotations

import inspect
import re
from typing import Any, Awaitable, Callable, Iterable, Literal, Sequence, Union

from pydantic import BaseModel, ConfigDict, Field

from hindsight_core.episodes import Episode, StepKind, TraceStep, is_correction
from hindsight_core.errors import InvalidInputError, LLMError
from hindsight_core.models import Outcome

__all__ = [
    "is_request",
    "looks_like_error",
    "step_kind",
    "is_failed",
    "OutcomeVerdict",
    "Verdict",
    "Judge",
    "infer_outcome",
    "as_verdict",
    "decide_outcome",
    "adecide_outcome",
    "LLMJudge",
]

_ERROR_TEXT = re.compile(
    r"^\s*(?:error\b|exception\b|traceback\b|failed\b|failure\b|fatal\b|denied\b|forbidden\b|unauthori[sz]ed\b"
    r"|permission denied|access denied|\w*(?:error|exception)\s*[:(]|tool \S+ not found\.)"
    r"|^\s*\{\s*[\"']?(?:error|errors|exception)[\"']?\s*:",
    re.I,
)
_QUESTION = re.compile(
    r"^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|would|will|"
    r"should|shall|may|might|have|has)\b", re.I)
_ASKING = re.compile(r"^\s*(?:please\b|pls\b|kindly\b|can you\b|could you\b|would you\b|will you\b|i need you to\b|"
                     r"i want you to\b|help me\b|let'?s\b)", re.I)
_IMPERATIVE = frozenset("""add analyse analyze answer apply archive ask book build buy calculate call cancel change check
clean compare compute configure convert copy create debug delete deploy describe download draft email explain export
fetch file find fix format generate get give go install launch list load look make merge migrate move open order plan
post prepare print publish pull push read rebuild refactor reload remove rename reply report reset restart restore
resolve retry review rollback rotate run save schedule scale search send set setup share ship show sign sort start stop
submit summarise summarize sync tell test train translate update upgrade upload validate verify write""".split())
_REMEMBER = re.compile(r"^\s*(?:please\s+)?(?:remember|note|don'?t forget|keep in mind|fyi|for the record)\b", re.I)
_REASON_CHARS = 300  # a reason is a sentence for the lesson, not the whole tool output

Verdict = Union[bool, str, Outcome, tuple, "OutcomeVerdict", None]
"""What a judge may return: True/False, an outcome label, ``(label, feedback)``, an
:class:`OutcomeVerdict`, or None (undecided: the rules decide)."""

Judge = Callable[[Episode], Union[Verdict, Awaitable[Verdict]]]
"""``episode -> Verdict`` (sync or async); :class:`LLMJudge` is one."""


def is_request(text: str | None) -> bool:
    """Whether a user turn asks for something (a task or a question) rather than states a fact.

    A request is remembered as what the user asked (an experience of the conversation), never as a
    fact about the world; "remember: ..." and plain statements stay facts.

    Example:
        >>> is_request("Deploy billing to prod"), is_request("Which editor do I like?")
        (True, True)
        >>> is_request("My favourite editor is Helix."), is_request("Remember: staging is db-staging-2")
        (False, False)
    """
    text = (text or "").strip()
    if not text or _REMEMBER.match(text):
        return False
    if text.endswith("?") or _QUESTION.match(text) or _ASKING.match(text):
        return True
    first = re.split(r"[\s,.:;!]+", text, maxsplit=1)[0].lower()
    return first in _IMPERATIVE


def looks_like_error(text: str | None) -> bool:
    """Whether a tool output reads like an error ("Error: ...", "PermissionError: ...", ``{"error": ...}``)."""
    return bool(_ERROR_TEXT.search(text or ""))


def step_kind(status: str | bool | None, text: str | None) -> StepKind:
    """The kind of a tool-result step: ``status`` is the framework's flag (``"error"``, ``True`` for
    ``is_error``); an output that reads like an error fails too."""
    flagged = status is True or (isinstance(status, str) and status.lower() == "error")
    return StepKind.TOOL_ERROR if flagged or looks_like_error(text) else StepKind.TOOL_RESULT


def is_failed(step: TraceStep) -> bool:
    """A tool step that failed (flagged, or a result that reads like an error)."""
    return step.kind is StepKind.TOOL_ERROR or (step.kind is StepKind.TOOL_RESULT and looks_like_error(step.text))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"


class OutcomeVerdict(BaseModel):
    """How a run ended and why."""

    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    reason: str | None = Field(None, description="The evidence, in words (becomes the episode's feedback).")
    decided_by: Literal["label", "judge", "rules"] = "rules"


def infer_outcome(steps: Iterable[TraceStep], *, error: str | BaseException | None = None,
                  goal_tools: Iterable[str] | None = None) -> OutcomeVerdict | None:
    """The outcome rules 3-7 of the module docstring give for a trace; None for an empty trace.

    Args:
        steps: The run's steps in order (user turns, tool calls, results, errors, answers).
        error: The exception (or its text) that ended the run, if it raised.
        goal_tools: The tools whose success means the task was done (default: the tools that failed).
    """
    steps = list(steps)
    if error is not None:
        text = f"{type(error).__name__}: {error}" if isinstance(error, BaseException) else str(error)
        return OutcomeVerdict(outcome=Outcome.FAILURE, reason=_short(f"The run ended with an error: {text}"))
    if not steps:
        return None
    results = [(i, s) for i, s in enumerate(steps) if s.kind in (StepKind.TOOL_RESULT, StepKind.TOOL_ERROR)]
    errors = [(i, s) for i, s in results if is_failed(s)]
    oks = [(i, s) for i, s in results if not is_failed(s)]
    corrections = [(i, s) for i, s in enumerate(steps)
                   if s.kind is StepKind.CORRECTION or (s.kind is StepKind.USER and i > 0 and is_correction(s.text)
                                                        and any(p.kind is StepKind.USER for p in steps[:i]))]
    if corrections:
        last, said = corrections[-1]
        if any(i > last for i, _ in oks) and not any(i > last for i, _ in errors):
            return OutcomeVerdict(outcome=Outcome.PARTIAL, reason=_short(f"Recovered after the user's correction: {said.text}"))
        return OutcomeVerdict(outcome=Outcome.FAILURE, reason=_short(f"The user corrected the agent: {said.text}"))
    if errors:
        last, failed = errors[-1]
        after = [s for i, s in oks if i > last]
        if not after:
            return OutcomeVerdict(outcome=Outcome.FAILURE, reason=_short(
                f"{failed.tool or 'A tool'} failed and was never recovered: {failed.text}"))
        goal = set(goal_tools) if goal_tools is not None else {s.tool for _, s in errors}
        if any(s.tool in goal for s in after):
            return OutcomeVerdict(outcome=Outcome.SUCCESS, reason=_short(
                f"{after[-1].tool or 'The tool'} succeeded after {len(errors)} failed attempt(s); first error: "
                f"{errors[0][1].text}"))
        return OutcomeVerdict(outcome=Outcome.PARTIAL, reason=_short(
            f"Recovered with {after[-1].tool or 'another tool'} after {failed.tool or 'a tool'} failed: {failed.text}"))
    if oks:
        return OutcomeVerdict(outcome=Outcome.SUCCESS, reason=None)
    return OutcomeVerdict(outcome=Outcome.UNKNOWN, reason="Nothing was attempted and no feedback was given.")


def as_verdict(value: Verdict, decided_by: Literal["label", "judge", "rules"] = "judge") -> OutcomeVerdict | None:
    """A judge's or a user's answer as an :class:`OutcomeVerdict` (None stays None: undecided).

    Raises:
        InvalidInputError: an answer that is no outcome.
    """
    if value is None or isinstance(value, OutcomeVerdict):
        return value
    reason = None
    if isinstance(value, tuple) and len(value) == 2:
        value, reason = value
    if isinstance(value, bool):
        value = Outcome.SUCCESS if value else Outcome.FAILURE
    try:
        outcome = Outcome(value)
    except ValueError:
        choices = ", ".join(repr(o.value) for o in Outcome)
        raise InvalidInputError(f"{value!r} is no outcome; use True/False, one of {choices}, a (label, reason) "
                                "tuple, or None") from None
    return OutcomeVerdict(outcome=outcome, reason=None if reason is None else str(reason), decided_by=decided_by)


def _merge(verdict: OutcomeVerdict | None, feedback: str | None) -> OutcomeVerdict | None:
    if verdict is None or not feedback or (verdict.reason and feedback in verdict.reason):
        return verdict
    reason = f"{verdict.reason} Feedback: {feedback}" if verdict.reason else feedback
    return verdict.model_copy(update={"reason": _short(reason)})


def _by_feedback(feedback: str | None) -> OutcomeVerdict | None:
    if feedback and is_correction(feedback):
        return OutcomeVerdict(outcome=Outcome.FAILURE, reason=_short(f"The user corrected the agent: {feedback}"),
                              decided_by="label")
    return None


def decide_outcome(episode: Episode, *, label: Verdict = None, judge: Judge | None = None,
                   error: str | BaseException | None = None, feedback: str | None = None,
                   goal_tools: Iterable[str] | None = None) -> OutcomeVerdict | None:
    """The outcome of an ended episode: ``label``, else ``judge``, else a correcting ``feedback``,
    else :func:`infer_outcome`. None only for an episode without steps and no label."""
    verdict = as_verdict(label, "label")
    if verdict is None and judge is not None:
        answer = judge(episode)
        if inspect.isawaitable(answer):
            raise InvalidInputError("this judge is async; use adecide_outcome (or a sync judge)")
        verdict = as_verdict(answer)
    verdict = verdict or _by_feedback(feedback) or infer_outcome(episode.steps, error=error, goal_tools=goal_tools)
    return _merge(verdict, feedback)


async def adecide_outcome(episode: Episode, *, label: Verdict = None, judge: Judge | None = None,
                          error: str | BaseException | None = None, feedback: str | None = None,
                          goal_tools: Iterable[str] | None = None) -> OutcomeVerdict | None:
    """Async twin of :func:`decide_outcome` (the judge may be async)."""
    verdict = as_verdict(label, "label")
    if verdict is None and judge is not None:
        answer = judge(episode)
        verdict = as_verdict(await answer if inspect.isawaitable(answer) else answer)
    verdict = verdict or _by_feedback(feedback) or infer_outcome(episode.steps, error=error, goal_tools=goal_tools)
    return _merge(verdict, feedback)


class LLMJudge:
    """A judge backed by a chat model: reads the goal and trace, answers an :class:`OutcomeVerdict`.

    Args:
        model: A LangChain chat model (``invoke``; ``with_structured_output`` is used when present).
        prompt: ``episode -> [(role, content)]``; defaults to :func:`hindsight_core.prompts.judge.build_messages`.

    A model error raises :class:`~hindsight_core.errors.LLMError`; wrap the judge to fall back to
    the rules (return None) if you prefer.
    """

    def __init__(self, model: Any, *, prompt: Callable[[Episode], Sequence[tuple[str, str]]] | None = None) -> None:
        from hindsight_core.prompts import judge as judge_prompt

        if not hasattr(model, "invoke"):
            raise InvalidInputError(f"LLMJudge needs a chat model with invoke(), not {type(model).__name__}")
        self.model = model
        self.prompt = prompt or judge_prompt.build_messages

    def __call__(self, episode: Episode) -> OutcomeVerdict:
        from hindsight_core.lifecycle._llm import parse_json_object
        from hindsight_core.prompts.judge import JudgeDraft

        messages = list(self.prompt(episode))
        try:
            if hasattr(self.model, "with_structured_output"):
                try:
                    draft = self.model.with_structured_output(JudgeDraft).invoke(messages)
                    draft = draft if isinstance(draft, JudgeDraft) else JudgeDraft.model_validate(draft)
                    return OutcomeVerdict(outcome=Outcome(draft.outcome), reason=draft.reason, decided_by="judge")
                except (NotImplementedError, AttributeError, TypeError):
                    pass
            reply = self.model.invoke(messages)
            draft = JudgeDraft.model_validate(parse_json_object(str(getattr(reply, "content", reply))))
        except LLMError:
            raise
        except Exception as exc:  # noqa: BLE001 - any model or parse failure is an LLMError to the caller
            raise LLMError(f"the outcome judge failed: {type(exc).__name__}: {exc}") from exc
        return OutcomeVerdict(outcome=Outcome(draft.outcome), reason=draft.reason, decided_by="judge")
