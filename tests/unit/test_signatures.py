"""Task signatures: lessons indexed by what a task does (action class, object type, tool, error class),
so a paraphrased goal that shares no word with the failed one still gets its lesson, and lessons of
runs that did nothing never outrank real ones."""

from __future__ import annotations

import pytest

from hindsight_core import InvalidInputError, MemoryEngine
from hindsight_core.episodes import Episode, TraceStep
from hindsight_core.signatures import (
    DEFAULT_LESSON_MATCH,
    DEFAULT_LEXICON,
    LessonMatch,
    error_class,
    goal_signature,
    is_noop_lesson,
    lesson_goal,
    lesson_signature,
    signature_query,
    signatures_match,
)
from hindsight_core.testing import HashEmbedder


def _match(goal: str, lesson_goal_text: str, tool: str | None = None) -> bool:
    return signatures_match(goal_signature(goal), goal_signature(lesson_goal_text, tools=[tool] if tool else []))


@pytest.mark.parametrize("later,failed,tool", [
    ("Push the hotfix live", "Deploy the api service to production", "deploy_service"),
    ("Roll the API token used by billing", "Rotate the database password", "rotate_secret"),
    ("Reserve a plane ticket to Tokyo for Ken", "Book a flight from Berlin to Lisbon for Maria", "book_flight"),
    ("Bounce the stuck queue consumer", "Restart the worker pod", "restart_pod"),
    ("Give the buyer their money back", "Refund order 5531", "refund_payment"),
])
def test_paraphrases_without_shared_words_share_a_signature(later, failed, tool):
    assert _match(later, failed, tool)


@pytest.mark.parametrize("goal,failed,tool", [
    ("Translate 'good morning' into Spanish", "Translate the supplier contract into German", "translate_text"),
    ("Recommend a good book about the history of Rome", "Book a flight to Lisbon", "book_flight"),
    ("Why should passwords be rotated?", "Rotate the database password", "rotate_secret"),
    ("What is the capital of Peru?", "Deploy the api service to production", "deploy_service"),
    ("Announce the release in the team channel", "Deploy the api service to production", "deploy_service"),
])
def test_a_shared_word_or_class_alone_is_no_match(goal, failed, tool):
    assert not _match(goal, failed, tool)


def test_the_tool_name_counts_for_action_and_object():
    sig = goal_signature("Do the thing from the runbook", tools=["deploy_service"])
    assert "deploy" in sig.actions and "software" in sig.objects and sig.tools == {"deploy_service"}
    assert "deploy" in goal_signature("x", tools=["deployService"]).actions  # camelCase too


def test_nouns_after_a_determiner_are_no_actions_unless_marked_as_noun_cues():
    assert "book" not in goal_signature("Recommend a good book").actions
    assert "book" in goal_signature("Book a room in Rome").actions
    assert "export" in goal_signature("Give sales a spreadsheet of all our clients").actions


def test_error_classes():
    assert error_class("PermissionError: deploys need a change ticket") == "permission"
    assert error_class("RateLimitError: 429 too many requests") == "rate_limit"
    assert error_class("TimeoutError: timed out after 10s") == "timeout"
    assert error_class("all fine") is None


def test_lexicon_is_extensible_and_the_match_config_frozen():
    lex = DEFAULT_LEXICON.extend(actions={"irrigate": ("water",)}, objects={"garden": ("lawn",)})
    assert signatures_match(goal_signature("Water the lawn", lexicon=lex),
                            goal_signature("Irrigate the lawn", lexicon=lex.extend(actions={"irrigate": ("irrigate",)})))
    assert "irrigate" not in DEFAULT_LEXICON.actions  # extend copies
    with pytest.raises(Exception):
        DEFAULT_LESSON_MATCH.enabled = False  # type: ignore[misc]
    assert signature_query(goal_signature("Push the hotfix live")).split()[0] == "deploy"


def _fail(bank, goal: str, tool: str, error: str):
    ep = Episode.from_steps([TraceStep(kind="user", text=goal), TraceStep(kind="tool_call", text=f"{tool}()", tool=tool),
                             TraceStep(kind="tool_error", text=error, tool=tool)])
    return bank.end_episode(ep, "failure").lesson


def _noop(bank, goal: str):
    ep = Episode.from_steps([TraceStep(kind="user", text=goal), TraceStep(kind="assistant", text="Here is my answer.")])
    return bank.end_episode(ep, "success")


def test_a_stored_lesson_reads_its_signature_from_what_it_already_holds():
    with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
        bank = engine.bank("ops")
        lesson = _fail(bank, "Deploy the api service to production", "deploy_service",
                       "PermissionError: deploy_service requires ticket=CHG-1")
        sig = lesson_signature(lesson)
        assert lesson_goal(lesson) == "Deploy the api service to production"
        assert "deploy_service" in sig.tools and "deploy" in sig.actions and sig.error == "permission"
        noop = _noop(bank, "What does deploying mean?")
        assert is_noop_lesson(noop.lesson) and is_noop_lesson(noop.experience)
        assert not is_noop_lesson(lesson)


