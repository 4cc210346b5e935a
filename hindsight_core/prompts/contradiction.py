"""The contradiction-judge prompt: an older and a newer statement in, a :class:`ContradictionVerdict` out.

Used only for close pairs the rules in ``lifecycle/beliefs.py`` and ``lifecycle/update_rules.py`` leave
undecided, and only when the engine has a chat model (``MemoryEngine(llm=...)``); verdicts are cached per
model and recorded in the superseded unit's flags (``superseded (llm: ...)``).
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SYSTEM", "EXAMPLES", "EXAMPLE", "ContradictionVerdict", "RESPONSE_MODEL", "build_messages"]


class ContradictionVerdict(BaseModel):
    """The model's reading of a pair: what each statement is about, then the verdict. A verdict that
    the statements contradict counts only when the model also found them about the same attribute
    (small models say "contradicts" for two attributes of one subject; naming the attributes first
    makes the mismatch visible to them and to this check)."""

    model_config = ConfigDict(extra="ignore")

    older_about: str = ""
    newer_about: str = ""
    same_attribute: bool = True
    contradicts: bool = Field(description="True when the newer statement replaces what the older one says.")
    reason: str = ""

    @property
    def updates(self) -> bool:
        """The verdict that counts: contradicts, about the same attribute."""
        return self.contradicts and self.same_attribute

    @property
    def explanation(self) -> str:
        """Why, in the model's words (its reason, else what it read each statement to be about)."""
        return self.reason or f"{self.older_about} -> {self.newer_about}".strip(" ->")


RESPONSE_MODEL = ContradictionVerdict

#: Worked pairs shown to the model, of both verdicts: with a single example, small local models copy
#: its verdict (Qwen2.5 0.5B and 1.5B answered "contradicts" to all 29 pairs of a dev run).
EXAMPLES: tuple[tuple[str, str, dict], ...] = (
    ("The team wiki lives at wiki.corp.local.", "fyi we moved the wiki to docs.example.com over the weekend",
     {"older_about": "the wiki's address: wiki.corp.local", "newer_about": "the wiki's address: docs.example.com",
      "same_attribute": True, "contradicts": True}),
    ("The gym opens at 6am on weekdays.", "The gym got two new rowing machines.",
     {"older_about": "the gym's opening time: 6am", "newer_about": "the gym's equipment: new rowing machines",
      "same_attribute": False, "contradicts": False}),
    ("My manager is Dana.", "if Dana ever leaves, Priya would probably take over",
     {"older_about": "my manager: Dana", "newer_about": "my manager, hypothetically: Priya",
      "same_attribute": True, "contradicts": False}),
)
EXAMPLE = EXAMPLES[0][2]  #: one answer of the shape (kept for code that read it before EXAMPLES)

SYSTEM = """You decide whether a newer statement updates an older one about the same subject and attribute
(a changed value, a negation, a changed number, a correction), so that the older one no longer holds.
First name what each statement is about: its subject, the attribute (a service's port, a person's role,
a budget, an opening time, ...) and the value. Two different attributes of one subject never contradict.
These do not update the older statement either: a question, a hypothetical ("if we ever..."), a plan or
idea ("thinking about..."), a temporary exception ("just for today"), a failed attempt, a cancelled plan,
a denial, a past event, someone else's preference, or an addition ("I also like tea"). Two statements
that can both be true do not contradict. Answer with one JSON object and nothing else:
{"older_about": "...", "newer_about": "...", "same_attribute": true or false, "contradicts": true or false}.

""" + "\n".join(f"Older: {older}\nNewer: {newer}\nAnswer: {json.dumps(verdict)}\n" for older, newer, verdict in EXAMPLES)


def build_messages(older: str, newer: str) -> list[tuple[str, str]]:
    """The messages for one judgement (pure)."""
    return [("system", SYSTEM), ("human", f"Older: {older}\nNewer: {newer}\nAnswer:")]
