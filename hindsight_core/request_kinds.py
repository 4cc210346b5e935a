"""Whether a request asks the agent to *change* something, or only for information or text.

A lesson learned when a tool that changes things failed ("merge_pull_request failed: branch
protection needs an approving review") helps only a request that would make that call again. A
question or a writing task on the same topic ("Explain the difference between rebasing and merging a
branch", "Draft a follow-up email to the lead", "Check whether my flight is delayed") calls no such
tool, and showing it the lesson steers the agent wrong. So lessons of tools that change things are
matched only to requests that ask for a change (:func:`lesson_applies`).

The reading is deliberately lopsided: a request counts as a question only when every clause of it
opens as one (a question word, or a verb of asking, looking up or writing: explain, summarise,
check whether, draft ...); anything else, including terse fragments ("rezzy for 9 at Nobu thurs",
"k8s: crank orders-worker to 30"), counts as a change. A tool counts as changing things unless its
name starts with a verb of reading (``get_``, ``search_``, ``export_``, ``translate_`` ...), so an
unknown tool is never gated. Mistakes in either direction cost only what matching cost before.

Example:
    >>> request_kind("Explain the difference between rebasing and merging a branch in Git.")
    'ask'
    >>> request_kind("Can you land Alice's fix for the invoice rounding bug into main?")
    'act'
    >>> request_kind("Find Ana somewhere to stay in Seville and lock it in")
    'act'
    >>> tool_changes_things("merge_pull_request"), tool_changes_things("search_logs")
    (True, False)
    >>> lesson_applies("Write release notes for version 2.3 of our mobile app.", ["publish_post"])
    False
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Literal

__all__ = ["RequestKind", "request_kind", "tool_changes_things", "lesson_applies"]

RequestKind = Literal["ask", "act"]

# Openers that carry no verb of their own: "please", "can you", "I need you to", "help me", "k8s:".
_OPENERS = re.compile(
    r"^(?:[\w.-]+:\s+)?(?:(?:please|pls|plz|hey|hi|ok|okay|so|and|also|now|then|kindly|just|quick(?:ly)?),?\s+)*"
    r"(?:(?:(?:can|could|would|will) (?:you|u)(?: please| pls| quickly| just)?"
    r"|(?:i|we)(?:'d| would) like (?:you |someone )?to|(?:i|we) (?:need|want) (?:you |someone )?to"
    r"|help (?:me|us)|go ahead and|let's|(?:please|pls))\s+)*", re.I)
_QUESTION = (r"what|who|whom|whose|where|when|why|how|which|is|are|am|was|were|do|does|did|isn't|aren't|doesn't|"
             r"didn't")
_ASKING = (r"explain|describe|define|summari[sz]e|compare|contrast|tell me|list|show me|find|check|look up|lookup|"
           r"look into|count|calculate|compute|work out|figure out|convert|translate|proofread|rephrase|reword|"
           r"paraphrase|review|write|draft|compose|outline|suggest|recommend|brainstorm|analy[sz]e|estimate|"
           r"identify|research|read|search|pull up|dig into|grep|verify|teach|quiz|predict|evaluate|assess|"
           r"critique|solve|derive|give me (?:a|an|some|\d+|two|three|four|five|ten|ideas|tips|examples|advice)\b"
           r"|(?:plan|create|make) (?:me )?(?:a|an) (?:[\w-]+ ){0,3}(?:plan|list|outline|summary|poem|story|haiku|"
           r"recipe|itinerary|agenda|checklist|chart|graph|routine|workout|menu|quiz|table)")
_ASK = re.compile(rf"^(?:{_QUESTION}|{_ASKING})\b", re.I)
# "Has the payout landed yet?": a question of state, but "Have Priya countersign it" is a request.
_STATE_QUESTION = re.compile(r"^(?:has|have|had|hasn't|haven't)\b.*\?$", re.I)
# Openers of asking that name a change after all: "write to Jane", "check in the fix", "find ... and book".
_CHANGE_AFTER_ALL = re.compile(r"^(?:write|reply|respond) (?:back )?to\b|^check (?:in|out)\b", re.I)
# Verbs of change after "and": "Find Ana somewhere to stay and lock it in", "Find a slot and send an invite".
_AND_CHANGE = re.compile(
    r"\band (?:then )?(?:book|reserve|order|buy|send|email|text|post|share|invite|submit|pay|lock|cancel|delete|"
    r"remove|update|deploy|add|set|put|move|upload|print|sign|file|publish|merge|push|restart|scale|renew|rotate|"
    r"reset|grant|revoke|approve|transfer|refund|charge|register|enable|disable|turn|schedule|create|fix|apply|"
    r"install|run|trigger|notify|ping|change)\b", re.I)
_CLAUSES = re.compile(r"(?<=[.!?;])\s+|\s+then\s+")
# A full stop after these ends no clause: "Does Dr. Lindqvist speak Spanish?" is one question.
_ABBREVIATION = re.compile(r"(?:^|\s)(?:dr|mr|mrs|ms|mx|prof|st|jr|sr|mt|ave|vs|etc|approx|dept|inc|ltd|co|"
                           r"corp|e\.g|i\.e|a\.m|p\.m|[a-z])\.$", re.I)
_READING_TOOL = re.compile(
    r"^(?:get|list|search|find|fetch|query|read|lookup|look|check|show|describe|count|call|export|download|"
    r"generate|translate|geocode|convert|calculate|summari[sz]e|analy[sz]e|report|validate|preview|estimate|"
    r"forecast|track|browse|view|inspect|lint|test|run_(?:sql|query|report|search|analysis))(?:_|$)", re.I)


@lru_cache(maxsize=4096)
def request_kind(request: str) -> RequestKind:
    """``"ask"`` when every clause of ``request`` asks for information or text, else ``"act"``."""
    clauses = [(c.strip(), _OPENERS.sub("", c.strip()).strip()) for c in _clauses(request.strip())]
    clauses = [(said, clause) for said, clause in clauses if clause]
    if not clauses:
        return "act"
    for said, clause in clauses:  # "Has it landed?" asks; "Could you have Priya sign it?" does not
        asks = _ASK.match(clause) or _STATE_QUESTION.match(said)
        if not asks or _CHANGE_AFTER_ALL.match(clause) or _AND_CHANGE.search(clause):
            return "act"
    return "ask"


def _clauses(request: str) -> list[str]:
    """The request's clauses: split at sentence ends and "then", not after an abbreviation."""
    parts: list[str] = []
    for part in _CLAUSES.split(request):
        if parts and _ABBREVIATION.search(parts[-1]):
            parts[-1] = f"{parts[-1]} {part}"
        else:
            parts.append(part)
    return parts


def tool_changes_things(tool: str) -> bool:
    """Whether a tool (by its name) changes things: true unless the name opens with a verb of reading.
    A server prefix is skipped and any case style read (``mcp__github__search_issues``,
    ``github.searchIssues``, ``search-issues``)."""
    name = re.split(r"__|[./:]", tool.strip())[-1]
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).replace("-", "_").replace(" ", "_")
    return not _READING_TOOL.match(name)


def lesson_applies(request: str, tools: Iterable[str]) -> bool:
    """Whether a lesson about ``tools`` can apply to ``request``: not when the request only asks and
    every tool the lesson names changes things (a lesson that names no tool always may)."""
    tools = [t for t in tools if t]
    if not tools or not all(tool_changes_things(t) for t in tools):
        return True
    return request_kind(request) == "act"
