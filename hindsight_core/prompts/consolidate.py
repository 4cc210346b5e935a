"""The consolidation prompt: clusters of related memories in, one compressed observation per cluster out.

Several clusters go in one call (``LifecycleConfig.llm_batch``). The answer may only compress: every
sentence must trace to its sources, and an observation naming a proper noun or number absent from
its cluster is discarded (see ``lifecycle/consolidate.py``). Override with
``bank.consolidate(prompt=my_build_messages)``: same arguments, ``[(role, content), ...]`` back.
"""

from __future__ import annotations

from typing import Sequence

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SYSTEM", "EXAMPLE", "SHAPE", "DraftObservation", "ConsolidationDraft", "RESPONSE_MODEL", "build_messages"]


class DraftObservation(BaseModel):
    model_config = ConfigDict(extra="ignore")

    cluster: int = Field(description="The cluster's number, as given.")
    text: str = Field(description="One or two sentences that say what the cluster's memories have in common.")
    confidence: float = Field(0.6, ge=0.0, le=1.0)


class ConsolidationDraft(BaseModel):
    model_config = ConfigDict(extra="ignore")

    observations: list[DraftObservation] = Field(default_factory=list)


RESPONSE_MODEL = ConsolidationDraft

SYSTEM = """You compress clusters of related memories of an AI agent into observations.
Rules:
- One observation per cluster: one or two sentences stating what its memories say in common.
- Only compress. Every sentence must follow from the cluster's memories; never add a name, place,
  product or number that is not in them.
- Keep a failure a failure: if the memories describe failures, say so.
- Answer with one JSON object and nothing else: {"observations": [{"cluster": <n>, "text": "...", "confidence": 0..1}]}."""

EXAMPLE = {"observations": [{"cluster": 1, "text": "Deploys of the billing service need a change ticket.",
                             "confidence": 0.7}]}
#: The JSON shape shown to the model: what each key holds, not a finished answer (small local models
#: return a shown example word for word; see ``prompts/reflect.py``).
SHAPE = ('{"observations": [{"cluster": <the cluster\'s number>, '
         '"text": "<what that cluster\'s memories say in common>", "confidence": 0.7}]}')


def build_messages(clusters: Sequence[Sequence[str]]) -> list[tuple[str, str]]:
    """The messages for one batch of clusters, numbered from 1 (pure)."""
    blocks = []
    for n, texts in enumerate(clusters, 1):
        lines = "\n".join(f"  - {' '.join(t.split())[:500]}" for t in texts)
        blocks.append(f"Cluster {n}:\n{lines}")
    human = "\n\n".join(blocks) + f"\n\nAnswer in this JSON shape, one observation per cluster:\n{SHAPE}"
    return [("system", SYSTEM), ("human", human)]
