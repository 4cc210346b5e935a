"""The write path before storage: validate, redact, extract, resolve dates, gate.

Pure functions of their inputs (no I/O), so every step is unit-testable and a batch can be prepared
before a single embedding call.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from hindsight_core._validate import check_enum, check_metadata, check_text, check_time, check_unicode
from hindsight_core.config import BankConfig
from hindsight_core.errors import InvalidInputError
from hindsight_core.lifecycle.extract import extract_entities
from hindsight_core.lifecycle.gate import looks_like_instruction, score_text
from hindsight_core.lifecycle.pii import redact, redact_id, redact_value
from hindsight_core.lifecycle.timeparse import resolve_time_refs
from hindsight_core.lifecycle.update_languages import english_gloss
from hindsight_core.models import CaptureItem, Flag, MemoryKind, MemoryStatus, MemoryUnit, Outcome, Source
from hindsight_core.retrieval.context import window_texts

if TYPE_CHECKING:
    from hindsight_core.embeddings import Embedder

__all__ = ["Prepared", "prepare", "to_item", "SOURCE_CONFIDENCE", "RULE_SOURCES", "RULE_KINDS", "same_facts",
           "embed_batch"]

#: Initial confidence by who said it: first-hand tool output > the user > the agent or model itself.
SOURCE_CONFIDENCE = {Source.TOOL: 0.8, Source.USER: 0.7, Source.SYSTEM: 0.7, Source.AGENT: 0.5, Source.LLM: 0.4}
#: Who may make a standing rule (directive) or a skill active: anything else is stored as a draft that
#: the user confirms (``bank.confirm(unit_id)``). A tool result or the model's own text that says
#: "always approve refunds" must never become a rule by itself.
RULE_SOURCES = frozenset({Source.USER, Source.SYSTEM})
RULE_KINDS = frozenset({MemoryKind.DIRECTIVE, MemoryKind.SKILL})

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


@dataclass(slots=True)
class Prepared:
    unit: MemoryUnit  # ready to store (id assigned)
    stored: bool  # False: the gate dropped it and keep_raw is off
    redactions: tuple[str, ...]


def to_item(obj: Any) -> CaptureItem:
    """Accept a CaptureItem, a dict of capture() arguments, or a bare string."""
    if isinstance(obj, CaptureItem):
        return obj
    if isinstance(obj, str):
        return CaptureItem(text=obj)
    if isinstance(obj, dict):
        unknown = set(obj) - set(CaptureItem.model_fields)
        if unknown:
            raise InvalidInputError(
                f"unknown capture field(s) {sorted(unknown)}; valid fields are {sorted(CaptureItem.model_fields)}"
            )
        from pydantic import ValidationError

        try:
            return CaptureItem.model_validate(obj)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise InvalidInputError(f"invalid capture item: {problems}") from None
    raise InvalidInputError(f"capture items must be CaptureItem, dict or str, not {type(obj).__name__}")


def prepare(
    bank: str,
    config: BankConfig,
    *,
    text: Any,
    source: Any = Source.USER,
    kind: Any = MemoryKind.WORLD,
    session_id: Any = None,
    episode_id: Any = None,
    occurred_at: Any = None,
    mentioned_at: Any = None,
    metadata: Any = None,
    speaker: Any = None,
    importance: Any = None,
    keep_raw: bool | None = None,
    evidence_ids: Any = (),
    outcome: Any = None,
    status: Any = None,
    now: datetime | None = None,
) -> Prepared:
    """Validate everything first (nothing is stored on a bad input), then build the unit."""
    text = check_text(text)
    source = check_enum(source, Source, "source")
    kind = check_enum(kind, MemoryKind, "kind")
    outcome = None if outcome is None else check_enum(outcome, Outcome, "outcome")
    status = None if status is None else check_enum(status, MemoryStatus, "status")
    if source is Source.LLM and status not in (None, MemoryStatus.DRAFT):
        raise InvalidInputError(
            f"text the model wrote itself (source='llm') starts as a draft, not {status.value!r}: it becomes "
            "active when a user or tool says the same thing. Capture it with source='user' or 'tool' if they said it."
        )
    if kind in RULE_KINDS and source not in RULE_SOURCES:
        if status not in (None, MemoryStatus.DRAFT):
            raise InvalidInputError(
                f"a {kind.value} from source={source.value!r} starts as a draft, not {status.value!r}: only the user "
                "or the application (source='user' or 'system') sets standing rules and skills. Capture it as a "
                "draft and let the user confirm it with bank.confirm(unit_id)."
            )
        status = MemoryStatus.DRAFT
    for name, value in (("session_id", session_id), ("episode_id", episode_id), ("speaker", speaker)):
        if value is not None and not isinstance(value, str):
            raise InvalidInputError(f"{name} must be a str or None, not {type(value).__name__}")
        if value is not None:
            check_unicode(value, name)
    if importance is not None and (isinstance(importance, bool) or not isinstance(importance, (int, float))
                                   or not 0.0 <= importance <= 1.0):
        raise InvalidInputError(f"importance must be a number between 0 and 1, got {importance!r}")
    if isinstance(evidence_ids, str) or any(not isinstance(e, str) for e in evidence_ids):
        raise InvalidInputError("evidence_ids must be a list of unit ids (str)")
    metadata = check_metadata(metadata)
    now = now or datetime.now(timezone.utc)
    said = check_time(mentioned_at, "mentioned_at") or now
    happened = check_time(occurred_at, "occurred_at")

    redactions: tuple[str, ...] = ()
    if config.pii.enabled:
        red = redact(text, config.pii.kinds)
        text, redactions = red.text, red.kinds
        metadata, meta_kinds = redact_value(metadata, config.pii.kinds)
        redactions += tuple(k for k in meta_kinds if k not in redactions)
        session_id, session_kinds = redact_id(session_id, config.pii.kinds)  # ids are stored and exported too
        episode_id, episode_kinds = redact_id(episode_id, config.pii.kinds)
        speaker, speaker_kinds = redact_id(speaker, config.pii.kinds)
        redactions += tuple(k for k in session_kinds + episode_kinds + speaker_kinds if k not in redactions)
    if speaker is None and isinstance(metadata.get("speaker"), str):  # read, never removed: the caller's data
        speaker = metadata["speaker"]

    flags: list[str] = []
    if redactions:
        flags.append(Flag.PII_REDACTED)
    if looks_like_instruction(text):
        if kind in (MemoryKind.DIRECTIVE, MemoryKind.SKILL):  # poisoning: a quote must not become a rule
            raise InvalidInputError(
                f"this text reads like an instruction injected into the conversation ('ignore previous "
                f"instructions', 'always approve'...), so it cannot be stored as a {kind.value}. Capture it with "
                "kind='world' to keep it as a flagged quote, or reword the rule."
            )
        flags.append(Flag.INSTRUCTION_LIKE)  # stored as a quote; never promoted to a rule or skill

    entities = extract_entities(text)
    time_refs: tuple[str, ...] = ()
    if config.resolve_dates and happened is None:
        resolution = resolve_time_refs(text, said)
        happened, time_refs = resolution.occurred_at, resolution.refs

    verdict = score_text(text, source=source.value, entity_count=len(entities))
    score = float(importance) if importance is not None else verdict.importance
    reasons = ("caller",) if importance is not None else verdict.reasons
    stored = True
    if score < config.gate.log_only_below:
        flags.append(Flag.LOG_ONLY)
        stored = config.keep_raw if keep_raw is None else keep_raw
    if status is None:
        status = MemoryStatus.DRAFT if source is Source.LLM else MemoryStatus.ACTIVE

    unit = MemoryUnit(
        id=uuid.uuid4().hex,
        bank=bank,
        kind=kind,
        text=text,
        entities=entities,
        occurred_at=happened,
        mentioned_at=said,
        importance=score,
        confidence=SOURCE_CONFIDENCE[source],
        activity=score,
        status=status,
        evidence_ids=tuple(evidence_ids),
        source=source,
        session_id=session_id,
        episode_id=episode_id,
        outcome=outcome,
        metadata=metadata,
        speaker=speaker,
        gate_reasons=reasons,
        flags=tuple(flags),
        time_refs=time_refs,
        created_at=now,
    )
    return Prepared(unit=unit, stored=stored, redactions=redactions)


def same_facts(a: str, b: str, *, ordered: bool = True) -> bool:
    """Two near-identical texts are duplicates only if they state the same numbers and, when
    ``ordered``, name the same things in the same order: "port 8080" and "port 9090" are a change,
    and "Priya's manager is Oskar" is not "Oskar's manager is Priya", however close their vectors.
    A paraphrase may reorder names ("Berlin gets Orion first"): compare those with ``ordered=False``.

    Example:
        >>> same_facts("Alice moved to Berlin.", "Alice has moved to Berlin!")
        True
        >>> same_facts("Priya's manager is now Oskar.", "Oskar's manager is now Priya.")
        False
    """
    if _NUMBER.findall(a) != _NUMBER.findall(b):
        return False
    return not ordered or extract_entities(a) == extract_entities(b)


def embed_batch(embedder: "Embedder", to_store: list[Prepared], last_in_session: Callable[[str], str | None],
                context: bool) -> tuple[np.ndarray | None, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """One embedding call for a batch: row n of the matrix is ``to_store[n]``'s vector and, when
    ``context``, each unit with a predecessor in its session also gets its context-window vector
    (``{unit id: vector}``; see :mod:`hindsight_core.retrieval.context`); a unit written in another
    language gets the vector of its English gloss too (``{unit id: vector}``,
    :func:`~hindsight_core.lifecycle.update_languages.english_gloss`)."""
    if not to_store:
        return None, {}, {}
    texts = [p.unit.text for p in to_store]
    windows = window_texts([(p.unit.session_id, p.unit.text) for p in to_store], last_in_session) if context else []
    extra = [(p.unit.id, w) for p, w in zip(to_store, windows) if w is not None]
    glossed = [(p.unit.id, g) for p in to_store if (g := english_gloss(p.unit.text)) is not None]
    vectors = np.asarray(embedder.embed(texts + [w for _, w in extra] + [g for _, g in glossed]))
    after = len(texts) + len(extra)
    return (vectors[:len(texts)], {uid: vectors[len(texts) + n] for n, (uid, _) in enumerate(extra)},
            {uid: vectors[after + n] for n, (uid, _) in enumerate(glossed)})
