"""Lesson-transfer benchmark: does a lesson from one failed tool call reach the same task asked in other words?

For each pitfall of a set, one run fails: the user's goal, a tool call, the tool's error. The run ends
as the middleware ends it (outcome inferred from the evidence by :func:`hindsight_core.outcomes.decide_outcome`,
reflected by the rule-based reflector), so a failure lesson is stored. Runs that succeeded without
doing anything (the agent only answered, the user said it was fine) are stored too, as noise: their
"worked before" lessons must not push real ones out. Then, read-only (nothing more is stored):

- every paraphrased later goal asks :meth:`MemoryBank.recall_context` with the middleware's defaults
  (``k=5, lessons_k=3, max_tokens=1200``); it *gets its lesson* when that pitfall's failure lesson is in
  the rendered text;
- every unrelated goal asks the same; it *gets a lesson* when any lesson or episode with an outcome is
  rendered (the marks the agent reads: ``[lesson from a FAILED attempt``, ``[worked before]``, ...);
- ``with_tool_check``: the share of paraphrased goals whose lesson reaches the model before the call,
  in the context or at the middleware's second look (:mod:`hindsight_core.tool_lessons`), *assuming
  the agent proposes the pitfall's tool*; ``tool_check_other_lessons`` counts other pitfalls' lessons
  that second look showed beside it (sets where two pitfalls share a tool). What an unrelated request
  would call is not in the sets, so the second look's effect on them is not measured here: it fires
  only for a call of a tool that failed before.

Three conditions side by side: the goal's words only (``lesson_match=None``, the behaviour before
signatures); with the task-signature indexing (:mod:`hindsight_core.signatures`, a bank's default);
and ``middleware``, what ``HindsightMiddleware`` recalls with its second look on (the signature
indexing with :meth:`~hindsight_core.signatures.LessonMatch.precise` bars), whose ``with_tool_check``
is the figure an agent with the middleware gets.

The pitfall sets are SELF-WRITTEN DEV DATA (``benchmarks/data/lesson_transfer_dev.json``, which the
indexing was tuned on, and ``lesson_transfer_heldout.json``, written before the code and evaluated only
at the end); the acceptance measure is an independent held-out set this project does not see.

With ``--learn`` each later run is stored as it happens (the lesson followed: the call succeeds;
not shown: the same error again), so later paraphrases also meet the lessons of earlier ones.

Run: ``python -m benchmarks.lesson_transfer [--split dev|heldout|all | --data FILE] [--learn] [--hash]
[--out PATH] [--show-misses]``.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
SPLITS = {"dev": DATA / "lesson_transfer_dev.json", "heldout": DATA / "lesson_transfer_heldout.json"}
#: What HindsightMiddleware passes to recall_context by default.
MIDDLEWARE_RECALL = {"k": 5, "lessons_k": 3, "max_tokens": 1200}
LESSON_MARKS = ("[lesson from a FAILED attempt", "[worked before]", "[partly worked before]")


@dataclass(frozen=True)
class Pitfall:
    tool: str
    args: dict[str, str]
    error: str
    goal: str
    paraphrases: tuple[str, ...]


def load(split: str = "dev", path: Path | None = None) -> tuple[list[Pitfall], list[str], list[str]]:
    """(pitfalls, unrelated goals, goals of no-op runs) of a split (``dev``, ``heldout`` or ``all``),
    or of the set at ``path`` (same shape: ``pitfalls``, ``unrelated``, ``noop_runs``)."""
    files = [Path(path)] if path is not None else [SPLITS[n] for n in (list(SPLITS) if split == "all" else [split])]
    pitfalls: list[Pitfall] = []
    unrelated: list[str] = []
    noops: list[str] = []
    for file in files:
        data = json.loads(file.read_text())
        pitfalls += [Pitfall(p["tool"], p["args"], p["error"], p["goal"], tuple(p["paraphrases"]))
                     for p in data["pitfalls"]]
        unrelated += data["unrelated"]
        noops += data["noop_runs"]
    return pitfalls, unrelated, noops


def _fill(bank: Any, pitfalls: list[Pitfall], noops: list[str]) -> dict[str, Any]:
    """Store the failed runs and the no-op runs; returns {goal: failure lesson unit}."""
    from hindsight_core.episodes import Episode, TraceStep
    from hindsight_core.outcomes import decide_outcome

    lessons: dict[str, Any] = {}
    for p in pitfalls:
        call = f"{p.tool}({', '.join(f'{k}={v!r}' for k, v in p.args.items())})"
        episode = Episode.from_steps([TraceStep(kind="user", text=p.goal),
                                      TraceStep(kind="tool_call", text=call, tool=p.tool),
                                      TraceStep(kind="tool_error", text=p.error, tool=p.tool),
                                      TraceStep(kind="assistant", text="I could not finish the task.")])
        verdict = decide_outcome(episode)
        result = bank.end_episode(episode, verdict.outcome, feedback=verdict.reason)
        lessons[p.goal] = result.lesson
    for goal in noops:  # answered directly, and the user was happy: a success that did nothing
        episode = Episode.from_steps([TraceStep(kind="user", text=goal),
                                      TraceStep(kind="assistant", text="Here is my answer.")])
        bank.end_episode(episode, "success")
    return lessons


def _shows(text: str, lesson: Any) -> bool:
    from hindsight_core._render import escape_text

    return escape_text(lesson.text.splitlines()[0]) in text


def _later_run(bank: Any, p: Pitfall, goal: str, helped: bool) -> None:
    """Store the later run as an agent would end it: the recalled lesson followed (the call succeeds),
    or the same mistake again."""
    from hindsight_core.episodes import Episode, TraceStep
    from hindsight_core.outcomes import decide_outcome

    call = TraceStep(kind="tool_call", text=f"{p.tool}(...)", tool=p.tool)
    result = (TraceStep(kind="tool_result", text=f"{p.tool} done", tool=p.tool) if helped
              else TraceStep(kind="tool_error", text=p.error, tool=p.tool))
    episode = Episode.from_steps([TraceStep(kind="user", text=goal), call, result])
    verdict = decide_outcome(episode)
    bank.end_episode(episode, verdict.outcome, feedback=verdict.reason)


def _condition(pitfalls: list[Pitfall], unrelated: list[str], noops: list[str], embedder: Any, match: Any,
               show_misses: bool, learn: bool = False) -> dict[str, Any]:
    """One condition on a fresh bank (recall counts as use and shifts ranks; the conditions must not
    share that history). ``learn``: each later run is stored too (success when its lesson was shown),
    so later paraphrases also compete with the lessons of earlier ones."""
    from hindsight_core import MemoryEngine

    engine = MemoryEngine.ephemeral(embedder=embedder)
    try:
        bank = engine.bank("lesson-transfer")
        lessons = _fill(bank, pitfalls, noops)
        got, misses, leaks, seconds = 0, [], [], []

        def recall(goal: str) -> str:
            started = time.perf_counter()
            text = bank.recall_context(goal, lesson_match=match, **MIDDLEWARE_RECALL).text
            seconds.append(time.perf_counter() - started)
            return text

        at_call = others = 0
        for p in pitfalls:
            for goal in p.paraphrases:
                text = recall(goal)
                shown = _shows(text, lessons[p.goal])
                got += shown
                if not shown:
                    misses.append(f"{goal!r} (lesson of {p.goal!r})")
                    # the middleware's second look when the agent proposes the pitfall's tool
                    notes = bank.tool_lessons([p.tool], shown=text).text
                    shown = _shows(notes, lessons[p.goal])
                    others += sum(_shows(notes, lesson) for g, lesson in lessons.items() if g != p.goal)
                at_call += shown
                if learn:
                    _later_run(bank, p, goal, shown)
        for goal in unrelated:
            text = recall(goal)
            if any(mark in text for mark in LESSON_MARKS):
                leaks.append(goal)
    finally:
        engine.close()
    n = sum(len(p.paraphrases) for p in pitfalls)
    out = {"paraphrases_with_lesson": got, "transfer_rate": round(100 * got / n, 1) if n else 0.0,
           "with_tool_check": round(100 * at_call / n, 1) if n else 0.0,
           "tool_check_other_lessons": others,
           "unrelated_with_lesson": len(leaks),
           "unrelated_lesson_rate": round(100 * len(leaks) / len(unrelated), 1) if unrelated else 0.0,
           "recall_context_ms_p50": round(1000 * sorted(seconds)[len(seconds) // 2], 1) if seconds else None}
    return out | ({"misses": misses, "unrelated_leaks": leaks} if show_misses else {})


def run(split: str = "dev", embedder: Any = None, *, limit: int | None = None,
        show_misses: bool = False, learn: bool = False, data: Path | None = None) -> dict[str, Any]:
    """The three conditions (words only, by signature, the middleware's precise bars), each on a fresh bank.
    ``limit``: only the first N pitfalls and unrelated goals (a smoke run); ``learn``: later runs are
    stored as they happen (see :func:`_condition`); ``data``: a set file instead of ``split``."""
    from hindsight_core.signatures import DEFAULT_LESSON_MATCH

    pitfalls, unrelated, noops = load(split, data)
    split = str(data) if data is not None else split
    pitfalls, unrelated = pitfalls[:limit], unrelated[:limit]
    started = time.perf_counter()
    out: dict[str, Any] = {"split": split, "pitfalls": len(pitfalls),
                           "paraphrased_goals": sum(len(p.paraphrases) for p in pitfalls),
                           "unrelated_goals": len(unrelated), "noop_runs": len(noops), "learn": learn}
    conditions = (("words_only", None), ("signatures", DEFAULT_LESSON_MATCH),
                  ("middleware", DEFAULT_LESSON_MATCH.precise()))
    for label, match in conditions:
        out[label] = _condition(pitfalls, unrelated, noops, embedder, match, show_misses, learn)
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--split", choices=["dev", "heldout", "all"], default="dev")
    p.add_argument("--hash", action="store_true", help="use the deterministic HashEmbedder (quick smoke run)")
    p.add_argument("--learn", action="store_true",
                   help="store each later run as it happens (its lesson followed: success; else the same failure)")
    p.add_argument("--show-misses", action="store_true", help="list the goals that missed or leaked")
    p.add_argument("--out", default=None, help="write the summary as JSON here")
    p.add_argument("--data", default=None, help="a pitfall set file of the same shape (instead of --split)")
    args = p.parse_args(argv)
    embedder = None
    if args.hash:
        from hindsight_core.testing import HashEmbedder

        embedder = HashEmbedder()
    summary = run(args.split, embedder, show_misses=args.show_misses, learn=args.learn,
                  data=Path(args.data) if args.data else None)
    summary["embedder"] = "hash" if args.hash else "all-MiniLM-L6-v2"
    print(json.dumps(summary, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
