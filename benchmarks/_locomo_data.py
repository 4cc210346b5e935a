"""LoCoMo loading and scoring helpers shared by the benchmark harnesses.

The data file is read by path (``$HINDSIGHT_LOCOMO`` or ``../shared/data/locomo/locomo10.json``
relative to the repository root); it is never copied into the repository.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Sequence

__all__ = [
    "Turn",
    "Question",
    "Conversation",
    "load_locomo",
    "data_path",
    "format_turn",
    "evidence_recall",
    "session_recall",
    "ndcg",
    "hit_any",
    "CATEGORY_NAMES",
    "parse_conversations",
]

ROOT = Path(__file__).resolve().parent.parent
CATEGORY_NAMES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}
_EVID = re.compile(r"D:?(\d+):0*(\d+)")


@dataclass(slots=True)
class Turn:
    dia_id: str
    speaker: str
    text: str  # formatted: '{speaker} said, "{text}"' (+ ' and shared {caption}')
    session: int
    session_time: datetime


@dataclass(slots=True)
class Question:
    question: str
    evidence: tuple[str, ...]
    category: int
    answer: str


@dataclass(slots=True)
class Conversation:
    index: int
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def as_of(self) -> datetime:
        return max(t.session_time for t in self.turns)


def data_path() -> Path:
    env = os.environ.get("HINDSIGHT_LOCOMO")
    if env:
        return Path(env)
    return ROOT.parent / "shared" / "data" / "locomo" / "locomo10.json"


def format_turn(speaker: str, text: str, caption: str | None) -> str:
    out = f'{speaker} said, "{text}"'
    if caption:
        out += f" and shared {caption}"
    return out


def _parse_time(value: str) -> datetime:
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def _normalise_evidence(raw: Iterable[str], known: set[str]) -> tuple[str, ...]:
    out: list[str] = []
    for item in raw:
        for piece in re.split(r"[;,\s]+", str(item)):
            m = _EVID.fullmatch(piece.strip())
            if m:
                did = f"D{int(m.group(1))}:{int(m.group(2))}"
                if did in known and did not in out:
                    out.append(did)
    return tuple(out)


def load_locomo(path: Path | None = None) -> list[Conversation]:
    """All conversations with formatted turns and scorable questions (no usable evidence: skipped)."""
    data = json.loads((path or data_path()).read_text())
    convs: list[Conversation] = []
    for ci, sample in enumerate(data):
        c = sample["conversation"]
        conv = Conversation(ci, sample["sample_id"], (c["speaker_a"], c["speaker_b"]))
        n = 1
        while f"session_{n}" in c:
            when = _parse_time(c[f"session_{n}_date_time"])
            for t in c[f"session_{n}"]:
                conv.turns.append(
                    Turn(t["dia_id"], t["speaker"], format_turn(t["speaker"], t["text"], t.get("blip_caption")), n, when)
                )
            n += 1
        known = {t.dia_id for t in conv.turns}
        for q in sample["qa"]:
            ev = _normalise_evidence(q.get("evidence", []), known)
            if ev:
                conv.questions.append(Question(q["question"], ev, int(q["category"]), str(q.get("answer", ""))))
        convs.append(conv)
    return convs


def parse_conversations(spec: str, split: str = "all") -> list[int]:
    """``"0-9"`` / ``"0,3,5"`` intersected with the split (dev 0-6, heldout 7-9)."""
    ids: list[int] = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            ids.extend(range(int(a), int(b) + 1))
        elif part.strip():
            ids.append(int(part))
    allowed = {"dev": set(range(7)), "heldout": {7, 8, 9}, "all": set(range(10))}[split]
    return [i for i in ids if i in allowed]


def _session_of(dia_id: str) -> str:
    return dia_id.split(":")[0]


def evidence_recall(gold: Sequence[str], ranked_turns: Sequence[Sequence[str]], k: int) -> float:
    """|gold ∩ turns behind the top-k items| / |gold|; each item may stand for several turns."""
    got: set[str] = set()
    for item in ranked_turns[:k]:
        got.update(item)
    return len(set(gold) & got) / len(set(gold))


def hit_any(gold: Sequence[str], ranked_turns: Sequence[Sequence[str]], k: int) -> float:
    return 1.0 if evidence_recall(gold, ranked_turns, k) > 0 else 0.0


def session_recall(gold: Sequence[str], ranked_turns: Sequence[Sequence[str]], k: int) -> float:
    gs = {_session_of(g) for g in gold}
    got = {_session_of(t) for item in ranked_turns[:k] for t in item}
    return len(gs & got) / len(gs)


def ndcg(gold: Sequence[str], ranked_turns: Sequence[Sequence[str]], k: int = 10) -> float:
    g = set(gold)
    dcg = 0.0
    seen: set[str] = set()
    for i, item in enumerate(ranked_turns[:k]):
        new = (set(item) & g) - seen
        if new:
            dcg += 1.0 / math.log2(i + 2)
            seen |= new
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(g), k)))
    return dcg / ideal if ideal else 0.0