def test_recall_context_brings_the_lesson_to_a_paraphrase_that_shares_no_word():
    with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
        bank = engine.bank("ops")
        lesson = _fail(bank, "Deploy the api service to production", "deploy_service",
                       "PermissionError: deploy_service requires ticket=CHG-1042")
        _fail(bank, "Translate the supplier contract into German", "translate_text", "Error: use glossary=legal-v2")
        ctx = bank.recall_context("Push the hotfix live")
        assert ctx.lessons and ctx.lessons[0].id == lesson.id and "CHG-1042" in ctx.text
        assert lesson.id not in bank.recall_context("Push the hotfix live", lesson_match=None).ids  # words only
        assert not bank.recall_context("What is the capital of Peru?").lessons
        off = DEFAULT_LESSON_MATCH.model_copy(update={"enabled": False})
        assert lesson.id not in bank.recall_context("Push the hotfix live", lesson_match=off).ids
        with pytest.raises(InvalidInputError, match="LessonMatch"):
            bank.recall_context("Push the hotfix live", lesson_match="yes")  # type: ignore[arg-type]


def test_lessons_of_runs_that_did_nothing_never_outrank_real_lessons():
    with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
        bank = engine.bank("ops")
        lesson = _fail(bank, "Deploy the api service to production", "deploy_service",
                       "PermissionError: deploy_service requires ticket=CHG-1042")
        noop = _noop(bank, "Deploy the api service to production now").lesson  # answered, labelled success
        words = bank.recall_context("Deploy the api service to production now", lesson_match=None)
        assert [h.id for h in words.lessons][:1] == [noop.id]  # before: the no-op run led
        ctx = bank.recall_context("Deploy the api service to production now")
        ids = [h.id for h in ctx.lessons]
        assert ids[0] == lesson.id and ids.index(lesson.id) < (ids.index(noop.id) if noop.id in ids else len(ids))


def test_a_no_op_run_is_shown_only_for_a_close_request():
    with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
        bank = engine.bank("ops")
        noop = _noop(bank, "Tell me a joke about penguins and cats")
        strict = DEFAULT_LESSON_MATCH.model_copy(update={"noop_min_similarity": 0.9})
        kept = DEFAULT_LESSON_MATCH.model_copy(update={"demote_noops": False})
        ids = lambda match: bank.recall_context("Tell me a story about cats", lesson_match=match).ids  # noqa: E731
        assert noop.lesson.id in ids(kept) and noop.experience.id in ids(kept)
        assert noop.lesson.id not in ids(strict) and noop.experience.id not in ids(strict)
        assert noop.lesson.id in bank.recall_context("Tell me a joke about penguins and cats").ids  # the same request


def test_lesson_match_validates_its_numbers():
    with pytest.raises(Exception):
        LessonMatch(signature_bonus=2.0)


def test_the_bank_config_sets_how_lessons_are_matched():
    with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
        words_only = engine.bank("ops", lessons={"enabled": False})
        assert engine.bank("other").config.lessons.enabled
        lesson = _fail(words_only, "Deploy the api service to production", "deploy_service",
                       "PermissionError: deploy_service requires ticket=CHG-1042")
        assert lesson.id not in words_only.recall_context("Push the hotfix live").ids
        assert lesson.id in words_only.recall_context("Push the hotfix live", lesson_match=DEFAULT_LESSON_MATCH).ids
        lex = DEFAULT_LEXICON.extend(actions={"irrigate": ("water", "irrigate")}, objects={"garden": ("lawn",)})
        garden = engine.bank("garden", lessons={"lexicon": lex})
        lesson = _fail(garden, "Irrigate the north lawn", "sprinkler", "Error: sprinkler requires zone=3")
        assert lesson.id in garden.recall_context("Water the lawn by the gate").ids


def test_precise_raises_the_bars_and_keeps_everything_else():
    from hindsight_core.signatures import PRECISE_BARS, LessonMatch

    custom = LessonMatch(pool=7, goal_min_similarity=0.8)
    precise = custom.precise()
    assert precise.pool == 7 and precise.goal_min_similarity == 0.8  # a higher bar of its own stays
    assert precise.min_similarity == PRECISE_BARS["min_similarity"] > custom.min_similarity


def test_recall_context_takes_precise_by_name_and_says_what_else_it_takes():
    bank = MemoryEngine.ephemeral(embedder=HashEmbedder()).bank("ops")
    bank.end_episode(Episode.from_steps([
        TraceStep(kind="user", text="Deploy the api service to production"),
        TraceStep(kind="tool_error", text="a change ticket is required", tool="deploy_service")]), "failure")
    assert "change ticket" in bank.recall_context("Push the hotfix live").text  # its signature matches
    assert "change ticket" not in bank.recall_context("Push the hotfix live", lesson_match="precise").text
    with pytest.raises(InvalidInputError, match="'bank', 'precise'"):
        bank.recall_context("Push the hotfix live", lesson_match="strict")
