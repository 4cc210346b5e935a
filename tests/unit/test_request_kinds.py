"""Requests that only ask (questions, lookups, writing) get no lesson of a tool that changes things:
they would make no such call, and the lesson would steer the agent wrong."""

from __future__ import annotations

import pytest

from hindsight_core import MemoryEngine
from hindsight_core.episodes import Episode, TraceStep
from hindsight_core.request_kinds import lesson_applies, request_kind, tool_changes_things
from hindsight_core.signatures import DEFAULT_LESSON_MATCH, lesson_tools
from hindsight_core.testing import HashEmbedder


@pytest.mark.parametrize("request_text", [
    "Explain the difference between rebasing and merging a branch in Git.",
    "What's the average cost of a dinner for two in Lisbon?",
    "Check whether my flight to Denver tomorrow is delayed.",
    "Summarise the open incidents on the status page for the payments API.",
    "Draft a polite follow-up email to a sales lead who went quiet after our demo.",
    "Can you proofread this cover letter?",
    "Please help me write a birthday message for my grandmother.",
    "Give me three tips for a better night's sleep.",
    "Plan a three-day itinerary for Kyoto focused on temples and food.",
    "Is the Lisbon office open on Monday?",
    "Does Dr. Lindqvist see patients on Fridays?",  # a title's full stop ends no clause
    "What time does Mrs. J. Okafor's appointment end?",
])
def test_questions_lookups_and_writing_only_ask(request_text):
    assert request_kind(request_text) == "ask"


@pytest.mark.parametrize("request_text", [
    "Can you land Alice's fix for the invoice rounding bug into main?",
    "k8s: crank orders-worker to 30 copies",
    "rezzy for 9 ppl at Nobu thurs",
    "Find Ana somewhere to stay in Seville and lock it in",
    "Did I leave the house open? Secure the back entrance deadbolt.",
    "Is Dr. Patel in today? Book Ana with her at 3.",
    "Write to the landlord that the rent will be late.",
    "Give Priya a login for the admin portal",
    "Could you have Priya countersign the vendor contract electronically?",
    "Our HTTPS cert on the storefront expires Friday, can you get a fresh one issued?",
    "",
])
def test_anything_else_asks_for_a_change(request_text):
    assert request_kind(request_text) == "act"


def test_a_tool_changes_things_unless_its_name_opens_with_a_verb_of_reading():
    assert [tool_changes_things(t) for t in ("merge_pull_request", "book_hotel", "rotate_secret", "frobnicate")] \
        == [True, True, True, True]  # an unknown verb is never gated
    assert not any(tool_changes_things(t) for t in ("search_logs", "get_weather", "export_table", "run_sql"))
    assert not any(tool_changes_things(t) for t in ("searchLogs", "mcp__github__search_issues", "github.getIssue",
                                                    "fetch-page", "Search"))
    assert all(tool_changes_things(t) for t in ("mergePullRequest", "mcp__github__create_issue", "slack.postMessage"))
    assert lesson_applies("Explain what a merge is", []) and lesson_applies("Explain what a merge is", ["search_logs"])
    assert not lesson_applies("Explain what a merge is", ["merge_pull_request"])
    assert not lesson_applies("Explain what a merge is", ["merge_pull_request", "notify"])
    assert lesson_applies("Explain what a merge is", ["merge_pull_request", "get_status"])  # one reads: may apply
    assert lesson_applies("Merge PR 12", ["merge_pull_request"])


def _fail(bank, goal: str, tool: str, error: str):
    steps = [TraceStep(kind="user", text=goal), TraceStep(kind="tool_call", text=f"{tool}(...)", tool=tool),
             TraceStep(kind="tool_error", text=error, tool=tool)]
    return bank.end_episode(Episode.from_steps(steps), "failure")


def test_a_question_on_the_topic_of_a_failed_change_gets_no_lesson_but_the_change_does():
    with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
        bank = engine.bank("ops")
        merge = _fail(bank, "Merge pull request 482 in the billing repo", "merge_pull_request",
                      "405: branch protection requires 1 approving review")
        logs = _fail(bank, "Search the auth service logs for errors", "search_logs",
                     "400: time range exceeds the 14-day retention")
        assert lesson_tools(merge.lesson) == ["merge_pull_request"]  # not "it" of "before calling it"
        asked = bank.recall_context("Explain what merging a pull request in the billing repo does")
        assert merge.lesson.id not in asked.ids and merge.experience.id not in asked.ids
        assert not asked.lessons
        assert merge.lesson.id in bank.recall_context("Merge pull request 17 in the billing repo").ids
        ungated = DEFAULT_LESSON_MATCH.model_copy(update={"gate_by_request_kind": False})
        assert merge.lesson.id in bank.recall_context(
            "Explain what merging a pull request in the billing repo does", lesson_match=ungated).ids
        # a lesson of a tool that only reads reaches a question: the question would make that call
        assert logs.lesson.id in bank.recall_context("Were there errors in the auth service logs?").ids
        # ... when close enough: a shared signature alone does not do for a question
        strict = DEFAULT_LESSON_MATCH.model_copy(update={"question_min_similarity": 1.0})
        asked_logs = bank.recall_context("Were there errors in the auth service logs?", lesson_match=strict)
        assert logs.lesson.id not in asked_logs.ids and logs.experience.id not in asked_logs.ids
        assert merge.lesson.id in bank.recall_context("Merge pull request 17 in the billing repo",
                                                      lesson_match=strict).ids  # a request to act: no such bar
