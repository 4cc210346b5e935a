"""Recall prefers the present: the current belief answers the question its predecessor matched.

Questions are usually worded like the *first* statement of a fact ("What port does payments-api
listen on?" against "payments-api listens on 8443"), while the update is worded otherwise ("heads
up: we moved payments-api to 9443"). Two steps, both pure functions over the index:

1. :func:`predecessors`: the superseded units whose current successor is in the candidate pool join
   the pool, so they are scored like any candidate;
2. :func:`inherit`: each of them then hands its score to its successor (when higher) and leaves the
   list, so the current value ranks where the stale one would have, and the stale one stays hidden.

With ``include_history`` (or a question about the past) recall already returns superseded units
as themselves, and none of this applies.

Two *active* facts can disagree too, when a change was stated without a cue ("been putting oat
milk in my coffee, can't go back now" after "I take my coffee black"). :func:`rivals` finds such
pairs in the head of the ranking (:mod:`~hindsight_core.lifecycle.rivals` decides the meaning), and
:func:`inherit` treats them like a predecessor and its successor for a question about the present:
the earlier fact stays active and in history, but default recall answers with the later one.
Where the rules see no rivalry (the later text rewords the subject: "our backups run at 2am" /
"nightly backup job kicks off at 4:30 these days"), a learned judge reads the pair through the
stored vectors (:mod:`~hindsight_core.lifecycle.rival_model`; ``RecallConfig.present_judge``).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from hindsight_core.lifecycle.beliefs import is_belief
from hindsight_core.lifecycle.rival_model import THRESHOLD, Closeness, asks_about_now, probability
from hindsight_core.lifecycle.rivals import Judge, Statement, earlier_rivals, states_many
from hindsight_core.lifecycle.update_languages import english_gloss, glossable, is_foreign, read_as_written
from hindsight_core.retrieval.types import BankIndex

__all__ = ["predecessors", "inherit", "rivals", "INHERIT_BONUS", "RIVAL_HEAD", "SURE_JUDGE"]

_SUPERSEDED = "superseded"
#: A current fact that took over a stale one answers through two wordings (the question is usually
#: worded like the first statement): it gets its predecessor's score plus this share of the spread
#: (standard deviation) of the best scores, which breaks near-ties with another fact of the subject.
#: (0.25 left a moved office's notice below "the maths office has the spare calculators" for "where's
#: the maths office?" on the fresh update sets; 0.5 lifts it and changed no other case there.)
INHERIT_BONUS = 0.5
_SPREAD_TOP = 10
#: Disagreeing active facts are looked for among this many best-ranked units (45 pairs at most,
#: each verdict cached): a fact below them does not reach the answer anyway.
RIVAL_HEAD = 10
#: The judge's rating from which a pasted sheet that already replaced one fact answers for one more
#: (:func:`~hindsight_core.lifecycle.rivals.states_many`): higher than the plain threshold, as one
#: message rarely updates two facts.
SURE_JUDGE = 0.95


def predecessors(pool: Sequence[str], index: BankIndex, statuses: frozenset[str]) -> dict[str, str]:
    """``{superseded unit id: its active successor id}`` for the successors in ``pool``."""
    if _SUPERSEDED in statuses:
        return {}
    units = index.units
    out: dict[str, str] = {}
    for uid in pool:
        unit = units.get(uid)
        if unit is None or not unit.evidence_ids:
            continue
        for prev in unit.evidence_ids:
            light = units.get(prev)
            if light is not None and light.status == _SUPERSEDED and prev not in out:
                out[prev] = uid
    return out


def inherit(fused: list[tuple[str, float]], successor_of: dict[str, str]) -> list[tuple[str, float]]:
    """``fused`` without the predecessors, each successor scored at least as its predecessor was."""
    if not successor_of:
        return fused
    best = dict(fused)
    head = np.array([s for _, s in fused[:_SPREAD_TOP]], dtype=np.float64)
    bonus = INHERIT_BONUS * float(head.std()) if len(head) > 1 else 0.0
    for prev, succ in successor_of.items():
        if prev in best and succ in best:
            best[succ] = max(best[succ], best[prev]) + bonus
    out = [(uid, best[uid]) for uid, _ in fused if uid not in successor_of]
    out.sort(key=lambda hit: -hit[1])
    return out


def rivals(fused: Sequence[tuple[str, float]], index: BankIndex, query: str,
           query_vector: np.ndarray | None = None, threshold: float | None = None) -> dict[str, str]:
    """``{earlier unit id: later unit id}`` for active beliefs among the first :data:`RIVAL_HEAD`
    of ``fused`` where the later one states the present value of what ``query`` asks the earlier
    one about (:func:`~hindsight_core.lifecycle.rivals.earlier_rivals`).

    With ``query_vector``, the learned judge (:mod:`~hindsight_core.lifecycle.rival_model`) also
    reads the pairs the rules leave undecided, through the stored vectors, and lets a later statement
    answer from ``threshold`` on (None: the fitted :data:`~hindsight_core.lifecycle.rival_model.THRESHOLD`);
    a pasted sheet that already replaced a fact answers for one more from :data:`SURE_JUDGE` on."""
    units = index.units
    head: list[Statement] = []
    for uid, _ in fused[:RIVAL_HEAD]:
        u = units.get(uid)
        if u is None or not is_belief(u.kind, u.status, u.outcome, u.flags, u.text):
            continue
        replaced = any(units[e].status == _SUPERSEDED for e in u.evidence_ids if e in units)
        head.append(Statement(uid, u.text, u.mentioned_at, u.speaker, u.source, replaced))
    if len(head) < 2:
        return {}
    # a question about a past event gets probability 0.0 for every pair: no need to read them
    if query_vector is None or not asks_about_now(query):
        return earlier_rivals(head, query)
    judge_at = _judge(head, index, query, query_vector)  # the vectors are read once for both thresholds
    plain = THRESHOLD if threshold is None else threshold
    sheets = any(s.replaced_another and states_many(s.text) for s in head)
    return earlier_rivals(head, query, judge_at(plain), judge_at(max(SURE_JUDGE, plain)) if sheets else None)


def _judge(head: list[Statement], index: BankIndex, query: str,
           query_vector: np.ndarray) -> Callable[[float], Judge]:
    """The learned judge over ``head``'s stored vectors, at a given threshold: the earlier candidate it
    rates most likely answered for by the later statement, when that rating reaches the threshold.

    A later message in another language is also read against an English earlier statement through
    its English gloss and the gloss's stored vector, and the surer reading counts: the judge's
    signals and the bundled embedder read English. Without a change cue in its own words, the message
    is read through its gloss only (as the rules leave it). Two statements both in another language
    are not glossed: the gloss misses one-offs and denials the earlier text's own language states
    ("solo per stanotte", "non è passato"), and two glosses add up their errors."""
    vecs = _unit_rows(index.vectors([s.id for s in head]))
    q = np.asarray(query_vector, dtype=np.float64).reshape(-1)
    q = q / (np.linalg.norm(q) + 1e-12)
    row = {s.id: i for i, s in enumerate(head)}
    to_query = vecs @ q
    units = index.units

    def best(newer: Statement, earlier: list[Statement]) -> tuple[float, Statement] | None:
        n = row[newer.id]
        qo = [float(to_query[row[o.id]]) for o in earlier]
        # readings: (the later text per candidate, None where it is not read so; its vector; its cosine to the question)
        readings = []
        if read_as_written(newer.text):
            readings.append(([newer.text] * len(earlier), vecs[n], float(to_query[n])))
        gloss = units[newer.id].gloss
        if gloss is not None:  # glossable(): no question, plan or one-off in its own words
            gloss, glossed = _unit_rows(gloss[None, :])[0], english_gloss(newer.text)
            readings.append(([glossed if glossable(o.text, newer.text) and not is_foreign(o.text) else None
                              for o in earlier], gloss, float(gloss @ q)))
        top: tuple[float, Statement] | None = None
        for texts, later, qn in readings:
            on = [float(vecs[row[o.id]] @ later) for o in earlier]
            for i, o in enumerate(earlier):
                if texts[i] is None:
                    continue
                close = Closeness.among(on[i], qn, qo[i], on, qo)  # itself ties: still the closest
                p = probability(o.text, texts[i], query, close)
                if top is None or p > top[0]:
                    top = (p, o)
        return top

    def at(threshold: float) -> Judge:
        def judge(newer: Statement, earlier: list[Statement]) -> Statement | None:
            found = best(newer, earlier)
            return found[1] if found is not None and found[0] >= threshold else None
        return judge

    return at


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    out = np.asarray(matrix, dtype=np.float64)
    return out / (np.linalg.norm(out, axis=1, keepdims=True) + 1e-12)
