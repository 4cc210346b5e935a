"""The contradiction-judge prompt: an older and a newer statement in, a :class:`ContradictionVerdict` out.

Used only for close pairs the rules in ``lifecycle/beliefs.py`` and ``lifecycle/update_rules.py`` leave
undecided, and only when the engine has a chat model (``MemoryEngine(llm=...)``); verdicts are cached per
model and recorded in the superseded unit's flags (``superseded (llm: ...)``).
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SYSTEM", "EXAMPLE", "ContradictionVerdict", "RESPONSE_MODEL", "build_messages"]


class ContradictionVerdict(BaseModel):
    model_config = ConfigDict(extra="ignore")

    contradicts: bool = Field(description="True when the newer statement replaces what the older one says.")
    reason: str = ""


RESPONSE_MODEL = ContradictionVerdict

SYSTEM = """You decide whether a newer statement updates an older one about the same subject and attribute
(a changed value, a negation, a changed number, a correction), so that the older one no longer holds.
Compare what each is about (the subject and the attribute: a service's port, a person's role, a budget),
not the wording. These do not update the older statement: a question, a hypothetical ("if we ever..."),
a plan or idea ("thinking about..."), a temporary exception ("just for today"), a failed attempt, a
cancelled plan, a denial, a past event, someone else's preference, another attribute of the same
subject, or an addition ("I also like tea"). Two statements that can both be true do not contradict.
Answer with one JSON object and nothing else: {"contradicts": true|false, "reason": "..."}."""

EXAMPLE = {"contradicts": True, "reason": "same service, the port changed from 8080 to 9090"}


def build_messages(older: str, newer: str) -> list[tuple[str, str]]:
    """The messages for one judgement (pure)."""
    human = f"Older: {older}\nNewer: {newer}\n\nExample of the JSON shape:\n{json.dumps(EXAMPLE)}"
    return [("system", SYSTEM), ("human", human)]
