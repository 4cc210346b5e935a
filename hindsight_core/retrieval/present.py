"""Recall prefers the present: the current belief answers the question its predecessor matched.

Questions are usually worded like the *first* statement of a fact ("What port does payments-api
listen on?" against "payments-api listens on 8443"), while the update is worded otherwise ("heads
up: we moved payments-api to 9443"). Two steps, both pure functions over the index:

1. :func:`predecessors`: the superseded units whose current successor is in the candidate pool join
   the pool, so they are scored like any candidate;
2. :func:`inherit`: each of them then hands its score to its successor (when higher) and leaves the
   list, so the current value ranks where the stale one would have, and the stale one stays hidden.
3. :func:`prefer_newer`: when two *active* units near the top state different values for the same
   attribute (a conflict the capture left open), the newer one ranks first, unless a lower-trust
   source contradicts a user, which stays second.

With ``include_history`` (or a question about the past) recall already returns superseded units
as themselves, and none of this applies.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hindsight_core.retrieval.types import BankIndex

__all__ = ["predecessors", "inherit", "prefer_newer", "PREFER_TOP", "PREFER_MIN_STRENGTH"]

_SUPERSEDED = "superseded"
#: How many of the best hits are compared pairwise for a conflict left open (k*(k-1)/2 checks).
PREFER_TOP = 6
#: Rule strength (without the cosine) from which a recall-time reorder is made: the earlier value
#: named as changed, or the same attribute with every subject word repeated. Capture already acted
#: on weaker verdicts where it could; at recall a wrong reorder costs the answer.
PREFER_MIN_STRENGTH = 3.0


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
    for prev, succ in successor_of.items():
        if prev in best and succ in best:
            best[succ] = max(best[succ], best[prev])
    out = [(uid, best[uid]) for uid, _ in fused if uid not in successor_of]
    out.sort(key=lambda hit: -hit[1])
    return out


def prefer_newer(fused: list[tuple[str, float]], index: BankIndex) -> list[tuple[str, float]]:
    """Among the first :data:`PREFER_TOP` hits, a newer statement that updates an older one it
    could not supersede at capture is moved right before it."""
    from hindsight_core.lifecycle.belief_trust import may_supersede
    from hindsight_core.lifecycle.update_rules import update_strength

    head = [uid for uid, _ in fused[:PREFER_TOP]]
    units = index.units
    if len(head) < 2:
        return fused
    vecs = index.vectors(head)
    sims = np.asarray(vecs @ vecs.T)
    order = list(head)
    for i in range(len(head)):
        for j in range(len(head)):
            a, b = units[head[i]], units[head[j]]
            if i == j or a.when >= b.when or not may_supersede(a.source, b.source):
                continue
            if order.index(b.id) <= order.index(a.id):
                continue
            sim = float(sims[i, j])
            if update_strength(a.text, b.text, sim)[1] - sim >= PREFER_MIN_STRENGTH:
                order.remove(b.id)
                order.insert(order.index(a.id), b.id)
    if order == head:
        return fused
    scores = [s for _, s in fused[:len(head)]]  # best first: the reordered head keeps the same scores
    return list(zip(order, scores)) + fused[len(head):]
