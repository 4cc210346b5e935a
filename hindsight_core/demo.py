"""The main demo: embedded Chroma in a local folder, the bundled model, no LLM.

Run it with ``hindsight demo`` (or ``python -m hindsight_core.demo``). It captures a few
conversations, recalls with the explain trace, learns from a failed episode, then reopens the
store as a fresh engine and recalls again to show that memory survives a restart.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from hindsight_core.engine import MemoryEngine
from hindsight_core.episodes import Episode, TraceStep

__all__ = ["run_demo"]

_TURNS = [
    ("2024-03-04T09:00:00", "s1", "Our billing service runs on port 8080 in the eu-west cluster."),
    ("2024-03-04T09:01:00", "s1", "Remember: deploys to production need a change ticket from Priya."),
    ("2024-03-04T09:02:00", "s1", "lol ok thanks!"),
    ("2024-03-11T14:30:00", "s2", "I prefer short answers with code first, explanations after."),
    ("2024-03-11T14:31:00", "s2", "We moved the billing service to port 9090 yesterday after the outage."),
    ("2024-03-11T14:32:00", "s2", "My email is sam@example.com if the pager fails."),
]


def _say(title: str) -> None:
    print(f"\n=== {title} " + "=" * max(0, 66 - len(title)))


def run_demo(path: str | Path = "./.hindsight-demo") -> dict[str, object]:
    """Run the demo against a persistent store at ``path``; returns what it checked."""
    path = str(path)
    engine = MemoryEngine(path)
    engine.delete_bank("demo", missing_ok=True)  # start clean on every run
    bank = engine.bank("demo")

    _say(f"capture into bank 'demo' (Chroma at {path})")
    for when, session, text in _TURNS:
        said = datetime.fromisoformat(when).replace(tzinfo=timezone.utc)
        res = bank.capture(text, session_id=session, mentioned_at=said)
        extra = f" redacted={list(res.redactions)}" if res.redactions else ""
        extra += f" occurred={res.occurred_at:%Y-%m-%d}" if res.occurred_at else ""
        extra += f" supersedes={len(res.supersedes)} earlier belief(s)" if res.supersedes else ""
        print(f"importance={res.importance:.2f} reasons={list(res.reasons)}{extra}\n  {res.unit.text}")

    now = datetime(2024, 3, 12, tzinfo=timezone.utc)
    _say("recall: 'which port does billing use now?'")
    result = bank.recall("which port does billing use now?", k=3, as_of=now)
    print(result.render())
    print("explain:\n" + result.explain())

    _say("a failed episode becomes a lesson")
    episode = Episode.from_steps([
        TraceStep(kind="user", text="Deploy the billing service to production"),
        TraceStep(kind="tool_call", text="deploy(service='billing', env='prod')", tool="deploy"),
        TraceStep(kind="tool_error", text="PermissionError: a change ticket is required for prod", tool="deploy"),
        TraceStep(kind="assistant", text="The deploy failed."),
    ], session_id="s3")
    ended = bank.end_episode(episode, "failure", ended_at=now)
    print(ended.lesson.text if ended.lesson else "(no lesson)")
    engine.close()

    _say("restart: a fresh engine on the same folder")
    reopened = MemoryEngine(path, embedder=engine.embedder)
    lessons = reopened.bank("demo").recall_lessons("deploy billing to prod", k=1)
    print("before planning 'deploy billing to prod', memory says:\n" + lessons.render())
    port = reopened.bank("demo").recall("billing service port", k=1, as_of=now)
    print("\nbilling port, after restart:\n" + port.render())
    checks = {
        "lesson_recalled": bool(lessons.hits) and "change ticket" in lessons.hits[0].unit.text,
        "port_recalled": bool(port.hits) and "port" in port.hits[0].unit.text,
        "port_is_current": bool(result.hits) and "9090" in result.hits[0].unit.text
        and all("8080" not in h.unit.text for h in result.hits),  # the old port was superseded, not recalled
        "pii_redacted": all("sam@example.com" not in u.text for u in reopened.bank("demo").units()),
    }
    reopened.close()
    _say("checks")
    for name, ok in checks.items():
        print(f"{'ok ' if ok else 'FAIL'} {name}")
    return checks


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(0 if all(run_demo().values()) else 1)
